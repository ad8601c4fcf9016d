//! Slash commands from the shell, end to end through the real binary and
//! the real bundled command plugin: `amber /set` writing the config file
//! (comments kept, bad values refused whole), `/get`, unknown commands,
//! `--json`, `/plugins`, the `/git` subtree of the bundled command-git
//! guest, a hostile command guest contained, completion through the
//! scripts of `amber completions`, and `amber man`.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "a test fails by panicking, its helpers too"
)]

use std::path::Path;
use std::process::{Command, Output};

use amber_tests::cli::amber_command;
use amber_tests::exec_env::text;
use amber_tests::guest;
use serde_json::Value;

const AMBER: &str = env!("CARGO_BIN_EXE_amber");

struct Home {
    _dir: tempfile::TempDir,
    home: std::path::PathBuf,
    ws: std::path::PathBuf,
}

impl Home {
    fn new() -> Home {
        let dir = tempfile::tempdir().unwrap();
        let home = dir.path().join("home");
        let ws = dir.path().join("ws");
        std::fs::create_dir_all(&home).unwrap();
        std::fs::create_dir_all(&ws).unwrap();
        Home {
            _dir: dir,
            home,
            ws,
        }
    }

    fn command(&self, args: &[&str]) -> Command {
        let mut cmd = amber_command(AMBER, &self.home, &self.ws);
        cmd.args(args);
        cmd
    }

    fn run(&self, args: &[&str]) -> Output {
        self.command(args).output().unwrap()
    }

    /// Runs `args`, expecting success, and gives stdout.
    fn ok(&self, args: &[&str]) -> String {
        let out = self.run(args);
        assert!(
            out.status.success(),
            "{args:?}: {}{}",
            text(&out.stdout),
            text(&out.stderr)
        );
        text(&out.stdout)
    }

    fn config(&self) -> String {
        std::fs::read_to_string(self.home.join("config.toml")).unwrap_or_default()
    }

    fn config_path(&self) -> std::path::PathBuf {
        self.home.join("config.toml")
    }
}

fn git(ws: &Path, args: &[&str]) {
    let out = Command::new("git")
        .args(args)
        .current_dir(ws)
        .env("GIT_AUTHOR_NAME", "t")
        .env("GIT_AUTHOR_EMAIL", "t@example.com")
        .env("GIT_COMMITTER_NAME", "t")
        .env("GIT_COMMITTER_EMAIL", "t@example.com")
        .output()
        .unwrap();
    assert!(out.status.success(), "git {args:?}: {}", text(&out.stderr));
}

#[test]
fn set_writes_the_config_keeping_comments_and_refuses_a_bad_value_whole() {
    let home = Home::new();
    let path = home.config_path();
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    let before = "# mine\n[policy]\nmode = \"write\" # as shipped\n\n[agent]\n# long runs\nmax_tool_iterations = 40\n";
    std::fs::write(&path, before).unwrap();

    let out = home.ok(&["/set", "policy", "read"]);
    assert!(out.starts_with("policy = read (saved in "), "{out}");
    assert_eq!(home.config(), before.replace("\"write\"", "\"read\""));
    assert_eq!(home.ok(&["/get", "policy"]).trim(), "policy = read");

    home.ok(&["/set", "temperature", "0.7"]);
    home.ok(&["/set", "compress_threshold", "0.5"]);
    home.ok(&["/set", "max_iterations", "12"]);
    let all = home.ok(&["/get"]);
    for line in [
        "temperature          0.7",
        "max_iterations       12",
        "compress_threshold   0.5",
    ] {
        assert!(all.contains(line), "{all}");
    }
    assert!(home.config().starts_with("# mine\n"), "{}", home.config());

    // A provider saved with another provider's model would send that
    // model to it: the provider's own model is saved with it, and said.
    home.ok(&["/set", "model", "gpt-test"]);
    let out = home.ok(&["/set", "provider", "anthropic"]);
    assert!(out.contains("model = claude-sonnet-4-5, the provider's own"), "{out}");
    assert!(home.config().contains("model = \"claude-sonnet-4-5\""), "{}", home.config());
    assert_eq!(home.ok(&["/get", "model"]).trim(), "model = claude-sonnet-4-5");

    // A bad value: refused whole, naming the key, the value and what is
    // allowed; the file is as it was.
    let saved = home.config();
    for (args, allowed) in [
        (vec!["/set", "temperature", "5"], "a number from 0 to 2"),
        (vec!["/set", "max_iterations", "lots"], "a number from 1"),
        (vec!["/set", "policy", "maybe"], "read, write, yolo"),
        (vec!["/set", "provider", "nope"], "anthropic"),
    ] {
        let out = home.run(&args);
        let err = text(&out.stderr);
        // A value the setting does not take is a usage error.
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains("command error: cannot set"), "{err}");
        assert!(err.contains(&format!("`{}`", args[2])), "{err}");
        assert!(err.contains(allowed), "{args:?}: {err}");
        assert_eq!(home.config(), saved);
    }
}

#[test]
fn unknown_commands_suggest_the_nearest_and_json_gives_the_outcome() {
    let home = Home::new();
    let out = home.run(&["/plugns", "list"]);
    assert_eq!(out.status.code(), Some(2));
    let err = text(&out.stderr);
    assert!(
        err.contains("unknown command: /plugns") && err.contains("did you mean /plugins?"),
        "{err}"
    );

    let out = home.run(&["--json", "/nothing"]);
    assert_eq!(out.status.code(), Some(2));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["status"], "unknown");

    let v: Value = serde_json::from_str(&home.ok(&["/get", "policy", "--json"])).unwrap();
    assert_eq!(v["status"], "ok");
    assert_eq!(v["action"], "get.value");
    assert_eq!(v["data"]["key"], "policy");

    // A node without an action prints its page: documented, not executable.
    let page = home.ok(&["/set"]);
    assert!(
        page.contains("/set") && page.contains("compress_threshold"),
        "{page}"
    );

    // A setting that does not exist: its page on stderr with the nearest
    // name, and a usage error (scripts see it failed).
    let out = home.run(&["/set", "temprature", "1"]);
    assert_eq!(out.status.code(), Some(2));
    let err = text(&out.stderr);
    assert!(err.contains("did you mean /set temperature?"), "{err}");
    let out = home.run(&["/set", "temprature", "1", "--json"]);
    assert_eq!(out.status.code(), Some(2));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["unmatched"], "temprature");
    // The session's flags before a subcommand are a usage error.
    let out = home.run(&["--resume", "exec"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("`exec` is a subcommand"), "{}", text(&out.stderr));
    let out = home.run(&["--mode", "read", "exec", "hi"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("give them to the subcommand"));

    // Not a subcommand and not a slash: a prompt for the TUI, which a
    // run without a terminal cannot open (usage, status 2, a pointer).
    let out = home.run(&["frobnicate"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("amber -p"), "{}", text(&out.stderr));
}

#[test]
fn the_policy_rules_feed_lists_each_tool_with_rules() {
    let home = Home::new();
    std::fs::write(
        home.config_path(),
        "[[policy.rules]]\ntool = \"write\"\npath = \"docs\"\ndecision = \"allow\"\n",
    )
    .unwrap();
    let all = home.ok(&["/get", "rules"]);
    assert!(
        all.contains("write") && all.contains("docs") && all.contains("allow"),
        "{all}"
    );
    assert_eq!(
        home.ok(&["complete", "--index", "3", "--", "amber", "/get", "rules", "wr"])
            .trim(),
        "write"
    );
    assert!(home.ok(&["/get", "rules", "write"]).contains("docs"));
}

#[test]
fn plugins_list_prints_what_amber_plugin_list_prints() {
    let home = Home::new();
    assert_eq!(home.ok(&["/plugins", "list"]), home.ok(&["plugin", "list"]));
    assert_eq!(home.ok(&["/plugins"]), home.ok(&["plugin", "list"]));
}

#[test]
fn the_bundled_git_commands_run_and_go_with_their_plugin() {
    let home = Home::new();
    git(&home.ws, &["init", "-q"]);
    std::fs::write(home.ws.join("a.txt"), "one\n").unwrap();
    git(&home.ws, &["add", "a.txt"]);
    git(&home.ws, &["commit", "-qm", "first"]);
    std::fs::write(home.ws.join("a.txt"), "two\n").unwrap();

    let status = home.ok(&["/git", "status"]);
    assert!(status.contains("a.txt"), "{status}");
    let log = home.ok(&["/git", "log"]);
    assert!(log.contains("first"), "{log}");
    // A documented leaf with no handler prints its page.
    let help = home.ok(&["/help", "git"]);
    assert!(help.contains("status"), "{help}");

    // Disabled: the subtree is gone from the tree, and the command unknown.
    home.ok(&["/plugins", "disable", "git"]);
    let out = home.run(&["/git", "status"]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
    assert!(text(&out.stderr).contains("unknown command: /git"));
    home.ok(&["/plugins", "enable", "git"]);
    assert!(home.ok(&["/git", "status"]).contains("a.txt"));
}

#[test]
fn a_hostile_command_plugin_gives_command_errors_and_the_next_command_works() {
    let home = Home::new();
    let evil = guest("command-hostile");
    home.ok(&["plugin", "add", evil.to_str().unwrap(), "--yes"]);
    std::fs::write(home.config_path(), "[limits]\ndeadline_ms = 500\n").unwrap();
    // 1 MiB of reply is shown cut, with a word on what was left out.
    let flood = home.ok(&["/evil", "flood"]);
    assert!(flood.len() < 70 << 10, "{} bytes", flood.len());
    assert!(
        flood.contains("bytes more"),
        "{}",
        &flood[flood.len() - 100..]
    );
    for (cmd, cause) in [("trap", "evil"), ("spin", "deadline")] {
        let out = home.run(&["/evil", cmd]);
        let err = text(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "/evil {cmd}: {err}");
        assert!(err.starts_with("amber: command error: "), "{err}");
        assert!(err.contains(cause), "/evil {cmd}: {err}");
        assert_eq!(home.ok(&["/evil", "ok"]).trim(), "still here");
    }
}

/// The candidates the completion scripts get for `words` at `index`.
fn candidates(home: &Home, shell: &str, index: usize, words: &[&str]) -> Vec<String> {
    let index = index.to_string();
    let mut args = vec!["complete", "--shell", shell, "--index", &index, "--"];
    args.extend_from_slice(words);
    home.ok(&args).lines().map(String::from).collect()
}

#[test]
fn completion_covers_clap_commands_the_slash_tree_and_plugin_subtrees() {
    let home = Home::new();
    assert_eq!(
        candidates(&home, "bash", 1, &["amber", "/pl"]),
        ["/plan", "/plugins"]
    );
    assert_eq!(
        candidates(&home, "bash", 2, &["amber", "/set", "pol"]),
        ["policy"]
    );
    assert_eq!(
        candidates(&home, "bash", 3, &["amber", "/set", "policy", ""]),
        ["plan", "read", "write", "yolo"]
    );
    let git = candidates(&home, "fish", 2, &["amber", "/git", "st"]);
    assert_eq!(git.len(), 1, "{git:?}");
    assert!(git[0].starts_with("status\t"), "{git:?}");
    let clap = candidates(&home, "bash", 1, &["amber", "ex"]);
    assert!(clap.contains(&"exec".to_string()), "{clap:?}");
    assert!(!clap.contains(&"complete".to_string()), "hidden: {clap:?}");

    // The bash script itself, run by bash: COMPREPLY from the binary.
    let script = home.ok(&["completions", "bash"]);
    let bin_dir = Path::new(AMBER).parent().unwrap();
    let probe = format!(
        "{script}\nCOMP_WORDS=(amber /plugins en); COMP_CWORD=2; _amber; printf '%s\\n' \"${{COMPREPLY[@]}}\"\n"
    );
    // bash with the env amber gets, and this amber first on its PATH.
    let mut bash = amber_command("bash", &home.home, &home.ws);
    bash.env("PATH", format!("{}:/usr/bin:/bin", bin_dir.display()))
        .args(["--noprofile", "--norc", "-c", &probe]);
    let out = bash.output().unwrap();
    assert_eq!(text(&out.stdout).trim(), "enable", "{}", text(&out.stderr));
    for shell in ["zsh", "fish"] {
        assert!(home
            .ok(&["completions", shell])
            .contains("amber complete --shell"));
    }
}

#[test]
fn man_writes_a_page_per_command_and_the_slash_commands() {
    let home = Home::new();
    let dir = home.ws.join("man");
    let listed = home.ok(&["man", dir.to_str().unwrap()]);
    for page in [
        "amber.1",
        "amber-exec.1",
        "amber-plugin.1",
        "amber-commands.7",
    ] {
        let file = dir.join(page);
        assert!(file.is_file(), "{page} missing; wrote:\n{listed}");
    }
    let slash = std::fs::read_to_string(dir.join("amber-commands.7")).unwrap();
    assert!(slash.contains("/set policy"), "{slash}");
    assert!(home.ok(&["man"]).starts_with(".ie") || home.ok(&["man"]).contains(".TH"));
}

#[test]
fn status_shows_the_sandbox_the_mcp_servers_and_the_hooks() {
    let home = Home::new();
    let path = home.config_path();
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(
        &path,
        "[[mcp.servers]]\nname = \"fs\"\ncommand = \"true\"\n\n[[hooks.command]]\nevent = \"stop\"\ncommand = \"true\"\n",
    )
    .unwrap();
    let status = home.ok(&["/status"]);
    for line in ["sandbox   ", "mcp       fs (stopped, 0 tools)", "hooks     1 hook"] {
        assert!(status.contains(line), "{line:?} in\n{status}");
    }
    let out = home.run(&["/status", "--json"]);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["data"]["mcp"][0]["name"], "fs");
    assert_eq!(v["data"]["hooks"]["running"], 1);
    assert!(v["data"]["sandbox"].is_string());
}

#[test]
fn permissions_lists_stores_and_forgets_rules_in_the_config() {
    let home = Home::new();
    let path = home.config_path();
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(&path, "# mine\n[policy]\nmode = \"write\"\n").unwrap();
    let shown = home.ok(&["/permissions"]);
    assert!(shown.contains("session grants") && shown.contains("stored rules"), "{shown}");
    let stored = home.ok(&["/permissions", "allow", "exec:cargo", "crates"]);
    assert_eq!(stored.trim(), "stored: allow `exec:cargo` inside crates");
    home.ok(&["/permissions", "deny", "write_file"]);
    let config = home.config();
    assert!(config.starts_with("# mine\n"), "{config}");
    assert!(config.contains("[[policy.rules]]") && config.contains("tool = \"exec:cargo\""), "{config}");
    let shown = home.ok(&["/permissions"]);
    assert!(shown.contains("1. allow `exec:cargo` inside crates"), "{shown}");
    assert!(shown.contains("2. deny `write_file` anywhere"), "{shown}");
    // The rule holds: /get rules reads the same config.
    assert!(home.ok(&["/get", "rules"]).contains("write_file"));
    let gone = home.ok(&["/permissions", "forget", "1"]);
    assert_eq!(gone.trim(), "forgotten: allow `exec:cargo` inside crates");
    assert!(!home.config().contains("exec:cargo"));
    // A number not in the list, or words it does not take: usage errors.
    assert_eq!(home.run(&["/permissions", "forget", "9"]).status.code(), Some(2));
    assert_eq!(home.run(&["/permissions", "maybe"]).status.code(), Some(2));
}

#[test]
fn memory_lists_adds_and_forgets_this_workspaces_memories() {
    let home = Home::new();
    assert!(home.ok(&["/memory"]).contains("none yet"));
    let stored = home.ok(&["/memory", "add", "gotcha:", "the build needs protoc"]);
    assert!(stored.starts_with("stored #1 (gotcha, a candidate)"), "{stored}");
    home.ok(&["/memory", "add", "tabs in Makefiles"]);
    let listed = home.ok(&["/memory"]);
    assert!(listed.contains("#1") && listed.contains("gotcha") && listed.contains("the build needs protoc"), "{listed}");
    assert!(listed.contains("domain-note") && listed.contains("tabs in Makefiles"), "{listed}");
    // The same store as `amber memory`.
    let out = home.run(&["memory", "list", "--json"]);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["records"].as_array().unwrap().len(), 2);
    let forgot = home.ok(&["/memory", "forget", "1", "wrong"]);
    assert!(forgot.starts_with("forgot #1"), "{forgot}");
    assert!(!home.ok(&["/memory"]).contains("protoc"));
    assert_eq!(home.run(&["/memory", "forget", "x"]).status.code(), Some(2));
    // Another workspace's memory is not this one's to forget.
    let out = home.run(&[
        "memory", "--namespace", "project:/elsewhere", "add", "--type", "decision", "--title",
        "theirs", "--confidence", "0.9", "their text",
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let out = home.run(&["/memory", "forget", "3"]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
    assert!(text(&out.stderr).contains("not of this workspace"), "{}", text(&out.stderr));
}
