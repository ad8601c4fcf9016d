//! Sub-agents end to end (seed: "Sub-agent execution"): the host-native
//! `task` tool through the binary and the fake LLM server. Each sub-agent
//! has its own context and system prompt and no `task` tool of its own;
//! its final reply is the parent's tool result.
//!
//! The sub-agents' requests interleave with the parent's in one script, so
//! the turns where a conversation starts or resumes say which tool results
//! they carry (`expect_tool_results`): the server's default, the calls of
//! the reply just before, is another conversation's there.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "a test fails by panicking, its helpers too"
)]

use amber_tests::exec_env::{fake, sent_messages, Env};
use serde_json::Value;

const AMBER: &str = env!("CARGO_BIN_EXE_amber");

fn two_tasks() -> &'static str {
    r#"
[[turns]]
expect_tools = ["task", "read_note"]
reply = { tool_calls = [{ id = "t1", name = "task", arguments = { prompt = "meet at a", description = "first" } }, { id = "t2", name = "task", arguments = { prompt = "meet at b", description = "second" } }] }
"#
}

/// The first user message of a request: the task a sub-agent was given.
fn task_of(body: &Value) -> String {
    sent_messages(body)
        .into_iter()
        .find(|m| m.starts_with("user: "))
        .unwrap_or_default()
}

fn declared(body: &Value) -> Vec<String> {
    body["tools"]
        .as_array()
        .map(|tools| {
            tools
                .iter()
                .map(|t| t["function"]["name"].as_str().unwrap_or("").to_string())
                .collect()
        })
        .unwrap_or_default()
}

#[test]
fn parallel_sub_agents_run_together_and_report_back_in_call_order() {
    let env = Env::new(AMBER);
    std::fs::write(
        env.home.join("config.toml"),
        "[agent]\nsubagents = \"parallel\"\nsubagent_max = 2\n",
    )
    .unwrap();
    // Each sub-agent's first call is a rendezvous that only succeeds if the
    // other sub-agent runs at the same time.
    let script = format!(
        r#"{}
[[turns]]
expect_tool_results = []
reply = {{ tool_calls = [{{ id = "r", name = "rendezvous", arguments = {{ mine = "a.flag", theirs = "b.flag", timeout_ms = 20000 }} }}] }}
[[turns]]
expect_tool_results = []
reply = {{ tool_calls = [{{ id = "r", name = "rendezvous", arguments = {{ mine = "b.flag", theirs = "a.flag", timeout_ms = 20000 }} }}] }}
[[turns]]
reply = {{ text = "met" }}
[[turns]]
expect_tool_results = ["r"]
reply = {{ text = "met" }}
[[turns]]
expect_tool_results = ["t1", "t2"]
reply = {{ text = "both met" }}
[[turns]]
reply = {{ text = "DONE" }}
"#,
        two_tasks()
    );
    let server = fake(&script);
    let run = env.exec(&server, &["--yes"], "meet");
    run.assert_done("both met");
    let results = run.results();
    assert_eq!(
        results
            .iter()
            .map(|r| (r.0.as_str(), r.1.as_str(), r.2.as_str()))
            .collect::<Vec<_>>(),
        [("t1", "ok", "met"), ("t2", "ok", "met")]
    );
    let received = server.received();
    // The sub-agents' requests: their own system prompt and task, no parent
    // history, and no task tool.
    for request in &received[1..5] {
        let said = sent_messages(&request.body);
        assert!(
            said[0].starts_with("system: You are a sub-agent of amber"),
            "{said:?}"
        );
        let task = task_of(&request.body);
        assert!(
            task == "user: meet at a" || task == "user: meet at b",
            "{said:?}"
        );
        assert!(!declared(&request.body).contains(&"task".to_string()));
    }
    // Only the parent's events reach the stream.
    assert_eq!(run.of_type("tool.call").len(), 2);
}

#[test]
fn serial_sub_agents_run_one_at_a_time_with_their_own_context() {
    let env = Env::new(AMBER);
    let script = format!(
        r#"{}
[[turns]]
expect_tool_results = []
reply = {{ tool_calls = [{{ id = "n", name = "read_note", arguments = {{ path = "a.txt" }} }}] }}
[[turns]]
reply = {{ text = "it says hi" }}
[[turns]]
reply = {{ tool_calls = [{{ id = "n", name = "read_note", arguments = {{ path = "a.txt" }} }}] }}
[[turns]]
reply = {{ text = "it says hi" }}
[[turns]]
expect_tool_results = ["t1", "t2"]
reply = {{ text = "done twice" }}
[[turns]]
reply = {{ text = "DONE" }}
"#,
        two_tasks()
    );
    let server = fake(&script);
    let run = env.exec(&server, &[], "read twice");
    run.assert_done("done twice");
    let results = run.results();
    assert_eq!(
        (results[0].2.as_str(), results[1].2.as_str()),
        ("it says hi", "it says hi")
    );
    // One at a time: each sub-agent's two requests come back to back.
    let received = server.received();
    let first_tasks: Vec<String> = received[1..5].iter().map(|r| task_of(&r.body)).collect();
    assert_eq!(first_tasks[0], first_tasks[1]);
    assert_eq!(first_tasks[2], first_tasks[3]);
    assert_ne!(first_tasks[0], first_tasks[2]);
}

#[test]
fn a_sub_agent_stops_at_its_own_iteration_cap() {
    let env = Env::new(AMBER);
    std::fs::write(
        env.home.join("config.toml"),
        "[agent]\nsubagent_max_iterations = 2\n",
    )
    .unwrap();
    let script = r#"
[[turns]]
reply = { tool_calls = [{ id = "t1", name = "task", arguments = { prompt = "read forever" } }] }
[[turns]]
expect_tool_results = []
reply = { tool_calls = [{ id = "n1", name = "read_note", arguments = { path = "a.txt" } }] }
[[turns]]
reply = { tool_calls = [{ id = "n2", name = "read_note", arguments = { path = "./a.txt" } }] }
[[turns]]
expect_tool_results = ["t1"]
reply = { text = "the sub-agent gave up" }
[[turns]]
reply = { text = "DONE" }
"#;
    let server = fake(script);
    let run = env.exec(&server, &[], "go");
    run.assert_done("the sub-agent gave up");
    let (_, status, output) = &run.results()[0];
    assert_eq!(status, "error");
    assert!(
        output.contains("the sub-agent stopped without finishing: stopped after 2 model calls"),
        "{output}"
    );
}
