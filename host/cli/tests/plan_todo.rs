//! Plan mode and the todo list end to end, through the real binary and
//! the fake LLM server: `exec --plan` refuses writes, offers `exit_plan`
//! and ends with the plan; the todo list arrives as `todo.updated`
//! events in order, survives `--resume` and a compaction.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "a test fails by panicking, its helpers too"
)]

use amber_tests::exec_env::{fake, offered_tools, text, Env};
use amber_tests::fake_llm::FakeLlm;
use serde_json::Value;

const AMBER: &str = env!("CARGO_BIN_EXE_amber");

fn all_text(server: &FakeLlm, n: usize) -> String {
    server.received()[n].body["messages"].to_string()
}

#[test]
fn plan_mode_refuses_writes_and_ends_with_the_plan() {
    let env = Env::without_confirm_turn(AMBER);
    let server = fake(
        r#"
[[turns]]
reply = { tool_calls = [{ id = "w1", name = "write_file", arguments = { path = "x.txt", content = "x" } }, { id = "r1", name = "read_file", arguments = { path = "a.txt" } }] }
[[turns]]
reply = { tool_calls = [{ id = "p1", name = "exit_plan", arguments = { plan = "1. Write x.txt\n2. Check it" } }] }
"#,
    );
    let run = env.exec(&server, &["--plan"], "Add x.txt.");
    run.assert_done("1. Write x.txt\n2. Check it");
    assert_eq!(run.one("session.started")["mode"], "plan");
    // exit_plan is offered, and the request asks for a plan.
    assert!(offered_tools(&server, 0).iter().any(|t| t == "exit_plan"));
    assert!(all_text(&server, 0).contains("You are in plan mode"));
    let results = run.results();
    assert_eq!(results[0].1, "denied", "{results:?}");
    assert!(
        results[0]
            .2
            .contains("plan mode: `write_file` can change things"),
        "{results:?}"
    );
    assert_eq!(results[1].1, "ok", "{results:?}");
    assert!(!env.ws.join("x.txt").exists());
    assert_eq!(
        run.one("plan.proposed")["plan"],
        "1. Write x.txt\n2. Check it"
    );
    // The run ended at the plan: no request after it.
    assert_eq!(server.received().len(), 2);

    // Accepted: write mode, the plan as the prompt; exit_plan is gone.
    let server = fake(
        r#"
[[turns]]
expect_tool_results = ["p1"]
reply = { tool_calls = [{ id = "w2", name = "write_file", arguments = { path = "x.txt", content = "x" } }] }
[[turns]]
reply = { text = "Done." }
"#,
    );
    let run = env.exec(
        &server,
        &["-c", "--mode", "write", "--yes"],
        "Carry out the plan.",
    );
    run.assert_done("Done.");
    let tools = offered_tools(&server, 0);
    assert!(tools.iter().any(|t| t == "write_file"), "{tools:?}");
    assert!(!tools.iter().any(|t| t == "exit_plan"), "{tools:?}");
    assert!(!all_text(&server, 0).contains("You are in plan mode"));
    assert!(env.ws.join("x.txt").exists());

    // Headless without --json: the plan is the answer on stdout.
    let server = fake(
        r#"
[[turns]]
check_tool_results = false
reply = { tool_calls = [{ id = "p2", name = "exit_plan", arguments = { plan = "Just one step." } }] }
"#,
    );
    let base = server.openai_base();
    let out = env.run(&["exec", "--plan", "--base-url", &base, "Plan again."]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(text(&out.stdout).trim(), "Just one step.");
}

const TODOS_A: &str = r#"{ todos = [{ id = "1", content = "read the code", status = "in_progress" }, { id = "2", content = "fix the bug", status = "pending" }] }"#;
const TODOS_B: &str = r#"{ todos = [{ id = "1", content = "read the code", status = "completed" }, { id = "2", content = "fix the bug", status = "in_progress" }] }"#;

#[test]
fn the_todo_list_is_reported_in_order_and_survives_resume_and_compaction() {
    let env = Env::without_confirm_turn(AMBER);
    let server = fake(&format!(
        r#"
[[turns]]
reply = {{ tool_calls = [{{ id = "t1", name = "todo_write", arguments = {TODOS_A} }}] }}
[[turns]]
reply = {{ tool_calls = [{{ id = "t2", name = "todo_write", arguments = {TODOS_B} }}] }}
[[turns]]
reply = {{ text = "Planned." }}
"#
    ));
    let run = env.exec(&server, &[], "Plan the fix.");
    run.assert_done("Planned.");
    let updates: Vec<Vec<String>> = run
        .of_type("todo.updated")
        .iter()
        .map(|e| {
            e["todos"]
                .as_array()
                .unwrap()
                .iter()
                .map(|t| t["status"].as_str().unwrap().to_string())
                .collect()
        })
        .collect();
    assert_eq!(
        updates,
        [["in_progress", "pending"], ["completed", "in_progress"]]
    );
    let id = run.session_id();

    // A resumed session reads the list it left.
    let server = fake(
        r#"
[[turns]]
reply = { tool_calls = [{ id = "r1", name = "todo_read", arguments = {} }] }
[[turns]]
reply = { text = "Still on it." }
"#,
    );
    let run = env.exec(&server, &["--resume", &id], "Where are we?");
    run.assert_done("Still on it.");
    let read = &run.results()[0].2;
    assert!(
        read.contains("[x] 1: read the code\n[~] 2: fix the bug"),
        "{read}"
    );

    // A compaction that drops every turn keeps the list: the digest
    // carries it into the rebuilt context.
    let server = fake(
        r#"
[[turns]]
check_tool_results = false
reply = { text = "{\"prune\": [1, 2, 3, 4, 5, 6, 7, 8, 9, 10], \"summary\": \"A fix was planned.\"}" }
[[turns]]
check_tool_results = false
reply = { text = "{\"memories\": [], \"skills\": []}" }
"#,
    );
    let base = server.openai_base();
    let out = env
        .command(&["/compact", "--json", "--session", &id])
        .env("OPENAI_BASE_URL", &base)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    let outcome: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(outcome["status"], "ok", "{outcome:#}");
    let server = fake("[[turns]]\nreply = { text = \"ok\" }\n");
    env.exec(&server, &["--resume", &id], "Go on.")
        .assert_done("ok");
    let sent = all_text(&server, 0);
    assert!(
        !sent.contains("Plan the fix."),
        "the compaction dropped nothing: {sent}"
    );
    assert!(sent.contains("[~] 2: fix the bug"), "{sent}");
}
