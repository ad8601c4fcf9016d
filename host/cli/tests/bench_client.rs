//! `amber bench run`, the bench client, through the real binary: the
//! shipped scenarios (fixtures/scenarios/) run through `amber exec
//! --json` against the fake LLM server and pass; a scenario of each kind
//! of miss is failed with its reason; the reports; the wire formats; and
//! a scenario for a real model run against the chosen provider.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "a test fails by panicking, its helpers too"
)]

use std::path::Path;
use std::process::Output;

use amber_tests::cli::amber_command;
use amber_tests::exec_env::{fake, text};
use amber_tests::repo_root;
use serde_json::Value;

const AMBER: &str = env!("CARGO_BIN_EXE_amber");

/// `amber bench run ARGS` in a scratch home.
fn bench(home: &Path, args: &[&str]) -> Output {
    amber_command(AMBER, home, home)
        .args(["bench", "run"])
        .args(args)
        .output()
        .unwrap()
}

fn fixtures(path: &str) -> String {
    repo_root().join(path).display().to_string()
}

fn json(out: &Output) -> Value {
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "not JSON ({e}): {}\n{}",
            text(&out.stdout),
            text(&out.stderr)
        )
    })
}

/// Each run's suite/name and status.
fn statuses(report: &Value) -> Vec<(String, String)> {
    report["runs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                format!(
                    "{}/{}",
                    r["suite"].as_str().unwrap(),
                    r["name"].as_str().unwrap()
                ),
                r["status"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

#[test]
fn the_shipped_scripted_scenarios_all_pass_and_the_kpis_add_up() {
    let home = tempfile::tempdir().unwrap();
    let out = bench(home.path(), &[&fixtures("fixtures/scenarios"), "--json"]);
    let report = json(&out);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let runs = statuses(&report);
    let failed: Vec<_> = runs
        .iter()
        .filter(|(_, status)| status != "passed" && status != "skipped")
        .collect();
    assert!(failed.is_empty(), "{failed:?}\n{report:#}");
    let passed = runs.iter().filter(|(_, s)| s == "passed").count();
    let skipped: Vec<_> = runs.iter().filter(|(_, s)| s == "skipped").collect();
    assert!(passed >= 12, "{runs:?}");
    // The live suite is for real models: skipped without --provider.
    assert_eq!(skipped.len(), 4, "{runs:?}");
    assert!(skipped.iter().all(|(name, _)| name.starts_with("live/")));

    // The failure suite's KPIs, counted by hand from its scripts and what
    // amber does with them: the read-mode write and the duplicate reads
    // (redundant-calls one, loop-hard-stop two) are denied; one edit
    // fails; the cut stream and the empty reply are each recovered once;
    // the tokens are the scripts' usage of the agent's turns (2480 in,
    // 52 out: the compression's own two calls are not in the run's
    // usage).
    let failures = report["suites"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["suite"] == "failures")
        .unwrap();
    let kpis: Vec<u64> = [
        "runs",
        "passed",
        "tool_calls",
        "denials",
        "errors",
        "recoveries",
        "tokens_in",
        "tokens_out",
    ]
    .iter()
    .map(|k| failures[k].as_u64().unwrap())
    .collect();
    // The compression of long-run-compression counts too: 620 in, 30 out.
    assert_eq!(kpis, [8, 8, 12, 4, 1, 2, 3100, 82], "{failures:#}");
    // Overall is the sum of the runs.
    let sum = |key: &str| -> u64 {
        report["runs"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r["observed"][key].as_u64().unwrap())
            .sum()
    };
    for key in [
        "steps",
        "tool_calls",
        "denials",
        "errors",
        "recoveries",
        "tokens_in",
    ] {
        assert_eq!(report["overall"][key].as_u64().unwrap(), sum(key), "{key}");
    }
    assert_eq!(report["overall"]["success_rate"], 1.0);
    // The compression run compressed; the fix left a passing test behind
    // (its command check ran after the run).
    let run = |name: &str| {
        report["runs"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["name"] == name)
            .unwrap()
            .clone()
    };
    assert_eq!(run("long-run-compression")["observed"]["compactions"], 1);
    assert_eq!(run("fix-off-by-one")["observed"]["tool_calls"], 3);
}

#[test]
fn a_failing_scenario_of_each_kind_is_told_its_reason_and_a_bad_file_does_not_stop_the_rest() {
    let home = tempfile::tempdir().unwrap();
    let out = bench(
        home.path(),
        &[&fixtures("fixtures/bench-failing"), "--json"],
    );
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    let report = json(&out);
    let reasons: Vec<(String, String, Vec<String>)> = report["runs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r["name"].as_str().unwrap().to_string(),
                r["status"].as_str().unwrap().to_string(),
                serde_json::from_value(r["reasons"].clone()).unwrap_or_default(),
            )
        })
        .collect();
    let expected = [
        ("wrong-answer", "failed", r#"answer: lacks "Three TODOs""#),
        (
            "over-steps",
            "over_budget",
            "budget: 3 model calls, more than 2",
        ),
        (
            "missing-line",
            "failed",
            r#"file notes/todo.md: lacks "TODO: celebrate""#,
        ),
        (
            "wrong-file-read",
            "failed",
            r#"oracle: no `read_file` call with arguments containing {"path":"notes/done.md"}"#,
        ),
    ];
    assert_eq!(reasons.len(), expected.len(), "{reasons:?}");
    for (name, status, reason) in expected {
        let got = reasons.iter().find(|r| r.0 == name).unwrap();
        assert_eq!(
            (got.1.as_str(), got.2.clone()),
            (status, vec![reason.to_string()])
        );
    }
    let invalid = &report["invalid"][0];
    assert!(invalid["path"].as_str().unwrap().ends_with("broken.toml"));
    assert_eq!(
        (invalid["line"].as_u64(), invalid["key"].as_str()),
        (Some(6), Some("max_steps"))
    );
    // The terminal was told of it as it happened.
    assert!(
        text(&out.stderr).contains("broken.toml:6: key `max_steps`: invalid type"),
        "{}",
        text(&out.stderr)
    );
}

#[test]
fn reports_in_markdown_go_to_a_file_and_text_to_the_terminal() {
    let home = tempfile::tempdir().unwrap();
    let md = home.path().join("report.md");
    let basics = fixtures("fixtures/scenarios/basics");
    let out = bench(
        home.path(),
        &[&basics, "--report", "md", "--out", md.to_str().unwrap()],
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(out.stdout.is_empty(), "{}", text(&out.stdout));
    let written = std::fs::read_to_string(&md).unwrap();
    assert!(written.starts_with("# amber bench\n"), "{written}");
    assert!(
        written.contains("| **overall** | 4 | 4 | 100% |"),
        "{written}"
    );
    assert!(
        written.contains("| `basics/fix-off-by-one` | passed | 5 | 3 |"),
        "{written}"
    );
    assert!(
        text(&out.stderr).contains("the report is in"),
        "{}",
        text(&out.stderr)
    );

    let out = bench(home.path(), &[&basics]);
    let shown = text(&out.stdout);
    assert!(
        shown.starts_with("amber bench: 4 runs: 4 passed, 0 failed, 0 over budget; success 100%"),
        "{shown}"
    );
    assert!(shown.contains("  overall "), "{shown}");

    let empty = home.path().join("empty");
    std::fs::create_dir_all(&empty).unwrap();
    let out = bench(home.path(), &[empty.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("no scenario"),
        "{}",
        text(&out.stderr)
    );
    let missing = home.path().join("missing.toml");
    let out = bench(home.path(), &[missing.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        text(&out.stdout).contains("missing.toml: cannot read it: no such file"),
        "{}",
        text(&out.stdout)
    );
}

#[test]
fn scripted_replies_are_served_in_the_wire_format_of_the_chosen_provider() {
    let home = tempfile::tempdir().unwrap();
    for provider in ["anthropic", "openai-responses"] {
        let out = bench(
            home.path(),
            &[
                &fixtures("fixtures/scenarios/basics"),
                "--provider",
                provider,
                "--json",
            ],
        );
        let report = json(&out);
        assert!(out.status.success(), "{provider}: {report:#}");
        assert_eq!(report["overall"]["passed"], 4, "{provider}");
        assert_eq!(report["provider"], provider);
    }
}

#[test]
fn a_scenario_for_a_real_model_runs_against_the_provider_with_its_key_and_repeats() {
    // The "real" provider is a server of the test's own, reached through
    // OPENAI_BASE_URL: what it sees is what a real endpoint would.
    let server = fake(
        r#"
[[turns]]
reply = { tool_calls = [{ id = "r1", name = "read_file", arguments = { path = "notes/todo.md" } }] }
[[turns]]
reply = { text = "3 TODO items are left." }
[[turns]]
reply = { text = "Three are left." }
"#,
    );
    let home = tempfile::tempdir().unwrap();
    // The user's config reaches the live runs (no confirm turn here).
    std::fs::write(
        home.path().join("config.toml"),
        "[agent]\nconfirm_turn = false\n",
    )
    .unwrap();
    let out = amber_command(AMBER, home.path(), home.path())
        .args([
            "bench",
            "run",
            "--provider",
            "openai",
            "--repeat",
            "2",
            "--json",
        ])
        .arg(fixtures("fixtures/scenarios/live/count-todos.toml"))
        .env("OPENAI_API_KEY", "sk-live-key")
        .env("OPENAI_BASE_URL", server.openai_base())
        .output()
        .unwrap();
    let report = json(&out);
    // Run 1 read the file and answered "3"; run 2 answered without the
    // digit and failed its answer check.
    assert_eq!(out.status.code(), Some(1), "{report:#}");
    assert_eq!(
        statuses(&report),
        [
            ("live/live-count-todos".to_string(), "passed".to_string()),
            ("live/live-count-todos".to_string(), "failed".to_string())
        ]
    );
    assert_eq!(report["scenarios"][0]["pass_rate"], 0.5);
    assert_eq!(
        report["overall"]["success_spread"],
        serde_json::json!([0.0, 1.0])
    );
    let received = server.received();
    assert_eq!(received.len(), 3);
    for request in &received {
        assert_eq!(request.authorization.as_deref(), Some("Bearer sk-live-key"));
        assert!(request.problems.is_empty(), "{:?}", request.problems);
    }
}
