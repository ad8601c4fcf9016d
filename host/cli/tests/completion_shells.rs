//! Completion of every dynamic value, through the scripts `amber
//! completions` prints, in real shells: bash (the script sourced, its
//! function called as bash's completion calls it) for a table of every
//! kind, and zsh in a real terminal (tmux) where Tab lists the plugin ids.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "a test fails by panicking, its helpers too"
)]

use std::process::Command;
use std::time::{Duration, Instant};

use amber_tests::exec_env::{fake, text, Env};

const AMBER: &str = env!("CARGO_BIN_EXE_amber");

/// An environment with a session, a memory, an MCP server and a
/// workspace hook, so every kind has something to complete.
fn env() -> Env {
    let env = Env::without_confirm_turn(AMBER);
    let config = std::fs::read_to_string(env.home.join("config.toml")).unwrap();
    std::fs::write(
        env.home.join("config.toml"),
        format!("{config}\n[hooks]\nclaude_settings = true\n\n[[mcp.servers]]\nname = \"docs-server\"\ncommand = \"true\"\n"),
    )
    .unwrap();
    std::fs::create_dir_all(env.ws.join(".claude")).unwrap();
    std::fs::write(
        env.ws.join(".claude/settings.json"),
        r#"{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"echo stopped"}]}]}}"#,
    )
    .unwrap();
    let server = fake("[[turns]]\nreply = { text = \"remembered\" }\n");
    env.exec(&server, &[], "a session to complete").assert_done("remembered");
    let out = env.run(&[
        "memory",
        "add",
        "--type",
        "decision",
        "--title",
        "Use tabs in Makefiles",
        "--confidence",
        "0.9",
        "make needs them",
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    env
}

/// What bash completes for the last word of `line` (an empty last word
/// when `line` ends with a space).
fn bash(env: &Env, line: &str) -> Vec<String> {
    let mut words: Vec<String> = line.split_whitespace().map(String::from).collect();
    if line.ends_with(' ') {
        words.push(String::new());
    }
    let quoted: Vec<String> = words.iter().map(|w| format!("'{w}'")).collect();
    let script = format!(
        "source <(amber completions bash); COMP_WORDS=({}); COMP_CWORD={}; _amber; printf '%s\\n' \"${{COMPREPLY[@]}}\"",
        quoted.join(" "),
        words.len() - 1
    );
    // bash with amber's environment, the built amber first on its PATH.
    let bin_dir = std::path::Path::new(AMBER).parent().unwrap();
    let mut cmd = Command::new("bash");
    cmd.args(["-c", &script]).current_dir(&env.ws);
    for (key, value) in env.command(&[]).get_envs() {
        match value {
            Some(value) => cmd.env(key, value),
            None => cmd.env_remove(key),
        };
    }
    let path = std::env::var("PATH").unwrap_or_default();
    cmd.env("PATH", format!("{}:{path}", bin_dir.display()));
    let out = cmd.output().unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    text(&out.stdout).lines().map(String::from).collect()
}

#[test]
fn bash_completes_every_dynamic_kind() {
    let env = env();
    let sessions: serde_json::Value =
        serde_json::from_slice(&env.run(&["sessions", "list", "--json"]).stdout).unwrap();
    let session = sessions["sessions"][0]["id"].as_str().unwrap().to_string();
    let hooks: serde_json::Value =
        serde_json::from_slice(&env.run(&["hooks", "list", "--json"]).stdout).unwrap();
    let fingerprint = hooks
        .as_array()
        .unwrap()
        .iter()
        .find_map(|h| h["fingerprint"].as_str())
        .expect("the workspace hook has a fingerprint")
        .to_string();
    let memories: serde_json::Value =
        serde_json::from_slice(&env.run(&["memory", "list", "--json"]).stdout).unwrap();
    let memory = memories["records"][0]["id"].to_string();
    let table: Vec<(&str, String)> = vec![
        ("amber plugin disable ", "notes".into()),
        ("amber plugin info no", "notes".into()),
        ("amber plugin grant ", "fs".into()),
        ("amber tool call rea", "read_file".into()),
        ("amber mcp remove ", "docs-server".into()),
        ("amber mcp tools docs", "docs-server".into()),
        ("amber sessions show ", session.clone()),
        ("amber exec --resume ", session.clone()),
        ("amber --resume ", session),
        ("amber exec --provider anth", "anthropic".into()),
        ("amber --provider ", "openai".into()),
        ("amber exec --model ", "gpt-4.1".into()),
        ("amber -m claude", "claude-sonnet-4-5".into()),
        ("amber hooks trust ", fingerprint),
        ("amber memory show ", memory.clone()),
        ("amber memory forget ", memory),
        ("amber bench run scen", "scenario-fix.toml".into()),
    ];
    std::fs::write(env.ws.join("scenario-fix.toml"), "# a scenario\n").unwrap();
    for (line, expected) in table {
        let got = bash(&env, line);
        assert!(got.contains(&expected), "`{line}`: {expected} not in {got:?}");
    }
}

#[test]
fn zsh_lists_the_plugin_ids_on_tab() {
    let env = env();
    let bin_dir = std::path::Path::new(AMBER).parent().unwrap();
    let name = format!("amber-zsh-{}", std::process::id());
    let command = format!(
        "env -i HOME='{home}' TERM=xterm-256color PATH='{bin}:/usr/bin:/bin' AMBER_HOME='{home}' AMBER_WORKSPACE='{ws}' AMBER_BUNDLE_DIR='{bundle}' AMBER_CACHE_DIR='{cache}' zsh -f",
        home = env.home.display(),
        bin = bin_dir.display(),
        ws = env.ws.display(),
        bundle = amber_tests::guests_dir().display(),
        cache = amber_tests::repo_root().join("target/test-cache").display(),
    );
    let status = Command::new("tmux")
        .args(["new-session", "-d", "-s", &name, "-x", "120", "-y", "30"])
        .arg(command)
        .status()
        .unwrap();
    assert!(status.success());
    let send = |keys: &[&str]| {
        Command::new("tmux")
            .args(["send-keys", "-t", &name])
            .args(keys)
            .status()
            .unwrap();
    };
    let screen = || {
        text(
            &Command::new("tmux")
                .args(["capture-pane", "-p", "-t", &name])
                .output()
                .unwrap()
                .stdout,
        )
    };
    send(&[
        "-l",
        "autoload -U compinit && compinit -u && source <(amber completions zsh) && echo READY",
    ]);
    send(&["Enter"]);
    let wait = |needle: &str| {
        let start = Instant::now();
        loop {
            let shown = screen();
            if shown.contains(needle) {
                return shown;
            }
            if start.elapsed() > Duration::from_secs(20) {
                let _ = Command::new("tmux").args(["kill-session", "-t", &name]).status();
                panic!("`{needle}` did not appear:\n{shown}");
            }
            std::thread::sleep(Duration::from_millis(100));
        }
    };
    wait("READY");
    send(&["-l", "amber plugin disable "]);
    send(&["Tab"]);
    let shown = wait("notes");
    let _ = Command::new("tmux").args(["kill-session", "-t", &name]).status();
    assert!(shown.contains("provider-openai"), "{shown}");
}
