//! Every event a run can report is written as a line of `exec --json`
//! and read back into the same typed value.

#![allow(clippy::unwrap_used, reason = "a test fails by panicking")]

use amber_protocol::*;
use serde_json::json;

fn usage() -> Usage {
    Usage {
        input_tokens: 120,
        output_tokens: 30,
        cached_input_tokens: 64,
        cache_write_tokens: 8,
        reasoning_tokens: 5,
    }
}

/// One of every variant, with its optional parts both set and unset.
fn every_event() -> Vec<AgentEvent> {
    let mut model_error = ModelError::new(ModelErrorKind::RateLimited, "slow down");
    model_error.status = Some(429);
    model_error.retryable = true;
    model_error.retry_after_ms = Some(1500);
    vec![
        AgentEvent::SessionStarted {
            session_id: "s1".into(),
            path: "/home/u/.local/share/amber/sessions/s1.jsonl".into(),
            workspace: "/work/repo".into(),
            provider: "openai".into(),
            flavor: "responses".into(),
            model: "gpt".into(),
            mode: "write".into(),
            resumed: true,
            instructions: Some("AGENTS.md".into()),
            instruction_files: vec!["AGENTS.md".into()],
            interrupted: vec!["call_1".into()],
            warnings: vec!["a warning".into()],
        },
        AgentEvent::TurnStarted {
            turn: 1,
            confirm: false,
        },
        AgentEvent::MessageDelta {
            turn: 1,
            kind: DeltaKind::Text,
            text: "héllo\n".into(),
        },
        AgentEvent::MessageDelta {
            turn: 1,
            kind: DeltaKind::Reasoning,
            text: "thinking".into(),
        },
        AgentEvent::ToolCall {
            turn: 1,
            id: "c1".into(),
            name: "read_file".into(),
            arguments: r#"{"path":"a.rs"}"#.into(),
        },
        AgentEvent::ToolResult {
            turn: 1,
            id: "c1".into(),
            name: "read_file".into(),
            status: Status::Ok,
            output: "1\tfn main() {}".into(),
            meta: Some(json!({"lines": 1})),
        },
        AgentEvent::ToolResult {
            turn: 1,
            id: "c2".into(),
            name: "shell".into(),
            status: Status::Denied,
            output: "read mode".into(),
            meta: None,
        },
        AgentEvent::TurnCompleted {
            turn: 1,
            usage: usage(),
            stop_reason: Some(StopReason::ToolUse),
            tool_calls: 2,
            cost_usd: Some(0.0125),
        },
        AgentEvent::TurnCompleted {
            turn: 2,
            usage: Usage::default(),
            stop_reason: None,
            tool_calls: 0,
            cost_usd: None,
        },
        AgentEvent::StreamRetry {
            turn: 2,
            attempt: 2,
            reason: "the stream broke off".into(),
        },
        AgentEvent::ProtectedChanged {
            turn: 2,
            changes: vec![
                ProtectedChange {
                    path: ".git/hooks/pre-commit".into(),
                    change: ProtectedChangeKind::Reverted,
                    detail: "removed a planted hook".into(),
                },
                ProtectedChange {
                    path: ".mcp.json".into(),
                    change: ProtectedChangeKind::Created,
                    detail: "MCP servers".into(),
                },
            ],
        },
        AgentEvent::Steer {
            turn: 2,
            message: "use the result".into(),
        },
        AgentEvent::Warning {
            message: "careful".into(),
        },
        AgentEvent::Hook(HookOutcome {
            event: HookEvent::PreTool,
            hook: "guard".into(),
            tool: Some("shell".into()),
            outcome: "deny".into(),
            detail: Some("no".into()),
            denied: false,
            micros: 812,
        }),
        AgentEvent::Hook(HookOutcome {
            event: HookEvent::SessionEnd,
            hook: "log".into(),
            tool: None,
            outcome: "failed".into(),
            detail: None,
            denied: true,
            micros: 3,
        }),
        AgentEvent::CompactionStarted {
            trigger: CompactionTrigger::Auto,
            tokens: 900,
            window: 1000,
            focus: Some("tests".into()),
        },
        AgentEvent::CompactionCompleted {
            stats: CompressionStats {
                tokens_before: 900,
                tokens_after: 400,
                kept: 3,
                collapsed: 2,
                pruned: 1,
            },
            memories: 1,
            skills: 2,
        },
        AgentEvent::CompactionFailed {
            reason: "why".into(),
        },
        AgentEvent::SubAgentStarted {
            agent: "task-1".into(),
            call_id: "call_7".into(),
            profile: Some("reviewer".into()),
            description: "review the parser".into(),
            session_id: Some("s2".into()),
            path: Some("/sessions/s2.jsonl".into()),
            mode: "read".into(),
            model: "m".into(),
        },
        AgentEvent::SubAgent {
            agent: "task-1".into(),
            event: Box::new(AgentEvent::ToolCall {
                turn: 1,
                id: "c1".into(),
                name: "read_file".into(),
                arguments: r#"{"path":"a"}"#.into(),
            }),
        },
        AgentEvent::SubAgentFinished {
            agent: "task-1".into(),
            session_id: Some("s2".into()),
            outcome: "done".into(),
            text: "looks right".into(),
            turns: 2,
            usage: usage(),
            cost_usd: None,
        },
        AgentEvent::PlanProposed {
            plan: "1. read\n2. write".into(),
        },
        AgentEvent::TodoUpdated {
            todos: vec![amber_protocol::Todo {
                id: "1".into(),
                content: "read".into(),
                status: amber_protocol::TodoStatus::InProgress,
            }],
        },
        AgentEvent::SessionCompleted {
            session_id: "s1".into(),
            reply: "done".into(),
            turns: 2,
            usage: usage(),
            denied: Some("write_file: the user declined this (`write_file`)".into()),
            cost_usd: Some(0.5),
            session_cost_usd: Some(1.25),
        },
        AgentEvent::SessionFailed {
            session_id: "s1".into(),
            kind: FailureKind::Error,
            error: "slow down".into(),
            model_error: Some(model_error),
            turns: 1,
            usage: usage(),
        },
        AgentEvent::SessionFailed {
            session_id: "s1".into(),
            kind: FailureKind::Interrupted,
            error: "interrupted".into(),
            model_error: None,
            turns: 1,
            usage: Usage::default(),
        },
    ]
}

/// The variant's name, so the test notices a variant it does not cover.
fn name(event: &AgentEvent) -> &'static str {
    match event {
        AgentEvent::SessionStarted { .. } => "session.started",
        AgentEvent::TurnStarted { .. } => "turn.started",
        AgentEvent::MessageDelta { .. } => "message.delta",
        AgentEvent::ToolCall { .. } => "tool.call",
        AgentEvent::ToolResult { .. } => "tool.result",
        AgentEvent::TurnCompleted { .. } => "turn.completed",
        AgentEvent::StreamRetry { .. } => "stream.retry",
        AgentEvent::ProtectedChanged { .. } => "workspace.protected_changed",
        AgentEvent::Steer { .. } => "steer",
        AgentEvent::Warning { .. } => "warning",
        AgentEvent::Hook(_) => "hook",
        AgentEvent::CompactionStarted { .. } => "compaction.started",
        AgentEvent::CompactionCompleted { .. } => "compaction.completed",
        AgentEvent::CompactionFailed { .. } => "compaction.failed",
        AgentEvent::SubAgentStarted { .. } => "subagent.started",
        AgentEvent::SubAgent { .. } => "subagent",
        AgentEvent::SubAgentFinished { .. } => "subagent.finished",
        AgentEvent::PlanProposed { .. } => "plan.proposed",
        AgentEvent::TodoUpdated { .. } => "todo.updated",
        AgentEvent::SessionCompleted { .. } => "session.completed",
        AgentEvent::SessionFailed { .. } => "session.failed",
    }
}

#[test]
fn every_event_round_trips_through_a_line_of_json() {
    let events = every_event();
    let mut names: Vec<&str> = events.iter().map(name).collect();
    names.dedup();
    assert_eq!(names.len(), 21, "one of each variant: {names:?}");
    for event in events {
        let line = to_line(&event);
        assert!(!line.contains('\n'), "one line: {line}");
        let value: serde_json::Value = serde_json::from_str(&line).unwrap();
        assert_eq!(value["v"], 1, "{line}");
        assert_eq!(value["type"], name(&event), "{line}");
        assert_eq!(event.kind(), name(&event));
        assert_eq!(parse_line(&line).unwrap(), event, "{line}");
    }
}

#[test]
fn a_line_of_another_version_is_refused_by_name_and_an_unknown_field_is_skipped() {
    let line = r#"{"v": 2, "type": "warning", "message": "x"}"#;
    let err = parse_line(line).unwrap_err().to_string();
    assert!(
        err.contains("version 2") && err.contains("knows 1"),
        "{err}"
    );
    // A field added later keeps the version: an older reader skips it.
    let newer = r#"{"v": 1, "type": "warning", "message": "x", "severity": "low"}"#;
    assert_eq!(
        parse_line(newer).unwrap(),
        AgentEvent::Warning {
            message: "x".into()
        }
    );
    assert!(parse_line(r#"{"type": "warning", "message": "x"}"#).is_err());
    assert!(parse_line("not json").is_err());
}

#[test]
fn the_run_report_round_trips() {
    for outcome in [
        Outcome::Done("ok".into()),
        Outcome::HardStop("max tool iterations".into()),
        Outcome::Interrupted,
        Outcome::ModelFailed(ModelError::new(ModelErrorKind::Auth, "bad key")),
    ] {
        let report = RunReport {
            outcome,
            turns: 3,
            usage: usage(),
            cost_usd: Some(0.01),
        };
        let text = serde_json::to_string(&report).unwrap();
        assert_eq!(
            serde_json::from_str::<RunReport>(&text).unwrap(),
            report,
            "{text}"
        );
    }
}
