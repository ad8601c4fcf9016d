//! The report of a bench run, as text for a terminal, markdown for a pull
//! request or a wiki, or JSON for scripts: each run's verdict with its
//! reasons, each suite's KPIs and the overall ones, and the scenario
//! files that could not be used.

use std::fmt::Write;

use serde::Serialize;

use crate::kpi::{self, Kpis, ScenarioRate, SuiteKpis};
use crate::run::ScenarioRun;
use crate::scenario::Invalid;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Text,
    Markdown,
    Json,
}

#[derive(Debug, Clone, Serialize)]
pub struct Report {
    /// `--provider` and `--model` as given (None: the defaults).
    pub provider: Option<String>,
    pub model: Option<String>,
    pub repeat: u32,
    pub overall: Kpis,
    pub suites: Vec<SuiteKpis>,
    /// Each scenario's pass rate over its repeats.
    pub scenarios: Vec<ScenarioRate>,
    pub runs: Vec<ScenarioRun>,
    pub invalid: Vec<Invalid>,
}

impl Report {
    pub fn new(
        runs: Vec<ScenarioRun>,
        invalid: Vec<Invalid>,
        provider: Option<String>,
        model: Option<String>,
        repeat: u32,
    ) -> Report {
        Report {
            provider,
            model,
            repeat,
            overall: Kpis::of(&runs),
            suites: kpi::per_suite(&runs),
            scenarios: kpi::per_scenario(&runs),
            runs,
            invalid,
        }
    }

    /// A run failed or went over budget, or a scenario file was unusable:
    /// `amber bench run` then exits non-zero.
    pub fn failed(&self) -> bool {
        !self.invalid.is_empty() || self.overall.failed + self.overall.over_budget > 0
    }

    pub fn render(&self, format: Format) -> String {
        match format {
            Format::Text => self.text(),
            Format::Markdown => self.markdown(),
            Format::Json => {
                let mut json = serde_json::to_string_pretty(self).unwrap_or_default();
                json.push('\n');
                json
            }
        }
    }

    fn headline(&self) -> String {
        let k = &self.overall;
        let mut line = format!(
            "{} runs: {} passed, {} failed, {} over budget",
            k.runs, k.passed, k.failed, k.over_budget
        );
        if k.skipped > 0 {
            let _ = write!(line, ", {} skipped", k.skipped);
        }
        if !self.invalid.is_empty() {
            let _ = write!(line, ", {} invalid files", self.invalid.len());
        }
        let _ = write!(line, "; success {}", percent(k.success_rate));
        if let Some((lo, hi)) = k.success_spread {
            let _ = write!(
                line,
                " (rounds {}..{} over {} repeats)",
                percent(lo),
                percent(hi),
                self.repeat
            );
        }
        line
    }

    fn text(&self) -> String {
        let mut out = String::new();
        let _ = writeln!(out, "amber bench: {}", self.headline());
        let _ = writeln!(out);
        for run in &self.runs {
            let attempt = if self.repeat > 1 {
                format!(" #{}", run.attempt)
            } else {
                String::new()
            };
            let seen = &run.observed;
            let stats = if run.verdict.ran() {
                format!(
                    "  ({} steps, {} tool calls, {} ms)",
                    seen.steps, seen.tool_calls, seen.wall_ms
                )
            } else {
                String::new()
            };
            let _ = writeln!(
                out,
                "  {:<12} {}/{}{attempt}{stats}",
                run.verdict.label(),
                run.suite,
                run.name,
            );
            for reason in run.verdict.reasons() {
                let _ = writeln!(out, "      - {reason}");
            }
        }
        if self.repeat > 1 {
            let _ = writeln!(out, "\npass rate over {} repeats:", self.repeat);
            for rate in &self.scenarios {
                let _ = writeln!(
                    out,
                    "  {:>5}  {}/{} ({} of {})",
                    percent(rate.pass_rate),
                    rate.suite,
                    rate.name,
                    rate.passed,
                    rate.runs
                );
            }
        }
        let _ = writeln!(out);
        let header = [
            "suite",
            "runs",
            "passed",
            "success",
            "steps",
            "calls",
            "denials",
            "errors",
            "recoveries",
            "tokens in",
            "tokens out",
            "wall p50",
            "wall p95",
        ];
        let mut rows = vec![header.iter().map(|s| s.to_string()).collect::<Vec<_>>()];
        for suite in &self.suites {
            rows.push(kpi_cells(&suite.suite, &suite.kpis));
        }
        rows.push(kpi_cells("overall", &self.overall));
        let widths: Vec<usize> = (0..header.len())
            .map(|i| rows.iter().map(|r| r[i].chars().count()).max().unwrap_or(0))
            .collect();
        for row in &rows {
            let cells: Vec<String> = row
                .iter()
                .zip(&widths)
                .enumerate()
                .map(|(i, (cell, w))| {
                    if i == 0 {
                        format!("{cell:<w$}")
                    } else {
                        format!("{cell:>w$}")
                    }
                })
                .collect();
            let _ = writeln!(out, "  {}", cells.join("  ").trim_end());
        }
        if !self.invalid.is_empty() {
            let _ = writeln!(out, "\nscenario files that could not be used:");
            for bad in &self.invalid {
                let _ = writeln!(out, "  {bad}");
            }
        }
        out
    }

    fn markdown(&self) -> String {
        let mut out = String::new();
        let _ = writeln!(out, "# amber bench\n");
        let model = match (&self.provider, &self.model) {
            (Some(p), Some(m)) => format!("{p}, {m}"),
            (Some(p), None) => p.clone(),
            (None, _) => "scripted replies (openai wire format)".into(),
        };
        let _ = writeln!(out, "Model: {model}. {}.\n", self.headline());
        let _ = writeln!(out, "## KPIs\n");
        let _ = writeln!(
            out,
            "| suite | runs | passed | success | steps | tool calls | denials | errors | recoveries | tokens in | tokens out | wall p50 | wall p95 |"
        );
        let _ = writeln!(
            out,
            "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
        );
        for suite in &self.suites {
            let _ = writeln!(
                out,
                "| {} |",
                kpi_cells(&suite.suite, &suite.kpis).join(" | ")
            );
        }
        let overall = kpi_cells("**overall**", &self.overall);
        let _ = writeln!(out, "| {} |", overall.join(" | "));
        let _ = writeln!(out, "\n## Runs\n");
        let _ = writeln!(
            out,
            "| scenario | result | steps | tool calls | wall | reasons |"
        );
        let _ = writeln!(out, "|---|---|---:|---:|---:|---|");
        for run in &self.runs {
            let name = if self.repeat > 1 {
                format!("{}/{} #{}", run.suite, run.name, run.attempt)
            } else {
                format!("{}/{}", run.suite, run.name)
            };
            let reasons = run
                .verdict
                .reasons()
                .iter()
                .map(|r| r.replace('|', "\\|"))
                .collect::<Vec<_>>()
                .join("<br>");
            let _ = writeln!(
                out,
                "| `{name}` | {} | {} | {} | {} ms | {reasons} |",
                run.verdict.label(),
                run.observed.steps,
                run.observed.tool_calls,
                run.observed.wall_ms
            );
        }
        if !self.invalid.is_empty() {
            let _ = writeln!(out, "\n## Scenario files that could not be used\n");
            for bad in &self.invalid {
                let _ = writeln!(out, "- `{}`", bad.to_string().replace('`', "'"));
            }
        }
        out
    }
}

fn kpi_cells(name: &str, k: &Kpis) -> Vec<String> {
    vec![
        name.to_string(),
        k.runs.to_string(),
        k.passed.to_string(),
        percent(k.success_rate),
        k.steps.to_string(),
        k.tool_calls.to_string(),
        k.denials.to_string(),
        k.errors.to_string(),
        k.recoveries.to_string(),
        k.tokens_in.to_string(),
        k.tokens_out.to_string(),
        format!("{} ms", k.wall_p50_ms),
        format!("{} ms", k.wall_p95_ms),
    ]
}

fn percent(x: f64) -> String {
    format!("{:.0}%", x * 100.0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::judge::{Observed, Verdict};

    fn report() -> Report {
        let run = |name: &str, verdict: Verdict, wall_ms: u64| ScenarioRun {
            name: name.into(),
            suite: "fixes".into(),
            path: format!("fixes/{name}.toml").into(),
            attempt: 1,
            scripted: true,
            verdict,
            observed: Observed {
                steps: 2,
                tool_calls: 1,
                tokens_in: 50,
                tokens_out: 5,
                wall_ms,
                ..Observed::default()
            },
            stderr_tail: String::new(),
        };
        Report::new(
            vec![
                run("good", Verdict::Passed, 40),
                run(
                    "bad",
                    Verdict::Failed {
                        reasons: vec!["answer: lacks \"a|b\"".into()],
                    },
                    60,
                ),
            ],
            vec![Invalid {
                path: "fixes/broken.toml".into(),
                line: Some(3),
                key: Some("budget".into()),
                message: "invalid type".into(),
            }],
            None,
            None,
            1,
        )
    }

    #[test]
    fn text_shows_each_run_its_reasons_the_kpis_and_the_bad_files() {
        let text = report().render(Format::Text);
        assert!(
            text.starts_with("amber bench: 2 runs: 1 passed, 1 failed, 0 over budget, 1 invalid files; success 50%\n"),
            "{text}"
        );
        assert!(text.contains("  failed       fixes/bad  (2 steps, 1 tool calls, 60 ms)\n      - answer: lacks \"a|b\"\n"), "{text}");
        let overall = text
            .lines()
            .find(|l| l.trim_start().starts_with("overall"))
            .unwrap();
        let cells: Vec<&str> = overall.split_whitespace().collect();
        assert_eq!(
            cells,
            [
                "overall", "2", "1", "50%", "4", "2", "0", "0", "0", "100", "10", "40", "ms", "60",
                "ms"
            ]
        );
        assert!(
            text.contains("  fixes/broken.toml:3: key `budget`: invalid type"),
            "{text}"
        );
        assert!(report().failed());
    }

    #[test]
    fn markdown_has_tables_with_escaped_cells_and_json_parses_back() {
        let md = report().render(Format::Markdown);
        assert!(md.contains("| **overall** | 2 | 1 | 50% |"), "{md}");
        assert!(
            md.contains("| `fixes/bad` | failed | 2 | 1 | 60 ms | answer: lacks \"a\\|b\" |"),
            "{md}"
        );
        let json: serde_json::Value = serde_json::from_str(&report().render(Format::Json)).unwrap();
        assert_eq!(json["overall"]["passed"], 1);
        assert_eq!(json["runs"][1]["status"], "failed");
        assert_eq!(json["runs"][1]["reasons"][0], "answer: lacks \"a|b\"");
        assert_eq!(json["invalid"][0]["line"], 3);
        assert_eq!(json["suites"][0]["suite"], "fixes");
    }
}
