//! Where the agent's events meet its hooks (docs/hooks.md): the session's
//! start, each prompt, each tool result, the run's end, a compaction and
//! the session's end. Each firing's outcomes become `hook` events and
//! session records. The pre-tool and permission-request points live in
//! dispatch and the policy.

use super::{Agent, AgentError, AgentEvent, CompactionTrigger, Envelope, EventSink, Status};
use crate::blocking;
use crate::hooks::{
    CompactTrigger, HookEvent, HookRunner, Payload, StartSource, MAX_STOP_CONTINUES,
};
use crate::policy::Mode;
use crate::ports::dialect::ToolCall;
use std::sync::Arc;

impl Agent {
    /// The hooks, when one of them handles `event`.
    fn hooks_for(&self, event: HookEvent) -> Option<Arc<HookRunner>> {
        self.hooks.clone().filter(|h| h.handles(event))
    }

    /// Asks the hooks off the async workers ([`blocking::run`]): a hook
    /// may wait on its process for seconds. `None` when the run was
    /// interrupted meanwhile (the run then ends as interrupted) or the
    /// firing failed inside the host (its outcome says so).
    async fn ask_hooks<T: Send + 'static>(
        &self,
        hooks: Arc<HookRunner>,
        ask: impl FnOnce(&HookRunner, &str, Mode) -> T + Send + 'static,
    ) -> Option<T> {
        let (agent, mode) = (self.agent_id.clone(), self.policy().mode());
        blocking::run(&self.cancel, move || ask(&hooks, &agent, mode))
            .await
            .ok()
    }

    /// Reports and records what the hooks did since the last call. A
    /// sub-agent leaves them to the main agent, which has the session.
    pub(super) fn hook_outcomes(&mut self, sink: &mut EventSink<'_>) -> Result<(), AgentError> {
        let Some(hooks) = &self.hooks else {
            return Ok(());
        };
        if self.sub_agent {
            return Ok(());
        }
        for outcome in hooks.take_outcomes() {
            if let Some(session) = &mut self.session {
                session.hook(&outcome)?;
            }
            sink(AgentEvent::Hook(outcome));
        }
        Ok(())
    }

    /// `session-start`, once, before the first prompt: the context the
    /// hooks add for the model.
    pub(super) async fn start_hooks(
        &mut self,
        resumed: bool,
        sink: &mut EventSink<'_>,
    ) -> Result<Vec<String>, AgentError> {
        if self.started || self.sub_agent {
            return Ok(Vec::new());
        }
        self.started = true;
        let source = if resumed {
            StartSource::Resume
        } else {
            StartSource::Startup
        };
        self.fire_for_context(Payload::SessionStart { source }, sink)
            .await
    }

    /// Fires an event whose hooks may only add context.
    async fn fire_for_context(
        &mut self,
        payload: Payload,
        sink: &mut EventSink<'_>,
    ) -> Result<Vec<String>, AgentError> {
        let Some(hooks) = self.hooks_for(payload.event()) else {
            return Ok(Vec::new());
        };
        let context = self
            .ask_hooks(hooks, move |h, agent, mode| {
                h.fire(agent, mode, &payload).context()
            })
            .await
            .flatten();
        self.hook_outcomes(sink)?;
        Ok(context.into_iter().collect())
    }

    /// `user-prompt-submit`: `Err` is the block, with the reason shown to
    /// the user; `Ok` the context to add.
    pub(super) async fn prompt_hooks(
        &mut self,
        prompt: &str,
        sink: &mut EventSink<'_>,
    ) -> Result<Result<Option<String>, String>, AgentError> {
        if self.sub_agent {
            return Ok(Ok(None));
        }
        let Some(hooks) = self.hooks_for(HookEvent::UserPromptSubmit) else {
            return Ok(Ok(None));
        };
        let prompt = prompt.to_string();
        let answer = self
            .ask_hooks(hooks, move |h, agent, mode| {
                h.user_prompt(agent, mode, &prompt)
            })
            .await
            .unwrap_or(Ok(None));
        self.hook_outcomes(sink)?;
        Ok(answer)
    }

    /// `post-tool`: what the hooks add after one result.
    pub(super) async fn post_tool_hooks(
        &self,
        call: &ToolCall,
        envelope: &Envelope,
    ) -> Option<String> {
        let hooks = self.hooks_for(HookEvent::PostTool)?;
        // The arguments it ran with: a pre-tool hook may have rewritten them.
        let args = self.dispatcher.ran_with(&call.id).unwrap_or_else(|| {
            serde_json::from_str(&call.arguments).unwrap_or(serde_json::Value::Null)
        });
        let payload = Payload::PostTool {
            tool: call.name.clone(),
            args,
            ok: envelope.status == Status::Ok,
            output: envelope.output.clone(),
        };
        self.ask_hooks(hooks, move |h, agent, mode| {
            h.post_tool(agent, mode, &payload)
        })
        .await
        .flatten()
    }

    /// `stop` as the run is about to end with `reply`: the reason to go
    /// on, when a hook asks and the run has not yet continued
    /// [`MAX_STOP_CONTINUES`] times in a row. A sub-agent fires
    /// `subagent-stop` instead, which only observes.
    pub(super) async fn stop_hooks(
        &mut self,
        reply: &str,
        sink: &mut EventSink<'_>,
    ) -> Result<Option<String>, AgentError> {
        if self.sub_agent {
            if let Some(hooks) = self.hooks_for(HookEvent::SubagentStop) {
                let payload = Payload::SubagentStop {
                    reply: reply.to_string(),
                    continued: 0,
                };
                self.ask_hooks(hooks, move |h, agent, mode| {
                    h.fire(agent, mode, &payload);
                })
                .await;
            }
            return Ok(None);
        }
        let Some(hooks) = self.hooks_for(HookEvent::Stop) else {
            return Ok(None);
        };
        let (reply, continued) = (reply.to_string(), self.stop_continues);
        let reason = self
            .ask_hooks(hooks, move |h, agent, mode| {
                h.stop(agent, mode, &reply, continued)
            })
            .await
            .flatten();
        self.hook_outcomes(sink)?;
        let Some(reason) = reason else {
            return Ok(None);
        };
        if self.stop_continues >= MAX_STOP_CONTINUES {
            sink(AgentEvent::Warning {
                message: format!(
                    "a stop hook asked to continue a {}th time in a row; the run ends here (at most {MAX_STOP_CONTINUES})",
                    self.stop_continues + 1
                ),
            });
            return Ok(None);
        }
        self.stop_continues += 1;
        Ok(Some(reason))
    }

    /// `pre-compact`: `Err` when a hook skips an automatic compaction;
    /// `Ok` the focus to compact with, the hooks' words added.
    pub(super) async fn pre_compact_hooks(
        &mut self,
        trigger: CompactionTrigger,
        focus: Option<&str>,
        sink: &mut EventSink<'_>,
    ) -> Result<Result<Option<String>, String>, AgentError> {
        let focus = focus.map(str::to_string);
        let Some(hooks) = self.hooks_for(HookEvent::PreCompact) else {
            return Ok(Ok(focus));
        };
        let payload = Payload::PreCompact {
            trigger: hook_trigger(trigger),
            focus: focus.clone().unwrap_or_default(),
        };
        let answer = self
            .ask_hooks(hooks, move |h, agent, mode| {
                h.pre_compact(agent, mode, &payload)
            })
            .await
            .unwrap_or_else(|| Ok(String::new()));
        self.hook_outcomes(sink)?;
        match answer {
            Ok(words) if words.is_empty() => Ok(Ok(focus)),
            Ok(words) => Ok(Ok(Some(match focus {
                Some(focus) if !focus.trim().is_empty() => format!("{focus} {words}"),
                _ => words,
            }))),
            Err(reason) if trigger == CompactionTrigger::Auto => Ok(Err(reason)),
            Err(reason) => {
                sink(AgentEvent::Warning {
                    message: format!(
                        "{reason}: asked to skip the compaction, but /compact is never skipped"
                    ),
                });
                Ok(Ok(focus))
            }
        }
    }

    /// `post-compact`, then `session-start` with source `compact`: the
    /// context they add.
    pub(super) async fn after_compact_hooks(
        &mut self,
        trigger: CompactionTrigger,
        tokens_before: u64,
        tokens_after: u64,
        sink: &mut EventSink<'_>,
    ) -> Result<Vec<String>, AgentError> {
        let mut context = self
            .fire_for_context(
                Payload::PostCompact {
                    trigger: hook_trigger(trigger),
                    tokens_before,
                    tokens_after,
                },
                sink,
            )
            .await?;
        if !self.sub_agent {
            context.extend(
                self.fire_for_context(
                    Payload::SessionStart {
                        source: StartSource::Compact,
                    },
                    sink,
                )
                .await?,
            );
        }
        Ok(context)
    }

    /// `session-end`: the session is over (`exit`, `clear`,
    /// `interrupted`). Front ends call it once, as they close a session.
    /// Its hooks run to their end even when the run was interrupted: an
    /// interrupted session is one they are told about.
    pub async fn end_session(
        &mut self,
        reason: &str,
        sink: &mut EventSink<'_>,
    ) -> Result<(), AgentError> {
        if self.sub_agent {
            return Ok(());
        }
        if let Some(hooks) = self.hooks_for(HookEvent::SessionEnd) {
            let payload = Payload::SessionEnd {
                reason: reason.to_string(),
            };
            let (agent, mode) = (self.agent_id.clone(), self.policy().mode());
            let _ = blocking::run_to_end(move || {
                hooks.fire(&agent, mode, &payload);
            })
            .await;
        }
        self.hook_outcomes(sink)?;
        self.seal()
    }
}

fn hook_trigger(trigger: CompactionTrigger) -> CompactTrigger {
    match trigger {
        CompactionTrigger::Auto => CompactTrigger::Automatic,
        CompactionTrigger::Manual => CompactTrigger::Manual,
    }
}
