//! Error recovery. Seed: "Error recovery", evaluated every iteration, with
//! two responses to each failure mode: steer first, hard stop if it
//! persists. Three identical tool-call sets in a row stop at once (loop
//! detected); the same reply text steers the second time and stops the
//! fifth; consecutive failed tool results steer at three and stop at six.
//! An empty reply is retried once.

use serde_json::Value;

use super::envelope::{Envelope, Status};
use crate::ports::dialect::ToolCall;

pub const LOOP_SETS: usize = 3;
pub const TEXT_STEER: u32 = 2;
pub const TEXT_STOP: u32 = 5;
pub const FAILURE_STEER: u32 = 3;
pub const FAILURE_STOP: u32 = 6;

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    Continue,
    /// Push this message to the history: the model sees it next turn.
    Steer(String),
    /// End the run with this reason.
    Stop(String),
}

#[derive(Debug, Default)]
pub struct Recovery {
    /// The canonical form of the last few tool-call sets.
    sets: Vec<String>,
    last_text: Option<String>,
    text_repeats: u32,
    failures: u32,
    empty_retried: bool,
}

/// A call set's canonical form: names and parsed arguments, in order
/// (unparsable arguments are compared as written).
fn canonical(calls: &[ToolCall]) -> String {
    let parts: Vec<Value> = calls
        .iter()
        .map(|c| {
            let args = serde_json::from_str::<Value>(&c.arguments)
                .unwrap_or_else(|_| Value::String(c.arguments.clone()));
            Value::Array(vec![Value::String(c.name.clone()), args])
        })
        .collect();
    Value::Array(parts).to_string()
}

impl Recovery {
    /// An empty reply (no text, no calls): `true` when it should be
    /// retried (the first time), `false` when it has already been.
    pub fn retry_empty(&mut self) -> bool {
        !std::mem::replace(&mut self.empty_retried, true)
    }

    /// Looks at a reply before its calls run.
    pub fn on_reply(&mut self, text: &str, calls: &[ToolCall]) -> Verdict {
        self.empty_retried = false;
        if !calls.is_empty() {
            self.sets.push(canonical(calls));
            if self.sets.len() > LOOP_SETS {
                self.sets.remove(0);
            }
            if self.sets.len() == LOOP_SETS && self.sets.iter().all(|s| s == &self.sets[0]) {
                return Verdict::Stop(format!(
                    "loop detected: the same tool calls {LOOP_SETS} times in a row"
                ));
            }
        } else {
            self.sets.clear();
        }
        let text = text.trim();
        if text.is_empty() {
            return Verdict::Continue;
        }
        if self.last_text.as_deref() == Some(text) {
            self.text_repeats += 1;
        } else {
            self.last_text = Some(text.to_string());
            self.text_repeats = 1;
        }
        match self.text_repeats {
            n if n >= TEXT_STOP => {
                Verdict::Stop(format!("the model gave the same reply {n} times in a row"))
            }
            TEXT_STEER => Verdict::Steer(
                "[amber] You gave the same reply as last turn. Do not repeat yourself: \
                 take a different step, or finish with a summary."
                    .into(),
            ),
            _ => Verdict::Continue,
        }
    }

    /// Looks at a turn's results, in call order.
    pub fn on_results(&mut self, results: &[Envelope]) -> Verdict {
        let before = self.failures;
        for result in results {
            if result.status == Status::Ok {
                self.failures = 0;
            } else {
                self.failures += 1;
            }
        }
        if self.failures >= FAILURE_STOP {
            return Verdict::Stop(format!(
                "tool calls kept failing: {} in a row",
                self.failures
            ));
        }
        if before < FAILURE_STEER && self.failures >= FAILURE_STEER {
            return Verdict::Steer(format!(
                "[amber] The last {} tool calls failed or were denied. Read the errors, \
                 check your assumptions (paths, arguments, permissions), and try a \
                 different approach instead of repeating the same calls.",
                self.failures
            ));
        }
        Verdict::Continue
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn call(args: &str) -> Vec<ToolCall> {
        vec![ToolCall {
            id: "x".into(),
            name: "read_note".into(),
            arguments: args.into(),
        }]
    }

    #[test]
    fn three_identical_call_sets_in_a_row_stop_and_a_different_one_resets() {
        let mut r = Recovery::default();
        assert_eq!(r.on_reply("", &call(r#"{"path":"a"}"#)), Verdict::Continue);
        assert_eq!(
            r.on_reply("", &call(r#"{ "path": "a" }"#)),
            Verdict::Continue
        );
        assert_eq!(r.on_reply("", &call(r#"{"path":"b"}"#)), Verdict::Continue);
        assert_eq!(r.on_reply("", &call(r#"{"path":"b"}"#)), Verdict::Continue);
        assert!(
            matches!(r.on_reply("", &call(r#"{"path":"b"}"#)), Verdict::Stop(s) if s.starts_with("loop detected"))
        );
    }

    #[test]
    fn the_same_text_steers_the_second_time_and_stops_the_fifth() {
        let mut r = Recovery::default();
        let verdicts: Vec<Verdict> = (0..5).map(|_| r.on_reply("same", &[])).collect();
        assert_eq!(verdicts[0], Verdict::Continue);
        assert!(matches!(&verdicts[1], Verdict::Steer(s) if s.contains("same reply")));
        assert_eq!(verdicts[2..4], [Verdict::Continue, Verdict::Continue]);
        assert!(matches!(&verdicts[4], Verdict::Stop(_)));
    }

    #[test]
    fn failures_steer_at_three_and_stop_at_six_and_a_success_resets() {
        let mut r = Recovery::default();
        let fail = || Envelope::error("no such file");
        assert_eq!(r.on_results(&[fail(), fail()]), Verdict::Continue);
        assert!(matches!(r.on_results(&[fail()]), Verdict::Steer(_)));
        assert_eq!(r.on_results(&[fail(), fail()]), Verdict::Continue);
        assert!(
            matches!(r.on_results(&[fail()]), Verdict::Stop(s) if s == "tool calls kept failing: 6 in a row")
        );
        let mut r = Recovery::default();
        r.on_results(&[fail(), fail()]);
        let ok = Envelope::ok(crate::ports::ToolOutput {
            content: String::new(),
            meta: None,
            images: Vec::new(),
        });
        assert_eq!(r.on_results(&[ok, fail(), fail()]), Verdict::Continue);
    }

    #[test]
    fn an_empty_reply_is_retried_once() {
        let mut r = Recovery::default();
        assert!(r.retry_empty());
        assert!(!r.retry_empty());
        r.on_reply("text", &[]);
        assert!(r.retry_empty());
    }
}
