//! The TUI end to end in a real terminal: tmux runs the real `amber`
//! binary against the fake LLM server (the bundled OpenAI provider
//! component, the real tools). The test types a prompt and sees the
//! streamed answer, approves a write and sees its diff card, changes the
//! mode with `/set policy read` and sees the status line follow, cancels
//! a turn mid-stream with Ctrl-C, quits with Ctrl-D, and resumes the
//! session in a second TUI.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "a test fails by panicking, its helpers too"
)]

use std::process::Command;
use std::time::Duration;

use amber_tests::exec_env::{fake, text, Env};
use amber_tests::tmux::Tmux;

const AMBER: &str = env!("CARGO_BIN_EXE_amber");

#[test]
fn a_session_in_the_terminal_streams_approves_switches_mode_cancels_quits_and_resumes() {
    let env = Env::new(AMBER);
    std::fs::write(
        env.home.join("config.toml"),
        "[agent]\nconfirm_turn = false\n",
    )
    .unwrap();
    std::fs::write(env.ws.join("b.txt"), "old text\n").unwrap();
    let server = fake(
        r#"
[[turns]]
reply = { text = "Hello **there**, friend.", usage = { input = 120, output = 8 } }
[[turns]]
reply = { tool_calls = [{ id = "w1", name = "write_file", arguments = { path = "b.txt", content = "new text\n" } }], usage = { input = 200, output = 20 } }
[[turns]]
reply = { text = "Wrote it.", usage = { input = 260, output = 4 } }
[[turns]]
faults = [{ kind = "stall", after_events = 3, delay_ms = 20000 }]
reply = { text = "Once upon a time there was a parser that never ended its story, and it went on and on.", usage = { input = 300, output = 30 } }
"#,
    );
    let tui = Tmux::start(&env, &server, "amber-tui", "");
    let first = tui.wait_for("session");
    assert!(first.contains("mode write"), "{first}");

    // A prompt, streamed back with its markdown rendered.
    tui.type_line("Say hello");
    let screen = tui.wait_for("Hello there, friend.");
    assert!(screen.contains("› Say hello"), "{screen}");

    // A write asks first; approved once, its card shows the diff.
    tui.type_line("Write b.txt");
    let dialog = tui.wait_for("approval needed");
    assert!(dialog.contains("write_file"), "{dialog}");
    assert!(dialog.contains("+new text"), "{dialog}");
    // The dialog takes no letter for its first moments (a key typed for
    // the prompt as it appeared must not answer it).
    std::thread::sleep(Duration::from_millis(600));
    tui.keys(&["y"]);
    let screen = tui.wait_for("Wrote it.");
    assert!(
        screen.contains("-old text") && screen.contains("+new text"),
        "{screen}"
    );
    assert_eq!(
        std::fs::read_to_string(env.ws.join("b.txt")).unwrap(),
        "new text\n"
    );

    // The mode changes for the next call, and the status line says so.
    tui.type_line("/set policy read");
    tui.wait_for("mode read");

    // A turn cancelled mid-stream: the session is saved.
    tui.type_line("Tell a long story");
    tui.wait_for("Once upon");
    tui.keys(&["C-c"]);
    tui.wait_for("interrupted; the session is saved");

    // Ctrl-D on an empty prompt quits, with status 0.
    tui.keys(&["C-d"]);
    tui.wait_for("amber exited 0");
    drop(tui);

    // The session resumes in a second TUI; the chain verified, the story
    // told this time.
    let sessions = env.run(&["sessions", "list", "--json"]);
    let list: serde_json::Value = serde_json::from_slice(&sessions.stdout).unwrap();
    let id = list["sessions"][0]["id"].as_str().unwrap().to_string();
    let tui = Tmux::start(&env, &server, "amber-tui-resume", "--resume");
    tui.wait_for(&format!("session {id} resumed"));
    tui.type_line("Go on");
    tui.wait_for("there was a parser");
    tui.keys(&["C-d"]);
    tui.wait_for("amber exited 0");
    assert_eq!(env.show(&id)["verified"], true);
    // What the resumed run sent carries the whole conversation.
    let last = server.received().last().unwrap().body.to_string();
    assert!(
        last.contains("Say hello") && last.contains("Wrote it."),
        "{last}"
    );
}

#[test]
fn without_a_terminal_amber_prints_its_help_and_points_at_exec() {
    let env = Env::new(AMBER);
    let out = env.run(&[]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = text(&out.stderr);
    assert!(stderr.contains("Usage:"), "{stderr}");
    assert!(stderr.contains("amber exec"), "{stderr}");
}

#[test]
fn a_tui_killed_mid_turn_leaves_a_session_that_resumes() {
    let env = Env::new(AMBER);
    std::fs::write(
        env.home.join("config.toml"),
        "[agent]\nconfirm_turn = false\n",
    )
    .unwrap();
    let server = fake(
        r#"
[[turns]]
reply = { tool_calls = [{ id = "r1", name = "read_note", arguments = { path = "a.txt" } }] }
[[turns]]
faults = [{ kind = "stall", after_events = 3, delay_ms = 20000 }]
reply = { text = "The note says hi there, and that is all it says today." }
"#,
    );
    let tui = Tmux::start(&env, &server, "amber-tui-kill", "");
    tui.wait_for("session");
    tui.type_line("What does a.txt say?");
    tui.wait_for("The note");
    // kill -9 the amber process, mid-stream.
    let pane = Command::new("tmux")
        .args(["list-panes", "-t", &tui.name, "-F", "#{pane_pid}"])
        .output()
        .unwrap();
    let shell = text(&pane.stdout).trim().to_string();
    let killed = Command::new("pkill")
        .args(["-KILL", "-P", &shell, "-x", "amber"])
        .status()
        .unwrap();
    assert!(
        killed.success(),
        "no amber process under the pane's shell {shell}"
    );
    tui.wait_for("amber exited 137");
    drop(tui);

    let list: serde_json::Value =
        serde_json::from_slice(&env.run(&["sessions", "list", "--json"]).stdout).unwrap();
    let id = list["sessions"][0]["id"].as_str().unwrap().to_string();
    assert_eq!(env.show(&id)["verified"], true);
    // The call and its result made it to disk before the kill.
    let server =
        fake("[[turns]]\nexpect_tool_results = [\"r1\"]\nreply = { text = \"Resumed.\" }\n");
    let run = env.exec(&server, &["--resume", &id], "Go on.");
    run.assert_done("Resumed.");
    let sent = server.received()[0].body.to_string();
    assert!(
        sent.contains("What does a.txt say?") && sent.contains("hi there"),
        "{sent}"
    );
}

#[test]
fn the_turn_shows_what_the_workspace_guard_undid_and_saw() {
    let env = Env::new(AMBER);
    std::fs::write(
        env.home.join("config.toml"),
        "[agent]\nconfirm_turn = false\n",
    )
    .unwrap();
    // A workspace Makefile classification lets run: it plants a hook in a
    // repository it creates and a Claude Code settings file.
    std::fs::write(
        env.ws.join("Makefile"),
        "plant:\n\tmkdir -p sub && cd sub && git init -q && printf '#!/bin/sh\\necho pwned\\n' > .git/hooks/post-checkout && chmod +x .git/hooks/post-checkout\n\tmkdir -p .claude && echo '{}' > .claude/settings.json\n",
    )
    .unwrap();
    let server = fake(
        r#"
[[turns]]
reply = { tool_calls = [{ id = "m1", name = "shell", arguments = { command = "make -s plant" } }] }
[[turns]]
reply = { text = "Built it." }
"#,
    );
    let tui = Tmux::start(&env, &server, "amber-tui-guard", "");
    tui.wait_for("session");
    tui.type_line("Build the plant target");
    let screen = tui.wait_for("Built it.");
    assert!(
        screen.contains("workspace guard: removed the hook") && screen.contains("post-checkout"),
        "{screen}"
    );
    assert!(
        screen.contains("workspace guard: created .claude/settings.json"),
        "{screen}"
    );
    assert!(!env.ws.join("sub/.git/hooks/post-checkout").exists());
    tui.keys(&["C-d"]);
    tui.wait_for("amber exited 0");
}
