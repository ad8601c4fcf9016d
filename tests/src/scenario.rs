//! Runs a transcript as a scenario, the way a benchmark client does: its
//! `setup.files` in a fresh workspace, its `prompt` through `amber exec`
//! against the fake server playing its `turns`, then its `oracle`,
//! `checks` and `budget` judged on what the run did. Against a real model
//! the same judging applies; only the server changes.

use std::path::Path;
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::cli::amber_command;
use crate::exec_env::Run;
use crate::fake_llm::{FakeLlm, Transcript};

/// What a scenario run did, and every way it missed the scenario.
#[derive(Debug)]
pub struct Outcome {
    pub run: Run,
    pub wall: Duration,
    /// Empty when the run met the oracle, the checks and the budget.
    pub misses: Vec<String>,
}

/// Runs `transcript` with the amber binary `bin` in a scratch home and
/// workspace under `scratch`.
pub fn run(bin: &str, transcript: &Transcript, scratch: &Path) -> std::io::Result<Outcome> {
    let home = scratch.join("home");
    let ws = scratch.join("ws");
    std::fs::create_dir_all(&home)?;
    std::fs::create_dir_all(&ws)?;
    for (path, content) in &transcript.setup.files {
        // A scenario file may come from anywhere: it writes inside its
        // workspace only.
        let inside = Path::new(path)
            .components()
            .all(|c| matches!(c, std::path::Component::Normal(_)));
        if !inside {
            return Err(std::io::Error::other(format!(
                "setup.files: `{path}` leads out of the workspace"
            )));
        }
        let file = ws.join(path);
        if let Some(parent) = file.parent() {
            std::fs::create_dir_all(parent)?;
        }
        std::fs::write(file, content)?;
    }
    let server = FakeLlm::start(transcript.clone(), 0)?;
    let base = server.openai_base();
    let started = Instant::now();
    let out = amber_command(bin, &home, &ws)
        .args(["exec", "--json", "--yes", "--base-url", &base])
        .arg(&transcript.prompt)
        .env("OPENAI_API_KEY", "sk-scenario")
        .output()?;
    let wall = started.elapsed();
    let run = Run::from(out);
    let misses = judge(transcript, &run.events, wall);
    Ok(Outcome { run, wall, misses })
}

/// Every way the run's events miss the scenario's oracle, checks and
/// budget. The checks read the final reply.
pub fn judge(transcript: &Transcript, events: &[Value], wall: Duration) -> Vec<String> {
    let mut misses = Vec::new();
    let of_type = |kind: &'static str| events.iter().filter(move |e| e["type"] == kind);
    let Some(end) = of_type("session.completed").next() else {
        let why = of_type("session.failed")
            .next()
            .and_then(|e| e["error"].as_str())
            .unwrap_or("no session.completed or session.failed event");
        return vec![format!("the run did not finish: {why}")];
    };
    let calls: Vec<(&str, Value)> = of_type("tool.call")
        .map(|e| {
            let name = e["name"].as_str().unwrap_or_default();
            let args = e["arguments"]
                .as_str()
                .and_then(|a| serde_json::from_str(a).ok())
                .unwrap_or(Value::Null);
            (name, args)
        })
        .collect();
    for expected in &transcript.oracle {
        let made = calls
            .iter()
            .any(|(name, args)| *name == expected.tool && contains(args, &expected.args));
        if !made {
            misses.push(format!(
                "oracle: no `{}` call with arguments containing {}",
                expected.tool, expected.args
            ));
        }
    }
    let reply = end["reply"].as_str().unwrap_or_default();
    for needle in &transcript.checks.must_contain {
        if !reply.contains(needle.as_str()) {
            misses.push(format!("checks: the reply lacks {needle:?}"));
        }
    }
    for needle in &transcript.checks.must_not_contain {
        if reply.contains(needle.as_str()) {
            misses.push(format!("checks: the reply contains {needle:?}"));
        }
    }
    let turns = end["turns"].as_u64().unwrap_or(0);
    if let Some(max) = transcript.budget.max_steps {
        if turns > u64::from(max) {
            misses.push(format!("budget: {turns} model calls, more than {max}"));
        }
    }
    if let Some(max) = transcript.budget.max_wall_ms {
        let ms = wall.as_millis();
        if ms > u128::from(max) {
            misses.push(format!("budget: {ms} ms, more than {max}"));
        }
    }
    misses
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

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const SCENARIO: &str = r#"
prompt = "p"
[[turns]]
reply = { text = "x" }
[[oracle]]
tool = "read_file"
args = { path = "a.txt", opts = { raw = true } }
[checks]
must_contain = ["fixed"]
must_not_contain = ["error"]
[budget]
max_steps = 2
max_wall_ms = 1000
"#;

    fn events(reply: &str, turns: u32, args: Value) -> Vec<Value> {
        vec![
            json!({"type": "tool.call", "name": "read_file", "arguments": args.to_string()}),
            json!({"type": "session.completed", "reply": reply, "turns": turns}),
        ]
    }

    #[test]
    fn a_run_that_meets_the_scenario_has_no_misses() {
        let t = Transcript::parse(SCENARIO).unwrap();
        let args = json!({"path": "a.txt", "opts": {"raw": true, "more": 1}, "extra": 2});
        let misses = judge(
            &t,
            &events("it is fixed", 2, args),
            Duration::from_millis(10),
        );
        assert!(misses.is_empty(), "{misses:?}");
    }

    #[test]
    fn setup_files_may_not_lead_out_of_the_workspace() {
        let dir = tempfile::tempdir().unwrap();
        for path in ["../escape.txt", "/tmp/abs.txt", "a/../../b.txt"] {
            let mut t = Transcript::parse(SCENARIO).unwrap();
            t.setup.files.insert(path.into(), "x".into());
            let e = run("/no/such/amber", &t, dir.path()).unwrap_err();
            assert!(
                e.to_string().contains("leads out of the workspace"),
                "{path}: {e}"
            );
        }
        assert!(!dir.path().join("escape.txt").exists());
    }

    #[test]
    fn each_miss_is_named() {
        let t = Transcript::parse(SCENARIO).unwrap();
        let args = json!({"path": "a.txt", "opts": {"raw": false}});
        let misses = judge(&t, &events("an error", 3, args), Duration::from_secs(2));
        assert_eq!(
            misses,
            [
                r#"oracle: no `read_file` call with arguments containing {"opts":{"raw":true},"path":"a.txt"}"#,
                r#"checks: the reply lacks "fixed""#,
                r#"checks: the reply contains "error""#,
                "budget: 3 model calls, more than 2",
                "budget: 2000 ms, more than 1000",
            ]
        );
        let failed = [json!({"type": "session.failed", "error": "boom"})];
        assert_eq!(
            judge(&t, &failed, Duration::ZERO),
            ["the run did not finish: boom"]
        );
    }
}
