//! Reading code by symbol, end to end: the real binary, the bundled parser
//! components, the index and its cache on disk (seed 003, ambits).

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "a test fails by panicking, its helpers too"
)]

use std::path::{Path, PathBuf};
use std::process::Output;

use amber_tests::cli::amber_command;
use amber_tests::exec_env::{fake, text, Env};
use amber_tests::{guest, native_parsers, repo_root};
use serde_json::Value;

const AMBER: &str = env!("CARGO_BIN_EXE_amber");

/// A scratch home and a workspace.
struct Code {
    _dir: tempfile::TempDir,
    home: PathBuf,
    ws: PathBuf,
}

impl Code {
    fn new() -> Code {
        let dir = tempfile::tempdir().unwrap();
        let home = dir.path().join("home");
        let ws = dir.path().join("ws");
        std::fs::create_dir_all(&home).unwrap();
        std::fs::create_dir_all(&ws).unwrap();
        Code {
            _dir: dir,
            home,
            ws,
        }
    }

    /// A workspace holding a copy of `fixtures/parsers`.
    fn with_fixtures() -> Code {
        let code = Code::new();
        copy_tree(&repo_root().join("fixtures/parsers"), &code.ws);
        code
    }

    fn write(&self, rel: &str, content: &str) {
        let path = self.ws.join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, content).unwrap();
    }

    fn run(&self, args: &[&str]) -> Output {
        amber_command(AMBER, &self.home, &self.ws)
            .args(args)
            .output()
            .unwrap()
    }

    fn ok(&self, args: &[&str]) -> String {
        let out = self.run(args);
        assert!(out.status.success(), "{args:?}: {}", text(&out.stderr));
        text(&out.stdout)
    }

    fn json(&self, args: &[&str]) -> Value {
        let out = self.ok(args);
        serde_json::from_str(&out).unwrap_or_else(|e| panic!("{args:?}: {e}: {out}"))
    }

    /// `amber ARGS` on a pseudo-terminal (util-linux `script`), as a
    /// person at a terminal runs it: everything it drew, both streams.
    #[cfg(target_os = "linux")]
    fn on_terminal(&self, args: &str) -> String {
        let amber = amber_command(AMBER, &self.home, &self.ws);
        let mut cmd = std::process::Command::new("script");
        for (key, value) in amber.get_envs() {
            match value {
                Some(value) => cmd.env(key, value),
                None => cmd.env_remove(key),
            };
        }
        let out = cmd
            .args(["-qec", &format!("{AMBER} {args}"), "/dev/null"])
            .stdin(std::process::Stdio::null())
            .output()
            .expect("util-linux `script`");
        assert!(out.status.success(), "{args}: {}", text(&out.stdout));
        text(&out.stdout)
    }

    fn fails(&self, args: &[&str]) -> String {
        let out = self.run(args);
        assert_eq!(
            out.status.code(),
            Some(1),
            "{args:?}: {}",
            text(&out.stdout)
        );
        text(&out.stderr)
    }
}

fn copy_tree(from: &Path, to: &Path) {
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            std::fs::create_dir_all(&target).unwrap();
            copy_tree(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), target).unwrap();
        }
    }
}

#[test]
fn outlines_of_each_language_match_their_snapshots() {
    let code = Code::with_fixtures();
    for (name, file) in [
        ("rust", "rust/shapes.rs"),
        ("python", "python/inventory.py"),
        ("markdown", "markdown/guide.md"),
        ("tsx", "tsx/App.tsx"),
        ("javascript", "javascript/cart.js"),
        ("jsx", "jsx/CartView.jsx"),
        ("typescript_merge", "typescript/source_utils_merge.ts"),
        (
            "typescript_http_error",
            "typescript/source_errors_HTTPError.ts",
        ),
    ] {
        insta::assert_snapshot!(name, code.ok(&["outline", file]));
    }
}

/// Up to `n` files under `dir` ending in `ext`, sorted, skipping tiny ones.
fn real_files(dir: &Path, ext: &str, n: usize) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|d| d.flatten().map(|e| e.path()).collect())
        .unwrap_or_default();
    files.retain(|p| {
        p.extension().is_some_and(|e| e == ext)
            && std::fs::metadata(p).is_ok_and(|m| m.len() > 1000)
    });
    files.sort();
    files.truncate(n);
    files
}

/// The Debian Python's standard library: real Python on every machine of
/// this kind.
fn python_stdlib() -> PathBuf {
    let mut dirs: Vec<PathBuf> = std::fs::read_dir("/usr/lib")
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| {
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            name.starts_with("python3.") && p.join("json/decoder.py").exists()
        })
        .collect();
    dirs.sort();
    dirs.pop()
        .expect("a Python 3 standard library under /usr/lib")
}

/// npm's own JavaScript: `lib/` beside the script the `npm` command runs
/// (/usr/lib/node_modules/npm from nodesource, /usr/share/nodejs/npm from
/// Debian). `cargo xtask test` installs npm when it is missing.
fn npm_lib() -> PathBuf {
    let out = std::process::Command::new("sh")
        .args(["-c", "readlink -f \"$(command -v npm)\""])
        .output()
        .expect("sh runs");
    let script = PathBuf::from(String::from_utf8_lossy(&out.stdout).trim());
    let lib = script
        .ancestors()
        .find(|dir| dir.join("lib/npm.js").exists())
        .map(|dir| dir.join("lib"));
    lib.unwrap_or_else(|| {
        panic!(
            "npm's lib/ not found from `npm` at {:?}: run `cargo xtask test`, which installs npm",
            script
        )
    })
}

#[test]
fn the_wasm_outline_equals_the_native_outline_on_real_files() {
    let code = Code::new();
    let repo = repo_root();
    let sets: Vec<(&str, Vec<PathBuf>)> = vec![
        ("rust", real_files(&repo.join("host/core/src"), "rs", 6)),
        ("python", real_files(&python_stdlib(), "py", 6)),
        ("javascript", real_files(&npm_lib(), "js", 6)),
        (
            "typescript",
            real_files(&repo.join("fixtures/parsers/typescript"), "ts", 6),
        ),
        (
            "tsx",
            real_files(&repo.join("fixtures/parsers/tsx-tanstack"), "tsx", 6),
        ),
        ("markdown", real_files(&repo.join("docs"), "md", 6)),
    ];
    for (lang, files) in &sets {
        assert!(files.len() >= 5, "{lang}: only {} real files", files.len());
        for file in files {
            let to = code.ws.join(lang).join(file.file_name().unwrap());
            std::fs::create_dir_all(to.parent().unwrap()).unwrap();
            std::fs::copy(file, to).unwrap();
        }
    }
    let index = code.json(&["index", "--json", "--symbols"]);
    assert_eq!(index["report"]["skipped"], serde_json::json!([]));
    let mut native = native_parsers::outliner();
    let mut compared = 0;
    for entry in index["files"].as_array().unwrap() {
        let path = entry["path"].as_str().unwrap();
        let source = std::fs::read_to_string(code.ws.join(path)).unwrap();
        let ext = path.rsplit('.').next().unwrap();
        let lang = native_parsers::language_of(ext).unwrap();
        assert_eq!(entry["language"], lang);
        let expected = native.outline(lang, &source).unwrap();
        let got = entry["symbols"].as_array().unwrap();
        assert_eq!(got.len(), expected.len(), "{path}");
        for (g, e) in got.iter().zip(&expected) {
            let got = (
                g["kind"].as_str().unwrap(),
                g["name"].as_str().unwrap(),
                g["parent"].as_u64().map(|p| p as u32),
                [
                    g["byte_start"].as_u64(),
                    g["byte_end"].as_u64(),
                    g["signature_end"].as_u64(),
                ],
                [g["line_start"].as_u64(), g["line_end"].as_u64()],
            );
            let want = (
                e.kind.as_str(),
                e.name.as_str(),
                e.parent,
                [e.byte_start, e.byte_end, e.signature_end].map(|v| Some(v as u64)),
                [e.line_start, e.line_end].map(|v| Some(v as u64)),
            );
            assert_eq!(got, want, "{path}");
        }
        compared += 1;
    }
    assert!(compared >= 30, "compared {compared} files");
}

// util-linux `script -qec`; BSD `script` takes other flags.
#[cfg(target_os = "linux")]
#[test]
fn the_index_progress_bar_draws_on_a_terminal_and_is_cleared() {
    let code = Code::new();
    for i in 0..300 {
        code.write(&format!("src/f{i}.rs"), &format!("fn f{i}() {{}}\n"));
    }
    let drawn = code.on_terminal("index");
    let bar = drawn.find("indexing ").expect("the bar was drawn");
    assert!(drawn[bar..].contains("/300 files"), "{drawn:?}");
    // Cleared before the summary: the summary is the last line.
    let summary = drawn.rfind("indexed 300 files").unwrap();
    assert!(drawn.rfind("indexing ").unwrap() < summary, "{drawn:?}");
    // Not drawn where a script reads: with --json, or piped.
    assert!(!code.on_terminal("index --json").contains("indexing "));
    let piped = code.run(&["index"]);
    assert!(!text(&piped.stderr).contains("indexing "));
    assert!(!text(&piped.stdout).contains("indexing "));
}

#[test]
fn a_reindex_parses_only_changed_files_and_a_rename_parses_nothing() {
    let code = Code::new();
    code.write("src/a.rs", "fn a() {}\n");
    code.write("src/b.rs", "fn b() {}\nstruct B;\n");
    code.write("README.md", "# Title\n## Part\n");
    code.write("target/ignored.rs", "fn ignored() {}\n");
    code.write(".gitignore", "target/\n");
    let report = |code: &Code| code.json(&["index", "--json"])["report"].clone();
    let first = report(&code);
    assert_eq!(
        (
            first["files"].as_u64(),
            first["parsed"].as_u64(),
            first["cached"].as_u64()
        ),
        (Some(3), Some(3), Some(0))
    );
    assert_eq!(first["symbols"], 5);
    assert_eq!(
        first["languages"],
        serde_json::json!({"markdown": 1, "rust": 2})
    );
    let again = report(&code);
    assert_eq!(
        (again["parsed"].as_u64(), again["cached"].as_u64()),
        (Some(0), Some(3))
    );
    code.write("src/b.rs", "fn b() {}\nstruct B;\nenum C {}\n");
    let changed = report(&code);
    assert_eq!(
        (changed["parsed"].as_u64(), changed["cached"].as_u64()),
        (Some(1), Some(2))
    );
    assert_eq!(changed["symbols"], 6);
    std::fs::rename(code.ws.join("src/a.rs"), code.ws.join("src/renamed.rs")).unwrap();
    let renamed = report(&code);
    assert_eq!(
        (renamed["parsed"].as_u64(), renamed["cached"].as_u64()),
        (Some(0), Some(3))
    );
    // Turning one parser off keeps the other languages' outlines cached.
    code.ok(&["plugin", "disable", "parser-markdown"]);
    let without = report(&code);
    assert_eq!(
        (
            without["files"].as_u64(),
            without["parsed"].as_u64(),
            without["cached"].as_u64()
        ),
        (Some(2), Some(0), Some(2))
    );
    // A change while it is off rewrites the cache, and keeps its outlines.
    code.write(
        "src/b.rs",
        "fn b() {}\nstruct B;\nenum C {}\nconst D: u8 = 0;\n",
    );
    let edited = report(&code);
    assert_eq!(
        (edited["parsed"].as_u64(), edited["cached"].as_u64()),
        (Some(1), Some(1))
    );
    // Back on (the same build), its outlines were never thrown away.
    code.ok(&["plugin", "enable", "parser-markdown"]);
    let plain = code.ok(&["index"]);
    assert!(
        plain.starts_with(
            "indexed 3 files (markdown 1, rust 2): 7 symbols; 0 parsed, 3 from the cache"
        ),
        "{plain}"
    );
}

#[test]
fn indexing_a_folder_of_the_workspace_keeps_the_workspaces_ids() {
    let code = Code::new();
    code.write("sub/a.rs", "fn inside() {}\n");
    code.write("other/b.rs", "fn outside() {}\n");
    // PATH is read from the workspace, not from the process's directory.
    let indexed = code.json(&["index", "sub", "--json", "--symbols"]);
    assert_eq!(indexed["folder"], "sub");
    assert_eq!(indexed["report"]["files"], 1);
    let ids: Vec<&str> = indexed["files"][0]["symbols"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, ["sub/a.rs::inside"]);
    // The same id `show` takes, from the same cache.
    assert!(code
        .ok(&["show", "sub/a.rs::inside"])
        .contains("fn inside() {}"));
    let whole = code.json(&["index", "--json"])["report"].clone();
    assert_eq!(
        (whole["files"].as_u64(), whole["cached"].as_u64()),
        (Some(2), Some(1))
    );
    assert!(code.fails(&["index", "nowhere"]).contains("cannot index"));
}

#[test]
fn show_finds_symbols_by_id_and_by_hash_prefix() {
    let code = Code::with_fixtures();
    let out = code.ok(&["show", "rust/shapes.rs::Point/new"]);
    assert!(
        out.starts_with("// rust/shapes.rs::Point/new (rust/shapes.rs:13-16, b3:"),
        "{out}"
    );
    assert!(out.contains("    /// The origin.\n    pub fn new() -> Self {\n        Point { x: 0.0, y: 0.0 }\n    }\n"), "{out}");
    // The impl inside `mod geometry` is another symbol.
    let nested = code.ok(&["show", "rust/shapes.rs::geometry/Point/new"]);
    assert!(nested.contains("Point { x: 1.0, y: 1.0 }"), "{nested}");
    let signature = code.ok(&["show", "--no-body", "rust/shapes.rs::Display for Point/fmt"]);
    assert!(
        signature.ends_with("    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result\n"),
        "{signature}"
    );
    let heading = code.json(&["show", "--json", "markdown/guide.md::Guide/Quick start"]);
    assert_eq!(
        heading[0]["source"],
        "## Quick start\n\nInstall, then run.\n\n### From source\n\nBuild it.\n\n"
    );

    // By hash: any 8 or more hex digits of the symbol's hash.
    let outline = code.json(&["outline", "--json", "python/inventory.py"]);
    let restock = outline["symbols"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["id"] == "python/inventory.py::Item/restock")
        .unwrap();
    let prefix = &restock["hash"].as_str().unwrap()[..13];
    let shown = code.json(&["show", "--json", prefix]);
    assert_eq!(shown[0]["id"], "python/inventory.py::Item/restock");
    assert_eq!(shown[0]["line_start"], 16);

    let cut = code.json(&[
        "show",
        "--json",
        "--max-bytes",
        "10",
        "rust/shapes.rs::report",
    ]);
    assert_eq!(
        (cut[0]["source"].as_str(), cut[0]["truncated"].as_bool()),
        (Some("fn report("), Some(true))
    );

    assert!(code
        .fails(&["show", "b3:12ab"])
        .contains("8 or more hex digits"));
    assert!(code
        .fails(&["show", "rust/shapes.rs::Nope"])
        .contains("no symbol `rust/shapes.rs::Nope`"));
    // A path written another way names the same file.
    let dotted = code.json(&["show", "--json", "./rust/../rust/shapes.rs::UNIT"]);
    assert_eq!(dotted[0]["id"], "rust/shapes.rs::UNIT");
    assert!(code
        .fails(&["show", "no-colons"])
        .contains("<path>::<name>"));
    assert!(code
        .fails(&["show", "missing.rs::x"])
        .contains("missing.rs: no such file"));
    assert!(code
        .fails(&["show", "../outside.rs::x"])
        .contains("outside the workspace"));
    std::os::unix::fs::symlink("/etc/hostname", code.ws.join("link.rs")).unwrap();
    assert!(code
        .fails(&["outline", "link.rs"])
        .contains("outside the workspace"));
    // One bad selector does not hide the good ones.
    let out = code.run(&["show", "rust/shapes.rs::UNIT", "rust/shapes.rs::Nope"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out.stdout).contains("pub const UNIT: f64 = 1.0;"));
    assert!(text(&out.stderr).contains("1 of 2 symbols not shown"));
}

#[test]
fn repeated_names_get_numbers_and_identical_bytes_share_a_hash() {
    let code = Code::new();
    // Three `def f` in one file: `f`, `f#2`, `f#3`.
    code.write(
        "dup.py",
        "def f():\n    return 1\n\ndef f():\n    return 2\n\ndef f():\n    return 3\n",
    );
    // The same bytes in two files: one hash, two ids.
    code.write("a.rs", "fn same() {}\n");
    code.write("b.rs", "fn same() {}\n");
    let outline = code.json(&["outline", "--json", "dup.py"]);
    let ids: Vec<&str> = outline["symbols"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, ["dup.py::f", "dup.py::f#2", "dup.py::f#3"]);
    assert!(code.ok(&["show", "dup.py::f#3"]).contains("return 3"));
    // Exactly 8 hex digits are enough.
    let third = outline["symbols"][2]["hash"].as_str().unwrap();
    let shown = code.json(&["show", "--json", &third[..11]]);
    assert_eq!(shown[0]["id"], "dup.py::f#3");
    assert!(code
        .fails(&["show", &third[..10]])
        .contains("8 or more hex digits"));
    // Identical bytes: no prefix can tell them apart, and the error says so.
    let a = code.json(&["outline", "--json", "a.rs"]);
    let hash = a["symbols"][0]["hash"].as_str().unwrap();
    let err = code.fails(&["show", hash]);
    assert!(
        err.contains("names 2 symbols: a.rs::same, b.rs::same; their bytes are identical"),
        "{err}"
    );
}

#[test]
fn callers_attributes_calls_to_symbols_including_calls_inside_macros() {
    let code = Code::with_fixtures();
    let found = code.json(&["callers", "--json", "distance", "midpoint"]);
    let sites: Vec<(String, u64, String)> = found["sites"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            (
                s["name"].as_str().unwrap().to_string(),
                s["line"].as_u64().unwrap(),
                s["caller"].as_str().unwrap_or("-").to_string(),
            )
        })
        .collect();
    let want = [
        ("distance", 69, "rust/shapes.rs::report"),
        ("distance", 71, "rust/shapes.rs::report"),
        ("distance", 80, "rust/shapes.rs::tests/origin_is_zero"),
        ("midpoint", 70, "rust/shapes.rs::report"),
    ];
    let want: Vec<(String, u64, String)> = want
        .iter()
        .map(|(n, l, c)| (n.to_string(), *l, c.to_string()))
        .collect();
    assert_eq!(sites, want);
    let plain = code.ok(&["callers", "restock"]);
    assert_eq!(
        plain,
        "python/inventory.py:43  python/inventory.py::sync  item.restock(1)\n"
    );
    // A file that is not UTF-8 is reported only when it holds the name.
    std::fs::write(code.ws.join("rust/latin1.rs"), b"// caf\xe9\nfn x() {}\n").unwrap();
    let found = code.json(&["callers", "--json", "distance"]);
    assert_eq!(found["skipped"].as_array().unwrap().len(), 0, "{found}");
    std::fs::write(
        code.ws.join("rust/latin1.rs"),
        b"// caf\xe9\nfn x() { distance(); }\n",
    )
    .unwrap();
    let found = code.json(&["callers", "--json", "distance"]);
    assert_eq!(found["skipped"][0]["path"], "rust/latin1.rs", "{found}");
    assert_eq!(found["skipped"][0]["reason"], "not UTF-8 text");
}

#[test]
fn callers_names_a_file_its_parser_searched_only_in_part() {
    let code = Code::new();
    // 600 macro bodies hold the name; the parser re-parses 512 per search.
    let calls = "    log!(helper());\n".repeat(600);
    code.write("src/heavy.rs", &format!("fn run() {{\n{calls}}}\n"));
    code.write("src/light.rs", "fn once() {\n    log!(helper());\n}\n");
    let out = code.run(&["callers", "--json", "helper"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let stderr = text(&out.stderr);
    assert!(
        stderr.contains(
            "amber: partly searched: src/heavy.rs: at least 88 macro bodies holding `helper`"
        ),
        "{stderr}"
    );
    assert!(!stderr.contains("light.rs"), "{stderr}");
    let found: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(found["sites"].as_array().unwrap().len(), 513, "{found}");
    assert_eq!(found["partial"].as_array().unwrap().len(), 1, "{found}");
    assert_eq!(found["partial"][0]["path"], "src/heavy.rs");
    assert_eq!(found["skipped"].as_array().unwrap().len(), 0);
}

#[test]
fn grep_annotates_hits_with_symbols_and_parses_only_matching_files() {
    let code = Code::new();
    code.write("src/a.rs", "fn alpha() {\n    let needle = 1;\n}\n");
    code.write("src/b.rs", "fn beta() {}\n");
    code.write("src/c.rs", "fn gamma() {}\n");
    code.write("notes.txt", "a needle in text\n");
    let hits = code.json(&["grep", "--json", "needle"]);
    assert_eq!(
        hits,
        serde_json::json!([
            {"path": "notes.txt", "line": 1, "text": "a needle in text", "symbol": null},
            {"path": "src/a.rs", "line": 2, "text": "    let needle = 1;", "symbol": "src/a.rs::alpha"}
        ])
    );
    // Only src/a.rs was parsed: the index finds its outline cached.
    let report = code.json(&["index", "--json"])["report"].clone();
    assert_eq!(
        (report["parsed"].as_u64(), report["cached"].as_u64()),
        (Some(2), Some(1))
    );
    assert_eq!(code.ok(&["grep", "-i", "NEEDLE"]).lines().count(), 2);
    assert!(code.fails(&["grep", "("]).contains("invalid pattern"));
    // Files without an extension are searched; CRLF lines end at `$`;
    // binary files are not searched.
    code.write("Makefile", "build:\r\n\tcargo build;\r\n");
    std::fs::write(code.ws.join("blob.rs"), b"cargo build;\0\n").unwrap();
    let hits = code.json(&["grep", "--json", "build;$"]);
    assert_eq!(
        hits,
        serde_json::json!([{"path": "Makefile", "line": 2, "text": "\tcargo build;", "symbol": null}])
    );
    assert!(code
        .fails(&["outline", "Makefile"])
        .contains("no parser handles `Makefile`"));
    // A file past the index's 4 MiB is still searched (its hit has no
    // symbol); one past grep's 64 MiB is reported, not passed over.
    let mut big = String::from("fn big() {}\n// a long needle here\n");
    big.push_str(&"// padding line\n".repeat(5 << 16));
    code.write("big.rs", &big);
    let huge = std::fs::File::create(code.ws.join("huge.log")).unwrap();
    huge.set_len(65 << 20).unwrap();
    let out = code.run(&["grep", "--json", "long needle"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let hits: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        hits,
        serde_json::json!([{"path": "big.rs", "line": 2, "text": "// a long needle here", "symbol": null}])
    );
    assert!(
        text(&out.stderr)
            .contains("amber: not searched: huge.log: 68157440 bytes, over the 64 MiB limit"),
        "{}",
        text(&out.stderr)
    );
}

#[test]
fn a_trapping_parse_is_skipped_and_a_failed_parser_is_dropped() {
    let code = Code::new();
    let add = code.run(&["plugin", "add", guest("trap-parser").to_str().unwrap()]);
    assert!(add.status.success(), "{}", text(&add.stderr));
    code.write("good.trap", "item one\nitem two\n");
    code.write("bad.trap", "item TRAP\n");
    code.write("unordered.trap", "BADPARENT\n");
    code.write("src/lib.rs", "fn kept() {}\n");
    let report = code.json(&["index", "--json"])["report"].clone();
    assert_eq!(report["files"], 2, "{report}");
    assert_eq!(
        report["languages"],
        serde_json::json!({"rust": 1, "trapfile": 1})
    );
    let skipped = report["skipped"].as_array().unwrap();
    assert_eq!(skipped.len(), 2, "{report}");
    assert_eq!(skipped[0]["path"], "bad.trap");
    let reason = |i: usize| skipped[i]["reason"].as_str().unwrap().to_string();
    assert!(reason(0).contains("trap-parser"), "{report}");
    // An outline the index cannot trust is refused, not half used.
    assert_eq!(skipped[1]["path"], "unordered.trap");
    assert!(
        reason(1).contains("bad outline: symbol 0 names parent 1"),
        "{report}"
    );

    // Enough traps in a row fail the plugin: the index finishes without
    // its language and says so. Two workers parse at once, so with only a
    // few bad files both could take them all before the third trap
    // unloads the parser (it happened under load); with 24, some are
    // always left for the drop to count.
    for i in 0..24 {
        code.write(&format!("bad{i}.trap"), "TRAP\n");
    }
    let out = code.run(&["index", "--json"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let dropped = &report["report"]["dropped_languages"][0];
    assert_eq!(dropped["language"], "trapfile", "{report}");
    assert!(dropped["files"].as_u64().unwrap() > 0, "{report}");
    // good.trap's outline, made before the parser failed, is still used.
    assert_eq!(dropped["from_cache"], 1, "{report}");
    assert!(
        dropped["reason"]
            .as_str()
            .unwrap()
            .contains("three failed calls"),
        "{report}"
    );
    for i in 24..30 {
        code.write(&format!("bad{i}.trap"), "TRAP\n");
    }
    let out = code.run(&["index"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let stderr = text(&out.stderr);
    assert!(stderr.contains("finished without trapfile"), "{stderr}");
    assert!(
        stderr.contains("1 indexed from outlines it made before"),
        "{stderr}"
    );
    assert!(
        text(&out.stdout).contains("rust 1"),
        "{}",
        text(&out.stdout)
    );
}

#[test]
fn the_agent_reads_by_symbol_with_the_host_code_tools() {
    let env = Env::new(AMBER);
    copy_tree(&repo_root().join("fixtures/parsers/rust"), &env.ws);
    let server = fake(
        r#"
[[turns]]
reply = { tool_calls = [
  { id = "o", name = "outline", arguments = { path = "shapes.rs" } },
  { id = "s", name = "show", arguments = { symbol = "shapes.rs::geometry/midpoint", no_body = true } },
  { id = "c", name = "callers", arguments = { name = "midpoint" } },
  { id = "x", name = "show", arguments = { symbol = "b3:zz" } },
] }
[[turns]]
reply = { text = "read" }
[[turns]]
reply = { text = "DONE" }
"#,
    );
    let run = env.exec(&server, &[], "read the shapes");
    run.assert_done("read");
    let results = run.results();
    assert_eq!(results[0].1, "ok");
    assert!(
        results[0].2.starts_with("shapes.rs (rust, 20 symbols)\n"),
        "{}",
        results[0].2
    );
    assert!(
        results[0]
            .2
            .contains("    fn midpoint  L54-59  shapes.rs::geometry/midpoint\n"),
        "{}",
        results[0].2
    );
    assert_eq!(results[1].1, "ok");
    assert!(
        results[1]
            .2
            .ends_with("    pub fn midpoint(a: &Point, b: &Point) -> Point\n"),
        "{}",
        results[1].2
    );
    assert_eq!(results[2].1, "ok");
    assert!(
        results[2].2.contains("shapes.rs:70  shapes.rs::report"),
        "{}",
        results[2].2
    );
    assert_eq!(results[3].1, "error");
    assert!(
        results[3].2.contains("8 or more hex digits"),
        "{}",
        results[3].2
    );
}

#[test]
fn help_explains_the_code_commands() {
    let code = Code::new();
    let help = code.ok(&["show", "--help"]);
    assert!(help.contains("b3:"), "{help}");
    assert!(code.ok(&["callers", "--help"]).contains("macro"));
    assert!(code.ok(&["grep", "--help"]).contains("raw bytes"));
}

/// `amber show NAME`: a name, or the end of a name path, finds its symbol
/// anywhere; when several match, the error lists their ids to choose from.
#[test]
fn show_finds_a_symbol_by_name_and_lists_the_candidates_when_several_match() {
    let code = Code::with_fixtures();
    let nested = code.ok(&["show", "geometry/Point/new"]);
    assert!(
        nested.starts_with("// rust/shapes.rs::geometry/Point/new ("),
        "{nested}"
    );
    assert!(nested.contains("Point { x: 1.0, y: 1.0 }"), "{nested}");
    let err = code.fails(&["show", "Point/new"]);
    for id in [
        "rust/shapes.rs::Point/new",
        "rust/shapes.rs::geometry/Point/new",
    ] {
        assert!(err.contains(id), "{err}");
    }
    assert!(err.contains("show one by its id"), "{err}");
    let none = code.fails(&["show", "no_such_symbol_anywhere"]);
    assert!(none.contains("no_such_symbol_anywhere"), "{none}");
}
