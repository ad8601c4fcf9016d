//! The KPIs of a bench run, per suite and overall: how many runs passed,
//! and what they cost (steps, tool calls, denials, errors, recoveries,
//! tokens, wall time at p50 and p95). With `--repeat`, the success rate
//! of each round and their spread.

use std::collections::BTreeMap;

use serde::Serialize;

use crate::run::ScenarioRun;

#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Kpis {
    /// Runs made (skipped ones not counted).
    pub runs: u64,
    pub passed: u64,
    pub failed: u64,
    pub over_budget: u64,
    pub skipped: u64,
    /// passed / runs; 0 when nothing ran.
    pub success_rate: f64,
    /// The lowest and highest success rate of one round of `--repeat`.
    pub success_spread: Option<(f64, f64)>,
    pub steps: u64,
    pub tool_calls: u64,
    pub denials: u64,
    pub errors: u64,
    pub recoveries: u64,
    pub tokens_in: u64,
    pub tokens_out: u64,
    pub wall_p50_ms: u64,
    pub wall_p95_ms: u64,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SuiteKpis {
    pub suite: String,
    #[serde(flatten)]
    pub kpis: Kpis,
}

/// One scenario over its repeats.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ScenarioRate {
    pub suite: String,
    pub name: String,
    pub runs: u64,
    pub passed: u64,
    pub pass_rate: f64,
}

impl Kpis {
    pub fn of<'a>(runs: impl IntoIterator<Item = &'a ScenarioRun>) -> Kpis {
        let mut k = Kpis::default();
        let mut walls = Vec::new();
        let mut rounds: BTreeMap<u32, (u64, u64)> = BTreeMap::new();
        for run in runs {
            if !run.verdict.ran() {
                k.skipped += 1;
                continue;
            }
            k.runs += 1;
            let round = rounds.entry(run.attempt).or_default();
            round.0 += 1;
            match run.verdict.label() {
                "passed" => {
                    k.passed += 1;
                    round.1 += 1;
                }
                "over budget" => k.over_budget += 1,
                _ => k.failed += 1,
            }
            let seen = &run.observed;
            k.steps += seen.steps;
            k.tool_calls += seen.tool_calls;
            k.denials += seen.denials;
            k.errors += seen.errors;
            k.recoveries += seen.recoveries;
            k.tokens_in += seen.tokens_in;
            k.tokens_out += seen.tokens_out;
            walls.push(seen.wall_ms);
        }
        k.success_rate = rate(k.passed, k.runs);
        if rounds.len() > 1 {
            let rates = rounds.values().map(|(ran, passed)| rate(*passed, *ran));
            let (lo, hi) = rates.fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), r| {
                (lo.min(r), hi.max(r))
            });
            k.success_spread = Some((lo, hi));
        }
        walls.sort_unstable();
        k.wall_p50_ms = percentile(&walls, 0.50);
        k.wall_p95_ms = percentile(&walls, 0.95);
        k
    }
}

fn rate(passed: u64, runs: u64) -> f64 {
    if runs == 0 {
        0.0
    } else {
        passed as f64 / runs as f64
    }
}

/// The nearest-rank percentile of sorted `xs` (0 when empty).
pub fn percentile(xs: &[u64], q: f64) -> u64 {
    if xs.is_empty() {
        return 0;
    }
    let rank = (q * xs.len() as f64).ceil() as usize;
    xs[rank.clamp(1, xs.len()) - 1]
}

/// Each suite's KPIs, in suite order.
pub fn per_suite(runs: &[ScenarioRun]) -> Vec<SuiteKpis> {
    let mut suites: BTreeMap<&str, Vec<&ScenarioRun>> = BTreeMap::new();
    for run in runs {
        suites.entry(run.suite.as_str()).or_default().push(run);
    }
    suites
        .into_iter()
        .map(|(suite, runs)| SuiteKpis {
            suite: suite.to_string(),
            kpis: Kpis::of(runs),
        })
        .collect()
}

/// Each scenario's pass rate over its repeats, in the order first run.
pub fn per_scenario(runs: &[ScenarioRun]) -> Vec<ScenarioRate> {
    let mut rates: Vec<ScenarioRate> = Vec::new();
    for run in runs.iter().filter(|r| r.verdict.ran()) {
        let at = rates
            .iter()
            .position(|r| r.suite == run.suite && r.name == run.name);
        let entry = match at {
            Some(at) => &mut rates[at],
            None => {
                rates.push(ScenarioRate {
                    suite: run.suite.clone(),
                    name: run.name.clone(),
                    runs: 0,
                    passed: 0,
                    pass_rate: 0.0,
                });
                let last = rates.len() - 1;
                &mut rates[last]
            }
        };
        entry.runs += 1;
        entry.passed += u64::from(run.verdict.passed());
        entry.pass_rate = rate(entry.passed, entry.runs);
    }
    rates
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::judge::{Observed, Verdict};

    fn run(suite: &str, name: &str, attempt: u32, verdict: Verdict, seen: Observed) -> ScenarioRun {
        ScenarioRun {
            name: name.into(),
            suite: suite.into(),
            path: format!("{suite}/{name}.toml").into(),
            attempt,
            scripted: true,
            verdict,
            observed: seen,
            stderr_tail: String::new(),
        }
    }

    fn seen(steps: u64, calls: u64, denials: u64, errors: u64, wall_ms: u64) -> Observed {
        Observed {
            steps,
            tool_calls: calls,
            denials,
            errors,
            recoveries: errors,
            tokens_in: 100 * steps,
            tokens_out: 10 * steps,
            wall_ms,
            ..Observed::default()
        }
    }

    fn fail() -> Verdict {
        Verdict::Failed {
            reasons: vec!["x".into()],
        }
    }

    /// Five runs by hand: a passes twice, b fails once and is over budget
    /// once, c is skipped.
    fn runs() -> Vec<ScenarioRun> {
        vec![
            run("fix", "a", 1, Verdict::Passed, seen(2, 1, 0, 0, 100)),
            run("fix", "b", 1, fail(), seen(3, 2, 1, 1, 300)),
            run("fix", "a", 2, Verdict::Passed, seen(2, 1, 0, 0, 120)),
            run(
                "fix",
                "b",
                2,
                Verdict::OverBudget {
                    reasons: vec!["y".into()],
                },
                seen(5, 4, 0, 2, 900),
            ),
            run(
                "live",
                "c",
                1,
                Verdict::Skipped {
                    reason: "no model".into(),
                },
                Observed::default(),
            ),
        ]
    }

    #[test]
    fn the_sums_and_percentiles_match_a_hand_count() {
        let all = Kpis::of(&runs());
        assert_eq!(
            all,
            Kpis {
                runs: 4,
                passed: 2,
                failed: 1,
                over_budget: 1,
                skipped: 1,
                success_rate: 0.5,
                // Round 1: a passed, b failed; round 2: a passed, b over.
                success_spread: Some((0.5, 0.5)),
                steps: 12,
                tool_calls: 8,
                denials: 1,
                errors: 3,
                recoveries: 3,
                tokens_in: 1200,
                tokens_out: 120,
                // Walls 100, 120, 300, 900: p50 is the 2nd, p95 the 4th.
                wall_p50_ms: 120,
                wall_p95_ms: 900,
            }
        );
        let suites = per_suite(&runs());
        assert_eq!(suites.len(), 2);
        assert_eq!(
            (suites[1].suite.as_str(), suites[1].kpis.skipped),
            ("live", 1)
        );
        assert_eq!(suites[1].kpis.runs, 0);
        let rates = per_scenario(&runs());
        assert_eq!(
            rates
                .iter()
                .map(|r| (r.name.as_str(), r.runs, r.passed))
                .collect::<Vec<_>>(),
            [("a", 2, 2), ("b", 2, 0)]
        );
    }

    #[test]
    fn percentiles_by_nearest_rank() {
        let xs: Vec<u64> = (1..=20).collect();
        assert_eq!(percentile(&xs, 0.5), 10);
        assert_eq!(percentile(&xs, 0.95), 19);
        assert_eq!(percentile(&[7], 0.95), 7);
        assert_eq!(percentile(&[], 0.5), 0);
    }
}
