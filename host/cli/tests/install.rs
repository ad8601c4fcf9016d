//! An installed amber, end to end with the real binary and the real
//! bundled components: the bundle found beside the binary, the read-only
//! precompiled cache that makes a fresh home compile nothing, the progress
//! a first run without it shows, what a missing bundle says, and `doctor`.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "a test fails by panicking, its helpers too"
)]

use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use amber_tests::{guest, guests_dir, repo_root};
use serde_json::Value;

const AMBER: &str = env!("CARGO_BIN_EXE_amber");

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// The bundled guests' names, from the list the runtime reads.
fn bundled() -> Vec<String> {
    std::fs::read_to_string(repo_root().join("guests/bundled.txt"))
        .unwrap()
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(String::from)
        .collect()
}

/// `bin ARGS` as a user runs it: no test variables but a home, and the
/// workspace as the current folder.
fn user(bin: &Path, home: &Path, workspace: &Path, args: &[&str]) -> Command {
    let mut cmd = Command::new(bin);
    cmd.args(args)
        .current_dir(workspace)
        .env("AMBER_HOME", home)
        .env_remove("AMBER_CACHE_DIR")
        .env_remove("AMBER_BUNDLE_DIR")
        .env_remove("AMBER_WORKSPACE")
        .env_remove("OPENAI_API_KEY")
        .env_remove("ANTHROPIC_API_KEY")
        .stdin(Stdio::null());
    cmd
}

fn run(mut cmd: Command) -> Output {
    cmd.output().expect("amber runs")
}

/// A prefix laid out as `cargo xtask install` lays it: the binary (a hard
/// link when it can be), the bundle, and its precompiled cache written by
/// the installed binary's own `plugin precompile`.
struct Installed {
    dir: tempfile::TempDir,
}

impl Installed {
    fn new(precompile: bool) -> Installed {
        // Inside target/, so the binary can be hard-linked, not copied.
        let target = repo_root().join("target");
        let dir = tempfile::tempdir_in(&target).unwrap();
        let bin = dir.path().join("bin/amber");
        std::fs::create_dir_all(bin.parent().unwrap()).unwrap();
        if std::fs::hard_link(AMBER, &bin).is_err() {
            std::fs::copy(AMBER, &bin).unwrap();
        }
        let plugins = dir.path().join("share/amber/plugins");
        std::fs::create_dir_all(&plugins).unwrap();
        for name in bundled() {
            let file = format!("{name}.wasm");
            std::fs::copy(guests_dir().join(&file), plugins.join(&file)).unwrap();
        }
        let installed = Installed { dir };
        if precompile {
            let home = installed.scratch("install-home");
            let into = plugins.join("precompiled");
            let out = run(user(
                &installed.bin(),
                &home,
                &home,
                &[
                    "plugin",
                    "precompile",
                    "--json",
                    "--into",
                    into.to_str().unwrap(),
                ],
            ));
            assert!(out.status.success(), "{}", text(&out.stderr));
            let report: Value = serde_json::from_slice(&out.stdout).unwrap();
            assert_eq!(report["plugins"].as_array().unwrap().len(), bundled().len());
        }
        installed
    }

    fn bin(&self) -> PathBuf {
        self.dir.path().join("bin/amber")
    }

    fn scratch(&self, name: &str) -> PathBuf {
        let path = self.dir.path().join(name);
        std::fs::create_dir_all(&path).unwrap();
        path
    }
}

fn compiled_entries(cache: &Path) -> usize {
    std::fs::read_dir(cache.join("compiled"))
        .map(|d| d.count())
        .unwrap_or(0)
}

#[test]
fn an_installed_amber_finds_its_bundle_and_a_fresh_home_compiles_nothing() {
    let installed = Installed::new(true);
    let home = installed.scratch("fresh-home");
    let ws = installed.scratch("project");
    // The prefix is inside the checkout's target/: mark the project's root,
    // or the walk up would find the checkout's .git.
    std::fs::create_dir_all(ws.join(".git")).unwrap();
    let out = run(user(
        &installed.bin(),
        &home,
        &ws,
        &["plugin", "list", "--json"],
    ));
    assert!(out.status.success(), "{}", text(&out.stderr));
    let stderr = text(&out.stderr);
    assert!(!stderr.contains("compiling"), "{stderr}");
    let listed: Value = serde_json::from_slice(&out.stdout).unwrap();
    let active = listed["plugins"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|p| p["bundled"] == true && p["state"] == "active")
        .count();
    assert_eq!(active, bundled().len(), "{listed}");

    // The first index of a project loads the parsers from the install's
    // cache: still nothing compiled, nothing written to the home's cache.
    std::fs::write(ws.join("lib.rs"), "pub fn answer() -> u32 { 42 }\n").unwrap();
    let out = run(user(&installed.bin(), &home, &ws, &["index", "--json"]));
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(
        !text(&out.stderr).contains("compiling"),
        "{}",
        text(&out.stderr)
    );
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["report"]["symbols"], 1, "{report}");
    assert_eq!(compiled_entries(&home.join("cache")), 0);

    let out = run(user(
        &installed.bin(),
        &home,
        &ws,
        &["doctor", "--json", "--offline"],
    ));
    let doctor: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doctor["bundle"]["found_by"], "installed beside the binary");
    assert_eq!(
        doctor["precompiled_cache"]["compiled_components"],
        bundled().len(),
        "{doctor}"
    );
    assert_eq!(doctor["bundle"]["missing"], serde_json::json!([]));
}

#[test]
fn with_declarations_but_no_compiled_code_a_command_compiles_only_what_it_calls() {
    // Another build of amber (another engine) finds the install's
    // declarations but none of its compiled code: `index` then compiles the
    // parser it calls, not the providers, tools and other parsers.
    let installed = Installed::new(true);
    let precompiled = installed.dir.path().join("share/amber/plugins/precompiled");
    std::fs::remove_dir_all(precompiled.join("compiled")).unwrap();
    let home = installed.scratch("fresh-home");
    let ws = installed.scratch("project");
    std::fs::create_dir_all(ws.join(".git")).unwrap();
    std::fs::write(ws.join("lib.rs"), "pub fn answer() -> u32 { 42 }\n").unwrap();
    let out = run(user(&installed.bin(), &home, &ws, &["index", "--json"]));
    assert!(out.status.success(), "{}", text(&out.stderr));
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["report"]["symbols"], 1, "{report}");
    let compiled = std::fs::read_dir(home.join("cache/compiled"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect::<Vec<_>>();
    let rust = blake3_hex(&guests_dir().join("parser-rust.wasm"));
    assert_eq!(compiled.len(), 1, "{compiled:?}");
    assert!(compiled[0].starts_with(&rust), "{compiled:?}");
}

/// The hex BLAKE3 of a file, the first part of a compiled entry's name.
fn blake3_hex(path: &Path) -> String {
    blake3::hash(&std::fs::read(path).unwrap())
        .to_hex()
        .to_string()
}

#[test]
fn without_a_precompiled_cache_the_first_run_says_it_compiles_and_the_second_does_not() {
    let installed = Installed::new(false);
    let home = installed.scratch("fresh-home");
    let ws = installed.scratch("project");
    let out = run(user(&installed.bin(), &home, &ws, &["plugin", "list"]));
    assert!(out.status.success(), "{}", text(&out.stderr));
    let expected = format!(
        "amber: compiling {} components, first run only",
        bundled().len()
    );
    assert!(
        text(&out.stderr).contains(&expected),
        "{}",
        text(&out.stderr)
    );
    assert_eq!(compiled_entries(&home.join("cache")), bundled().len());
    let again = run(user(&installed.bin(), &home, &ws, &["plugin", "list"]));
    assert!(
        !text(&again.stderr).contains("compiling"),
        "{}",
        text(&again.stderr)
    );

    let out = run(user(&installed.bin(), &home, &ws, &["doctor", "--offline"]));
    let shown = text(&out.stdout);
    assert!(
        shown.contains("no precompiled cache beside the bundle"),
        "{shown}"
    );
    assert!(shown.contains("amber plugin precompile"), "{shown}");
}

#[test]
fn a_missing_bundle_says_where_amber_looked_and_how_to_fix_it() {
    let home = tempfile::tempdir().unwrap();
    let ws = tempfile::tempdir().unwrap();
    let nowhere = home.path().join("no-bundle-here");
    let cmd = |args: &[&str]| {
        let mut cmd = user(Path::new(AMBER), home.path(), ws.path(), args);
        cmd.env("AMBER_BUNDLE_DIR", &nowhere);
        run(cmd)
    };
    std::fs::write(ws.path().join("lib.rs"), "fn a() {}\n").unwrap();
    for args in [&["index"][..], &["tool", "call", "read_file", "{}"]] {
        let out = cmd(args);
        assert_eq!(out.status.code(), Some(1), "{args:?}");
        let stderr = text(&out.stderr);
        assert!(stderr.contains("bundled plugins"), "{args:?}: {stderr}");
        assert!(stderr.contains(&nowhere.display().to_string()), "{stderr}");
        assert!(stderr.contains("$AMBER_BUNDLE_DIR"), "{stderr}");
        assert!(stderr.contains("cargo xtask install"), "{stderr}");
    }
    let mut exec = user(
        Path::new(AMBER),
        home.path(),
        ws.path(),
        &["exec", "--json", "hi"],
    );
    exec.env("AMBER_BUNDLE_DIR", &nowhere)
        .env("OPENAI_API_KEY", "k");
    let out = run(exec);
    assert_eq!(out.status.code(), Some(1));
    let failed = text(&out.stdout);
    assert!(
        failed.contains("session.failed") && failed.contains("cargo xtask install"),
        "{failed}"
    );
    assert!(failed.contains("no dialect serves flavor"), "{failed}");

    let out = cmd(&["doctor", "--offline"]);
    assert_eq!(out.status.code(), Some(1));
    let shown = text(&out.stdout);
    assert!(shown.contains("bundle      not found"), "{shown}");
    assert!(shown.contains("error: the bundled plugins"), "{shown}");
}

#[test]
fn doctor_reports_keys_without_values_reachable_servers_the_config_and_the_root() {
    let home = tempfile::tempdir().unwrap();
    let ws = tempfile::tempdir().unwrap();
    let ws_root = ws.path().canonicalize().unwrap();
    std::fs::create_dir_all(ws_root.join(".git")).unwrap();
    std::fs::create_dir_all(ws_root.join("src/deep")).unwrap();
    let listening = TcpListener::bind("127.0.0.1:0").unwrap();
    let open = listening.local_addr().unwrap().port();
    let closed = {
        let l = TcpListener::bind("127.0.0.1:0").unwrap();
        l.local_addr().unwrap().port()
    };
    std::fs::write(
        home.path().join("config.toml"),
        format!(
            "[providers.up]\nflavor = \"openai-chat\"\nbase_url = \"http://127.0.0.1:{open}/v1\"\nmodel = \"m\"\n\
             [providers.down]\nflavor = \"openai-chat\"\nbase_url = \"http://127.0.0.1:{closed}/v1\"\nmodel = \"m\"\n"
        ),
    )
    .unwrap();
    let doctor = |args: &[&str]| {
        let mut cmd = user(
            Path::new(AMBER),
            home.path(),
            &ws_root.join("src/deep"),
            args,
        );
        cmd.env("AMBER_BUNDLE_DIR", guests_dir())
            .env("OPENAI_API_KEY", "sk-secret-value-for-doctor");
        run(cmd)
    };
    let out = doctor(&["doctor", "--json", "--timeout-ms", "3000"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let shown = text(&out.stdout);
    assert!(!shown.contains("sk-secret-value-for-doctor"));
    let report: Value = serde_json::from_str(&shown).unwrap();
    let key = |env: &str| {
        report["keys"]
            .as_array()
            .unwrap()
            .iter()
            .find(|k| k["env"] == env)
            .cloned()
            .unwrap()
    };
    assert_eq!(key("OPENAI_API_KEY")["set"], true);
    assert_eq!(key("ANTHROPIC_API_KEY")["set"], false);
    let provider = |name: &str| {
        report["providers"]
            .as_array()
            .unwrap()
            .iter()
            .find(|p| p["preset"] == name)
            .cloned()
            .unwrap()
    };
    assert_eq!(provider("up")["reachable"], true, "{report}");
    assert_eq!(provider("down")["reachable"], false, "{report}");
    // A shipped preset with no key set and no config is not checked, so
    // it is never reported unreachable; one whose key is set is.
    assert_eq!(provider("anthropic")["reachable"], Value::Null, "{report}");
    assert!(provider("ollama")["detail"]
        .as_str()
        .unwrap()
        .contains("no key set, not configured"));
    assert!(provider("openai")["reachable"].is_boolean(), "{report}");
    assert_eq!(report["workspace"]["root"], ws_root.display().to_string());
    assert_eq!(report["workspace"]["rule"], "git-marker");
    assert_eq!(report["config"]["exists"], true);
    assert_eq!(report["config"]["error"], Value::Null);
    assert_eq!(report["wit_version"], "amber:plugin@0.3.0");
    assert_eq!(
        report["wit_adapters"],
        serde_json::json!(["amber:plugin@0.2.0", "amber:plugin@0.1.0"])
    );
    assert_eq!(report["amber_version"], env!("CARGO_PKG_VERSION"));
    assert!(report["bundle"]["components"].as_array().unwrap().len() >= 10);
    drop(listening);

    std::fs::write(
        home.path().join("config.toml"),
        "[wire]\nmax_attempts = \"x\"\n",
    )
    .unwrap();
    let out = doctor(&["doctor", "--offline"]);
    assert_eq!(out.status.code(), Some(1));
    let shown = text(&out.stdout);
    assert!(shown.contains("does not parse"), "{shown}");
    assert!(shown.contains("config.toml"), "{shown}");
}

#[test]
fn precompile_fills_the_own_cache_and_says_what_it_did() {
    let home = tempfile::tempdir().unwrap();
    let ws = tempfile::tempdir().unwrap();
    let cache = home.path().join("own-cache");
    let bundle = tempfile::tempdir().unwrap();
    let echo = guest("tools-fs");
    std::fs::copy(&echo, bundle.path().join("tools-fs.wasm")).unwrap();
    let mut cmd = user(
        Path::new(AMBER),
        home.path(),
        ws.path(),
        &["plugin", "precompile", "--json"],
    );
    cmd.env("AMBER_BUNDLE_DIR", bundle.path())
        .env("AMBER_CACHE_DIR", &cache);
    let out = run(cmd);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["compiled_now"], 1, "{report}");
    assert_eq!(report["plugins"][0]["id"], "fs");
    assert_eq!(compiled_entries(&cache), 1);
}
