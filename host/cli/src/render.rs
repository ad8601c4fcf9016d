//! How `amber exec` shows a run: JSONL events on stdout with `--json`;
//! otherwise the reply's text on stdout and progress (tool calls, results,
//! warnings, the session id) on stderr, so `amber exec ... > out.txt`
//! keeps just the answer.

use std::io::Write;

use amber_core::engine::{AgentEvent, DeltaKind, FailureKind, Status};

/// `eprintln!` that does not panic when stderr fails: after SIGHUP the
/// terminal answers writes with EIO, and the run must still seal its turn.
macro_rules! say {
    ($($arg:tt)*) => {{
        let _ = writeln!(std::io::stderr(), $($arg)*);
    }};
}

pub struct Printer {
    json: bool,
    /// The last text written to stdout ended a line (or nothing was).
    at_line_start: bool,
}

const SHOWN_CHARS: usize = 160;

impl Printer {
    pub fn new(json: bool) -> Self {
        Printer {
            json,
            at_line_start: true,
        }
    }

    pub fn event(&mut self, event: &AgentEvent) {
        if self.json {
            // A struct of strings and numbers always serialises.
            let line = serde_json::to_string(event).unwrap_or_default();
            let mut out = std::io::stdout().lock();
            let _ = writeln!(out, "{line}");
            let _ = out.flush();
            return;
        }
        self.human(event);
    }

    fn text(&mut self, text: &str) {
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

    fn human(&mut self, event: &AgentEvent) {
        match event {
            AgentEvent::SessionStarted {
                session_id,
                provider,
                model,
                mode,
                resumed,
                instructions,
                interrupted,
                warnings,
                ..
            } => {
                let verb = if *resumed { "resuming" } else { "session" };
                say!("amber: {verb} {session_id} · {provider} {model} · {mode} mode");
                if let Some(file) = instructions {
                    say!("amber: project instructions from {file}");
                }
                if !interrupted.is_empty() {
                    say!(
                        "amber: {} unfinished tool call(s) recorded as interrupted",
                        interrupted.len()
                    );
                }
                for w in warnings {
                    say!("amber: warning: {w}");
                }
            }
            AgentEvent::TurnStarted { .. } | AgentEvent::TurnCompleted { .. } => {}
            AgentEvent::MessageDelta { kind, text, .. } => match kind {
                DeltaKind::Text => self.text(text),
                DeltaKind::Reasoning => {}
            },
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
            AgentEvent::Warning { message } => {
                self.break_line();
                say!("amber: warning: {message}");
            }
            AgentEvent::SessionCompleted {
                session_id,
                turns,
                usage,
                ..
            } => {
                self.break_line();
                say!(
                    "amber: done in {turns} model call(s), {} tokens in, {} out · session {session_id}",
                    usage.input_tokens, usage.output_tokens
                );
            }
            AgentEvent::SessionFailed {
                session_id,
                kind,
                error,
                ..
            } => {
                self.break_line();
                let what = match kind {
                    FailureKind::Error => "error",
                    FailureKind::HardStop => "hard stop",
                    FailureKind::Interrupted => "interrupted",
                };
                say!("amber: {what}: {error}");
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
