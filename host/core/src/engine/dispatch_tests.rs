//! The tests of `dispatch.rs`, beside it: most of its lines were tests.

use super::*;
use crate::ports::approver::HeadlessApprover;
use crate::ports::{ToolError, ToolOutput, ToolSpec};
use serde_json::json;
use std::sync::Mutex;
use std::time::Duration;

/// A small fake of the Tool port. A "meeting" tool waits (up to 5 s)
/// until another meeting call has started: two can only both succeed
/// when they run at the same time. A slow one sleeps first.
struct Fake {
    spec: ToolSpec,
    delay: Duration,
    meeting: Option<Arc<(Mutex<u32>, std::sync::Condvar)>>,
}

impl Tool for Fake {
    fn spec(&self) -> &ToolSpec {
        &self.spec
    }
    fn call(&self, args: &Value) -> Result<ToolOutput, ToolError> {
        std::thread::sleep(self.delay);
        if let Some(meeting) = &self.meeting {
            let (count, arrived) = &**meeting;
            let mut n = count.lock().unwrap();
            *n += 1;
            arrived.notify_all();
            let (n, timeout) = arrived
                .wait_timeout_while(n, Duration::from_secs(5), |n| *n < 2)
                .unwrap();
            if timeout.timed_out() {
                return Err(ToolError::Failed(format!("ran alone ({} arrived)", *n)));
            }
        }
        Ok(ToolOutput {
            content: args.to_string(),
            meta: None,
            images: Vec::new(),
        })
    }
}

fn tool(name: &str, read_only: bool, delay_ms: u64) -> Fake {
    Fake {
        spec: ToolSpec {
            name: name.into(),
            description: String::new(),
            input_schema: json!({"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]}),
            read_only,
            gated_by_exec: false,
            approval_group: None,
        },
        delay: Duration::from_millis(delay_ms),
        meeting: None,
    }
}

fn fake(name: &str, read_only: bool, delay_ms: u64) -> Arc<dyn Tool> {
    Arc::new(tool(name, read_only, delay_ms))
}

fn call(id: &str, name: &str, args: &str) -> ToolCall {
    ToolCall {
        id: id.into(),
        name: name.into(),
        arguments: args.into(),
    }
}

fn policy(mode: Mode, yes: bool) -> Arc<Policy> {
    let handler = Arc::new(HeadlessApprover { yes });
    Arc::new(Policy::new(mode, "/ws".into(), Vec::new(), Some(handler)))
}

fn dispatcher(mode: Mode, yes: bool) -> Dispatcher {
    let tools = [
        fake("slow", true, 200),
        fake("fast", true, 0),
        fake("write", false, 0),
    ];
    Dispatcher::new(&tools, policy(mode, yes))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn calls_run_in_parallel_and_results_keep_the_call_order() {
    let meeting = Arc::new((Mutex::new(0), std::sync::Condvar::new()));
    let meet: Arc<dyn Tool> = Arc::new(Fake {
        meeting: Some(meeting),
        ..tool("meet", true, 0)
    });
    let tools = [meet, fake("slow", true, 50)];
    let d = Dispatcher::new(&tools, policy(Mode::Write, false));
    let calls = [
        call("1", "slow", r#"{"n":1}"#),
        call("2", "meet", r#"{"n":2}"#),
        call("3", "meet", r#"{"n":3}"#),
    ];
    let out = d.dispatch(&calls, &[], &CancellationToken::new()).await;
    let outputs: Vec<&str> = out.iter().map(|e| e.output.as_str()).collect();
    assert_eq!(outputs, [r#"{"n":1}"#, r#"{"n":2}"#, r#"{"n":3}"#]);
}

#[tokio::test]
async fn a_schema_that_does_not_compile_is_reported_once_and_the_tool_still_runs() {
    let broken: Arc<dyn Tool> = Arc::new(Fake {
        spec: ToolSpec {
            input_schema: json!({"type": "object", "properties": {"n": {"type": 5}}}),
            ..tool("broken", true, 0).spec
        },
        ..tool("broken", true, 0)
    });
    let d = Dispatcher::new(&[broken], policy(Mode::Write, false));
    assert!(d.take_warnings().is_empty(), "nothing is compiled at start");
    let cancel = CancellationToken::new();
    let out = d
        .dispatch(&[call("1", "broken", r#"{"n":"x"}"#)], &[], &cancel)
        .await;
    assert_eq!(out[0].status, Status::Ok, "{}", out[0].output);
    let warnings = d.take_warnings();
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    assert!(warnings[0].starts_with("tool `broken` has an invalid input schema"));
    d.dispatch(&[call("2", "broken", r#"{"n":2}"#)], &[], &cancel)
        .await;
    assert!(d.take_warnings().is_empty(), "told once");
}

#[tokio::test]
async fn calls_follow_the_ledger_only_to_a_tool_declared_the_same() {
    use crate::ledger::{Ledger, Owner, Service};
    let ledger = Arc::new(Ledger::new());
    let owner = Owner::Plugin("p".into());
    ledger
        .install(&owner, Service::Tool(fake("look", true, 0)))
        .unwrap();
    let declared = [fake("look", true, 0)];
    let d = Dispatcher::new(&declared, policy(Mode::Read, false)).following(Some(ledger.clone()));
    let cancel = CancellationToken::new();
    let out = d
        .dispatch(&[call("1", "look", r#"{"n":1}"#)], &[], &cancel)
        .await;
    assert_eq!(out[0].status, Status::Ok, "{}", out[0].output);
    // Reloaded mid-turn into a tool that writes: read mode must not
    // run it on the strength of the old declaration.
    ledger.unwind(&owner);
    ledger
        .install(&owner, Service::Tool(fake("look", false, 0)))
        .unwrap();
    let out = d
        .dispatch(&[call("2", "look", r#"{"n":2}"#)], &[], &cancel)
        .await;
    assert_eq!(out[0].status, Status::Denied);
    assert!(
        out[0].output.contains("changed while this turn ran"),
        "{}",
        out[0].output
    );
}

#[tokio::test]
async fn every_denial_of_the_flowchart_is_an_envelope() {
    let d = dispatcher(Mode::Write, false);
    let previous = [call("p", "fast", r#"{"n": 7}"#)];
    let calls = [
        call("a", "nope", "{}"),
        call("b", "fast", "{not json"),
        call("c", "fast", r#"{"n":"seven"}"#),
        call("d", "fast", r#"{"n":7}"#),
        call("e", "write", r#"{"n":1}"#),
        call("f", "fast", r#"{"n":1}"#),
        call("g", "fast", r#"{"n":1}"#),
    ];
    let out = d
        .dispatch(&calls, &previous, &CancellationToken::new())
        .await;
    let statuses: Vec<Status> = out.iter().map(|e| e.status).collect();
    use Status::*;
    assert_eq!(
        statuses,
        [Denied, Denied, Denied, Denied, Denied, Ok, Denied]
    );
    assert!(out[0]
        .output
        .starts_with("tool not found: `nope` (available: fast, slow, write)"));
    assert!(out[1].output.starts_with("invalid JSON arguments"));
    assert!(
        out[2]
            .output
            .contains("/n: \"seven\" is not of type \"integer\""),
        "{}",
        out[2].output
    );
    assert!(out[3].output.contains("in the last turn"));
    assert!(
        out[4].output.starts_with("not approved: `write` (writes)"),
        "{}",
        out[4].output
    );
    assert!(out[6]
        .output
        .contains("twice with identical arguments in this turn"));
}

#[tokio::test]
async fn modes_gate_tools_that_are_not_read_only() {
    let w = [call("w", "write", r#"{"n":1}"#)];
    let token = CancellationToken::new();
    let read = dispatcher(Mode::Read, true).dispatch(&w, &[], &token).await;
    assert!(read[0].output.starts_with("read mode: `write`"));
    let yes = dispatcher(Mode::Write, true)
        .dispatch(&w, &[], &token)
        .await;
    assert_eq!(yes[0].status, Status::Ok);
    let yolo = dispatcher(Mode::Yolo, false)
        .dispatch(&w, &[], &token)
        .await;
    assert_eq!(yolo[0].status, Status::Ok);
}

#[tokio::test]
async fn path_arguments_never_leave_the_workspace_even_in_yolo_mode() {
    let d = dispatcher(Mode::Yolo, true);
    let token = CancellationToken::new();
    let calls = [
        call("1", "write", r#"{"n":1,"path":"../etc/passwd"}"#),
        call(
            "2",
            "write",
            r#"{"n":2,"nested":{"files":["ok.txt","/etc/shadow"]}}"#,
        ),
        call(
            "3",
            "write",
            r#"{"n":3,"path":"/ws/inside.txt","text":"/etc/not-a-path"}"#,
        ),
    ];
    let out = d.dispatch(&calls, &[], &token).await;
    assert!(
        out[0]
            .output
            .starts_with("path refused: `../etc/passwd` is outside the workspace"),
        "{}",
        out[0].output
    );
    assert!(out[1].output.starts_with("path refused: `/etc/shadow`"));
    assert_eq!(out[2].status, Status::Ok);
    // The tool saw the absolute path made relative to the root.
    assert_eq!(
        out[2].output,
        r#"{"n":3,"path":"inside.txt","text":"/etc/not-a-path"}"#
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cancel_gives_running_calls_an_interrupted_result() {
    let d = dispatcher(Mode::Write, false);
    let token = CancellationToken::new();
    let cancel = token.clone();
    tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(20)).await;
        cancel.cancel();
    });
    let calls = [
        call("1", "fast", r#"{"n":1}"#),
        call("2", "slow", r#"{"n":2}"#),
    ];
    let out = d.dispatch(&calls, &[], &token).await;
    assert_eq!(out[0].status, Status::Ok);
    assert_eq!(out[1].output, crate::session::INTERRUPTED);
}

#[test]
fn an_outside_servers_paths_may_lead_into_its_roots_and_nowhere_else_out() {
    use std::path::{Path, PathBuf};
    let ws = Path::new("/ws");
    let roots = [PathBuf::from("/home/me/notes")];
    let args = serde_json::json!({
        "path": "/home/me/notes/today.md",
        "paths": ["a.txt", "/ws/b.txt"],
    });
    let confined = confine_within(&args, ws, &roots).unwrap();
    assert_eq!(
        confined,
        [
            PathBuf::from("/home/me/notes/today.md"),
            PathBuf::from("/ws/a.txt"),
            PathBuf::from("/ws/b.txt")
        ]
    );
    // Out of both, or climbing out of a root: refused, naming the roots.
    for path in [
        "/home/me/.ssh/id_ed25519",
        "/home/me/notes/../.ssh/x",
        "../notes/x",
    ] {
        let refused = confine_within(&serde_json::json!({ "path": path }), ws, &roots).unwrap_err();
        assert!(refused.starts_with("path refused:"), "{refused}");
        if path.starts_with('/') {
            assert!(
                refused.contains("the server's roots (/home/me/notes)"),
                "{refused}"
            );
        }
    }
    // Without roots, what it always was.
    assert!(confine_within(&args, ws, &[]).is_err());
}
