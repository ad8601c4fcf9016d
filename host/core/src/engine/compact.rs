//! Compaction in the agent loop. Seeds: "Agent loop" (the gate before
//! assembly: "compression pipeline, context rebuilt: clear + push"),
//! "Compression pipeline" (the rebuild is the only live-context change,
//! and only on success; a failure leaves it untouched) and "Memory
//! extraction" (`apply_compression_result` hands the ops to the learner).

use super::compaction_state::{CompactionOutcome, MAX_COMPACTION_FAILURES};
use super::{Agent, AgentError, AgentEvent, CompactionTrigger, EventSink};
use crate::ports::dialect::{Message, Role};
use crate::ports::{CompressionError, CompressionResult, ContextUsage, LearnOps, LearnReport};

impl Agent {
    /// The gate before assembly: over the threshold, the compression
    /// pipeline rebuilds the context (clear + push); without one, a warning.
    /// It rests on the turn right after a compression, and is off for the
    /// rest of the run after `MAX_COMPACTION_FAILURES` failures in a row.
    pub(super) async fn compression_gate(
        &mut self,
        sink: &mut EventSink<'_>,
    ) -> Result<(), AgentError> {
        if std::mem::take(&mut self.compaction.rested)
            || self.compaction.failures >= MAX_COMPACTION_FAILURES
        {
            return Ok(());
        }
        let usage = self.context_usage();
        if !self.gate.should_compress(usage) {
            return Ok(());
        }
        if self.compressor.is_none() {
            if !self.warned_no_compressor {
                self.warned_no_compressor = true;
                sink(AgentEvent::Warning {
                    message: format!(
                        "the context is at {:.0}% of the model's {}-token window and compression is off; going on uncompressed",
                        usage.utilisation() * 100.0,
                        usage.window
                    ),
                });
            }
            return Ok(());
        }
        if let CompactionOutcome::Failed(_) = self
            .compact(CompactionTrigger::Auto, None, usage, sink)
            .await?
        {
            self.compaction.failures += 1;
            if self.compaction.failures >= MAX_COMPACTION_FAILURES {
                sink(AgentEvent::Warning {
                    message: format!(
                        "compression failed {MAX_COMPACTION_FAILURES} times in a row; it is off for the rest of this run (/compact still works)"
                    ),
                });
            }
        }
        Ok(())
    }

    /// Compresses the context now, whatever the gate says: `/compact
    /// [focus words]`. Between runs only: the agent is the context's one
    /// writer.
    pub async fn compact_now(
        &mut self,
        focus: Option<&str>,
        sink: &mut EventSink<'_>,
    ) -> Result<CompactionOutcome, AgentError> {
        self.cancel = self.interrupt.current();
        self.compact(CompactionTrigger::Manual, focus, self.context_usage(), sink)
            .await
    }

    /// One compression cycle of a context at `usage` (counted once, by the
    /// caller): `compaction.started`, then the pipeline on a snapshot; on
    /// success only, the context rebuilt with `clear` then `push` (each
    /// recorded, so the session's chain verifies on resume), what was
    /// learned handed to the learner, and `compaction.completed`; on any
    /// failure the context untouched and one `compaction.failed`.
    async fn compact(
        &mut self,
        trigger: CompactionTrigger,
        focus: Option<&str>,
        usage: ContextUsage,
        sink: &mut EventSink<'_>,
    ) -> Result<CompactionOutcome, AgentError> {
        let Some(compressor) = self.compressor.clone() else {
            return Ok(CompactionOutcome::Unavailable);
        };
        let focus = match self.pre_compact_hooks(trigger, focus, sink).await? {
            Ok(focus) => focus,
            Err(reason) => {
                sink(AgentEvent::Warning {
                    message: format!("the automatic compaction was skipped by {reason}"),
                });
                // Not asked again on the very next turn.
                self.compaction.rested = true;
                return Ok(CompactionOutcome::Skipped(reason));
            }
        };
        let focus = focus.as_deref();
        sink(AgentEvent::CompactionStarted {
            trigger,
            tokens: usage.tokens,
            window: usage.window,
            focus: focus.map(str::to_string),
        });
        let snapshot = self.chain.snapshot();
        let compressed = tokio::select! {
            biased;
            _ = self.cancel.cancelled() => Err("interrupted".to_string()),
            result = compressor.compress(&snapshot, focus) => {
                result.and_then(|r| checked(&snapshot.messages, r)).map_err(|e| e.to_string())
            }
        };
        // Its calls count in the session's totals and the run's, the cycle
        // failed or not.
        let spent = compressor.take_spent();
        let cost = self.call_cost(&spent);
        self.spent_elsewhere(&spent, cost);
        let result = match compressed {
            Ok(result) => result,
            Err(reason) => {
                sink(AgentEvent::CompactionFailed {
                    reason: reason.clone(),
                });
                // What it spent is on disk with the session's totals: a
                // head over the unchanged context.
                if spent != Default::default() {
                    self.unsealed = true;
                    self.seal()?;
                }
                return Ok(CompactionOutcome::Failed(reason));
            }
        };
        // The rebuild: the only change of the live context, and only here.
        // What the session had read goes in right after the system prompt
        // (read coverage's digest), so the model does not read it again.
        let digest = self.reads.as_ref().and_then(|r| r.compacted());
        if digest.is_some() {
            // A resumed session's pending digest is this one now.
            self.note = None;
        }
        // The todo list outlives the rebuild: the digest carries it.
        let todos = self.todos.as_ref().and_then(|t| t.describe());
        let digest = match (digest, todos) {
            (Some(read), Some(todos)) => Some(format!("{read}\n\n{todos}")),
            (read, todos) => read.or(todos),
        };
        self.clear()?;
        let mut digest = digest.map(|text| Message::text(Role::User, text));
        for message in result.messages {
            if message.role != Role::System {
                if let Some(digest) = digest.take() {
                    self.push(digest)?;
                }
            }
            self.push(message)?;
        }
        if let Some(digest) = digest {
            self.push(digest)?;
        }
        self.seal()?;
        self.counted = None;
        self.compaction.failures = 0;
        self.compaction.rested = true;
        let learned = self
            .learn(
                LearnOps {
                    memory_ops: result.memory_ops,
                    skill_ops: result.skill_ops,
                    session_id: self.session_id(),
                    model: self.config.model.clone(),
                },
                sink,
            )
            .await;
        let stats = result.stats;
        sink(AgentEvent::CompactionCompleted {
            stats,
            memories: learned.memories_written,
            skills: learned.skills_written,
        });
        let context = self
            .after_compact_hooks(trigger, stats.tokens_before, stats.tokens_after, sink)
            .await?;
        if !context.is_empty() {
            let text = context.join("\n");
            match trigger {
                // Between runs: it goes with the next prompt.
                CompactionTrigger::Manual => {
                    self.note = Some(match self.note.take() {
                        Some(note) => format!("{note}\n{text}"),
                        None => text,
                    })
                }
                // Mid-run: the model reads it at the next call.
                CompactionTrigger::Auto => {
                    self.push(Message::text(Role::User, text))?;
                    self.seal()?;
                }
            }
        }
        Ok(CompactionOutcome::Completed { stats, learned })
    }

    /// Seed: `apply_compression_result`: the learner stores what the cycle
    /// extracted, on a blocking thread (it writes to storage). A learner
    /// that fails costs the memories, not the compression.
    async fn learn(&mut self, ops: LearnOps, sink: &mut EventSink<'_>) -> LearnReport {
        if ops.is_empty() {
            return LearnReport::default();
        }
        let Some(learner) = self.learner.clone() else {
            let message = "compression extracted memories or skills, but no learner is installed to keep them".to_string();
            if self.warned.insert(message.clone()) {
                sink(AgentEvent::Warning { message });
            }
            return LearnReport::default();
        };
        let applied = crate::blocking::run(&self.cancel, move || learner.apply(&ops)).await;
        let reason = match applied {
            Ok(Ok(report)) => return report,
            Ok(Err(e)) => e.to_string(),
            Err(e) => format!("the learner: {e}"),
        };
        sink(AgentEvent::Warning {
            message: format!(
                "the context was compacted, but what it taught was not kept: {reason}"
            ),
        });
        LearnReport::default()
    }

    /// The session's id (its file's name), when it is recorded.
    pub(super) fn session_id(&self) -> Option<String> {
        self.session
            .as_ref()
            .and_then(|s| s.path().file_stem())
            .map(|stem| stem.to_string_lossy().into_owned())
    }
}

/// A compressed set the agent may install: not empty, and with every tool
/// call still followed by its result when the snapshot's were.
fn checked(
    before: &[Message],
    result: CompressionResult,
) -> Result<CompressionResult, CompressionError> {
    use crate::compress::segment::unpaired_call;
    if result.messages.is_empty() && !before.is_empty() {
        return Err(CompressionError::Invalid("it is empty".into()));
    }
    if let (None, Some(id)) = (unpaired_call(before), unpaired_call(&result.messages)) {
        return Err(CompressionError::Invalid(format!(
            "tool call {id} was separated from its result"
        )));
    }
    Ok(result)
}

#[cfg(test)]
#[path = "compact_tests.rs"]
mod tests;
