//! Forks end to end: `amber sessions fork ID --at TURN` makes a session
//! of the first TURN turns that verifies, names its source and resumes
//! with exactly those turns; `/fork` in the TUI opens the fork in place.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "a test fails by panicking, its helpers too"
)]

use amber_tests::exec_env::{fake, text, Env};
use amber_tests::tmux::Tmux;
use serde_json::Value;

const AMBER: &str = env!("CARGO_BIN_EXE_amber");

/// Three turns, one per run: "first", "second", "third".
fn three_turns(env: &Env) -> String {
    let server = fake("[[turns]]\nreply = { text = \"one\" }\n");
    let run = env.exec(&server, &[], "first");
    run.assert_done("one");
    let id = run.session_id();
    for (prompt, reply) in [("second", "two"), ("third", "three")] {
        let server = fake(&format!("[[turns]]\nreply = {{ text = \"{reply}\" }}\n"));
        env.exec(&server, &["--resume", &id], prompt)
            .assert_done(reply);
    }
    id
}

#[test]
fn a_fork_at_turn_two_resumes_with_exactly_two_turns() {
    let env = Env::without_confirm_turn(AMBER);
    let id = three_turns(&env);
    let out = env.run(&["sessions", "fork", &id, "--at", "2", "--json"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let forked: Value = serde_json::from_slice(&out.stdout).unwrap();
    let fork = forked["id"].as_str().unwrap().to_string();
    assert_ne!(fork, id);
    let shown = env.show(&fork);
    assert_eq!(shown["verified"], true);
    assert_eq!(shown["turns"], 2);
    assert_eq!(shown["info"]["fork"]["session"], id.as_str());
    assert_eq!(shown["info"]["fork"]["turn"], 2);
    // The head it names is the source's second turn's.
    assert_eq!(shown["head"], shown["info"]["fork"]["head"]);
    // Resumed, the next request has the first two turns and not the third.
    let server = fake("[[turns]]\nreply = { text = \"four\" }\n");
    env.exec(&server, &["--resume", &fork], "fourth")
        .assert_done("four");
    let sent = server.received()[0].body["messages"].to_string();
    assert!(sent.contains("first") && sent.contains("second"), "{sent}");
    assert!(!sent.contains("third"), "{sent}");
    assert_eq!(env.show(&fork)["turns"], 3);
    // The source is as it was.
    assert_eq!(env.show(&id)["turns"], 3);
    let out = env.run(&["sessions", "list"]);
    assert!(text(&out.stdout).contains(&format!("(fork of {id} at turn 2)")));
    // A turn the session does not have is refused with the range.
    let out = env.run(&["sessions", "fork", &id, "--at", "9"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        text(&out.stderr).contains("no turn 9 to fork at; the session has 3"),
        "{}",
        text(&out.stderr)
    );
}

#[test]
fn fork_in_the_tui_opens_the_fork_in_place() {
    let env = Env::without_confirm_turn(AMBER);
    let id = three_turns(&env);
    let server = fake("[[turns]]\nreply = { text = \"unused\" }\n");
    let tui = Tmux::start_sized(
        &env,
        &server,
        "amber-fork",
        &format!("--resume {id}"),
        (100, 30),
    );
    tui.wait_for("third");
    tui.type_line("/fork 1");
    let screen = tui.wait_for("you are in the fork now");
    assert!(screen.contains("first"), "{screen}");
    let sessions = env.run(&["sessions", "list", "--json"]);
    let list: Value = serde_json::from_slice(&sessions.stdout).unwrap();
    let fork = list["sessions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["fork"]["session"] == id.as_str())
        .expect("a fork of the session")
        .clone();
    assert_eq!(fork["fork"]["turn"], 1);
    let fork_id = fork["id"].as_str().unwrap();
    tui.wait_for(&fork_id[fork_id.len() - 4..]);
}
