//! A component's hook behind the core's Hook port: one WIT function per
//! event, its typed payload in and its typed decision out. A trap, the
//! deadline or an `err` is the hook failing; the core's runner decides
//! what that means for the event (docs/hooks.md).

use std::sync::Arc;

use amber_core::hooks::{
    CompactTrigger, Decision, Hook, HookContext, HookSpec, Payload, StartSource,
};
use amber_core::ports::PortError;

use super::{missing, port_error};
use crate::bindings::hook as wit;
use crate::pool_cell::PoolCell;

pub struct ComponentHook {
    pool: Arc<PoolCell>,
    spec: HookSpec,
    label: String,
}

impl ComponentHook {
    pub fn new(pool: Arc<PoolCell>, spec: HookSpec) -> Self {
        let label = format!("hook `{}` ({})", spec.id, spec.event);
        ComponentHook { pool, spec, label }
    }

    /// What the component is told of the context: the workspace at its
    /// sandbox mount, and only when granted.
    fn context(&self, ctx: &HookContext) -> wit::HookContext {
        let granted = self.pool.context().grants.can_read_workspace();
        wit::HookContext {
            session_id: ctx.session_id.clone(),
            agent: ctx.agent.clone(),
            mode: ctx.mode.as_str().to_string(),
            workspace: granted.then(|| crate::sandbox::WORKSPACE_MOUNT.to_string()),
        }
    }
}

fn trigger(t: CompactTrigger) -> wit::CompactTrigger {
    match t {
        CompactTrigger::Automatic => wit::CompactTrigger::Automatic,
        CompactTrigger::Manual => wit::CompactTrigger::Manual,
    }
}

fn tool_call(tool: &str, args: &serde_json::Value) -> wit::ToolCall {
    wit::ToolCall {
        name: tool.to_string(),
        args_json: args.to_string(),
    }
}

/// `Some(text)` as context; nothing for none or blank.
fn context(text: Option<String>) -> Decision {
    match text {
        Some(text) if !text.trim().is_empty() => Decision::Context(text),
        _ => Decision::Pass,
    }
}

impl Hook for ComponentHook {
    fn spec(&self) -> &HookSpec {
        &self.spec
    }

    fn handle(&self, ctx: &HookContext, payload: &Payload) -> Result<Decision, PortError> {
        let cx = self.context(ctx);
        let answer = self
            .pool
            .call(&self.label, |inst| {
                let Some(h) = &inst.exports.hook else {
                    return Err(missing("hook"));
                };
                let store = &mut inst.store;
                Ok(match payload {
                    Payload::SessionStart { source } => {
                        let source = match source {
                            StartSource::Startup => wit::StartSource::Startup,
                            StartSource::Resume => wit::StartSource::Resume,
                            StartSource::Compact => wit::StartSource::Compact,
                        };
                        h.session_start(store, &cx, source)?.map(context)
                    }
                    Payload::UserPromptSubmit { prompt } => h
                        .user_prompt_submit(store, &cx, prompt)?
                        .map(|d| match d {
                            wit::PromptDecision::Allow(text) => context(text),
                            wit::PromptDecision::Block(reason) => Decision::Deny(reason),
                        }),
                    Payload::PreTool { tool, args } => h
                        .pre_tool(store, &cx, &tool_call(tool, args))?
                        .and_then(|d| {
                            Ok(match d {
                                wit::PreToolDecision::Allow => Decision::Pass,
                                wit::PreToolDecision::Deny(reason) => Decision::Deny(reason),
                                wit::PreToolDecision::Ask(reason) => Decision::Ask(reason),
                                wit::PreToolDecision::Rewrite(json) => {
                                    Decision::Rewrite(serde_json::from_str(&json).map_err(|e| {
                                        format!("it rewrote the arguments to something that is not JSON ({e})")
                                    })?)
                                }
                            })
                        }),
                    Payload::PostTool {
                        tool,
                        args,
                        ok,
                        output,
                    } => {
                        let result = wit::ToolResult {
                            call: tool_call(tool, args),
                            ok: *ok,
                            output: output.clone(),
                        };
                        // A flag and context at once: the flag wins, with
                        // the context after it.
                        h.post_tool(store, &cx, &result)?.map(|d| match (d.flag, d.context) {
                            (Some(flag), Some(text)) if !text.trim().is_empty() => {
                                Decision::Flag(format!("{flag}\n{text}"))
                            }
                            (Some(flag), _) => Decision::Flag(flag),
                            (None, text) => context(text),
                        })
                    }
                    Payload::PermissionRequest {
                        requester,
                        action,
                        detail,
                        class,
                    } => {
                        let ask = wit::PermissionAsk {
                            requester: requester.clone(),
                            action: action.clone(),
                            detail: detail.clone(),
                            class: class.clone(),
                        };
                        h.permission_request(store, &cx, &ask)?.map(|d| match d {
                            wit::PermissionDecision::Abstain => Decision::Pass,
                            wit::PermissionDecision::Approve => Decision::Approve,
                            wit::PermissionDecision::Deny(reason) => Decision::Deny(reason),
                        })
                    }
                    Payload::PreCompact { trigger: t, focus } => {
                        let request = wit::CompactRequest {
                            trigger: trigger(*t),
                            focus: focus.clone(),
                        };
                        h.pre_compact(store, &cx, &request)?.map(|d| match d {
                            wit::PreCompactDecision::Proceed(words) if words.trim().is_empty() => {
                                Decision::Pass
                            }
                            wit::PreCompactDecision::Proceed(words) => Decision::Focus(words),
                            wit::PreCompactDecision::Skip(reason) => Decision::Skip(reason),
                        })
                    }
                    Payload::PostCompact {
                        trigger: t,
                        tokens_before,
                        tokens_after,
                    } => {
                        let done = wit::CompactDone {
                            trigger: trigger(*t),
                            tokens_before: *tokens_before,
                            tokens_after: *tokens_after,
                        };
                        h.post_compact(store, &cx, done)?.map(context)
                    }
                    Payload::Stop { reply, continued } => {
                        let request = wit::StopRequest {
                            reply: reply.clone(),
                            continued: *continued,
                        };
                        h.stop(store, &cx, &request)?.map(|d| match d {
                            wit::StopDecision::Stop => Decision::Pass,
                            wit::StopDecision::ContinueWith(reason) => Decision::Continue(reason),
                        })
                    }
                    Payload::SubagentStop { reply, continued } => {
                        let request = wit::StopRequest {
                            reply: reply.clone(),
                            continued: *continued,
                        };
                        h.subagent_stop(store, &cx, &request)?
                            .map(|()| Decision::Pass)
                    }
                    Payload::SessionEnd { reason } => h
                        .session_end(store, &cx, reason)?
                        .map(|()| Decision::Pass),
                    Payload::Notification { message } => h
                        .notification(store, &cx, message)?
                        .map(|()| Decision::Pass),
                })
            })
            .map_err(port_error)?;
        answer.map_err(|e| PortError(format!("it returned an error: {e}")))
    }
}
