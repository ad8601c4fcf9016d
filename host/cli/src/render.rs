//! How `amber exec` shows a run: JSONL events on stdout with `--json`;
//! otherwise the reply's text on stdout and progress (tool calls, results,
//! warnings, the session id) on stderr, so `amber exec ... > out.txt`
//! keeps just the answer.
//!
//! A stream that breaks off mid-reply is asked again and the turn starts
//! over (`stream.retry`). On a terminal the partial text stays on screen,
//! with a note on stderr that the reply starts over; into a file or a pipe
//! the run's text is held until the run completes, so the file gets the
//! reply once and whole, never a broken start before it, and nothing when
//! the run fails (stderr says why). Text from the model, tools and hooks
//! shown on a terminal has its control characters escaped.

use std::io::{IsTerminal, Write};

use amber_core::engine::{AgentEvent, DeltaKind, FailureKind, Status};

/// `eprintln!` that does not panic when stderr fails: after SIGHUP the
/// terminal answers writes with EIO, and the run must still seal its turn.
/// What it says holds text from the model, tools and hooks: control
/// characters are escaped, so none of it can drive the terminal.
macro_rules! say {
    ($($arg:tt)*) => {{
        let line = amber_core::printable::printable_lines(&format!($($arg)*));
        let _ = writeln!(std::io::stderr(), "{line}");
    }};
}

pub struct Printer {
    json: bool,
    /// The last text written to stdout ended a line (or nothing was).
    at_line_start: bool,
    /// The run's text, held back when stdout is not a terminal: written
    /// whole when the run completes, or not at all when it fails.
    held: Option<String>,
    /// Where the current turn's text starts in `held`: a stream asked again
    /// drops only that.
    turn_from: usize,
}

const SHOWN_CHARS: usize = 160;

impl Printer {
    pub fn new(json: bool) -> Self {
        let held = (!json && !std::io::stdout().is_terminal()).then(String::new);
        Printer {
            json,
            at_line_start: true,
            held,
            turn_from: 0,
        }
    }

    /// Writes the held text of the run, if any.
    fn release(&mut self) {
        if let Some(text) = self.held.as_mut().map(std::mem::take) {
            self.text(&text);
        }
    }

    pub fn event(&mut self, event: &AgentEvent) {
        if self.json {
            let line = amber_protocol::to_line(event);
            let mut out = std::io::stdout().lock();
            let _ = writeln!(out, "{line}");
            let _ = out.flush();
            return;
        }
        self.human(event);
    }

    fn text(&mut self, text: &str) {
        // Into a file or a pipe the reply is data, kept as the model wrote
        // it; only a terminal could be driven by what it holds. Nothing is
        // held exactly when stdout is a terminal (`new`; `text` is never
        // called with `--json`; after a failed run drops what it held only
        // a line end follows), so no terminal check per delta.
        let shown;
        let text = if self.held.is_none() {
            shown = amber_core::printable::printable_lines(text);
            shown.as_str()
        } else {
            text
        };
        let mut out = std::io::stdout().lock();
        let _ = out.write_all(text.as_bytes());
        let _ = out.flush();
        if !text.is_empty() {
            self.at_line_start = text.ends_with('\n');
        }
    }

    /// Ends the reply's line before stderr speaks, so they do not mix.
    fn break_line(&mut self) {
        if !self.at_line_start {
            self.text("\n");
        }
    }

    /// A sub-agent's own event, on stderr and indented under its id: its
    /// tool calls and results, and what it warns of. Its text is its
    /// reply to the main agent, shown as the `task` call's result.
    fn sub_agent(&mut self, agent: &str, event: &AgentEvent) {
        match event {
            AgentEvent::ToolCall {
                name, arguments, ..
            } => {
                self.break_line();
                say!("  [{agent}] → {name} {}", clip(arguments));
            }
            AgentEvent::ToolResult { status, output, .. } => {
                let mark = match status {
                    Status::Ok => "✓",
                    Status::Error => "✗ error:",
                    Status::Denied => "✗ denied:",
                };
                say!("  [{agent}]   {mark} {}", clip(output));
            }
            AgentEvent::Warning { message } => {
                self.break_line();
                say!("  [{agent}] warning: {message}");
            }
            _ => {}
        }
    }

    fn human(&mut self, event: &AgentEvent) {
        match event {
            AgentEvent::SessionStarted {
                session_id,
                provider,
                model,
                mode,
                resumed,
                instruction_files,
                interrupted,
                warnings,
                ..
            } => {
                let verb = if *resumed { "resuming" } else { "session" };
                say!("amber: {verb} {session_id} · {provider} {model} · {mode} mode");
                if !instruction_files.is_empty() {
                    say!(
                        "amber: project instructions from {}",
                        instruction_files.join(", ")
                    );
                }
                if !interrupted.is_empty() {
                    say!(
                        "amber: {} recorded as interrupted",
                        amber_core::text::count(interrupted.len(), "unfinished tool call")
                    );
                }
                for w in warnings {
                    say!("amber: warning: {w}");
                }
            }
            AgentEvent::TurnStarted { .. } => {}
            AgentEvent::TurnCompleted { tool_calls, .. } => {
                if let Some(held) = &mut self.held {
                    // The tool calls' lines ended this text's line on a
                    // terminal; held, it ends here.
                    if *tool_calls > 0 && !held.is_empty() && !held.ends_with('\n') {
                        held.push('\n');
                    }
                    self.turn_from = held.len();
                }
            }
            AgentEvent::MessageDelta { kind, text, .. } => match (kind, &mut self.held) {
                (DeltaKind::Text, Some(held)) => held.push_str(text),
                (DeltaKind::Text, None) => self.text(text),
                (DeltaKind::Reasoning, _) => {}
            },
            AgentEvent::StreamRetry {
                attempt, reason, ..
            } => {
                let shown = match &mut self.held {
                    Some(held) => {
                        held.truncate(self.turn_from);
                        false
                    }
                    None => !self.at_line_start,
                };
                self.break_line();
                let starts_over = if shown {
                    "; the reply above is dropped and starts over"
                } else {
                    ""
                };
                say!("amber: {reason}; asking again (attempt {attempt}){starts_over}");
            }
            AgentEvent::ToolCall {
                name, arguments, ..
            } => {
                self.break_line();
                say!("→ {name} {}", clip(arguments));
            }
            AgentEvent::ToolResult {
                status,
                output,
                meta,
                ..
            } => {
                let mark = match status {
                    Status::Ok => "✓",
                    Status::Error => "✗ error:",
                    Status::Denied => "✗ denied:",
                };
                // An edit shows its diff in full; anything else, one line.
                match meta.as_ref().and_then(|m| m["diff"].as_str()) {
                    Some(diff) => {
                        say!("  {mark} {}", output.lines().next().unwrap_or(""));
                        for line in diff.lines() {
                            say!("    {line}");
                        }
                    }
                    None => say!("  {mark} {}", clip(output)),
                }
            }
            AgentEvent::Steer { message, .. } => {
                self.break_line();
                say!("amber: steering the model: {message}");
            }
            AgentEvent::SubAgentStarted {
                agent,
                profile,
                mode,
                session_id,
                ..
            } => {
                self.break_line();
                let named = profile
                    .as_ref()
                    .map_or_else(String::new, |p| format!(" as agent {p}"));
                let session = session_id
                    .as_ref()
                    .map_or_else(String::new, |s| format!(" · session {s}"));
                say!("amber: sub-agent {agent} started{named} ({mode} mode){session}");
            }
            AgentEvent::SubAgent { agent, event } => self.sub_agent(agent, event),
            AgentEvent::SubAgentFinished {
                agent,
                outcome,
                turns,
                ..
            } => {
                say!(
                    "amber: sub-agent {agent} {} after {}",
                    outcome.replace('_', " "),
                    amber_core::text::count(*turns as usize, "model call")
                );
            }
            AgentEvent::PlanProposed { plan } => {
                // The plan is the run's answer: stdout, like a reply.
                self.break_line();
                self.text(&format!("{plan}\n"));
            }
            AgentEvent::TodoUpdated { todos } => {
                self.break_line();
                say!("amber: todo list:");
                for todo in todos {
                    say!("  {} {}", todo.status.mark(), todo.content);
                }
            }
            AgentEvent::Warning { message } => {
                self.break_line();
                say!("amber: warning: {message}");
            }
            AgentEvent::ProtectedChanged { changes, .. } => {
                self.break_line();
                for change in changes {
                    say!("amber: workspace guard: {}", change.describe());
                }
            }
            AgentEvent::Hook(outcome) => {
                if let Some(line) = amber_app::hooks::describe(outcome) {
                    self.break_line();
                    say!("amber: {line}");
                }
            }
            AgentEvent::CompactionStarted { tokens, .. } => {
                self.break_line();
                say!("amber: compacting the context ({tokens} tokens)");
            }
            AgentEvent::CompactionCompleted { stats, .. } => {
                say!(
                    "amber: compacted {} → {} tokens ({} segments dropped, {} collapsed)",
                    stats.tokens_before,
                    stats.tokens_after,
                    stats.pruned,
                    stats.collapsed
                );
            }
            AgentEvent::CompactionFailed { reason } => {
                self.break_line();
                say!("amber: compaction failed, the context is unchanged: {reason}");
            }
            AgentEvent::SessionCompleted {
                session_id,
                turns,
                usage,
                cost_usd,
                session_cost_usd,
                ..
            } => {
                self.release();
                self.break_line();
                let cost = match (cost_usd, session_cost_usd) {
                    (Some(run), Some(all)) => format!(
                        ", {} (session {})",
                        amber_core::engine::dollars(*run),
                        amber_core::engine::dollars(*all)
                    ),
                    (Some(run), None) => format!(", {}", amber_core::engine::dollars(*run)),
                    _ => String::new(),
                };
                say!(
                    "amber: done in {}, {} tokens in, {} out{cost} · session {session_id}",
                    amber_core::text::count(*turns as usize, "model call"),
                    usage.input_tokens,
                    usage.output_tokens
                );
            }
            AgentEvent::SessionFailed {
                session_id,
                kind,
                error,
                ..
            } => {
                // On a terminal the text is on screen already. Into a file
                // or a pipe a reply cut short is not written as if it were
                // the answer: nothing is, and stderr says so.
                if let Some(held) = self.held.take().filter(|h| !h.trim().is_empty()) {
                    say!(
                        "amber: the reply so far ({}) is not written to stdout, since the run did not finish",
                        amber_core::text::count(held.chars().count(), "character")
                    );
                }
                self.break_line();
                let what = match kind {
                    FailureKind::Error => "error",
                    FailureKind::HardStop => "hard stop",
                    FailureKind::Interrupted => "interrupted",
                };
                // "interrupted; the session is saved", not "interrupted:
                // interrupted; ...".
                if error.starts_with(what) {
                    say!("amber: {error}");
                } else {
                    say!("amber: {what}: {error}");
                }
                if !session_id.is_empty() {
                    say!("amber: continue with: amber exec --resume {session_id} \"...\"");
                }
            }
        }
    }
}

/// One line, at most SHOWN_CHARS characters.
fn clip(text: &str) -> String {
    amber_core::text::one_line(text, SHOWN_CHARS)
}
