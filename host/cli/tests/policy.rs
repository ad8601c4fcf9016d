//! Engine II end to end: the approval flowchart through the real binary.
//! Shell commands are classified and approved once, in the host's `exec`
//! import, on the exact command (the `sh` test tool holds only `exec`);
//! other writing tools are asked about by dispatch; stored rules decide
//! before the handler; with no TTY and no `--yes`, the answer is no.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "a test fails by panicking, its helpers too"
)]

use amber_tests::exec_env::{fake, text, Env};
use amber_tests::guest;

const AMBER: &str = env!("CARGO_BIN_EXE_amber");
const DONE: &str = "[[turns]]\nreply = { text = \"DONE\" }\n";

/// A home with the notes and sh tools, and a `build/` folder to delete.
fn env() -> Env {
    let env = Env::new(AMBER);
    let sh = guest("sh-tool");
    let out = env.run(&["plugin", "add", sh.to_str().unwrap(), "--yes"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    std::fs::create_dir_all(env.ws.join("build")).unwrap();
    std::fs::write(env.ws.join("build/out.o"), "x").unwrap();
    env
}

/// One reply running `ls` and `rm -rf build`, then "ok".
fn ls_and_rm() -> String {
    format!(
        r#"
[[turns]]
reply = {{ tool_calls = [{{ id = "c1", name = "sh", arguments = {{ command = "ls" }} }}, {{ id = "c2", name = "sh", arguments = {{ command = "rm -rf build" }} }}] }}
[[turns]]
expect_tool_results = ["c1", "c2"]
reply = {{ text = "ok" }}
{DONE}"#
    )
}

#[test]
fn read_only_commands_run_free_and_destructive_ones_are_denied_without_a_tty() {
    let env = env();
    let server = fake(&ls_and_rm());
    let run = env.exec(&server, &[], "clean up");
    run.assert_done("ok");
    let results = run.results();
    assert_eq!(results[0].1, "ok");
    assert!(results[0].2.contains("a.txt"), "{}", results[0].2);
    assert_eq!(results[1].1, "error");
    assert!(
        results[1]
            .2
            .contains("not approved: `exec:rm:destructive` (destructive: `rm` deletes files)"),
        "{}",
        results[1].2
    );
    assert!(env.ws.join("build/out.o").exists());
}

#[test]
fn yes_approves_the_exact_command_and_yolo_needs_no_approval() {
    let env = env();
    let run = env.exec(&fake(&ls_and_rm()), &["--yes"], "clean up");
    run.assert_done("ok");
    assert_eq!(run.results()[1].1, "ok");
    assert!(!env.ws.join("build").exists());

    std::fs::create_dir_all(env.ws.join("build")).unwrap();
    let run = env.exec(&fake(&ls_and_rm()), &["--mode", "yolo"], "clean up");
    run.assert_done("ok");
    assert_eq!(run.results()[1].1, "ok");
    assert!(!env.ws.join("build").exists());
}

#[test]
fn read_mode_blocks_the_shell_tool_at_dispatch() {
    let env = env();
    let run = env.exec(
        &fake(&ls_and_rm()),
        &["--mode", "read", "--yes"],
        "clean up",
    );
    run.assert_done_after_denial("ok");
    for (_, status, output) in run.results() {
        assert_eq!(status, "denied");
        assert!(
            output.starts_with("read mode: `sh` can change things"),
            "{output}"
        );
    }
    assert!(env.ws.join("build").exists());
}

#[test]
fn stored_rules_allow_or_deny_before_anyone_is_asked() {
    let env = env();
    std::fs::write(
        env.home.join("config.toml"),
        r#"
[[policy.rules]]
tool = "exec:rm"
decision = "allow"

[[policy.rules]]
tool = "write_note"
path = "locked"
decision = "deny"
"#,
    )
    .unwrap();
    let run = env.exec(&fake(&ls_and_rm()), &[], "clean up");
    run.assert_done("ok");
    assert_eq!(run.results()[1].1, "ok", "{:?}", run.results());
    assert!(!env.ws.join("build").exists());

    let script = format!(
        r#"
[[turns]]
reply = {{ tool_calls = [{{ id = "w1", name = "write_note", arguments = {{ path = "locked/a.txt", text = "x" }} }}, {{ id = "w2", name = "write_note", arguments = {{ path = "open.txt", text = "y" }} }}] }}
[[turns]]
reply = {{ text = "ok" }}
{DONE}"#
    );
    std::fs::create_dir_all(env.ws.join("locked")).unwrap();
    let run = env.exec(&fake(&script), &["--yes"], "write two");
    run.assert_done("ok");
    let results = run.results();
    assert_eq!(results[0].1, "denied");
    assert!(
        results[0]
            .2
            .starts_with("denied by the stored rule for `write_note` in `locked`"),
        "{}",
        results[0].2
    );
    assert_eq!(results[1].1, "ok");
    assert!(!env.ws.join("locked/a.txt").exists() && env.ws.join("open.txt").exists());
}

#[test]
fn a_direct_tool_call_goes_through_the_same_gate() {
    let env = env();
    let denied = env.run(&["tool", "call", "sh", r#"{"command": "rm -rf build"}"#]);
    assert!(!denied.status.success());
    assert!(
        text(&denied.stderr).contains("not approved: `exec:rm:destructive`"),
        "{}",
        text(&denied.stderr)
    );
    assert!(env.ws.join("build").exists());
    let approved = env.run(&[
        "tool",
        "call",
        "--yes",
        "sh",
        r#"{"command": "rm -rf build"}"#,
    ]);
    assert!(approved.status.success(), "{}", text(&approved.stderr));
    assert!(!env.ws.join("build").exists());
}

#[test]
fn paths_outside_the_workspace_are_refused_in_every_mode() {
    let env = env();
    let script = format!(
        r#"
[[turns]]
reply = {{ tool_calls = [{{ id = "p1", name = "read_note", arguments = {{ path = "../secret.txt" }} }}, {{ id = "p2", name = "sh", arguments = {{ command = "ls", cwd = "../.." }} }}] }}
[[turns]]
reply = {{ text = "ok" }}
{DONE}"#
    );
    let run = env.exec(&fake(&script), &["--mode", "yolo"], "escape");
    run.assert_done_after_denial("ok");
    let results = run.results();
    assert_eq!(results[0].1, "denied");
    assert!(
        results[0]
            .2
            .starts_with("path refused: `../secret.txt` is outside the workspace"),
        "{}",
        results[0].2
    );
    assert_ne!(results[1].1, "ok");
    assert!(
        results[1].2.contains("outside the workspace"),
        "{}",
        results[1].2
    );
}

#[test]
fn on_a_terminal_the_dialog_asks_once_and_a_session_grant_covers_the_next_command() {
    let env = env();
    std::fs::create_dir_all(env.ws.join("b1")).unwrap();
    std::fs::create_dir_all(env.ws.join("b2")).unwrap();
    let server = fake(&format!(
        r#"
[[turns]]
reply = {{ tool_calls = [{{ id = "c1", name = "sh", arguments = {{ command = "rm -rf b1" }} }}] }}
[[turns]]
reply = {{ tool_calls = [{{ id = "c2", name = "sh", arguments = {{ command = "rm -rf b2" }} }}] }}
[[turns]]
reply = {{ text = "gone" }}
{DONE}"#
    ));
    let shown = env.exec_on_a_tty(&server.openai_base(), "clean", "s\n");
    assert_eq!(
        shown.matches("amber: approval needed").count(),
        1,
        "{shown}"
    );
    for line in [
        "  from:    sh",
        "  command: rm -rf b1",
        "  class:   destructive: `rm` deletes files",
        "[s] approve every `exec:rm:destructive` for this session",
    ] {
        assert!(shown.contains(line), "{line:?} in\n{shown}");
    }
    assert!(shown.contains(r#""type":"session.completed""#), "{shown}");
    assert!(!env.ws.join("b1").exists() && !env.ws.join("b2").exists());

    // Denied in the dialog: the command does not run.
    std::fs::create_dir_all(env.ws.join("b1")).unwrap();
    let server = fake(&format!(
        "[[turns]]\nreply = {{ tool_calls = [{{ id = \"c1\", name = \"sh\", arguments = {{ command = \"rm -rf b1\" }} }}] }}\n[[turns]]\nreply = {{ text = \"kept\" }}\n{DONE}"
    ));
    // `n`, then the reason the dialog asks for: it reaches the model as
    // a person's, not as the headless advice about flags.
    let shown = env.exec_on_a_tty(&server.openai_base(), "clean", "n\nkeep b1\n");
    assert!(
        shown.contains("the user declined this (`exec:rm:destructive`): keep b1"),
        "{shown}"
    );
    assert!(!shown.contains("--yes, or --mode yolo"), "{shown}");
    assert!(env.ws.join("b1").exists());
}
