//! The bundled tools end to end: `tools-fs` and `tool-shell` as real
//! components, called through the binary (`amber tool call --json`, which
//! goes through the same runtime and exec gate as the agent) and through
//! `amber exec`. Every bad input gets an error the model can act on,
//! naming the path.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "a test fails by panicking, its helpers too"
)]

use std::process::Command;

use amber_tests::exec_env::{fake, text, Env};
use serde_json::Value;

const AMBER: &str = env!("CARGO_BIN_EXE_amber");

/// `amber tool call --json TOOL ARGS` → (status, output, meta).
fn call(env: &Env, extra: &[&str], tool: &str, args: &str) -> (String, String, Value) {
    let mut argv = vec!["tool", "call", "--json"];
    argv.extend_from_slice(extra);
    argv.extend_from_slice(&[tool, args]);
    let out = env.run(&argv);
    let v: Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|_| panic!("no JSON from {tool}: {}", text(&out.stderr)));
    (
        v["status"].as_str().unwrap().to_string(),
        v["output"].as_str().unwrap().to_string(),
        v["meta"].clone(),
    )
}

fn ok(env: &Env, tool: &str, args: &str) -> (String, Value) {
    let (status, output, meta) = call(env, &[], tool, args);
    assert_eq!(status, "ok", "{tool} {args}: {output}");
    (output, meta)
}

fn err(env: &Env, tool: &str, args: &str) -> String {
    let (status, output, _) = call(env, &[], tool, args);
    assert_eq!(status, "error", "{tool} {args}: {output}");
    output
}

#[test]
fn read_file_reads_ranges_with_line_numbers_and_says_what_it_cut() {
    let env = Env::new(AMBER);
    let lines: String = (1..=3000).map(|i| format!("line {i}\n")).collect();
    std::fs::write(env.ws.join("long.txt"), lines).unwrap();
    let (out, meta) = ok(
        &env,
        "read_file",
        r#"{"path": "long.txt", "offset": 10, "limit": 3}"#,
    );
    assert!(
        out.starts_with("    10\tline 10\n    11\tline 11\n    12\tline 12\n"),
        "{out}"
    );
    assert!(
        out.contains("[truncated at the limit: more lines follow line 12; read on with offset 13]")
    );
    assert_eq!(
        (meta["from"].as_u64(), meta["to"].as_u64()),
        (Some(10), Some(12))
    );
    // The default limit is 2000 lines.
    let (out, _) = ok(&env, "read_file", r#"{"path": "long.txt"}"#);
    assert!(out.contains("  2000\tline 2000\n[truncated"));
    // An absolute path inside the workspace works too.
    let abs = env.ws.join("long.txt").canonicalize().unwrap();
    let (out, _) = ok(
        &env,
        "read_file",
        &format!(r#"{{"path": "{}", "limit": 1}}"#, abs.display()),
    );
    assert!(out.starts_with("     1\tline 1\n"));
}

#[test]
fn bad_reads_name_the_path_and_what_to_do() {
    let env = Env::new(AMBER);
    std::fs::create_dir(env.ws.join("dir")).unwrap();
    std::fs::write(env.ws.join("bin.dat"), [0u8, 1, 2, 3, 0, 255]).unwrap();
    std::fs::write(env.ws.join("latin1.txt"), b"caf\xe9\n").unwrap();
    assert!(err(&env, "read_file", r#"{"path": "missing.rs"}"#)
        .starts_with("missing.rs: no such file or directory"));
    assert!(err(&env, "read_file", r#"{"path": "dir"}"#)
        .starts_with("dir is a directory; use list_dir"));
    assert!(err(&env, "read_file", r#"{"path": "bin.dat"}"#)
        .starts_with("bin.dat is a binary file (6 bytes)"));
    let (out, meta) = ok(&env, "read_file", r#"{"path": "latin1.txt"}"#);
    assert!(
        out.contains("caf\u{fffd}") && out.contains("[some bytes are not UTF-8 and are shown as"),
        "{out}"
    );
    assert_eq!(meta["lossy"], true);
    let outside = env.run(&[
        "tool",
        "call",
        "read_file",
        r#"{"path": "../../etc/passwd"}"#,
    ]);
    assert!(!outside.status.success());
    assert!(
        text(&outside.stderr).contains("path refused: `../../etc/passwd` is outside the workspace")
    );
}

#[test]
fn a_huge_file_costs_only_the_range_asked_for() {
    let env = Env::new(AMBER);
    let big = env.ws.join("huge.log");
    let file = std::fs::File::create(&big).unwrap();
    let text: String = (1..=400)
        .map(|i| format!("log line number {i:>5} of the huge file\n"))
        .collect();
    std::io::Write::write_all(&mut &file, text.as_bytes()).unwrap();
    // 1 GB, sparse after the text: reading it all would take seconds.
    file.set_len(1 << 30).unwrap();
    let (out, meta) = ok(&env, "read_file", r#"{"path": "huge.log", "limit": 2}"#);
    assert!(
        out.starts_with(
            "     1\tlog line number     1 of the huge file\n     2\tlog line number     2"
        ),
        "{out}"
    );
    assert_eq!(meta["bytes"].as_u64(), Some(1 << 30));
}

#[test]
fn edit_file_replaces_exactly_once_all_or_nothing_and_returns_a_diff() {
    let env = Env::new(AMBER);
    std::fs::write(env.ws.join("lib.rs"), "fn a() {}\nfn b() {}\nfn b() {}\n").unwrap();
    let (out, meta) = ok(
        &env,
        "edit_file",
        r#"{"path": "lib.rs", "old_string": "fn a() {}", "new_string": "fn a() { run() }"}"#,
    );
    assert!(out.contains("-fn a() {}\n+fn a() { run() }\n"), "{out}");
    assert!(meta["diff"]
        .as_str()
        .unwrap()
        .starts_with("--- a/lib.rs\n+++ b/lib.rs\n"));
    assert!(err(
        &env,
        "edit_file",
        r#"{"path": "lib.rs", "old_string": "fn c() {}", "new_string": "x"}"#
    )
    .starts_with("old_string was not found in lib.rs"));
    assert!(err(
        &env,
        "edit_file",
        r#"{"path": "lib.rs", "old_string": "fn b() {}", "new_string": "x"}"#
    )
    .starts_with("old_string occurs 2 times in lib.rs"));
    // All or nothing: the second edit fails, so the first is not written.
    let before = std::fs::read_to_string(env.ws.join("lib.rs")).unwrap();
    let failed = err(
        &env,
        "edit_file",
        r#"{"path": "lib.rs", "edits": [{"old_string": "fn a", "new_string": "fn z"}, {"old_string": "nope", "new_string": "x"}]}"#,
    );
    assert!(
        failed.starts_with("edit 2: old_string was not found"),
        "{failed}"
    );
    assert_eq!(
        std::fs::read_to_string(env.ws.join("lib.rs")).unwrap(),
        before
    );
    ok(
        &env,
        "edit_file",
        r#"{"path": "lib.rs", "edits": [{"old_string": "fn b() {}", "new_string": "fn c() {}", "replace_all": true}, {"old_string": "fn a", "new_string": "fn z"}]}"#,
    );
    assert_eq!(
        std::fs::read_to_string(env.ws.join("lib.rs")).unwrap(),
        "fn z() { run() }\nfn c() {}\nfn c() {}\n"
    );
}

#[test]
fn write_list_and_glob() {
    let env = Env::new(AMBER);
    let (out, _) = ok(
        &env,
        "write_file",
        r#"{"path": "src/deep/new.rs", "content": "fn main() {}\n"}"#,
    );
    assert_eq!(out, "created src/deep/new.rs (13 bytes)");
    assert!(
        err(&env, "write_file", r#"{"path": "src", "content": "x"}"#)
            .starts_with("src is a directory")
    );
    let (out, _) = ok(&env, "list_dir", r#"{"path": "."}"#);
    assert_eq!(out, "a.txt  (9 bytes)\nsrc/\n");
    let (out, _) = ok(&env, "glob", r#"{"pattern": "**/*.rs"}"#);
    assert_eq!(out, "src/deep/new.rs\n");
    assert!(
        err(&env, "list_dir", r#"{"path": "a.txt"}"#).starts_with("a.txt is a file, not a folder")
    );
}

#[test]
fn a_write_in_read_mode_is_denied_before_it_reaches_the_tool() {
    let env = Env::new(AMBER);
    let server = fake(
        r#"
[[turns]]
reply = { tool_calls = [{ id = "w", name = "write_file", arguments = { path = "x.txt", content = "x" } }] }
[[turns]]
reply = { text = "ok" }
[[turns]]
reply = { text = "DONE" }
"#,
    );
    let run = env.exec(&server, &["--mode", "read"], "write");
    run.assert_done_after_denial("ok");
    assert!(run.results()[0]
        .2
        .starts_with("read mode: `write_file` can change things"));
    assert!(!env.ws.join("x.txt").exists());
}

#[test]
fn shell_reports_exit_code_output_tail_and_timeouts() {
    let env = Env::new(AMBER);
    let (out, meta) = ok(
        &env,
        "shell",
        r#"{"command": "printf 'a\nb\n'; echo warn >&2"}"#,
    );
    assert_eq!(out, "exit code: 0\na\nb\nstderr:\nwarn");
    assert_eq!(meta["exit_code"], 0);
    let out = err(&env, "shell", r#"{"command": "echo failing; exit 3"}"#);
    assert_eq!(out, "exit code: 3\nfailing");
    let out = err(
        &env,
        "shell",
        r#"{"command": "sleep 5", "timeout_ms": 200}"#,
    );
    assert!(
        out.starts_with("exit code: none (killed)") && out.contains("[the command timed out"),
        "{out}"
    );
    let (out, _) = ok(&env, "shell", r#"{"command": "seq 1 1000"}"#);
    assert!(
        out.ends_with("\n1000\n[800 earlier lines not shown]")
            || out.contains("[800 earlier lines not shown]"),
        "{out}"
    );
}

#[test]
fn ctrl_c_kills_a_running_command_with_its_group() {
    use std::io::{BufRead, BufReader};
    let env = Env::new(AMBER);
    let server = fake(
        r#"
[[turns]]
reply = { tool_calls = [{ id = "s", name = "shell", arguments = { command = "echo $$ > pid.txt; sleep 60" } }] }
"#,
    );
    let mut child = env
        .command(&[
            "exec",
            "--json",
            "--base-url",
            &server.openai_base(),
            // Unsandboxed, so `$$` is a pid of this machine's namespace
            // (the sandboxed case is in sandbox.rs).
            "--mode",
            "yolo",
            "wait",
        ])
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    while let Some(Ok(line)) = lines.next() {
        if line.contains(r#""type":"tool.call""#) {
            break;
        }
    }
    let pid_file = env.ws.join("pid.txt");
    for _ in 0..200 {
        if std::fs::read_to_string(&pid_file).is_ok_and(|p| p.ends_with('\n')) {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(25));
    }
    let pid = std::fs::read_to_string(&pid_file)
        .unwrap()
        .trim()
        .to_string();
    assert!(Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap()
        .success());
    let rest: Vec<String> = lines.map_while(Result::ok).collect();
    assert_eq!(child.wait().unwrap().code(), Some(130));
    let result = rest
        .iter()
        .find(|l| l.contains(r#""type":"tool.result""#))
        .unwrap();
    assert!(
        result.contains(r#""output":"interrupted: the run ended before this tool call finished"#),
        "{result}"
    );
    // The command's group is gone.
    assert!(
        !amber_tests::processes::still_runs(&pid),
        "the command {pid} outlived the run"
    );
}

#[test]
fn a_symlink_out_of_the_workspace_is_neither_read_nor_written_by_a_component() {
    let env = Env::new(AMBER);
    let outside = tempfile::tempdir().unwrap();
    let secret = outside.path().join("secret.txt");
    std::fs::write(&secret, "top secret").unwrap();
    std::os::unix::fs::symlink(&secret, env.ws.join("link.txt")).unwrap();
    std::os::unix::fs::symlink(outside.path(), env.ws.join("door")).unwrap();
    // Lexically inside, so only the preopen can stop them.
    let read = err(&env, "read_file", r#"{"path": "link.txt"}"#);
    assert!(read.starts_with("link.txt:"), "{read}");
    assert!(!read.contains("top secret"));
    assert!(
        err(&env, "read_file", r#"{"path": "door/secret.txt"}"#).starts_with("door/secret.txt:")
    );
    assert!(err(
        &env,
        "write_file",
        r#"{"path": "door/new.txt", "content": "x"}"#
    )
    .starts_with("door/new.txt:"));
    assert!(err(
        &env,
        "edit_file",
        r#"{"path": "link.txt", "old_string": "top", "new_string": "bottom"}"#
    )
    .starts_with("link.txt:"));
    assert_eq!(std::fs::read_to_string(&secret).unwrap(), "top secret");
    assert!(!outside.path().join("new.txt").exists());
}

/// A small tree: code, a .gitignore'd build output, a nested module.
fn tree(env: &Env) {
    std::fs::create_dir_all(env.ws.join("src/net")).unwrap();
    std::fs::create_dir_all(env.ws.join("build")).unwrap();
    std::fs::write(env.ws.join(".gitignore"), "build/\n").unwrap();
    std::fs::write(
        env.ws.join("src/main.rs"),
        "fn main() {\n    let request = parse_http_request();\n    serve(request);\n}\n",
    )
    .unwrap();
    std::fs::write(env.ws.join("src/net/http.rs"), "// HTTP parsing\npub fn parse_http_request() -> Request {\n    Request::default()\n}\n\npub fn serve(r: Request) {}\n").unwrap();
    std::fs::write(
        env.ws.join("build/generated.rs"),
        "fn parse_http_request() {}\n",
    )
    .unwrap();
    std::fs::write(
        env.ws.join("notes.md"),
        "The request parser lives in src/net.\n",
    )
    .unwrap();
}

#[test]
fn grep_honours_gitignore_and_takes_regex_literal_glob_context_and_max() {
    let env = Env::new(AMBER);
    tree(&env);
    let (out, meta) = ok(&env, "grep", r#"{"pattern": "parse_http_\\w+"}"#);
    assert_eq!(out, "src/main.rs:2:    let request = parse_http_request();\nsrc/net/http.rs:2:pub fn parse_http_request() -> Request {\n");
    assert_eq!(
        (meta["matches"].as_u64(), meta["files"].as_u64()),
        (Some(2), Some(2))
    );
    let (out, _) = ok(
        &env,
        "grep",
        r#"{"pattern": "Request::default()", "mode": "literal"}"#,
    );
    assert_eq!(out, "src/net/http.rs:3:    Request::default()\n");
    let (out, _) = ok(&env, "grep", r#"{"pattern": "request", "glob": "*.md"}"#);
    assert_eq!(out, "notes.md:1:The request parser lives in src/net.\n");
    let (out, _) = ok(
        &env,
        "grep",
        r#"{"pattern": "default", "path": "src/net", "context": 1}"#,
    );
    assert_eq!(out, "src/net/http.rs-2-pub fn parse_http_request() -> Request {\nsrc/net/http.rs:3:    Request::default()\nsrc/net/http.rs-4-}\n");
    let (out, meta) = ok(&env, "grep", r#"{"pattern": "request", "max_results": 1}"#);
    assert!(out.contains("[stopped at 1 matches"), "{out}");
    assert_eq!(meta["truncated"], true);
    let bad = call(&env, &[], "grep", r#"{"pattern": "("}"#);
    assert!(
        bad.1.contains("bad pattern `(`") && bad.1.contains("mode literal"),
        "{}",
        bad.1
    );
    assert!(err(&env, "grep", r#"{"pattern": "x", "path": "nope"}"#)
        .starts_with("nope: no such file or folder"));
}

#[test]
fn semantic_grep_ranks_by_words_is_cached_and_rebuilds_when_files_change() {
    let env = Env::new(AMBER);
    tree(&env);
    let (out, meta) = ok(
        &env,
        "grep",
        r#"{"pattern": "http request parsing", "mode": "semantic"}"#,
    );
    let first = out.lines().next().unwrap();
    assert!(first.starts_with("src/net/http.rs (score "), "{out}");
    assert!(
        out.contains("src/net/http.rs:2:pub fn parse_http_request() -> Request {"),
        "{out}"
    );
    assert!(!out.contains("build/"), "{out}");
    assert_eq!(meta["rebuilt"], true);
    // Within one run the index is kept, and rebuilt only after a change.
    let server = fake(
        r#"
[[turns]]
reply = { tool_calls = [{ id = "g1", name = "grep", arguments = { pattern = "serve", mode = "semantic" } }] }
[[turns]]
reply = { tool_calls = [{ id = "g2", name = "grep", arguments = { pattern = "serve request", mode = "semantic" } }] }
[[turns]]
reply = { tool_calls = [{ id = "w", name = "write_file", arguments = { path = "src/serve.rs", content = "fn serve_forever() { serve() }" } }] }
[[turns]]
reply = { tool_calls = [{ id = "g3", name = "grep", arguments = { pattern = "serve forever", mode = "semantic" } }] }
[[turns]]
reply = { text = "ok" }
[[turns]]
reply = { text = "DONE" }
"#,
    );
    let run = env.exec(&server, &["--yes"], "search");
    run.assert_done("ok");
    let metas: Vec<Value> = run
        .of_type("tool.result")
        .iter()
        .map(|e| e["meta"].clone())
        .collect();
    assert_eq!(metas[0]["rebuilt"], true);
    assert_eq!(metas[1]["rebuilt"], false);
    assert_eq!(metas[3]["rebuilt"], true);
    let results = run.results();
    assert!(
        results[3].2.starts_with("src/serve.rs (score"),
        "{}",
        results[3].2
    );
}

/// The demo's scripted session (`cargo xtask demo`) through the real tools,
/// on a copy of the demo repo: the edit lands and `cargo test` passes.
#[test]
fn the_demo_session_fixes_the_demo_repo() {
    let env = Env::new(AMBER);
    let repo = amber_tests::repo_root().join("fixtures/demo-repo");
    for file in ["Cargo.toml", "src/lib.rs"] {
        let target = env.ws.join(file);
        std::fs::create_dir_all(target.parent().unwrap()).unwrap();
        std::fs::copy(repo.join(file), target).unwrap();
    }
    let script = amber_tests::fake_llm::Transcript::load(
        &amber_tests::repo_root().join("fixtures/demo/session.toml"),
    )
    .unwrap();
    let server = amber_tests::fake_llm::FakeLlm::start(script, 0).unwrap();
    let run = env.exec(&server, &["--yes"], "fix the failing test");
    run.assert_done("Fixed: `celsius_to_fahrenheit` subtracted 32 instead of adding it (F = C × 9/5 + 32). Both tests pass now.");
    let results = run.results();
    assert!(results.iter().all(|r| r.1 == "ok"), "{results:#?}");
    assert!(
        results[4].2.contains("test result: ok. 2 passed"),
        "{}",
        results[4].2
    );
    assert!(std::fs::read_to_string(env.ws.join("src/lib.rs"))
        .unwrap()
        .contains("celsius * 9.0 / 5.0 + 32.0"));
}

/// `amber tool call` checks the arguments against the tool's schema as the
/// agent's dispatch does, with the same message; `--raw` skips the check
/// and shows what the tool itself says.
#[test]
fn tool_call_checks_the_schema_as_dispatch_does_and_raw_skips_it() {
    let env = Env::new(AMBER);
    let (status, output, _) = call(&env, &[], "read_file", r#"{"path": 5}"#);
    assert_eq!(status, "error");
    assert!(
        output.starts_with("the arguments do not match the schema of `read_file`"),
        "{output}"
    );
    let out = env.run(&["tool", "call", "read_file", r#"{"path": 5}"#]);
    assert_eq!(out.status.code(), Some(1));
    let stderr = text(&out.stderr);
    assert!(stderr.contains("(--raw skips this check)"), "{stderr}");
    let (status, output, _) = call(&env, &["--raw"], "read_file", r#"{"path": 5}"#);
    assert_eq!(status, "error");
    assert!(!output.contains("do not match the schema"), "{output}");
}
