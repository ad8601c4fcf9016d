//! `amber exec` and `amber sessions` end to end: the real binary, the
//! bundled provider components, the notes test tool (a real component) and
//! the fake LLM server speaking the real wire formats. Every test checks
//! both what the user sees (events, exit code) and what the model was sent.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "a test fails by panicking, its helpers too"
)]

use std::io::{BufRead, BufReader};
use std::process::{Child, Command};

use amber_tests::cli::amber_command;
use amber_tests::exec_env::{fake, sent_messages, text, Run};
use amber_tests::fake_llm::FakeLlm;
use serde_json::Value;

const AMBER: &str = env!("CARGO_BIN_EXE_amber");

type Env = amber_tests::exec_env::Env;

fn env() -> Env {
    Env::new(AMBER)
}

const INTERRUPTED: &str = "interrupted: the run ended before this tool call finished";

const DONE: &str = "[[turns]]\nreply = { text = \"DONE\" }\n";

#[test]
fn a_tool_round_trip_reads_a_note_and_the_session_holds_it() {
    let env = env();
    let server = fake(&format!(
        r#"
[[turns]]
expect_tools = ["read_note", "write_note", "wait", "rendezvous"]
reply = {{ text = "Let me look.", tool_calls = [{{ id = "c1", name = "read_note", arguments = {{ path = "a.txt" }} }}], usage = {{ input = 50, output = 5 }} }}
[[turns]]
expect_tool_results = ["c1"]
reply = {{ text = "It says hi.", usage = {{ input = 70, output = 4 }} }}
{DONE}"#
    ));
    let run = env.exec(&server, &[], "What does a.txt say?");
    run.assert_done("It says hi.");
    let kinds: Vec<&str> = run
        .events
        .iter()
        .map(|e| e["type"].as_str().unwrap())
        .collect();
    let first_turn: Vec<&str> = kinds
        .iter()
        .copied()
        .filter(|k| *k != "message.delta")
        .take(5)
        .collect();
    assert_eq!(
        first_turn,
        [
            "session.started",
            "turn.started",
            "tool.call",
            "tool.result",
            "turn.completed"
        ]
    );
    assert_eq!(
        run.results(),
        [("c1".into(), "ok".into(), "hi there\n".into())]
    );
    let usage = &run.one("session.completed")["usage"];
    assert_eq!(
        (
            usage["input_tokens"].as_u64(),
            usage["output_tokens"].as_u64()
        ),
        (Some(120), Some(9))
    );
    // The model got the envelope as the tool message.
    let received = server.received();
    let tool_message = received[1].body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["role"] == "tool")
        .unwrap();
    let envelope: Value = serde_json::from_str(tool_message["content"].as_str().unwrap()).unwrap();
    assert_eq!(
        envelope,
        serde_json::json!({"status": "ok", "output": "hi there\n", "meta": null})
    );
    // The third request was the silent confirm turn; it left no trace.
    assert!(sent_messages(&received[2].body)
        .last()
        .unwrap()
        .starts_with("user: Are you finished?"));
    let shown = env.show(&run.session_id());
    let roles: Vec<&str> = shown["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["role"].as_str().unwrap())
        .collect();
    assert_eq!(roles, ["system", "user", "assistant", "tool", "assistant"]);
    assert_eq!(shown["verified"], true);
}

#[test]
fn agents_md_and_else_claude_md_go_into_the_system_prompt_and_are_named() {
    let env = env();
    std::fs::write(env.ws.join("CLAUDE.md"), "Prefer tabs.").unwrap();
    std::fs::write(env.ws.join("AGENTS.md"), "Answer in haiku.").unwrap();
    let server = fake(&format!("[[turns]]\nreply = {{ text = \"ok\" }}\n{DONE}"));
    let run = env.exec(&server, &[], "hello");
    run.assert_done("ok");
    let named = run.one("session.started")["instructions"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(named.ends_with("/AGENTS.md"), "{named}");
    let system = &sent_messages(&server.received()[0].body)[0];
    assert!(
        system.contains("# Project instructions (from AGENTS.md)\n\nAnswer in haiku."),
        "{system}"
    );
    assert!(!system.contains("Prefer tabs."));

    std::fs::remove_file(env.ws.join("AGENTS.md")).unwrap();
    let server = fake(&format!("[[turns]]\nreply = {{ text = \"ok\" }}\n{DONE}"));
    let run = env.exec(&server, &[], "hello");
    assert!(run.one("session.started")["instructions"]
        .as_str()
        .unwrap()
        .ends_with("/CLAUDE.md"));
    assert!(sent_messages(&server.received()[0].body)[0].contains("Prefer tabs."));

    std::fs::remove_file(env.ws.join("CLAUDE.md")).unwrap();
    let server = fake(&format!("[[turns]]\nreply = {{ text = \"ok\" }}\n{DONE}"));
    let run = env.exec(&server, &[], "hello");
    assert!(run.one("session.started")["instructions"].is_null());
}

#[test]
fn parallel_calls_run_together_and_results_keep_the_call_order() {
    let env = env();
    // Each rendezvous waits for the other's flag: they can only both
    // succeed if they ran at the same time.
    let server = fake(&format!(
        r#"
[[turns]]
[[turns.reply.tool_calls]]
id = "r1"
name = "rendezvous"
arguments = {{ mine = "a.flag", theirs = "b.flag" }}
[[turns.reply.tool_calls]]
id = "r2"
name = "read_note"
arguments = {{ path = "a.txt" }}
[[turns.reply.tool_calls]]
id = "r3"
name = "rendezvous"
arguments = {{ mine = "b.flag", theirs = "a.flag" }}
[[turns]]
expect_tool_results = ["r1", "r2", "r3"]
reply = {{ text = "met" }}
{DONE}"#
    ));
    let run = env.exec(&server, &["--yes"], "meet");
    run.assert_done("met");
    assert_eq!(
        run.results(),
        [
            ("r1".into(), "ok".into(), "a.flag met b.flag".into()),
            ("r2".into(), "ok".into(), "hi there\n".into()),
            ("r3".into(), "ok".into(), "b.flag met a.flag".into()),
        ]
    );
    // One tool-role message per call, in the call order.
    let ids: Vec<String> = server.received()[1].body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["role"] == "tool")
        .map(|m| m["tool_call_id"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(ids, ["r1", "r2", "r3"]);
}

#[test]
fn arguments_that_fail_the_schema_are_denied_and_nothing_runs() {
    let env = env();
    let server = fake(&format!(
        r#"
[[turns]]
reply = {{ tool_calls = [{{ id = "c1", name = "write_note", arguments = {{ path = "x.txt" }} }}] }}
[[turns]]
expect_tool_results = ["c1"]
reply = {{ text = "I forgot the text." }}
{DONE}"#
    ));
    let run = env.exec(&server, &["--yes"], "write x");
    run.assert_done_after_denial("I forgot the text.");
    let (_, status, output) = &run.results()[0];
    assert_eq!(status, "denied");
    assert!(
        output.contains("the arguments do not match the schema of `write_note`")
            && output.contains("\"text\" is a required property"),
        "{output}"
    );
    assert!(!env.ws.join("x.txt").exists());
}

#[test]
fn a_duplicate_of_the_last_turns_call_is_denied() {
    let env = env();
    let server = fake(&format!(
        r#"
[[turns]]
reply = {{ tool_calls = [{{ id = "c1", name = "read_note", arguments = {{ path = "a.txt" }} }}] }}
[[turns]]
reply = {{ tool_calls = [{{ id = "c2", name = "read_note", arguments = {{ path = "a.txt" }} }}] }}
[[turns]]
expect_tool_results = ["c2"]
reply = {{ text = "ok" }}
{DONE}"#
    ));
    let run = env.exec(&server, &[], "read twice");
    run.assert_done_after_denial("ok");
    let results = run.results();
    assert_eq!(results[0].1, "ok");
    assert_eq!(results[1].1, "denied");
    assert!(results[1].2.starts_with(
        "duplicate: `read_note` was already called with identical arguments in the last turn"
    ));
}

#[test]
fn the_confirm_turn_can_send_the_model_back_to_work() {
    let env = env();
    let server = fake(&format!(
        r#"
[[turns]]
reply = {{ text = "Done, I think." }}
[[turns]]
reply = {{ text = "Not yet.", tool_calls = [{{ id = "c1", name = "write_note", arguments = {{ path = "b.txt", text = "more" }} }}] }}
[[turns]]
expect_tool_results = ["c1"]
reply = {{ text = "Now done." }}
{DONE}"#
    ));
    let run = env.exec(&server, &["--yes"], "write b");
    run.assert_done("Now done.");
    assert_eq!(
        std::fs::read_to_string(env.ws.join("b.txt")).unwrap(),
        "more"
    );
    let confirms: Vec<bool> = run
        .of_type("turn.started")
        .iter()
        .map(|e| e["confirm"].as_bool().unwrap())
        .collect();
    assert_eq!(confirms, [false, true, false, true]);
    // The confirm turn's text is shown once it goes on working.
    let deltas: String = run
        .of_type("message.delta")
        .iter()
        .map(|e| e["text"].as_str().unwrap())
        .collect();
    assert_eq!(deltas, "Done, I think.Not yet.Now done.");
    // The question that sent it back stays; the last one leaves no trace.
    let shown = env.show(&run.session_id());
    let roles: Vec<&str> = shown["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["role"].as_str().unwrap())
        .collect();
    assert_eq!(
        roles,
        [
            "system",
            "user",
            "assistant",
            "user",
            "assistant",
            "tool",
            "assistant"
        ]
    );
}

#[test]
fn modes_and_approval_gate_writing_tools() {
    let env = env();
    let script = format!(
        r#"
[[turns]]
reply = {{ tool_calls = [{{ id = "w", name = "write_note", arguments = {{ path = "w.txt", text = "x" }} }}] }}
[[turns]]
reply = {{ text = "ok" }}
{DONE}"#
    );
    let result = |extra: &[&str], was_denied: bool| {
        let server = fake(&script);
        let run = env.exec(&server, extra, "write");
        if was_denied {
            // Exit status 4, and session.completed says what was denied.
            let why = run.assert_done_after_denial("ok");
            assert!(why.starts_with("write_note: "), "{why}");
        } else {
            run.assert_done("ok");
        }
        run.results()[0].2.clone()
    };
    assert!(result(&[], true).starts_with("not approved: `write_note`"));
    assert!(result(&["--mode", "read", "--yes"], true).starts_with("read mode: `write_note`"));
    assert!(!env.ws.join("w.txt").exists());
    assert_eq!(result(&["--yes"], false), "wrote 1 bytes to w.txt");
    std::fs::remove_file(env.ws.join("w.txt")).unwrap();
    assert_eq!(result(&["--mode", "yolo"], false), "wrote 1 bytes to w.txt");
}

#[test]
fn a_session_resumes_with_its_history_through_another_dialect() {
    let env = env();
    let server = fake(&format!(
        "[[turns]]\nreply = {{ text = \"first answer\" }}\n{DONE}"
    ));
    let first = env.exec(&server, &[], "first question");
    first.assert_done("first answer");
    let id = first.session_id();

    let server = fake(&format!(
        "[[turns]]\nreply = {{ text = \"second answer\" }}\n{DONE}"
    ));
    let base = server.anthropic_base();
    let run = Run::from(env.run(&[
        "exec",
        "--json",
        "--provider",
        "anthropic",
        "--base-url",
        &base,
        "--resume",
        &id,
        "second question",
    ]));
    run.assert_done("second answer");
    let started = run.one("session.started");
    assert_eq!(
        (started["resumed"].as_bool(), started["session_id"].as_str()),
        (Some(true), Some(id.as_str()))
    );
    // Anthropic got the whole history, with the system prompt apart.
    let body = &server.received()[0].body;
    assert!(body["system"]
        .as_str()
        .unwrap()
        .starts_with("You are amber"));
    let said: Vec<String> = body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["content"][0]["text"].as_str().unwrap_or("").to_string())
        .collect();
    assert_eq!(said, ["first question", "first answer", "second question"]);
    let shown = env.show(&id);
    assert_eq!(shown["messages"].as_array().unwrap().len(), 5);
    let listed: Value =
        serde_json::from_slice(&env.run(&["sessions", "list", "--json"]).stdout).unwrap();
    let row = &listed["sessions"][0];
    assert_eq!(
        (
            row["id"].as_str(),
            row["title"].as_str(),
            row["state"].as_str()
        ),
        (Some(id.as_str()), Some("first question"), Some("complete"))
    );
}

#[test]
fn a_tampered_session_is_refused_naming_its_first_bad_line() {
    let env = env();
    let server = fake(&format!(
        "[[turns]]\nreply = {{ text = \"answer\" }}\n{DONE}"
    ));
    let first = env.exec(&server, &[], "the question");
    let id = first.session_id();
    let file = env.session_file(&id);
    let changed = std::fs::read_to_string(&file)
        .unwrap()
        .replace("the question", "another question");
    std::fs::write(&file, changed).unwrap();
    let server = fake(DONE);
    let run = env.exec(&server, &["--resume", &id], "go on");
    assert_eq!(run.code, Some(1));
    let error = run.one("session.failed")["error"]
        .as_str()
        .unwrap()
        .to_string();
    // Line 1 is the start record, 2 the settings, 3 the system prompt, 4
    // the question as typed, 5 the message that carries it.
    assert!(
        error.contains(&format!(
            "{id}.jsonl:5: the message does not match its chain hash"
        )),
        "{error}"
    );
    assert!(server.received().is_empty());
    let show = env.run(&["sessions", "show", &id]);
    assert!(!show.status.success() && text(&show.stderr).contains(".jsonl:5:"));
}

/// Every call of session `id` has its result, and its file ends with a
/// turn's head (no warnings when it is verified).
fn assert_sealed(env: &Env, id: &str) {
    let shown = env.show(id);
    assert!(shown["unanswered_calls"].as_array().unwrap().is_empty());
    assert!(
        shown["warnings"].as_array().unwrap().is_empty(),
        "{}",
        shown["warnings"]
    );
}

/// Reads JSON events from a running exec until one of `kind` arrives.
fn wait_for_event(child: &mut Child, kind: &str) -> Vec<Value> {
    let stdout = child.stdout.as_mut().unwrap();
    let mut reader = BufReader::new(stdout);
    let mut seen = Vec::new();
    let mut line = String::new();
    loop {
        line.clear();
        let n = reader.read_line(&mut line).unwrap();
        assert!(n > 0, "exec ended before {kind}: {seen:#?}");
        let event: Value = serde_json::from_str(&line).unwrap();
        let found = event["type"] == kind;
        seen.push(event);
        if found {
            return seen;
        }
    }
}

/// Starts a run whose second call waits a minute; returns once the calls
/// were made, with the session id.
fn start_slow_run(env: &Env) -> (Child, FakeLlm, String) {
    let server = fake(SLOW_CALL);
    let mut child = env.spawn_exec(&server, "wait a minute");
    let seen = wait_for_event(&mut child, "tool.call");
    let id = seen[0]["session_id"].as_str().unwrap().to_string();
    (child, server, id)
}

const SLOW_CALL: &str = r#"
[[turns]]
reply = { tool_calls = [{ id = "k1", name = "read_note", arguments = { path = "a.txt" } }, { id = "k2", name = "wait", arguments = { ms = 60000 } }] }
"#;

#[test]
fn after_kill_9_mid_turn_a_resume_verifies_the_chain_and_fills_in_interrupted_results() {
    let env = env();
    let (mut child, _server, id) = start_slow_run(&env);
    child.kill().unwrap(); // SIGKILL
    child.wait().unwrap();

    let shown = env.show(&id);
    assert_eq!(shown["unanswered_calls"], serde_json::json!(["k1", "k2"]));
    assert!(shown["warnings"][0]
        .as_str()
        .unwrap()
        .contains("the last turn did not finish"));

    let server = fake(&format!(
        "[[turns]]\nexpect_tool_results = [\"k1\", \"k2\"]\nreply = {{ text = \"resumed\" }}\n{DONE}"
    ));
    let run = env.exec(&server, &["--resume", &id], "go on");
    run.assert_done("resumed");
    assert_eq!(
        run.one("session.started")["interrupted"],
        serde_json::json!(["k1", "k2"])
    );
    let tool_contents: Vec<String> = server.received()[0].body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["role"] == "tool")
        .map(|m| m["content"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(tool_contents, [INTERRUPTED, INTERRUPTED]);
    assert_sealed(&env, &id);
}

#[test]
fn ctrl_c_interrupts_running_calls_and_saves_the_session() {
    let env = env();
    let (child, _server, id) = start_slow_run(&env);
    let pid = child.id().to_string();
    assert!(Command::new("kill")
        .args(["-INT", &pid])
        .status()
        .unwrap()
        .success());
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(130), "{}", text(&out.stderr));
    let rest = Run::from(out);
    let failed = rest.one("session.failed");
    assert_eq!(failed["kind"], "interrupted");
    let results = rest.results();
    assert_eq!(results.len(), 2);
    assert_eq!(
        results[1],
        ("k2".into(), "error".into(), INTERRUPTED.into())
    );
    // Sealed: every call has its result, and the file ends with a head.
    assert_sealed(&env, &id);
}

#[test]
fn max_tool_iterations_is_a_hard_stop_with_exit_code_3() {
    let env = env();
    std::fs::write(
        env.home.join("config.toml"),
        "[agent]\nmax_tool_iterations = 2\n",
    )
    .unwrap();
    let server = fake(
        r#"
[[turns]]
reply = { tool_calls = [{ id = "c1", name = "read_note", arguments = { path = "a.txt" } }] }
[[turns]]
reply = { tool_calls = [{ id = "c2", name = "read_note", arguments = { path = "b.txt" } }] }
"#,
    );
    let run = env.exec(&server, &[], "loop");
    assert_eq!(run.code, Some(3), "{}", run.stderr);
    let failed = run.one("session.failed");
    assert_eq!(failed["kind"], "hard_stop");
    assert!(failed["error"]
        .as_str()
        .unwrap()
        .contains("max_tool_iterations"));
    assert_eq!(server.received().len(), 2);
}

#[test]
fn setup_errors_are_reported_as_a_failed_session_with_exit_code_1() {
    let env = env();
    let out = amber_command(env!("CARGO_BIN_EXE_amber"), &env.home, &env.ws)
        .args(["exec", "--json", "--provider", "openai", "hello"])
        .output()
        .unwrap();
    let run = Run::from(out);
    assert_eq!(run.code, Some(1));
    let error = run.one("session.failed")["error"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(error.contains("OPENAI_API_KEY"), "{error}");
    let out = env.run(&["exec", "--resume", "nope", "hello"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        text(&out.stderr).contains("no session `nope`"),
        "{}",
        text(&out.stderr)
    );
    let out = env.run(&["exec", "--mode", "sideways", "hello"]);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn without_json_the_reply_goes_to_stdout_and_progress_to_stderr() {
    let env = env();
    let server = fake(&format!(
        r#"
[[turns]]
reply = {{ text = "Looking.", tool_calls = [{{ id = "c1", name = "read_note", arguments = {{ path = "a.txt" }} }}] }}
[[turns]]
reply = {{ text = "It says hi." }}
{DONE}"#
    ));
    let base = server.openai_base();
    let out = env.run(&["exec", "--base-url", &base, "read a"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(text(&out.stdout), "Looking.\nIt says hi.\n");
    let err = text(&out.stderr);
    assert!(
        err.contains("→ read_note {\"path\":\"a.txt\"}") && err.contains("✓ hi there"),
        "{err}"
    );
    assert!(err.contains("amber: done in 3 model calls"), "{err}");
}

#[test]
fn a_failed_model_call_ends_the_run_with_its_typed_cause_and_the_session_resumes() {
    let env = env();
    // The second call is refused with a wait far beyond what amber sleeps
    // between attempts, so the wire gives up at once; the same server then
    // serves that turn's reply to the resumed run.
    let server = fake(&format!(
        r#"
[[turns]]
reply = {{ text = "Let me look.", tool_calls = [{{ id = "c1", name = "read_note", arguments = {{ path = "a.txt" }} }}], usage = {{ input = 50, output = 5 }} }}
[[turns]]
faults = [{{ kind = "status", status = 429, retry_after_s = 3600 }}]
expect_tool_results = ["c1"]
reply = {{ text = "It says hi." }}
{DONE}"#
    ));
    let run = env.exec(&server, &[], "What does a.txt say?");
    assert_eq!(run.code, Some(1), "{}", run.stderr);
    let failed = run.one("session.failed");
    assert_eq!(failed["kind"], "error");
    let cause = &failed["model_error"];
    assert_eq!(cause["kind"], "rate_limited", "{failed}");
    assert_eq!(cause["status"], 429);
    assert_eq!(cause["retryable"], true);
    assert_eq!(cause["retry_after_ms"], 3_600_000);
    assert!(
        cause["message"]
            .as_str()
            .unwrap()
            .contains("asks to wait 3600 s"),
        "{cause}"
    );
    // The turns and tokens before the failure are still counted.
    assert_eq!(failed["turns"], 2);
    assert_eq!(failed["usage"]["input_tokens"], 50);
    assert_eq!(run.results().len(), 1);
    // The tool round is in the session: the resumed run sends its result.
    let id = run.session_id();
    let resumed = env.exec(&server, &["--resume", &id], "go on");
    resumed.assert_done("It says hi.");
    let last = server.received().last().cloned().unwrap();
    assert!(last.problems.is_empty(), "{:?}", last.problems);
}

#[test]
fn an_unreachable_server_is_a_connect_failure_in_the_event() {
    let env = env();
    // A port nothing listens on: bound, then let go.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let url = format!("http://127.0.0.1:{port}/v1");
    let out = env
        .command(&["exec", "--json", "--base-url", &url, "hello"])
        .output()
        .unwrap();
    let run = Run::from(out);
    assert_eq!(run.code, Some(1));
    let cause = &run.one("session.failed")["model_error"];
    assert_eq!(cause["kind"], "connect", "{cause}");
    assert_eq!(cause["retryable"], true);
    assert!(cause.get("status").is_none());
}

/// Every fault the fake server injects, through `amber exec` and the
/// engine: a fault the wire retries ends in the reply; one it cannot ends
/// the run with its typed cause, and the session then resumes with its
/// whole history (the tool result of the turn before is sent again).
#[test]
fn each_injected_fault_ends_in_the_reply_or_a_typed_failure_that_resumes() {
    // (fault, None when retried into the reply, else the failure's kind)
    let cases = [
        (r#"{ kind = "status", status = 500 }"#, None),
        (
            r#"{ kind = "status", status = 429, retry_after_ms = 50 }"#,
            None,
        ),
        (r#"{ kind = "slow_first_byte", delay_ms = 3000 }"#, None),
        (r#"{ kind = "cut", after_events = 1 }"#, None),
        // After the first tokens: retried too, the partial dropped.
        (r#"{ kind = "cut", after_events = 3 }"#, None),
        (r#"{ kind = "status", status = 401 }"#, Some("auth")),
        (r#"{ kind = "status", status = 400 }"#, Some("request")),
        (
            r#"{ kind = "malformed", after_events = 2 }"#,
            Some("provider"),
        ),
    ];
    for (fault, failure) in cases {
        let env = env();
        // Short waits so a retried fault costs little; a slow first byte
        // of 3 s then times out after 400 ms.
        std::fs::write(
            env.home.join("config.toml"),
            "[wire]\nfirst_byte_timeout_ms = 400\nmax_retry_delay_ms = 100\n",
        )
        .unwrap();
        let server = fake(&format!(
            r#"
[[turns]]
reply = {{ text = "Let me look.", tool_calls = [{{ id = "c1", name = "read_note", arguments = {{ path = "a.txt" }} }}] }}
[[turns]]
faults = [{fault}]
expect_tool_results = ["c1"]
reply = {{ text = "It says hi, in a reply long enough to come in several pieces." }}
{DONE}"#
        ));
        let run = env.exec(&server, &[], "What does a.txt say?");
        let reply = "It says hi, in a reply long enough to come in several pieces.";
        let Some(kind) = failure else {
            run.assert_done(reply);
            // The faulted request and the one after it.
            assert_eq!(server.received().len(), 4, "{fault}");
            continue;
        };
        assert_eq!(run.code, Some(1), "{fault}: {}", run.stderr);
        let failed = run.one("session.failed");
        assert_eq!(failed["model_error"]["kind"], kind, "{fault}: {failed}");
        let error = failed["error"].as_str().unwrap();
        assert!(error.starts_with("the model call failed: "), "{error}");
        if kind == "auth" {
            assert!(error.contains("check OPENAI_API_KEY"), "{error}");
        }
        assert_eq!(server.received().len(), 2, "{fault}: not retried");
        let resumed = env.exec(&server, &["--resume", &run.session_id()], "go on");
        resumed.assert_done(reply);
        for got in server.received() {
            assert!(got.problems.is_empty(), "{fault}: {:?}", got.problems);
        }
    }
}

/// A stream cut after the first tokens: `--json` says so once with the
/// reason, the turn starts over, and the partial reply is nowhere (not in
/// the reply, the history sent next, or the session file); piped into a
/// file without `--json`, stdout holds the reply once.
#[test]
fn a_stream_cut_mid_reply_is_retried_and_the_partial_reply_is_dropped() {
    let reply = "The answer, long enough to arrive in several pieces of text.";
    let script = format!(
        r#"
[[turns]]
faults = [{{ kind = "cut", after_events = 3 }}]
reply = {{ text = "{reply}" }}
{DONE}"#
    );
    let env = env();
    let server = fake(&script);
    let run = env.exec(&server, &[], "answer me");
    run.assert_done(reply);
    let retries = run.of_type("stream.retry");
    assert_eq!(retries.len(), 1, "{:?}", run.events);
    assert_eq!(retries[0]["attempt"], 2);
    assert_eq!(retries[0]["turn"], 1);
    let reason = retries[0]["reason"].as_str().unwrap();
    assert!(reason.contains("broke off"), "{reason}");
    // The deltas before the retry are a start of the reply, and the ones
    // after it are the whole reply.
    let deltas = |events: &[&Value]| -> String {
        events
            .iter()
            .filter(|e| e["type"] == "message.delta")
            .map(|e| e["text"].as_str().unwrap())
            .collect()
    };
    let all: Vec<&Value> = run.events.iter().collect();
    let at = all
        .iter()
        .position(|e| e["type"] == "stream.retry")
        .unwrap();
    let (before, after) = (deltas(&all[..at]), deltas(&all[at..]));
    assert!(!before.is_empty() && reply.starts_with(&before), "{before}");
    assert_eq!(after, reply);
    // The session holds the reply once, and no partial text of its own.
    let session = std::fs::read_to_string(env.session_file(&run.session_id())).unwrap();
    assert_eq!(session.matches(reply).count(), 1, "{session}");
    // The confirm turn's request carries the reply once in the history.
    let confirm = server.received().last().cloned().unwrap();
    let history = sent_messages(&confirm.body).join("\n");
    assert_eq!(history.matches(reply).count(), 1, "{history}");
    assert_eq!(history.matches(&before).count(), 1, "{history}");

    // Without --json, into a pipe: the reply once on stdout, the retry on
    // stderr.
    let piped = crate::env();
    let server = fake(&script);
    let base = server.openai_base();
    let out = piped.run(&["exec", "--base-url", &base, "answer me"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(text(&out.stdout), format!("{reply}\n"));
    let err = text(&out.stderr);
    assert!(err.contains("asking again (attempt 2)"), "{err}");
}

/// `-m` is `--model`, and `--output-last-message FILE` gets the final
/// reply when the run completes, and nothing when it fails.
#[test]
fn dash_m_picks_the_model_and_the_last_message_goes_to_a_file() {
    let env = env();
    let server = fake(&format!(
        "[[turns]]\nreply = {{ text = \"The answer.\" }}\n{DONE}"
    ));
    let out_file = env.home.join("last.txt");
    let run = env.exec(
        &server,
        &[
            "-m",
            "fake-mini",
            "--output-last-message",
            out_file.to_str().unwrap(),
        ],
        "answer",
    );
    run.assert_done("The answer.");
    assert_eq!(server.received()[0].body["model"], "fake-mini");
    assert_eq!(std::fs::read_to_string(&out_file).unwrap(), "The answer.");

    // A failed run (a 401) leaves the file as it was.
    let server = fake(
        "[[turns]]\nfaults = [{ kind = \"status\", status = 401 }]\nreply = { text = \"never\" }\n",
    );
    let run = env.exec(
        &server,
        &["--output-last-message", out_file.to_str().unwrap()],
        "answer",
    );
    assert_eq!(run.code, Some(1));
    assert_eq!(std::fs::read_to_string(&out_file).unwrap(), "The answer.");
}

/// `amber -p PROMPT` is `amber exec PROMPT`: the reply on stdout.
#[test]
fn dash_p_runs_the_prompt_like_exec() {
    let env = env();
    let server = fake(&format!(
        "[[turns]]\nreply = {{ text = \"Printed.\" }}\n{DONE}"
    ));
    let out = env
        .command(&["-p", "say it"])
        .env("OPENAI_BASE_URL", server.openai_base())
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(text(&out.stdout), "Printed.\n");
    let said = sent_messages(&server.received()[0].body);
    assert!(said.iter().any(|m| m == "user: say it"), "{said:?}");
}

/// `-p` beside a subcommand is a usage error, not silently ignored.
#[test]
fn dash_p_with_a_subcommand_is_a_usage_error() {
    let env = env();
    let out = env.run(&["-p", "say it", "plugin", "list"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("takes no subcommand"),
        "{}",
        text(&out.stderr)
    );
}
