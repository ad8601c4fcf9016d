//! `cargo xtask bench`: runs every benchmark and writes
//! `target/bench/summary.json` (DESIGN.md §7).
//!
//! The reporting contract, defined once here: a benchmark binary appends
//! one JSON object per figure, one per line, to the file named by
//! `AMBER_BENCH_ROWS`. Each row has `name`, `unit`, `stat`, `better`
//! (`lower` or `higher`), `value`, and optionally `baseline_name`,
//! `baseline_value`, `goal_value`, `goal_ratio`, and for rows measured in
//! pairs `spread` (`{"pairs", "value": [min, max], "baseline": [min,
//! max]}`) and `model_calls` (`{"value", "baseline"}`), printed under the
//! row and kept in the summary. The xtask computes
//! `ratio = value / baseline_value`, judges each row against its goals
//! (`met`: true, false, or null for a row without a goal), prints the
//! table and writes the summary. Figures and their baselines are measured
//! in the same run.
//!
//! `--check` makes a missed goal an error: the whole table is printed
//! first, then the xtask exits non-zero naming the rows that missed.
//! Without it the run is a report. The bench's own sanity checks (both
//! sides agree, the right lines were found) fail the run either way.

use std::process::Command;

use anyhow::{bail, Context, Result};
use serde_json::{json, Value};

use crate::{cargo, guests, install, models, python_component, root, run, setup, target_dir};

/// The cargo profile of the bench binary (root Cargo.toml says why).
const PROFILE: &str = "benchmark";

pub fn run_all(args: &[String]) -> Result<()> {
    let check = args.iter().any(|a| a == "--check");
    let filter: Vec<&String> = args.iter().filter(|a| *a != "--check").collect();
    // The baselines of later benchmarks (grep vs rg, index vs ctags).
    setup::ensure_debian_packages(&["ripgrep", "universal-ctags"])?;
    let guests = guests::build_all()?;
    let model = models::ensure_embedding_model()?;
    let big_component = python_component::ensure_big_component()?;
    let mcp_servers = crate::mcp_servers::ensure()?;
    let corpus = corpus_sources()?;
    // The first-run rows time an installed amber on fresh homes; the
    // release build they need is skipped when a filter leaves them out.
    // The TUI's start-up rows time it too.
    // The peers rows time it beside Codex.
    let wants =
        |group: &str| filter.is_empty() || filter.iter().any(|f| group.contains(f.as_str()));
    // The authoring rows run it as a plugin author does.
    let first_run = wants("first_run") || wants("tui") || wants("peers") || wants("authoring");
    let codex = if wants("peers") {
        Some(crate::peers::ensure_codex()?)
    } else {
        None
    };
    let installed = if first_run {
        let prefix = target_dir().join("bench/install");
        install::install_into(&prefix, &install::build_release()?, &guests)?
    } else {
        std::path::PathBuf::new()
    };
    eprintln!(
        "xtask: building the benchmarks (profile `{PROFILE}`: fat LTO, the providers' inlining)"
    );
    // The final crate gets the providers' inline threshold; under fat LTO
    // the inliner runs again there over the whole program, as it does for
    // the provider guests.
    run(cargo()?.current_dir(root()).args([
        "rustc",
        "--profile",
        PROFILE,
        "--quiet",
        "-p",
        "amber-bench",
        "--bin",
        "amber-bench",
        "--",
        "-C",
        guests::INLINE_THRESHOLD,
    ]))?;
    // The hooks rows' baseline: hook-guard's checks as a native command
    // hook, beside the bench binary.
    run(cargo()?.current_dir(root()).args([
        "build",
        "--profile",
        PROFILE,
        "--quiet",
        "-p",
        "amber-bench",
        "--bin",
        "hook-guard-native",
    ]))?;
    let out_dir = target_dir().join("bench");
    std::fs::create_dir_all(&out_dir)?;
    let rows_path = out_dir.join("rows.jsonl");
    let _ = std::fs::remove_file(&rows_path);
    run(Command::new(target_dir().join(PROFILE).join("amber-bench"))
        .args(&filter)
        .env("AMBER_BENCH_ROWS", &rows_path)
        .env("AMBER_GUESTS_DIR", &guests)
        .env("AMBER_BENCH_EMBEDDING_MODEL", &model)
        .env("AMBER_BENCH_BIG_COMPONENT", &big_component)
        .env("AMBER_BENCH_MCP_SERVERS", &mcp_servers)
        .env("AMBER_BENCH_CORPUS", &corpus)
        .envs(first_run.then_some(("AMBER_BENCH_INSTALLED", &installed)))
        .envs(codex.map(|c| ("AMBER_BENCH_CODEX", c)))
        .env("AMBER_BENCH_SCRATCH", out_dir.join("scratch")))?;
    let text = std::fs::read_to_string(&rows_path).unwrap_or_default();
    let mut rows = Vec::new();
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let row: Value =
            serde_json::from_str(line).with_context(|| format!("bad bench row: {line}"))?;
        rows.push(summarise(&row));
    }
    if rows.is_empty() {
        bail!("the benchmarks wrote no rows to {}", rows_path.display());
    }
    print_table(&rows);
    let summary = json!({ "benchmarks": rows });
    let path = out_dir.join("summary.json");
    std::fs::write(&path, serde_json::to_string_pretty(&summary)?)?;
    eprintln!("xtask: wrote {}", path.display());
    let missed: Vec<&str> = rows
        .iter()
        .filter(|r| r["met"] == json!(false))
        .filter_map(|r| r["name"].as_str())
        .collect();
    if !missed.is_empty() {
        let list = missed.join(", ");
        if check {
            bail!("{} row(s) missed their goal: {list}", missed.len());
        }
        eprintln!(
            "xtask: {} row(s) missed their goal: {list} (`--check` makes that an error)",
            missed.len()
        );
    }
    Ok(())
}

/// The pinned corpus (bench/corpus/Cargo.toml): fetched with `cargo fetch
/// --locked`, then the source folders of its dependencies, one per line.
fn corpus_sources() -> Result<String> {
    let manifest = root().join("bench/corpus/Cargo.toml");
    run(cargo()?
        .args(["fetch", "--locked", "--quiet", "--manifest-path"])
        .arg(&manifest))
    .context("cannot fetch the bench corpus")?;
    let out = cargo()?
        .args([
            "metadata",
            "--locked",
            "--format-version",
            "1",
            "--manifest-path",
        ])
        .arg(&manifest)
        .output()
        .context("cannot run cargo metadata on the bench corpus")?;
    anyhow::ensure!(
        out.status.success(),
        "cargo metadata on {} failed: {}",
        manifest.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    let meta: Value =
        serde_json::from_slice(&out.stdout).context("cargo metadata printed no JSON")?;
    let mut dirs = Vec::new();
    for package in meta["packages"].as_array().into_iter().flatten() {
        if package["name"] == "amber-bench-corpus" {
            continue;
        }
        let path = package["manifest_path"].as_str().unwrap_or_default();
        let dir = std::path::Path::new(path)
            .parent()
            .with_context(|| format!("a manifest path without a folder: {path}"))?;
        dirs.push(format!(
            "{}={}",
            package["name"].as_str().unwrap_or("?"),
            dir.display()
        ));
    }
    anyhow::ensure!(!dirs.is_empty(), "{} names no crates", manifest.display());
    Ok(dirs.join("\n"))
}

fn summarise(row: &Value) -> Value {
    let value = row["value"].as_f64();
    let baseline = row["baseline_value"].as_f64();
    let ratio = match (value, baseline) {
        (Some(v), Some(b)) if b != 0.0 => json!(v / b),
        _ => Value::Null,
    };
    let met = judge(value, ratio.as_f64(), row);
    json!({
        "name": row["name"],
        "unit": row["unit"],
        "stat": row.get("stat").cloned().unwrap_or(json!("median")),
        "better": row.get("better").cloned().unwrap_or(json!("lower")),
        "value": row["value"],
        "baseline_name": row.get("baseline_name").cloned().unwrap_or(Value::Null),
        "baseline_value": row.get("baseline_value").cloned().unwrap_or(Value::Null),
        "ratio": ratio,
        "goal_value": row.get("goal_value").cloned().unwrap_or(Value::Null),
        "goal_ratio": row.get("goal_ratio").cloned().unwrap_or(Value::Null),
        "met": met,
        "spread": row.get("spread").cloned().unwrap_or(Value::Null),
        "model_calls": row.get("model_calls").cloned().unwrap_or(Value::Null),
    })
}

/// Whether the row meets every goal it has; `null` without a goal.
fn judge(value: Option<f64>, ratio: Option<f64>, row: &Value) -> Value {
    let higher = row["better"] == "higher";
    let within = |x: f64, goal: f64| if higher { x >= goal } else { x <= goal };
    let mut verdicts = Vec::new();
    if let Some(goal) = row["goal_value"].as_f64() {
        verdicts.push(value.is_some_and(|v| within(v, goal)));
    }
    if let Some(goal) = row["goal_ratio"].as_f64() {
        verdicts.push(ratio.is_some_and(|r| within(r, goal)));
    }
    if verdicts.is_empty() {
        Value::Null
    } else {
        json!(verdicts.iter().all(|v| *v))
    }
}

fn fmt(v: &Value) -> String {
    match v.as_f64() {
        Some(x) if x.abs() >= 100.0 => format!("{x:.0}"),
        Some(x) => format!("{x:.3}"),
        None => "-".into(),
    }
}

fn goal(row: &Value) -> String {
    let better = if row["better"] == "higher" {
        ">="
    } else {
        "<="
    };
    let mut parts = Vec::new();
    if let Some(v) = row["goal_value"].as_f64() {
        parts.push(format!(
            "{better} {v} {}",
            row["unit"].as_str().unwrap_or("")
        ));
    }
    if let Some(r) = row["goal_ratio"].as_f64() {
        parts.push(format!("ratio {better} {r}"));
    }
    if parts.is_empty() {
        "-".into()
    } else {
        parts.join(", ")
    }
}

fn print_table(rows: &[Value]) {
    println!(
        "{:<44} {:>12} {:<6} {:>12}  {:<34} {:>8}  {:<6}  goal",
        "name", "value", "unit", "baseline", "baseline name", "ratio", "met"
    );
    for row in rows {
        let met = match row["met"].as_bool() {
            Some(true) => "met",
            Some(false) => "MISSED",
            None => "-",
        };
        println!(
            "{:<44} {:>12} {:<6} {:>12}  {:<34} {:>8}  {met:<6}  {}",
            row["name"].as_str().unwrap_or("?"),
            fmt(&row["value"]),
            row["unit"].as_str().unwrap_or(""),
            fmt(&row["baseline_value"]),
            row["baseline_name"].as_str().unwrap_or("-"),
            fmt(&row["ratio"]),
            goal(row),
        );
        if let Some(line) = spread_line(row) {
            println!("    {line}");
        }
    }
}

/// The spread of a row measured in pairs, and the model calls of a row
/// that counts them, when the row has them (the optional `spread` and
/// `model_calls` fields of the contract).
fn spread_line(row: &Value) -> Option<String> {
    let spread = &row["spread"];
    let range = |v: &Value| format!("{}..{}", fmt(&v[0]), fmt(&v[1]));
    let mut parts = Vec::new();
    if let Some(pairs) = spread["pairs"].as_u64() {
        parts.push(format!(
            "{pairs} pairs: value {}, baseline {}",
            range(&spread["value"]),
            range(&spread["baseline"])
        ));
    }
    let calls = &row["model_calls"];
    if let (Some(a), Some(b)) = (calls["value"].as_u64(), calls["baseline"].as_u64()) {
        parts.push(format!("model calls {a} vs {b}"));
    }
    (!parts.is_empty()).then(|| parts.join("; "))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(
        value: f64,
        baseline: Option<f64>,
        goal_value: Option<f64>,
        goal_ratio: Option<f64>,
    ) -> Value {
        summarise(&json!({
            "name": "r", "unit": "ms", "value": value, "baseline_value": baseline,
            "goal_value": goal_value, "goal_ratio": goal_ratio,
        }))
    }

    #[test]
    fn a_row_meets_its_goal_only_when_every_goal_is_met() {
        assert_eq!(row(5.0, None, Some(10.0), None)["met"], json!(true));
        assert_eq!(row(11.0, None, Some(10.0), None)["met"], json!(false));
        assert_eq!(row(3.0, Some(2.0), None, Some(2.0))["met"], json!(true));
        assert_eq!(row(5.0, Some(2.0), None, Some(2.0))["met"], json!(false));
        // Within the absolute goal but not the ratio: missed.
        assert_eq!(
            row(5.0, Some(2.0), Some(10.0), Some(2.0))["met"],
            json!(false)
        );
        assert_eq!(row(5.0, Some(2.0), None, None)["met"], Value::Null);
        // A ratio goal without a baseline cannot be met.
        assert_eq!(row(5.0, None, None, Some(2.0))["met"], json!(false));
    }

    #[test]
    fn higher_is_better_turns_the_comparison_round() {
        let precision = summarise(&json!({
            "name": "p", "unit": "", "better": "higher", "value": 0.8, "goal_value": 0.9,
        }));
        assert_eq!(precision["met"], json!(false));
    }
}
