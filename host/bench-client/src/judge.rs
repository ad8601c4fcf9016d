//! Scoring one run: what `amber exec --json` reported ([`Observed`]),
//! held against the scenario's end, oracle, checks and budget. A run is
//! passed, failed with each reason, or over budget (it did the job, past
//! a limit).

use std::time::Duration;

use amber_protocol::{AgentEvent, FailureKind, Status, Usage};
use regex::Regex;
use serde::Serialize;
use serde_json::Value;

use crate::fake_llm::script::{End, OracleCall};
use crate::fake_llm::Transcript;

/// How one run came out.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "status", rename_all = "snake_case")]
pub enum Verdict {
    Passed,
    Failed {
        reasons: Vec<String>,
    },
    OverBudget {
        reasons: Vec<String>,
    },
    /// Not run, e.g. a scenario for a real model without `--provider`.
    Skipped {
        reason: String,
    },
}

impl Verdict {
    pub fn passed(&self) -> bool {
        matches!(self, Verdict::Passed)
    }

    /// Counted in the success rate: everything that ran.
    pub fn ran(&self) -> bool {
        !matches!(self, Verdict::Skipped { .. })
    }

    pub fn label(&self) -> &'static str {
        match self {
            Verdict::Passed => "passed",
            Verdict::Failed { .. } => "failed",
            Verdict::OverBudget { .. } => "over budget",
            Verdict::Skipped { .. } => "skipped",
        }
    }

    pub fn reasons(&self) -> Vec<String> {
        match self {
            Verdict::Passed => Vec::new(),
            Verdict::Failed { reasons } | Verdict::OverBudget { reasons } => reasons.clone(),
            Verdict::Skipped { reason } => vec![reason.clone()],
        }
    }
}

/// How the run ended, from its last event.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Ending {
    Completed,
    HardStop,
    Error,
    Interrupted,
    /// No end event: the process died or was killed.
    None,
}

/// What one run did, from its events.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Observed {
    /// Model calls (`turns` of the end event).
    pub steps: u64,
    pub tool_calls: u64,
    /// Tool results with status `denied`.
    pub denials: u64,
    /// Tool results with status `error`, and a run that failed with one.
    pub errors: u64,
    /// Streams retried, steering messages of error recovery, and empty
    /// replies asked again.
    pub recoveries: u64,
    pub compactions: u64,
    pub tokens_in: u64,
    pub tokens_out: u64,
    pub wall_ms: u64,
    #[serde(skip)]
    pub ending: Option<Ending>,
    /// The end event's error, for a run that failed.
    #[serde(skip)]
    pub failure: Option<String>,
    #[serde(skip)]
    pub reply: String,
    /// Each tool call: its name and its arguments (null when they are not
    /// JSON).
    #[serde(skip)]
    pub calls: Vec<(String, Value)>,
    /// Every event's type, in order.
    #[serde(skip)]
    pub kinds: Vec<String>,
}

impl Observed {
    pub fn from_events(events: &[AgentEvent], wall: Duration) -> Observed {
        let mut seen = Observed {
            wall_ms: wall.as_millis() as u64,
            ending: Some(Ending::None),
            ..Observed::default()
        };
        for event in events {
            seen.kinds.push(event.kind().to_string());
            match event {
                AgentEvent::ToolCall {
                    name, arguments, ..
                } => {
                    seen.tool_calls += 1;
                    let args = serde_json::from_str(arguments).unwrap_or(Value::Null);
                    seen.calls.push((name.clone(), args));
                }
                AgentEvent::ToolResult { status, .. } => match status {
                    Status::Denied => seen.denials += 1,
                    Status::Error => seen.errors += 1,
                    Status::Ok => {}
                },
                AgentEvent::StreamRetry { .. } | AgentEvent::Steer { .. } => seen.recoveries += 1,
                // The engine's one retry of an empty reply.
                AgentEvent::Warning { message }
                    if message.contains("empty reply; asking again") =>
                {
                    seen.recoveries += 1
                }
                AgentEvent::CompactionCompleted { .. } => seen.compactions += 1,
                AgentEvent::SessionCompleted {
                    reply,
                    turns,
                    usage,
                    ..
                } => {
                    seen.ending = Some(Ending::Completed);
                    seen.reply = reply.clone();
                    seen.take_totals(*turns, usage);
                }
                AgentEvent::SessionFailed {
                    kind,
                    error,
                    turns,
                    usage,
                    ..
                } => {
                    seen.ending = Some(match kind {
                        FailureKind::HardStop => Ending::HardStop,
                        FailureKind::Interrupted => Ending::Interrupted,
                        FailureKind::Error => Ending::Error,
                    });
                    if *kind == FailureKind::Error {
                        seen.errors += 1;
                    }
                    seen.failure = Some(error.clone());
                    seen.take_totals(*turns, usage);
                }
                _ => {}
            }
        }
        seen
    }

    fn take_totals(&mut self, turns: u32, usage: &Usage) {
        self.steps = u64::from(turns);
        self.tokens_in = usage.input_tokens;
        self.tokens_out = usage.output_tokens;
    }
}

/// The verdict on `seen`; `workspace` holds the misses of the file and
/// command checks, already run.
pub fn judge(transcript: &Transcript, seen: &Observed, workspace: Vec<String>) -> Verdict {
    let mut failed = Vec::new();
    let wanted = match transcript.run.end {
        End::Completed => Ending::Completed,
        End::HardStop => Ending::HardStop,
        End::Error => Ending::Error,
    };
    let ending = seen.ending.unwrap_or(Ending::None);
    if ending != wanted {
        let how = match ending {
            Ending::Completed => "it completed".to_string(),
            Ending::None => "it ended without an end event".to_string(),
            other => format!(
                "it ended with {}: {}",
                serde_json::to_value(other)
                    .ok()
                    .and_then(|v| v.as_str().map(String::from))
                    .unwrap_or_default(),
                seen.failure.as_deref().unwrap_or("no reason given")
            ),
        };
        failed.push(format!("end: expected {}, but {how}", end_name(wanted)));
    }
    failed.extend(oracle_misses(transcript, &seen.calls));
    for needle in &transcript.checks.must_contain {
        if !seen.reply.contains(needle.as_str()) {
            failed.push(format!("answer: lacks {needle:?}"));
        }
    }
    for needle in &transcript.checks.must_not_contain {
        if seen.reply.contains(needle.as_str()) {
            failed.push(format!("answer: contains {needle:?}"));
        }
    }
    for kind in &transcript.checks.events {
        if !seen.kinds.contains(kind) {
            failed.push(format!("events: no `{kind}` event"));
        }
    }
    failed.extend(workspace);
    if !failed.is_empty() {
        return Verdict::Failed { reasons: failed };
    }
    let over = budget_misses(transcript, seen);
    if over.is_empty() {
        Verdict::Passed
    } else {
        Verdict::OverBudget { reasons: over }
    }
}

fn end_name(end: Ending) -> &'static str {
    match end {
        Ending::Completed => "completed",
        Ending::HardStop => "a hard stop",
        Ending::Error => "an error",
        Ending::Interrupted => "an interruption",
        Ending::None => "no end",
    }
}

/// Each oracle call not made; in order when the oracle says so.
fn oracle_misses(transcript: &Transcript, calls: &[(String, Value)]) -> Vec<String> {
    let mut misses = Vec::new();
    let mut from = 0;
    for expected in &transcript.oracle {
        let patterns = match compile(expected) {
            Ok(patterns) => patterns,
            Err(e) => {
                misses.push(format!("oracle: `{}`: {e}", expected.tool));
                continue;
            }
        };
        let start = if transcript.oracle_ordered { from } else { 0 };
        let found = calls[start.min(calls.len())..]
            .iter()
            .position(|(name, args)| {
                *name == expected.tool
                    && contains(args, &expected.args)
                    && patterns.iter().all(|(key, re)| matches(args, key, re))
            })
            .map(|at| start + at);
        match found {
            Some(at) => from = at + 1,
            None => {
                let order = if transcript.oracle_ordered && from > 0 {
                    " after the calls before it"
                } else {
                    ""
                };
                misses.push(format!(
                    "oracle: no `{}` call{}{order}",
                    expected.tool,
                    describe(expected)
                ));
            }
        }
    }
    misses
}

fn compile(expected: &OracleCall) -> Result<Vec<(String, Regex)>, String> {
    expected
        .matches
        .iter()
        .map(|(key, pattern)| {
            Regex::new(pattern)
                .map(|re| (key.clone(), re))
                .map_err(|e| format!("the pattern for `{key}` is not a regular expression: {e}"))
        })
        .collect()
}

fn describe(expected: &OracleCall) -> String {
    let mut parts = Vec::new();
    if !expected.args.is_null() {
        parts.push(format!("arguments containing {}", expected.args));
    }
    for (key, pattern) in &expected.matches {
        parts.push(format!("`{key}` matching /{pattern}/"));
    }
    if parts.is_empty() {
        String::new()
    } else {
        format!(" with {}", parts.join(" and "))
    }
}

fn matches(args: &Value, key: &str, re: &Regex) -> bool {
    match args.get(key) {
        Some(Value::String(text)) => re.is_match(text),
        Some(other) => re.is_match(&other.to_string()),
        None => false,
    }
}

/// True when `subset` is `value` or, for objects, every key of `subset`
/// holds a value `contains` accepts; `null` (no `args` given) accepts all.
fn contains(value: &Value, subset: &Value) -> bool {
    match (value, subset) {
        (_, Value::Null) => true,
        (Value::Object(have), Value::Object(want)) => want
            .iter()
            .all(|(k, w)| have.get(k).is_some_and(|h| contains(h, w))),
        (have, want) => have == want,
    }
}

fn budget_misses(transcript: &Transcript, seen: &Observed) -> Vec<String> {
    let budget = &transcript.budget;
    let mut over = Vec::new();
    if let Some(max) = budget.max_steps {
        if seen.steps > u64::from(max) {
            over.push(format!(
                "budget: {} model calls, more than {max}",
                seen.steps
            ));
        }
    }
    if let Some(max) = budget.max_tool_calls {
        if seen.tool_calls > u64::from(max) {
            over.push(format!(
                "budget: {} tool calls, more than {max}",
                seen.tool_calls
            ));
        }
    }
    if let Some(max) = budget.max_tokens {
        let tokens = seen.tokens_in + seen.tokens_out;
        if tokens > max {
            over.push(format!("budget: {tokens} tokens, more than {max}"));
        }
    }
    if let Some(max) = budget.max_wall_ms {
        if seen.wall_ms > max {
            over.push(format!("budget: {} ms, more than {max}", seen.wall_ms));
        }
    }
    over
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const SCENARIO: &str = r#"
prompt = "p"
[[oracle]]
tool = "read_file"
args = { path = "a.txt", opts = { raw = true } }
[[oracle]]
tool = "edit_file"
matches = { new_string = "len\\(\\) - 1" }
[checks]
must_contain = ["fixed"]
must_not_contain = ["error"]
[budget]
max_steps = 2
max_wall_ms = 1000
max_tokens = 100
max_tool_calls = 2
"#;

    fn call(name: &str, arguments: String) -> AgentEvent {
        AgentEvent::ToolCall {
            turn: 1,
            id: format!("call_{name}"),
            name: name.into(),
            arguments,
        }
    }

    fn result(name: &str, status: Status) -> AgentEvent {
        AgentEvent::ToolResult {
            turn: 1,
            id: format!("call_{name}"),
            name: name.into(),
            status,
            output: String::new(),
            meta: None,
        }
    }

    fn failed(kind: FailureKind, error: &str, turns: u32) -> AgentEvent {
        AgentEvent::SessionFailed {
            session_id: "s".into(),
            kind,
            error: error.into(),
            model_error: None,
            turns,
            usage: Usage::default(),
        }
    }

    fn events(reply: &str, turns: u32, read: Value, edit: &str) -> Vec<AgentEvent> {
        vec![
            call("read_file", read.to_string()),
            result("read_file", Status::Ok),
            call("edit_file", json!({"new_string": edit}).to_string()),
            result("edit_file", Status::Error),
            AgentEvent::StreamRetry {
                turn: 1,
                attempt: 2,
                reason: "broke off".into(),
            },
            AgentEvent::SessionCompleted {
                session_id: "s".into(),
                reply: reply.into(),
                turns,
                usage: Usage {
                    input_tokens: 40,
                    output_tokens: 20,
                    ..Usage::default()
                },
                denied: None,
                cost_usd: None,
                session_cost_usd: None,
            },
        ]
    }

    fn good_read() -> Value {
        json!({"path": "a.txt", "opts": {"raw": true, "more": 1}, "extra": 2})
    }

    #[test]
    fn a_run_that_meets_the_scenario_passes_and_is_counted() {
        let t = Transcript::parse(SCENARIO).unwrap();
        let seen = Observed::from_events(
            &events("it is fixed", 2, good_read(), "x.len() - 1"),
            Duration::from_millis(10),
        );
        assert_eq!(judge(&t, &seen, Vec::new()), Verdict::Passed);
        assert_eq!(
            (seen.steps, seen.tool_calls, seen.errors, seen.recoveries),
            (2, 2, 1, 1)
        );
        assert_eq!(
            (seen.tokens_in, seen.tokens_out, seen.wall_ms),
            (40, 20, 10)
        );
    }

    #[test]
    fn each_failure_is_named() {
        let t = Transcript::parse(SCENARIO).unwrap();
        let read = json!({"path": "a.txt", "opts": {"raw": false}});
        let seen = Observed::from_events(
            &events("an error", 3, read, "x.len()"),
            Duration::from_secs(2),
        );
        let verdict = judge(&t, &seen, vec!["file a.txt: lacks \"x\"".into()]);
        assert_eq!(
            verdict.reasons(),
            [
                r#"oracle: no `read_file` call with arguments containing {"opts":{"raw":true},"path":"a.txt"}"#,
                r#"oracle: no `edit_file` call with `new_string` matching /len\(\) - 1/"#,
                r#"answer: lacks "fixed""#,
                r#"answer: contains "error""#,
                r#"file a.txt: lacks "x""#,
            ]
        );
        assert_eq!(verdict.label(), "failed");
        let died = [failed(FailureKind::Error, "boom", 1)];
        let seen = Observed::from_events(&died, Duration::ZERO);
        assert_eq!(
            judge(
                &Transcript::parse("prompt = \"p\"").unwrap(),
                &seen,
                Vec::new()
            )
            .reasons(),
            ["end: expected completed, but it ended with error: boom"]
        );
    }

    #[test]
    fn a_run_past_its_budget_with_the_job_done_is_over_budget() {
        let t = Transcript::parse(SCENARIO).unwrap();
        let mut list = events("it is fixed", 3, good_read(), "x.len() - 1");
        list.insert(0, call("grep", "{}".into()));
        let seen = Observed::from_events(&list, Duration::from_secs(2));
        let verdict = judge(&t, &seen, Vec::new());
        assert_eq!(verdict.label(), "over budget");
        assert_eq!(
            verdict.reasons(),
            [
                "budget: 3 model calls, more than 2",
                "budget: 3 tool calls, more than 2",
                "budget: 2000 ms, more than 1000",
            ]
        );
    }

    #[test]
    fn an_ordered_oracle_wants_its_calls_in_order_and_a_hard_stop_can_be_the_plan() {
        let mut t = Transcript::parse(
            "prompt = \"p\"\noracle_ordered = true\nrun = { end = \"hard_stop\" }\n\
             [[oracle]]\ntool = \"edit_file\"\n[[oracle]]\ntool = \"read_file\"\n",
        )
        .unwrap();
        let list = [
            call("read_file", "{}".into()),
            call("edit_file", "{}".into()),
            failed(FailureKind::HardStop, "max", 3),
        ];
        let seen = Observed::from_events(&list, Duration::ZERO);
        assert_eq!(
            judge(&t, &seen, Vec::new()).reasons(),
            ["oracle: no `read_file` call after the calls before it"]
        );
        t.oracle_ordered = false;
        assert_eq!(judge(&t, &seen, Vec::new()), Verdict::Passed);
        t.checks.events = vec!["session.failed".into(), "compaction.completed".into()];
        assert_eq!(
            judge(&t, &seen, Vec::new()).reasons(),
            ["events: no `compaction.completed` event"]
        );
    }
}
