//! Error recovery end to end (seed: "Error recovery"): through the binary,
//! the fake LLM server and the notes tool. Each failure mode steers first
//! (the steer is in the next request the model gets) and stops the run
//! with exit code 3 if it persists.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "a test fails by panicking, its helpers too"
)]

use amber_tests::exec_env::{fake, Env, Run};
use serde_json::Value;

const AMBER: &str = env!("CARGO_BIN_EXE_amber");

fn turn(text: &str, id: &str, path: &str) -> String {
    format!(
        "[[turns]]\nreply = {{ text = \"{text}\", tool_calls = [{{ id = \"{id}\", name = \"read_note\", arguments = {{ path = \"{path}\" }} }}] }}\n"
    )
}

fn assert_hard_stop(run: &Run, reason: &str) {
    assert_eq!(run.code, Some(3), "{:#?}\n{}", run.events, run.stderr);
    let failed = run.one("session.failed");
    assert_eq!(failed["kind"], "hard_stop");
    assert!(
        failed["error"].as_str().unwrap().starts_with(reason),
        "{failed}"
    );
}

/// The user-role texts of an OpenAI chat request.
fn user_texts(body: &Value) -> Vec<String> {
    body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["role"] == "user")
        .map(|m| m["content"].as_str().unwrap_or("").to_string())
        .collect()
}

#[test]
fn three_identical_call_sets_in_a_row_are_a_loop_and_stop_the_run() {
    let env = Env::new(AMBER);
    let script = [
        turn("", "c1", "a.txt"),
        turn("", "c2", "a.txt"),
        turn("", "c3", "a.txt"),
    ]
    .concat();
    let server = fake(&script);
    let run = env.exec(&server, &[], "loop");
    assert_hard_stop(&run, "loop detected: the same tool calls 3 times in a row");
    let results = run.results();
    assert_eq!(results.len(), 3);
    assert_eq!(results[1].1, "denied"); // a duplicate of the last turn
    assert_eq!(
        results[2],
        (
            "c3".into(),
            "denied".into(),
            "not run: loop detected: the same tool calls 3 times in a row".into()
        )
    );
    // Every call has its result in the session.
    let shown = env.show(&run.session_id());
    assert!(shown["unanswered_calls"].as_array().unwrap().is_empty());
}

#[test]
fn the_same_reply_text_steers_the_second_time_and_stops_the_fifth() {
    let env = Env::new(AMBER);
    let paths = [
        "a.txt",
        "./a.txt",
        "x/../a.txt",
        "./x/../a.txt",
        "y/../a.txt",
    ];
    let script: String = paths
        .iter()
        .enumerate()
        .map(|(i, p)| turn("Working on it.", &format!("c{i}"), p))
        .collect();
    let server = fake(&script);
    let run = env.exec(&server, &[], "repeat");
    assert_hard_stop(&run, "the model gave the same reply 5 times in a row");
    let steers = run.of_type("steer");
    assert_eq!(steers.len(), 1, "{steers:?}");
    assert_eq!(steers[0]["turn"], 2);
    // The model read the steer on the next turn.
    let received = server.received();
    assert!(user_texts(&received[2].body)
        .last()
        .unwrap()
        .starts_with("[amber] You gave the same reply as last turn."));
}

#[test]
fn consecutive_tool_failures_steer_at_three_and_stop_at_six() {
    let env = Env::new(AMBER);
    let script: String = (1..=6)
        .map(|i| {
            turn(
                &format!("try {i}"),
                &format!("m{i}"),
                &format!("missing{i}.txt"),
            )
        })
        .collect();
    let server = fake(&script);
    let run = env.exec(&server, &[], "fail");
    assert_hard_stop(&run, "tool calls kept failing: 6 in a row");
    let steers = run.of_type("steer");
    assert_eq!(steers.len(), 1);
    assert_eq!(steers[0]["turn"], 3);
    let received = server.received();
    assert_eq!(received.len(), 6);
    assert!(user_texts(&received[3].body)
        .last()
        .unwrap()
        .starts_with("[amber] The last 3 tool calls failed"));
}

#[test]
fn an_empty_reply_gets_one_retry() {
    let env = Env::new(AMBER);
    let server = fake("[[turns]]\nreply = { text = \"\" }\n[[turns]]\nreply = { text = \"here\" }\n[[turns]]\nreply = { text = \"DONE\" }\n");
    let run = env.exec(&server, &[], "hello");
    run.assert_done("here");
    assert!(run
        .of_type("warning")
        .iter()
        .any(|w| w["message"] == "the model sent an empty reply; asking again"));
    // Twice empty is a hard stop.
    let server = fake("[[turns]]\nreply = { text = \"\" }\n[[turns]]\nreply = { text = \"\" }\n");
    let run = env.exec(&server, &[], "hello");
    assert_hard_stop(&run, "the model sent an empty reply twice");
}
