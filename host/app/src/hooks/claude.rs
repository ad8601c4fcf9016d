//! Claude Code's hook contract, both ways: the JSON a command hook reads
//! on stdin, and what its exit code, stdout and stderr decide. The names
//! come from amber-core's one table (hooks::names).
//!
//! - Exit 0: stdout is JSON (`decision`, `reason`, `continue`,
//!   `stopReason`, `hookSpecificOutput` with `permissionDecision`,
//!   `updatedInput`, `additionalContext`, or `decision.behavior` for
//!   PermissionRequest), or plain text, which is context on SessionStart
//!   and UserPromptSubmit and ignored elsewhere.
//! - Exit 2: a block, with stderr as the reason: PreToolUse denies,
//!   UserPromptSubmit blocks, PermissionRequest denies, Stop continues,
//!   PostToolUse shows it to the model, PreCompact skips.
//! - Any other exit, a timeout, or stdout that starts like JSON and is
//!   not: the hook failed (amber's failure rule then applies).

use amber_core::hooks::names::{claude_args, claude_event, claude_tool};
use amber_core::hooks::{Decision, HookContext, HookEvent, Payload};
use serde_json::{json, Map, Value};

/// The JSON a command hook reads on stdin.
pub fn stdin_json(ctx: &HookContext, payload: &Payload, transcript: Option<&str>) -> Value {
    let event = payload.event();
    let mut out = Map::new();
    out.insert("session_id".into(), json!(ctx.session_id));
    out.insert("transcript_path".into(), json!(transcript));
    out.insert("cwd".into(), json!(ctx.workspace));
    out.insert("permission_mode".into(), json!(permission_mode(ctx)));
    out.insert("hook_event_name".into(), json!(claude_event(event)));
    out.insert("amber_event".into(), json!(event.as_str()));
    out.insert("agent".into(), json!(ctx.agent));
    let mut put = |key: &str, value: Value| {
        out.insert(key.into(), value);
    };
    match payload {
        Payload::SessionStart { source } => put("source", json!(source)),
        Payload::UserPromptSubmit { prompt } => put("prompt", json!(prompt)),
        Payload::PreTool { tool, args } => {
            put("tool_name", json!(claude_tool(tool)));
            put("tool_input", claude_args(tool, args));
        }
        Payload::PostTool {
            tool,
            args,
            ok,
            output,
        } => {
            put("tool_name", json!(claude_tool(tool)));
            put("tool_input", claude_args(tool, args));
            put("tool_response", json!({"success": ok, "output": output}));
        }
        Payload::PermissionRequest {
            requester,
            action,
            detail,
            class,
        } => {
            let tool = payload.tool().unwrap_or(action);
            put("tool_name", json!(claude_tool(tool)));
            let input = serde_json::from_str::<Value>(detail)
                .map(|args| claude_args(tool, &args))
                .unwrap_or_else(|_| json!({"command": detail}));
            put("tool_input", input);
            put("requester", json!(requester));
            put("classification", json!(class));
        }
        Payload::PreCompact { trigger, focus } => {
            put("trigger", json!(claude_trigger(*trigger)));
            put("custom_instructions", json!(focus));
        }
        Payload::PostCompact {
            trigger,
            tokens_before,
            tokens_after,
        } => {
            put("trigger", json!(claude_trigger(*trigger)));
            put("tokens_before", json!(tokens_before));
            put("tokens_after", json!(tokens_after));
        }
        Payload::Stop { reply, continued } | Payload::SubagentStop { reply, continued } => {
            put("stop_hook_active", json!(*continued > 0));
            put("last_assistant_message", json!(reply));
        }
        Payload::SessionEnd { reason } => put("reason", json!(reason)),
        Payload::Notification { message } => put("message", json!(message)),
    }
    Value::Object(out)
}

fn permission_mode(ctx: &HookContext) -> &'static str {
    match ctx.mode {
        amber_core::engine::Mode::Plan | amber_core::engine::Mode::Read => "plan",
        amber_core::engine::Mode::Write => "default",
        amber_core::engine::Mode::Yolo => "bypassPermissions",
    }
}

fn claude_trigger(trigger: amber_core::hooks::CompactTrigger) -> &'static str {
    match trigger {
        amber_core::hooks::CompactTrigger::Automatic => "auto",
        amber_core::hooks::CompactTrigger::Manual => "manual",
    }
}

/// What a finished command decided; `Err` is a failure, with the cause.
pub fn decide(
    event: HookEvent,
    exit_code: Option<i32>,
    stdout: &str,
    stderr: &str,
) -> Result<Decision, String> {
    match exit_code {
        Some(0) => from_stdout(event, stdout),
        Some(2) => Ok(blocked(event, stderr.trim())),
        Some(code) => Err(format!(
            "it exited with status {code}{}",
            tail(stderr).map(|s| format!(": {s}")).unwrap_or_default()
        )),
        None => Err("it was killed by a signal".into()),
    }
}

/// Exit code 2: what blocking means on `event`.
fn blocked(event: HookEvent, reason: &str) -> Decision {
    let reason = if reason.is_empty() {
        "blocked (exit code 2, no reason given)".to_string()
    } else {
        reason.to_string()
    };
    match event {
        HookEvent::PreTool | HookEvent::UserPromptSubmit | HookEvent::PermissionRequest => {
            Decision::Deny(reason)
        }
        HookEvent::Stop => Decision::Continue(reason),
        HookEvent::PostTool => Decision::Context(reason),
        // Claude Code only shows the reason on PreCompact: a hook written
        // for it must not turn compaction off here either.
        _ => Decision::Pass,
    }
}

/// Exit code 0: the JSON on stdout, or plain text.
fn from_stdout(event: HookEvent, stdout: &str) -> Result<Decision, String> {
    let text = stdout.trim();
    if text.is_empty() {
        return Ok(Decision::Pass);
    }
    if !text.starts_with('{') {
        return Ok(match event {
            HookEvent::SessionStart | HookEvent::UserPromptSubmit => {
                Decision::Context(text.to_string())
            }
            _ => Decision::Pass,
        });
    }
    let json: Value = serde_json::from_str(text)
        .map_err(|e| format!("its stdout is not the JSON it starts as: {e}"))?;
    Ok(from_json(event, &json))
}

fn from_json(event: HookEvent, json: &Value) -> Decision {
    let text = |v: Option<&Value>| v.and_then(Value::as_str).map(str::to_string);
    let specific = json.get("hookSpecificOutput");
    let reason = text(json.get("reason"))
        .or_else(|| text(specific.and_then(|s| s.get("permissionDecisionReason"))))
        .unwrap_or_default();
    let context = text(specific.and_then(|s| s.get("additionalContext")));
    let block = json.get("decision").and_then(Value::as_str) == Some("block");
    // `"continue": false` stops the action on the events that can be
    // stopped.
    let halt = json.get("continue").and_then(Value::as_bool) == Some(false);
    let halt_reason = text(json.get("stopReason")).unwrap_or_else(|| reason.clone());
    match event {
        HookEvent::PreTool => {
            let said = specific
                .and_then(|s| s.get("permissionDecision"))
                .and_then(Value::as_str);
            if halt {
                return Decision::Deny(halt_reason);
            }
            match said {
                Some("deny") => Decision::Deny(reason),
                Some("ask") => Decision::Ask(reason),
                _ if block => Decision::Deny(reason),
                _ => match specific.and_then(|s| s.get("updatedInput")) {
                    // In Claude Code's keys: command.rs maps them back.
                    Some(input) => Decision::Rewrite(input.clone()),
                    None => Decision::Pass,
                },
            }
        }
        HookEvent::UserPromptSubmit if block || halt => {
            Decision::Deny(if block { reason } else { halt_reason })
        }
        HookEvent::PermissionRequest => {
            let decision = specific.and_then(|s| s.get("decision"));
            let behavior = decision
                .and_then(|d| d.get("behavior"))
                .and_then(Value::as_str);
            match behavior {
                Some("allow") => Decision::Approve,
                Some("deny") => {
                    Decision::Deny(text(decision.and_then(|d| d.get("message"))).unwrap_or(reason))
                }
                _ => Decision::Pass,
            }
        }
        HookEvent::PostTool if block => Decision::Flag(match context {
            Some(context) if !context.trim().is_empty() => format!("{reason}\n{context}"),
            _ => reason,
        }),
        HookEvent::Stop if block => Decision::Continue(reason),
        HookEvent::PreCompact if block => Decision::Skip(reason),
        HookEvent::SessionStart
        | HookEvent::UserPromptSubmit
        | HookEvent::PostTool
        | HookEvent::PostCompact => context.map(Decision::Context).unwrap_or(Decision::Pass),
        _ => Decision::Pass,
    }
}

/// The last line of `text`, if any: what a failure is named by.
fn tail(text: &str) -> Option<&str> {
    text.lines().rev().map(str::trim).find(|l| !l.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;
    use amber_core::engine::Mode;

    fn ctx() -> HookContext {
        HookContext {
            session_id: "s1".into(),
            agent: "main".into(),
            mode: Mode::Write,
            workspace: Some("/w".into()),
        }
    }

    #[test]
    fn the_stdin_of_a_pre_tool_hook_speaks_claude_codes_names() {
        let payload = Payload::PreTool {
            tool: "write_file".into(),
            args: json!({"path": "a.rs", "content": "x"}),
        };
        let v = stdin_json(&ctx(), &payload, None);
        assert_eq!(v["hook_event_name"], "PreToolUse");
        assert_eq!(v["tool_name"], "Write");
        assert_eq!(v["tool_input"]["file_path"], "a.rs");
        assert_eq!(v["permission_mode"], "default");
    }

    #[test]
    fn exit_two_blocks_with_stderr_and_other_codes_fail() {
        assert_eq!(
            decide(HookEvent::PreTool, Some(2), "", "no rm\n").unwrap(),
            Decision::Deny("no rm".into())
        );
        assert_eq!(
            decide(HookEvent::Stop, Some(2), "", "tests fail").unwrap(),
            Decision::Continue("tests fail".into())
        );
        let err = decide(HookEvent::PreTool, Some(1), "", "boom").unwrap_err();
        assert!(err.contains("status 1: boom"), "{err}");
    }

    #[test]
    fn json_decisions_map_to_amber_decisions() {
        let out = r#"{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"no"}}"#;
        assert_eq!(
            decide(HookEvent::PreTool, Some(0), out, "").unwrap(),
            Decision::Deny("no".into())
        );
        let out = r#"{"hookSpecificOutput":{"updatedInput":{"file_path":"b.rs"}}}"#;
        assert_eq!(
            decide(HookEvent::PreTool, Some(0), out, "").unwrap(),
            Decision::Rewrite(json!({"file_path": "b.rs"}))
        );
        let out = r#"{"hookSpecificOutput":{"decision":{"behavior":"allow"}}}"#;
        assert_eq!(
            decide(HookEvent::PermissionRequest, Some(0), out, "").unwrap(),
            Decision::Approve
        );
        assert_eq!(
            decide(HookEvent::SessionStart, Some(0), "on branch main\n", "").unwrap(),
            Decision::Context("on branch main".into())
        );
        assert!(decide(HookEvent::PreTool, Some(0), "{not json", "").is_err());
    }
}
