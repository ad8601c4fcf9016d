//! The fake LLM server's checks can fail: each wrong request (a missing
//! tool result, results out of order, a wrong id, a body that is not
//! JSON, an undeclared tool, a schema that is not one) is answered with a
//! 400 naming the problem, and recorded with it; the right request passes.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "a test fails by panicking, its helpers too"
)]

use amber_tests::fake_llm::{FakeLlm, Transcript};
use serde_json::{json, Value};

const TWO_CALLS: &str = r#"
[[turns]]
[[turns.reply.tool_calls]]
id = "c1"
name = "read_file"
arguments = { path = "a" }
[[turns.reply.tool_calls]]
id = "c2"
name = "read_file"
arguments = { path = "b" }
[[turns]]
reply = { text = "Both read." }
"#;

fn read_file_tool() -> Value {
    json!({"type": "function", "function": {"name": "read_file", "description": "Read.",
        "parameters": {"type": "object", "properties": {"path": {"type": "string"}}}}})
}

fn chat_body(results: &[&str], tools: Value) -> String {
    let mut messages = vec![json!({"role": "user", "content": "read a and b"})];
    if !results.is_empty() {
        messages.push(json!({"role": "assistant", "content": null, "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "read_file", "arguments": "{}"}},
            {"id": "c2", "type": "function", "function": {"name": "read_file", "arguments": "{}"}},
        ]}));
        for id in results {
            messages.push(json!({"role": "tool", "tool_call_id": id, "content": "text"}));
        }
    }
    json!({"model": "m", "stream": true, "messages": messages, "tools": tools}).to_string()
}

/// POSTs `body` to the chat endpoint; the status and the response text.
fn post(server: &FakeLlm, body: String) -> (u16, String) {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        let response = reqwest::Client::new()
            .post(format!("{}/chat/completions", server.openai_base()))
            .body(body)
            .send()
            .await
            .unwrap();
        let status = response.status().as_u16();
        (status, response.text().await.unwrap())
    })
}

/// The second request's status, message and recorded problems, after a
/// first request that got the two calls.
fn second_request(script: &str, results: &[&str]) -> (u16, String, Vec<String>) {
    let server = FakeLlm::start(Transcript::parse(script).unwrap(), 0).unwrap();
    let (status, _) = post(&server, chat_body(&[], json!([read_file_tool()])));
    assert_eq!(status, 200);
    let (status, text) = post(&server, chat_body(results, json!([read_file_tool()])));
    let problems = server.received()[1].problems.clone();
    (status, text, problems)
}

#[test]
fn the_results_of_the_calls_it_sent_pass() {
    let (status, text, problems) = second_request(TWO_CALLS, &["c1", "c2"]);
    assert_eq!(status, 200, "{text}");
    assert!(problems.is_empty(), "{problems:?}");
    assert!(text.contains("Both read."), "{text}");
}

#[test]
fn a_missing_result_is_named() {
    let (status, text, problems) = second_request(TWO_CALLS, &["c1"]);
    assert_eq!(status, 400);
    assert!(
        text.contains("missing tool result(s) for [\\\"c2\\\"]"),
        "{text}"
    );
    assert_eq!(problems.len(), 1, "{problems:?}");
}

#[test]
fn results_out_of_order_are_named() {
    let (status, _, problems) = second_request(TWO_CALLS, &["c2", "c1"]);
    assert_eq!(status, 400);
    assert!(
        problems[0].starts_with("tool results out of order"),
        "{problems:?}"
    );
}

#[test]
fn a_wrong_id_is_named() {
    let (status, _, problems) = second_request(TWO_CALLS, &["c1", "c9"]);
    assert_eq!(status, 400);
    assert!(
        problems[0].starts_with("unknown tool result id(s) [\"c9\"]"),
        "{problems:?}"
    );
}

#[test]
fn a_script_turns_the_result_check_off_only_by_saying_so() {
    let script = TWO_CALLS.replace(
        "[[turns]]\nreply = { text = \"Both read.\" }",
        "[[turns]]\ncheck_tool_results = false\nreply = { text = \"Both read.\" }",
    );
    assert_ne!(script, TWO_CALLS);
    let (status, _, problems) = second_request(&script, &[]);
    assert_eq!(status, 200, "{problems:?}");
}

#[test]
fn a_body_that_is_not_json_is_a_400_and_recorded_and_the_turn_waits() {
    let server = FakeLlm::start(Transcript::parse(TWO_CALLS).unwrap(), 0).unwrap();
    let (status, text) = post(&server, "{\"model\": \"m\", \"messages\": [".into());
    assert_eq!(status, 400);
    assert!(text.contains("the request body is not JSON"), "{text}");
    let received = server.received();
    assert!(received[0].problems[0].starts_with("the request body is not JSON"));
    // The refused request did not use up the turn.
    let (status, text) = post(&server, chat_body(&[], json!([read_file_tool()])));
    assert_eq!(status, 200, "{text}");
    assert!(text.contains("c1"), "{text}");
}

#[test]
fn a_call_of_a_tool_the_request_does_not_declare_is_refused() {
    let server = FakeLlm::start(Transcript::parse(TWO_CALLS).unwrap(), 0).unwrap();
    let (status, _) = post(&server, chat_body(&[], json!([])));
    assert_eq!(status, 400);
    let problems = &server.received()[0].problems;
    assert!(
        problems[0].starts_with("tool `read_file` is not declared"),
        "{problems:?}"
    );
}

#[test]
fn a_declared_tool_whose_schema_is_not_a_schema_is_refused() {
    let server = FakeLlm::start(Transcript::parse(TWO_CALLS).unwrap(), 0).unwrap();
    let mut tool = read_file_tool();
    tool["function"]["parameters"] =
        json!({"type": "object", "properties": {"path": {"type": 12}}});
    let mut other = read_file_tool();
    other["function"]["name"] = json!("list");
    other["function"]["parameters"] = json!({"type": "string"});
    let (status, _) = post(&server, chat_body(&[], json!([tool, other])));
    assert_eq!(status, 400);
    let problems = &server.received()[0].problems;
    assert!(
        problems
            .iter()
            .any(|p| p.starts_with("the schema of tool `read_file` is not a valid JSON Schema")),
        "{problems:?}"
    );
    assert!(
        problems
            .iter()
            .any(|p| p.starts_with("the schema of tool `list` is not an object schema")),
        "{problems:?}"
    );
}
