//! Hooks in the terminal: tmux runs the real `amber`. A workspace hook is
//! shown on the terminal and trusted there before the TUI takes the
//! screen; it then denies a tool call, and the TUI shows the hook's
//! outcome beside the denied card. The next start runs it without asking.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "a test fails by panicking, its helpers too"
)]

use amber_tests::exec_env::{fake, Env};
use amber_tests::tmux::Tmux;

const AMBER: &str = env!("CARGO_BIN_EXE_amber");

#[test]
fn a_workspace_hook_is_trusted_at_the_terminal_and_its_deny_is_shown() {
    let env = Env::new(AMBER);
    std::fs::write(
        env.home.join("config.toml"),
        "[agent]\nconfirm_turn = false\n[hooks]\nclaude_settings = true\n",
    )
    .unwrap();
    std::fs::create_dir_all(env.ws.join(".claude")).unwrap();
    std::fs::write(
        env.ws.join(".claude/settings.json"),
        r#"{"hooks":{"PreToolUse":[{"matcher":"read_note","hooks":[{"type":"command","command":"echo 'notes are off limits' >&2; exit 2"}]}]}}"#,
    )
    .unwrap();
    let server = fake(
        r#"
[[turns]]
reply = { tool_calls = [{ id = "r1", name = "read_note", arguments = { path = "a.txt" } }] }
[[turns]]
reply = { text = "Could not read it." }
[[turns]]
reply = { text = "Still here." }
"#,
    );
    let tui = Tmux::start(&env, &server, "amber-tui-hooks", "");
    let prompt = tui.wait_for("Trust it? [y/N]");
    // The hook as it is: its command, and its event in amber's name.
    assert!(
        prompt.contains("notes are off limits") && prompt.contains("pre-tool"),
        "{prompt}"
    );
    tui.type_line("y");
    tui.wait_for("session");
    tui.type_line("Read a.txt");
    let screen = tui.wait_for("Could not read it.");
    assert!(
        screen.contains("notes are off limits"),
        "the hook's reason is on screen:\n{screen}"
    );
    tui.keys(&["C-d"]);
    tui.wait_for("amber exited 0");
    drop(tui);

    // Trusted once: the next start asks nothing.
    let tui = Tmux::start(&env, &server, "amber-tui-hooks-2", "");
    let screen = tui.wait_for("session");
    assert!(!screen.contains("Trust it?"), "{screen}");
    tui.keys(&["C-d"]);
    tui.wait_for("amber exited 0");
    let listed: serde_json::Value =
        serde_json::from_slice(&env.run(&["hooks", "list", "--json"]).stdout).unwrap();
    assert_eq!(listed[0]["trust"], "trusted", "{listed}");
}
