//! Commands written as files, end to end: a Claude Code command file in
//! the workspace (`.claude/commands/fix.md`, `$ARGUMENTS` and a `!git
//! status` line) becomes `/fix` in the TUI, completes in the drawer, asks
//! for trust once, and its expanded prompt (the command's output in
//! place) reaches the fake server; `amber exec "/fix …"` then runs it as
//! the TUI does, without asking again, while a changed file is refused
//! headless until trusted again. `/commands` lists the file and a broken
//! one with its reason.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "a test fails by panicking, its helpers too"
)]

use std::time::Duration;

use amber_tests::exec_env::{fake, text, Env};
use amber_tests::tmux::Tmux;

const AMBER: &str = env!("CARGO_BIN_EXE_amber");

const FIX: &str = "---\ndescription: Fix a widget\nargument-hint: [widget]\nallowed-tools: Bash(git status:*), Read\n---\nFix $ARGUMENTS now.\nThe tree:\n!echo tree-is-clean\n";

#[test]
fn a_claude_code_command_file_completes_asks_trust_once_and_sends_its_prompt() {
    let env = Env::without_confirm_turn(AMBER);
    let commands = env.ws.join(".claude/commands");
    std::fs::create_dir_all(&commands).unwrap();
    std::fs::write(commands.join("fix.md"), FIX).unwrap();
    std::fs::write(commands.join("broken.md"), "---\nnot a field\n---\n").unwrap();
    let server = fake(
        r#"
[[turns]]
reply = { text = "Fixed the widget." }
[[turns]]
reply = { text = "Fixed it again." }
[[turns]]
reply = { text = "From exec." }
"#,
    );
    let tui = Tmux::start(&env, &server, "amber-file-command", "");
    tui.wait_for("mode write");
    // The drawer offers it with its description and source.
    tui.keys(&["-l", "/fi"]);
    let drawer = tui.wait_for("Fix a widget");
    assert!(drawer.contains("workspace, Claude Code"), "{drawer}");
    tui.keys(&["Tab"]);
    tui.wait_for("› /fix");
    tui.keys(&["-l", "the-widget"]);
    tui.keys(&["Enter"]);
    // A workspace file that runs a command asks for trust first.
    let dialog = tui.wait_for("approval needed");
    assert!(dialog.contains("trust /fix") && dialog.contains("echo tree-is-clean"), "{dialog}");
    std::thread::sleep(Duration::from_millis(600));
    tui.keys(&["y"]);
    tui.wait_for("Fixed the widget.");
    let sent = server.received()[0].body.to_string();
    assert!(sent.contains("Fix the-widget now."), "{sent}");
    // The command's line is replaced by the command and its output.
    assert!(sent.contains("$ echo tree-is-clean\\nexit code: 0\\ntree-is-clean"), "{sent}");
    assert!(!sent.contains("!echo"), "{sent}");
    // Trusted once: the second run does not ask.
    tui.type_line("/fix another");
    tui.wait_for("Fixed it again.");
    assert!(!tui.screen().contains("approval needed"));
    tui.keys(&["C-d"]);
    tui.wait_for("amber exited 0");
    drop(tui);

    // exec runs it as the TUI does; trusted, so headless is fine.
    let run = env.exec(&server, &[], "/fix from-exec");
    run.assert_done("From exec.");
    let sent = server.received()[2].body.to_string();
    assert!(sent.contains("Fix from-exec now."), "{sent}");

    // A changed file is a new file: refused headless until trusted again.
    std::fs::write(commands.join("fix.md"), format!("{FIX}!echo more\n")).unwrap();
    let server = fake("[[turns]]\nreply = { text = \"never\" }\n");
    let run = env.exec(&server, &[], "/fix changed");
    assert_eq!(run.code, Some(1));
    assert!(server.received().is_empty());

    // /commands lists it and the broken one with its reason.
    let out = env.run(&["/commands"]);
    let listed = text(&out.stdout);
    assert!(listed.contains("/fix") && listed.contains(".claude/commands/fix.md"), "{listed}");
    assert!(listed.contains("skipped") && listed.contains("broken.md") && listed.contains("line 2"), "{listed}");
}

fn git(ws: &std::path::Path, args: &[&str]) {
    let out = std::process::Command::new("git")
        .args(["-c", "user.name=t", "-c", "user.email=t@t", "-c", "commit.gpgsign=false"])
        .args(args)
        .current_dir(ws)
        .output()
        .unwrap();
    assert!(out.status.success(), "git {args:?}: {}", text(&out.stderr));
}

#[test]
fn init_writes_agents_md_and_review_sends_the_diff() {
    let env = Env::without_confirm_turn(AMBER);
    git(&env.ws, &["init", "-q", "-b", "main"]);
    std::fs::write(env.ws.join("lib.rs"), "fn add(a: i32, b: i32) -> i32 { a - b }\n").unwrap();
    git(&env.ws, &["add", "-A"]);
    git(&env.ws, &["commit", "-q", "-m", "first"]);
    git(&env.ws, &["checkout", "-q", "-b", "topic"]);
    std::fs::write(env.ws.join("lib.rs"), "fn add(a: i32, b: i32) -> i32 { a + b }\n").unwrap();
    git(&env.ws, &["commit", "-q", "-am", "fix add"]);
    std::fs::write(env.ws.join("notes.md"), "uncommitted words\n").unwrap();
    git(&env.ws, &["add", "notes.md"]);

    // /review: the uncommitted changes, and with a base the commits since.
    let server = fake(
        "[[turns]]\nreply = { text = \"Looks right.\" }\n[[turns]]\nreply = { text = \"The fix is right.\" }\n",
    );
    env.exec(&server, &[], "/review").assert_done("Looks right.");
    let sent = server.received()[0].body.to_string();
    assert!(sent.contains("Review these changes"), "{sent}");
    assert!(sent.contains("+uncommitted words"), "{sent}");
    assert!(!sent.contains("+fn add(a: i32, b: i32) -> i32 { a + b }"), "{sent}");
    env.exec(&server, &[], "/review main").assert_done("The fix is right.");
    let sent = server.received()[1].body.to_string();
    assert!(sent.contains("-fn add(a: i32, b: i32) -> i32 { a - b }"), "{sent}");
    assert!(sent.contains("+fn add(a: i32, b: i32) -> i32 { a + b }"), "{sent}");

    // /init: the prompt asks for AGENTS.md, and the write it makes lands.
    let server = fake(
        r##"
[[turns]]
reply = { tool_calls = [{ id = "w1", name = "write_file", arguments = { path = "AGENTS.md", content = "# Agents\n\nRun `cargo test`.\n" } }] }
[[turns]]
reply = { text = "Wrote AGENTS.md." }
"##,
    );
    env.exec(&server, &["--yes"], "/init").assert_done("Wrote AGENTS.md.");
    let sent = server.received()[0].body.to_string();
    assert!(sent.contains("write an `AGENTS.md`"), "{sent}");
    assert_eq!(
        std::fs::read_to_string(env.ws.join("AGENTS.md")).unwrap(),
        "# Agents\n\nRun `cargo test`.\n"
    );

    // A review.md of the user's own replaces amber's.
    let own = env.ws.join(".amber/commands");
    std::fs::create_dir_all(&own).unwrap();
    std::fs::write(own.join("review.md"), "My own review of $ARGUMENTS\n").unwrap();
    let server = fake("[[turns]]\nreply = { text = \"Mine.\" }\n");
    env.exec(&server, &[], "/review it").assert_done("Mine.");
    let sent = server.received()[0].body.to_string();
    assert!(sent.contains("My own review of it"), "{sent}");
}

#[test]
fn diff_shows_what_the_session_changed_since_it_began() {
    let env = Env::without_confirm_turn(AMBER);
    git(&env.ws, &["init", "-q", "-b", "main"]);
    std::fs::write(env.ws.join("lib.rs"), "old body\n").unwrap();
    git(&env.ws, &["add", "-A"]);
    git(&env.ws, &["commit", "-q", "-m", "first"]);
    let server = fake(
        r#"
[[turns]]
reply = { tool_calls = [{ id = "e1", name = "edit_file", arguments = { path = "lib.rs", old_string = "old body", new_string = "new body" } }, { id = "w1", name = "write_file", arguments = { path = "fresh.txt", content = "a new file\n" } }] }
[[turns]]
reply = { text = "Changed." }
"#,
    );
    env.exec(&server, &["--yes"], "change things").assert_done("Changed.");
    // A commit made after the session began is still part of its diff.
    git(&env.ws, &["commit", "-q", "-am", "later"]);
    // A repository's clean filter is a program git would run comparing the
    // work tree: /diff must not run it.
    std::fs::write(env.ws.join(".gitattributes"), "* filter=evil\n").unwrap();
    git(&env.ws, &["config", "filter.evil.clean", "touch pwned; cat"]);
    let out = env.run(&["/diff"]);
    let shown = text(&out.stdout);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(shown.contains("-old body") && shown.contains("+new body"), "{shown}");
    assert!(shown.contains("+++ fresh.txt") && shown.contains("+a new file"), "{shown}");
    assert!(!env.ws.join("pwned").exists(), "the repository's filter ran");
    let out = env.run(&["/diff", "--json"]);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["data"]["written"], serde_json::json!(["lib.rs", "fresh.txt"]));
    assert!(v["data"]["since"].as_str().is_some_and(|h| h.len() == 40));
}
