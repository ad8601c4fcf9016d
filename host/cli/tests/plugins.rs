//! `amber plugin|tool|config` end to end: real processes, real components,
//! real state files in a scratch AMBER_HOME.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "a test fails by panicking, its helpers too"
)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn guest(name: &str) -> String {
    amber_tests::guest(name).to_string_lossy().into_owned()
}

struct Home {
    dir: tempfile::TempDir,
}

impl Home {
    fn new() -> Self {
        Home {
            dir: tempfile::tempdir().unwrap(),
        }
    }

    fn path(&self) -> &Path {
        self.dir.path()
    }

    fn command(&self, args: &[&str]) -> Command {
        // A workspace beside amber's state, not holding it: the sandbox
        // refuses to run commands in a folder that holds amber's state.
        let workspace = self.path().join("ws");
        std::fs::create_dir_all(&workspace).unwrap();
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_amber"));
        cmd.args(args)
            .env("AMBER_HOME", self.path())
            .env("AMBER_CACHE_DIR", repo().join("target/test-cache"))
            .env("AMBER_WORKSPACE", &workspace)
            .env("AMBER_BUNDLE_DIR", self.bundle())
            .stdin(Stdio::null());
        cmd
    }

    /// Only the real bundle: prompt-workspace.
    fn bundle(&self) -> PathBuf {
        let dir = self.path().join("bundle");
        if !dir.exists() {
            std::fs::create_dir_all(&dir).unwrap();
            std::fs::copy(guest("prompt-workspace"), dir.join("prompt-workspace.wasm")).unwrap();
        }
        dir
    }

    fn run(&self, args: &[&str]) -> Output {
        self.command(args).output().expect("amber runs")
    }

    /// Runs and expects success; returns stdout.
    fn ok(&self, args: &[&str]) -> String {
        let out = self.run(args);
        assert!(
            out.status.success(),
            "amber {args:?} failed: {}",
            text(&out.stderr)
        );
        text(&out.stdout)
    }

    fn json(&self, args: &[&str]) -> serde_json::Value {
        serde_json::from_str(&self.ok(args)).expect("JSON output")
    }

    fn write_config(&self, text: &str) {
        std::fs::write(self.path().join("config.toml"), text).unwrap();
    }
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn plugin<'a>(list: &'a serde_json::Value, id: &str) -> Option<&'a serde_json::Value> {
    list["plugins"].as_array()?.iter().find(|p| p["id"] == id)
}

#[test]
fn add_without_a_tty_or_grant_grants_nothing_and_says_how_to() {
    let home = Home::new();
    let out = home.ok(&["plugin", "add", &guest("misbehave")]);
    assert!(out.contains("added misbehave 0.1.0"), "{out}");
    assert!(
        out.contains("not granted: exec (grant it with `amber plugin grant misbehave exec`)"),
        "{out}"
    );
    let info = home.json(&["plugin", "info", "misbehave", "--json"]);
    assert_eq!(info["state"], "active");
    assert_eq!(info["grants"], serde_json::json!([]));
    let err = text(&home.run(&["tool", "call", "exec"]).stderr);
    assert!(
        err.contains("not granted: exec (plugin `misbehave`"),
        "{err}"
    );
}

#[test]
fn grant_flags_yes_and_config_pre_grants_all_grant() {
    let home = Home::new();
    let out = home.ok(&["plugin", "add", "--grant", "exec", &guest("misbehave")]);
    assert!(
        out.contains("granted: exec") && out.contains("not granted: workspace-read"),
        "{out}"
    );
    assert_eq!(
        home.ok(&["tool", "call", "exec", r#"{"command":"echo ran"}"#]),
        "ran\n\n"
    );

    let yes = Home::new();
    let report = yes.json(&["plugin", "add", "--yes", "--json", &guest("misbehave")]);
    assert_eq!(
        report["granted"],
        serde_json::json!(["workspace-read", "exec"])
    );

    let pre = Home::new();
    pre.write_config("[plugins.misbehave]\ngrants = [\"workspace-read\"]\n");
    let report = pre.json(&["plugin", "add", "--json", &guest("misbehave")]);
    assert_eq!(report["granted"], serde_json::json!(["workspace-read"]));
}

#[test]
fn a_grant_for_something_not_requested_is_refused() {
    let home = Home::new();
    let out = home.run(&["plugin", "add", "--grant", "exec", &guest("hello-tool")]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        text(&out.stderr).contains("it does not request exec"),
        "{}",
        text(&out.stderr)
    );
}

#[test]
fn grant_and_revoke_change_what_the_plugin_can_do_at_once_and_later() {
    let home = Home::new();
    home.ok(&["plugin", "add", &guest("misbehave")]);
    home.ok(&["plugin", "grant", "misbehave", "exec"]);
    assert_eq!(
        home.ok(&["tool", "call", "exec", r#"{"command":"echo yes"}"#]),
        "yes\n\n"
    );
    home.ok(&["plugin", "revoke", "misbehave", "exec"]);
    let out = home.run(&["tool", "call", "exec", r#"{"command":"echo no"}"#]);
    assert!(
        text(&out.stderr).contains("not granted: exec"),
        "{}",
        text(&out.stderr)
    );
}

#[test]
fn adding_the_same_file_twice_changes_nothing() {
    let home = Home::new();
    home.ok(&["plugin", "add", &guest("hello-tool")]);
    let state = home.path().join("data/plugins/installed.json");
    let before = std::fs::read(&state).unwrap();
    let out = home.ok(&["plugin", "add", &guest("hello-tool")]);
    assert!(out.contains("already added hello"), "{out}");
    assert_eq!(std::fs::read(&state).unwrap(), before);
}

#[test]
fn a_new_build_of_a_plugin_replaces_it_and_keeps_its_grants() {
    let home = Home::new();
    home.ok(&["plugin", "add", &guest("hello-tool")]);
    let out = home.ok(&[
        "plugin",
        "add",
        "--grant",
        "workspace-read",
        &guest("hello-v2"),
    ]);
    assert!(
        out.contains("replaced hello 0.2.0") && out.contains("granted: workspace-read"),
        "{out}"
    );
    assert_eq!(
        home.ok(&["tool", "call", "hello", r#"{"name":"v2"}"#]),
        "Hi there, v2!\n"
    );
}

#[test]
fn enable_and_disable_persist_across_runs() {
    let home = Home::new();
    home.ok(&["plugin", "add", &guest("hello-tool")]);
    home.ok(&["plugin", "disable", "hello"]);
    let list = home.json(&["plugin", "list", "--json"]);
    assert_eq!(plugin(&list, "hello").unwrap()["state"], "registered");
    assert!(!home.ok(&["tool", "list"]).contains("hello"));
    home.ok(&["plugin", "enable", "hello"]);
    assert!(home.ok(&["tool", "list"]).contains("hello"));
}

#[test]
fn remove_forgets_a_plugin() {
    let home = Home::new();
    home.ok(&["plugin", "add", &guest("hello-tool")]);
    assert_eq!(home.ok(&["plugin", "remove", "hello"]), "removed hello\n");
    assert!(plugin(&home.json(&["plugin", "list", "--json"]), "hello").is_none());
    let out = home.run(&["plugin", "remove", "hello"]);
    assert_eq!(out.status.code(), Some(1));
}

#[test]
fn tool_list_shows_every_tool_with_its_owner() {
    let home = Home::new();
    home.ok(&["plugin", "add", &guest("echo-tool")]);
    let tools = home.json(&["tool", "list", "--json"]);
    let echo = tools["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == "echo")
        .unwrap();
    assert_eq!(echo["owner"], "plugin `echo`");
    assert_eq!(echo["read_only"], true);
}

#[test]
fn logs_show_what_a_plugin_said_before_it_trapped() {
    let home = Home::new();
    home.ok(&["plugin", "add", &guest("misbehave")]);
    let out = home.run(&["tool", "call", "panic"]);
    assert_eq!(out.status.code(), Some(1));
    let logs = home.ok(&["plugin", "logs", "misbehave", "--tail", "20"]);
    assert!(logs.contains("misbehave panicked on purpose"), "{logs}");
}

#[test]
fn bundled_plugins_are_there_in_a_fresh_home_and_can_be_disabled_or_removed() {
    let home = Home::new();
    let list = home.json(&["plugin", "list", "--json"]);
    let bundled = plugin(&list, "prompt-workspace").expect("bundled without an add");
    assert_eq!(
        (bundled["bundled"].as_bool(), bundled["state"].as_str()),
        (Some(true), Some("active"))
    );
    assert_eq!(
        bundled["grants"],
        serde_json::json!(["workspace-read"]),
        "granted what it requests"
    );
    home.ok(&["plugin", "disable", "prompt-workspace"]);
    let list = home.json(&["plugin", "list", "--json"]);
    assert_eq!(
        plugin(&list, "prompt-workspace").unwrap()["state"],
        "registered"
    );
    home.ok(&["plugin", "remove", "prompt-workspace"]);
    assert!(plugin(
        &home.json(&["plugin", "list", "--json"]),
        "prompt-workspace"
    )
    .is_none());
}

#[test]
fn a_bad_file_gets_one_line_naming_it_and_nothing_changes() {
    let home = Home::new();
    let junk = home.path().join("junk.wasm");
    std::fs::write(&junk, "not wasm").unwrap();
    let core = home.path().join("core.wasm");
    std::fs::write(&core, b"\0asm\x01\0\0\0").unwrap();
    for (file, reason) in [
        (
            junk.to_string_lossy().into_owned(),
            "not a WebAssembly file",
        ),
        (
            core.to_string_lossy().into_owned(),
            "a core wasm module, not a component",
        ),
        (
            guest("wrong-api"),
            "incompatible: built for amber:plugin@9.0.0",
        ),
    ] {
        let out = home.run(&["plugin", "add", &file]);
        assert_eq!(out.status.code(), Some(1));
        let err = text(&out.stderr);
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(err.contains(&file) && err.contains(reason), "{err}");
    }
    assert!(!home.path().join("data/plugins/installed.json").exists());
}

#[test]
fn a_bad_config_stops_everything_naming_file_line_and_key() {
    let home = Home::new();
    home.write_config("[limits]\nmemory_mib = 64\nmemroy = 1\n");
    let out = home.run(&["plugin", "list"]);
    assert_eq!(out.status.code(), Some(1));
    let expected = format!(
        "amber: {}/config.toml:3: limits.memroy: unknown field `memroy`",
        home.path().display()
    );
    assert!(
        text(&out.stderr).starts_with(&expected),
        "{}",
        text(&out.stderr)
    );
}

#[test]
fn config_path_and_show() {
    let home = Home::new();
    assert_eq!(
        home.ok(&["config", "path"]).trim(),
        home.path().join("config.toml").to_string_lossy()
    );
    home.write_config("[exec]\nenv = [\"CARGO_HOME\"]\n");
    let config = home.json(&["config", "show", "--json"]);
    assert_eq!(config["exec"]["env"], serde_json::json!(["CARGO_HOME"]));
    assert_eq!(config["limits"]["memory_mib"], 256);
    assert!(home.ok(&["config", "show"]).contains("deadline_ms = 10000"));
}

#[test]
fn config_settings_reach_the_plugin_and_a_failure_is_listed_with_its_reason() {
    let home = Home::new();
    home.write_config("[plugins.misbehave.settings]\nfail-initialize = \"missing token\"\n");
    let out = home.run(&["plugin", "add", &guest("misbehave")]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        text(&out.stderr).contains("initialize failed: missing token"),
        "{}",
        text(&out.stderr)
    );
    let list = home.ok(&["plugin", "list"]);
    assert!(
        list.contains("failed: initialize failed: missing token"),
        "{list}"
    );
}

#[test]
fn two_processes_adding_at_once_lose_nothing() {
    let home = Home::new();
    let names = ["hello-tool", "echo-tool", "misbehave"];
    let children: Vec<_> = names
        .iter()
        .flat_map(|n| [n, n])
        .map(|name| {
            home.command(&["plugin", "add", &guest(name)])
                .stdout(Stdio::null())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    for child in children {
        let out = child.wait_with_output().unwrap();
        assert!(out.status.success(), "{}", text(&out.stderr));
    }
    let list = home.json(&["plugin", "list", "--json"]);
    for id in ["hello", "echo", "misbehave"] {
        assert_eq!(
            plugin(&list, id).map(|p| p["state"].clone()),
            Some("active".into()),
            "{id}"
        );
    }
    let installed: serde_json::Value = serde_json::from_slice(
        &std::fs::read(home.path().join("data/plugins/installed.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(installed["plugins"].as_object().unwrap().len(), 3);
}

#[test]
fn a_bundled_plugin_can_be_replaced_by_an_added_build_with_its_id() {
    let home = Home::new();
    // A bundle whose `prompt-workspace.wasm` holds the `hello` plugin, so
    // that hello-v2 (same id) can replace a bundled plugin.
    let bundle = home.path().join("other-bundle");
    std::fs::create_dir_all(&bundle).unwrap();
    std::fs::copy(guest("hello-tool"), bundle.join("prompt-workspace.wasm")).unwrap();
    let run = |args: &[&str]| {
        let out = home
            .command(args)
            .env("AMBER_BUNDLE_DIR", &bundle)
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", text(&out.stderr));
        text(&out.stdout)
    };
    let list: serde_json::Value =
        serde_json::from_str(&run(&["plugin", "list", "--json"])).unwrap();
    assert_eq!(plugin(&list, "hello").unwrap()["bundled"], true);
    run(&["plugin", "add", "--yes", &guest("hello-v2")]);
    let list: serde_json::Value =
        serde_json::from_str(&run(&["plugin", "list", "--json"])).unwrap();
    let hello = plugin(&list, "hello").unwrap();
    assert_eq!(
        (hello["bundled"].as_bool(), hello["version"].as_str()),
        (Some(false), Some("0.2.0"))
    );
    assert_eq!(
        run(&["tool", "call", "hello", r#"{"name":"b"}"#]),
        "Hi there, b!\n"
    );
}

#[test]
fn listings_have_column_headers_and_counts_have_plurals() {
    let home = Home::new();
    home.ok(&["plugin", "add", &guest("misbehave"), "--yes"]);
    let list = home.ok(&["plugin", "list"]);
    let header = list.lines().next().unwrap();
    for column in ["PLUGIN", "VERSION", "STATE", "ORIGIN", "CONTRIBUTES"] {
        assert!(header.contains(column), "{header}");
    }
    // The bundled prompt block is one contribution; misbehave's 16 tools
    // are 16.
    let line = |id: &str| {
        list.lines()
            .find(|l| l.split_whitespace().next() == Some(id))
            .unwrap_or_else(|| panic!("no {id} in {list}"))
            .to_string()
    };
    assert!(
        line("prompt-workspace").ends_with(" 1 contribution"),
        "{list}"
    );
    assert!(line("misbehave").ends_with(" 16 contributions"), "{list}");
    assert!(!list.contains("(s)"), "{list}");
    let providers = home.ok(&["providers", "list"]);
    let header = providers.lines().next().unwrap();
    for column in ["PROVIDER", "FLAVOR", "BASE URL", "KEY", "MODEL"] {
        assert!(header.contains(column), "{header}");
    }
}

/// A plugin's folder: its descriptor, and its component in `dist/`.
fn plugin_folder(home: &Home) -> PathBuf {
    let dir = home.path().join("my-notes");
    std::fs::create_dir_all(dir.join("dist")).unwrap();
    std::fs::write(
        dir.join("amber-plugin.toml"),
        "[plugin]\nid = \"my-notes\"\nlang = \"c\"\nkind = \"tool\"\n",
    )
    .unwrap();
    std::fs::write(dir.join("plugin.c"), "/* the source */\n").unwrap();
    std::fs::copy(guest("notes-tool"), dir.join("dist/my-notes.wasm")).unwrap();
    dir
}

#[test]
fn plugin_add_of_a_folder_adds_its_built_component_and_rebuilds_one_out_of_date() {
    let home = Home::new();
    let dir = plugin_folder(&home);
    // Built after its source: added as it is.
    let added = home.ok(&["plugin", "add", dir.to_str().unwrap(), "--yes"]);
    assert!(added.starts_with("added notes "), "{added}");
    // A source newer than the component: it is built again first (a C
    // plugin names the script to build it with, since amber has no C
    // toolchain), and nothing stale is added.
    let later = std::time::SystemTime::now() + std::time::Duration::from_secs(5);
    std::fs::File::options()
        .write(true)
        .open(dir.join("plugin.c"))
        .unwrap()
        .set_modified(later)
        .unwrap();
    // Never built unasked: a build runs the plugin's toolchain.
    let out = home.run(&["plugin", "add", dir.to_str().unwrap(), "--yes"]);
    assert!(!out.status.success());
    let err = text(&out.stderr);
    assert!(err.contains("plugin.c changed since") && err.contains("--build"), "{err}");
    let out = home.run(&["plugin", "add", dir.to_str().unwrap(), "--yes", "--build"]);
    assert!(!out.status.success());
    let err = text(&out.stderr);
    assert!(err.contains("no C toolchain"), "{err}");
    // Without a component at all, the same.
    std::fs::remove_file(dir.join("dist/my-notes.wasm")).unwrap();
    let err = text(&home.run(&["plugin", "add", dir.to_str().unwrap()]).stderr);
    assert!(err.contains("is not built yet") && err.contains("--build"), "{err}");
}
