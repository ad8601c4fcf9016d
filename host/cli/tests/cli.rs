//! The `amber` binary end to end, on real components.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "a test fails by panicking, its helpers too"
)]

use std::path::Path;
use std::process::{Command, Output};

use amber_tests::guest;

fn amber(home: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_amber"))
        .args(args)
        .env("AMBER_HOME", home)
        .env("AMBER_WORKSPACE", home)
        .output()
        .expect("amber runs")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

#[test]
fn tool_call_runs_a_component_tool_and_prints_its_output() {
    let home = tempfile::tempdir().unwrap();
    let hello = guest("hello-tool");
    let out = amber(
        home.path(),
        &[
            "tool",
            "call",
            "--with",
            hello.to_str().unwrap(),
            "hello",
            r#"{"name":"cli"}"#,
        ],
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(text(&out.stdout), "Hello, cli!\n");
}

#[test]
fn tool_call_json_prints_an_envelope() {
    let home = tempfile::tempdir().unwrap();
    let hello = guest("hello-tool");
    let out = amber(
        home.path(),
        &[
            "tool",
            "call",
            "--json",
            "--with",
            hello.to_str().unwrap(),
            "hello",
        ],
    );
    let value: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(value["status"], "ok");
    assert_eq!(value["output"], "Hello, world!");
}

#[test]
fn an_unknown_tool_exits_1_naming_the_known_ones() {
    let home = tempfile::tempdir().unwrap();
    let hello = guest("hello-tool");
    let out = amber(
        home.path(),
        &["tool", "call", "--with", hello.to_str().unwrap(), "nope"],
    );
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        text(&out.stderr).trim(),
        "amber: no tool `nope` is installed (known: read_file, write_file, edit_file, list_dir, glob, grep, shell, web_fetch, outline, show, callers, hello)"
    );
}

#[test]
fn a_trapping_tool_exits_1_with_the_cause() {
    let home = tempfile::tempdir().unwrap();
    let bad = guest("misbehave");
    let out = amber(
        home.path(),
        &["tool", "call", "--with", bad.to_str().unwrap(), "trap"],
    );
    assert_eq!(out.status.code(), Some(1));
    assert!(
        text(&out.stderr).contains("plugin `misbehave` trapped in tool `trap`"),
        "{}",
        text(&out.stderr)
    );
}

#[test]
fn inspect_shows_manifest_permissions_and_tools_as_json() {
    let home = tempfile::tempdir().unwrap();
    let bad = guest("misbehave");
    let out = amber(
        home.path(),
        &["plugin", "inspect", "--json", bad.to_str().unwrap()],
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    let value: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(value["plugin"]["manifest"]["id"], "misbehave");
    assert_eq!(
        value["plugin"]["manifest"]["permissions"][0]["permission"],
        "workspace-read"
    );
    assert_eq!(value["tools"].as_array().unwrap().len(), 16);
}

#[test]
fn inspect_refuses_a_foreign_api_version_in_one_line() {
    let home = tempfile::tempdir().unwrap();
    let wrong = guest("wrong-api");
    let out = amber(home.path(), &["plugin", "inspect", wrong.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    let err = text(&out.stderr);
    assert!(
        err.trim()
            .ends_with("incompatible: built for amber:plugin@9.0.0; this host speaks @0.3.0, and @0.2.0, @0.1.0 through adapters; upgrade amber to load it, or rebuild the plugin with the SDK for 0.3"),
        "{err}"
    );
    assert_eq!(err.lines().count(), 1);
}

#[test]
fn an_unknown_permission_is_a_usage_error() {
    let home = tempfile::tempdir().unwrap();
    let out = amber(home.path(), &["tool", "call", "--grant", "root", "hello"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("unknown permission `root`"));
}

/// The options of `amber <path> --help` that have no description, and
/// its subcommands (without `help`).
fn undocumented_and_subcommands(help: &str) -> (Vec<String>, Vec<String>) {
    let lines: Vec<&str> = help.lines().collect();
    let mut bare = Vec::new();
    let mut subcommands = Vec::new();
    let mut section = "";
    for (i, line) in lines.iter().enumerate() {
        if !line.starts_with(' ') && line.ends_with(':') {
            section = line;
            continue;
        }
        let trimmed = line.trim();
        if section == "Commands:" {
            let name = trimmed.split_whitespace().next().unwrap_or("");
            if !name.is_empty()
                && name != "help"
                && line.starts_with("  ")
                && !line.starts_with("   ")
            {
                subcommands.push(name.to_string());
            }
        }
        if section != "Options:" || !trimmed.starts_with('-') {
            continue;
        }
        // Short layout: "--flag <V>   description"; long layout: the
        // description on the next line.
        // A default or a list of values is not a description.
        let says = |text: &str| {
            let text = text.trim();
            !text.is_empty()
                && !text.starts_with("[default:")
                && !text.starts_with("[possible values:")
                && !text.starts_with("Possible values:")
        };
        let described_inline = trimmed.split_once("  ").is_some_and(|(_, rest)| says(rest));
        let described_below = lines
            .get(i + 1)
            .is_some_and(|next| next.starts_with("          ") && says(next));
        if !described_inline && !described_below {
            bare.push(trimmed.to_string());
        }
    }
    (bare, subcommands)
}

#[test]
fn every_option_of_every_command_says_what_it_does() {
    let home = tempfile::tempdir().unwrap();
    let mut todo: Vec<Vec<String>> = vec![Vec::new()];
    let mut seen = 0;
    let mut bare = Vec::new();
    while let Some(path) = todo.pop() {
        let mut args: Vec<&str> = path.iter().map(String::as_str).collect();
        args.push("--help");
        let out = amber(home.path(), &args);
        assert!(out.status.success(), "{args:?}");
        let (undocumented, subcommands) = undocumented_and_subcommands(&text(&out.stdout));
        seen += 1;
        bare.extend(
            undocumented
                .into_iter()
                .map(|o| format!("amber {}: {o}", path.join(" "))),
        );
        for sub in subcommands {
            let mut next = path.clone();
            next.push(sub);
            todo.push(next);
        }
    }
    assert!(seen > 30, "walked only {seen} commands");
    assert!(
        bare.is_empty(),
        "options without help:\n{}",
        bare.join("\n")
    );
}

/// Every positional argument of every command has help text, and
/// `plugin grant` names the valid permissions.
#[test]
fn every_positional_argument_has_help_and_grant_lists_the_permissions() {
    let home = tempfile::tempdir().unwrap();
    let commands: &[&[&str]] = &[
        &["exec"],
        &["sessions", "show"],
        &["plugin", "add"],
        &["plugin", "info"],
        &["plugin", "inspect"],
        &["plugin", "enable"],
        &["plugin", "disable"],
        &["plugin", "remove"],
        &["plugin", "grant"],
        &["plugin", "revoke"],
        &["plugin", "logs"],
        &["tool", "call"],
        &["providers", "check"],
        &["index"],
        &["outline"],
        &["show"],
        &["callers"],
        &["grep"],
        &["memory", "add"],
        &["memory", "recall"],
        &["memory", "show"],
        &["memory", "revise"],
        &["memory", "link"],
        &["memory", "forget"],
    ];
    for command in commands {
        let mut args = command.to_vec();
        args.push("--help");
        let out = amber(home.path(), &args);
        assert!(out.status.success(), "{command:?}: {}", text(&out.stderr));
        let help = text(&out.stdout);
        let Some(section) = help.split("Arguments:\n").nth(1) else {
            continue;
        };
        let section = section.split("\nOptions:").next().unwrap_or("");
        let lines: Vec<&str> = section.lines().collect();
        for (i, line) in lines.iter().enumerate() {
            let trimmed = line.trim();
            if !(trimmed.starts_with('<') || trimmed.starts_with('[')) {
                continue;
            }
            // Help on the same line, or on the next, indented further.
            let same_line = trimmed
                .split_once("  ")
                .is_some_and(|(_, h)| !h.trim().is_empty());
            let next_line = lines
                .get(i + 1)
                .is_some_and(|next| next.starts_with("          ") && !next.trim().is_empty());
            assert!(
                same_line || next_line,
                "{command:?}: `{trimmed}` has no help:\n{help}"
            );
        }
    }
    let grant = text(&amber(home.path(), &["plugin", "grant", "--help"]).stdout);
    for permission in ["workspace-read", "workspace-write", "exec"] {
        assert!(grant.contains(permission), "{grant}");
    }
}

/// `memory revise --help` does not claim `add`'s defaults: a field not
/// given keeps its value there. `add --help` says what a new record gets.
#[test]
fn memory_revise_help_has_no_defaults_and_add_help_has_them() {
    let home = tempfile::tempdir().unwrap();
    let revise = text(&amber(home.path(), &["memory", "revise", "--help"]).stdout);
    assert!(
        revise.contains("Fields not given keep their values"),
        "{revise}"
    );
    assert!(!revise.contains("default 0.5"), "{revise}");
    assert!(!revise.contains("candidate (default)"), "{revise}");
    assert!(!revise.contains("default: user"), "{revise}");
    let add = text(&amber(home.path(), &["memory", "add", "--help"]).stdout);
    assert!(
        add.contains("confidence 0.5, status candidate and actor user"),
        "{add}"
    );
}

/// `--color always|never|auto` and `NO_COLOR` reach clap's own help and
/// errors: escapes only when asked for, the flag over the variable.
#[test]
fn color_follows_the_flag_and_no_color() {
    let home = tempfile::tempdir().unwrap();
    let has_escapes = |out: &Output| {
        let all = [out.stdout.as_slice(), out.stderr.as_slice()].concat();
        all.windows(2).any(|w| w == b"\x1b[")
    };
    let always = amber(home.path(), &["--color", "always", "plugin", "bogus"]);
    assert_eq!(always.status.code(), Some(2));
    assert!(has_escapes(&always), "{}", text(&always.stderr));
    let never = amber(home.path(), &["--color=never", "plugin", "bogus"]);
    assert!(!has_escapes(&never), "{}", text(&never.stderr));
    // Not a terminal: auto gives none either.
    assert!(!has_escapes(&amber(home.path(), &["plugin", "bogus"])));
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_amber"));
    cmd.env("AMBER_HOME", home.path())
        .env("NO_COLOR", "1")
        .args(["--color", "always", "plugin", "bogus"]);
    assert!(
        has_escapes(&cmd.output().unwrap()),
        "the flag wins over NO_COLOR"
    );
    let bad = amber(home.path(), &["--color", "sometimes", "plugin", "list"]);
    assert_eq!(bad.status.code(), Some(2));
    assert!(
        text(&bad.stderr).contains("always"),
        "{}",
        text(&bad.stderr)
    );
}

/// `plugin inspect` of a plugin that would fail (its `initialize` refuses)
/// exits 1 and says why once, on stderr; the JSON still has the status.
#[test]
fn inspect_fails_for_a_plugin_that_would_fail_and_says_it_once() {
    let home = tempfile::tempdir().unwrap();
    std::fs::write(
        home.path().join("config.toml"),
        "[plugins.misbehave.settings]\nfail-initialize = \"missing token\"\n",
    )
    .unwrap();
    let bad = guest("misbehave");
    let out = amber(home.path(), &["plugin", "inspect", bad.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    let (stdout, stderr) = (text(&out.stdout), text(&out.stderr));
    let all = format!("{stdout}{stderr}");
    assert_eq!(all.matches("missing token").count(), 1, "{all}");
    assert!(
        stderr.contains("plugin `misbehave` would fail: ") && stderr.contains("missing token"),
        "{stderr}"
    );
    let out = amber(
        home.path(),
        &["plugin", "inspect", "--json", bad.to_str().unwrap()],
    );
    assert_eq!(out.status.code(), Some(1));
    let value: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(value["plugin"]["manifest"]["id"], "misbehave");
}
