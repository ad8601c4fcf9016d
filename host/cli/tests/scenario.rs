//! The transcript format used whole, as a benchmark client uses it:
//! `setup.files`, `prompt`, the scripted `turns`, then the `oracle`,
//! `checks` and `budget` judged on what `amber exec` really did.

use amber_tests::fake_llm::Transcript;
use amber_tests::{repo_root, scenario};
use serde_json::json;

const AMBER: &str = env!("CARGO_BIN_EXE_amber");

fn todo() -> Transcript {
    Transcript::load(&repo_root().join("fixtures/scenarios/todo.toml")).unwrap()
}

#[test]
fn a_scenario_runs_from_its_files_to_its_oracle_checks_and_budget() {
    let dir = tempfile::tempdir().unwrap();
    let outcome = scenario::run(AMBER, &todo(), dir.path()).unwrap();
    assert!(
        outcome.misses.is_empty(),
        "{:?}\n{}",
        outcome.misses,
        outcome.run.stderr
    );
    // The tool read the file the scenario set up.
    let results = outcome.run.results();
    assert_eq!(results.len(), 1, "{results:?}");
    assert_eq!(results[0].1, "ok");
    assert!(
        results[0].2.contains("TODO: tag the release"),
        "{results:?}"
    );
}

#[test]
fn a_run_that_misses_the_scenario_is_told_each_miss() {
    let mut scenario = todo();
    scenario.oracle[0].args = json!({"path": "notes/done.md"});
    scenario.checks.must_contain = vec!["Three TODOs".into()];
    scenario.budget.max_steps = Some(2);
    let dir = tempfile::tempdir().unwrap();
    let outcome = scenario::run(AMBER, &scenario, dir.path()).unwrap();
    assert_eq!(
        outcome.misses,
        [
            r#"oracle: no `read_file` call with arguments containing {"path":"notes/done.md"}"#,
            r#"checks: the reply lacks "Three TODOs""#,
            "budget: 3 model calls, more than 2",
        ]
    );
}
