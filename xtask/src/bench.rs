//! `cargo xtask bench`: runs every benchmark and writes
//! `target/bench/summary.json` (DESIGN.md §7).
//!
//! The reporting contract, defined once here: a benchmark binary appends
//! one JSON object per figure, one per line, to the file named by
//! `AMBER_BENCH_ROWS`. Each row has `name`, `unit`, `stat`, `better`
//! (`lower` or `higher`), `value`, and optionally `baseline_name`,
//! `baseline_value`, `goal_value`, `goal_ratio`. The xtask computes
//! `ratio = value / baseline_value`, prints the table and writes the
//! summary. Figures and their baselines are measured in the same run.

use std::process::Command;

use anyhow::{Context, Result};
use serde_json::{json, Value};

use crate::{cargo, guests, models, python_component, root, run, setup, target_dir};

pub fn run_all(filter: &[String]) -> Result<()> {
    // The baselines of later benchmarks (grep vs rg, index vs ctags).
    setup::ensure_debian_packages(&["ripgrep", "universal-ctags"])?;
    let guests = guests::build_all()?;
    let model = models::ensure_embedding_model()?;
    let big_component = python_component::ensure_big_component()?;
    eprintln!("xtask: building the benchmarks in release");
    run(cargo()?
        .current_dir(root())
        .args(["build", "--release", "--quiet", "-p", "amber-bench"]))?;
    let out_dir = target_dir().join("bench");
    std::fs::create_dir_all(&out_dir)?;
    let rows_path = out_dir.join("rows.jsonl");
    let _ = std::fs::remove_file(&rows_path);
    run(Command::new(target_dir().join("release/amber-bench"))
        .args(filter)
        .env("AMBER_BENCH_ROWS", &rows_path)
        .env("AMBER_GUESTS_DIR", &guests)
        .env("AMBER_BENCH_EMBEDDING_MODEL", &model)
        .env("AMBER_BENCH_BIG_COMPONENT", &big_component))?;
    let text = std::fs::read_to_string(&rows_path)
        .with_context(|| format!("no rows in {}", rows_path.display()))?;
    let mut rows = Vec::new();
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let row: Value =
            serde_json::from_str(line).with_context(|| format!("bad bench row: {line}"))?;
        rows.push(summarise(&row));
    }
    print_table(&rows);
    let summary = json!({ "benchmarks": rows });
    let path = out_dir.join("summary.json");
    std::fs::write(&path, serde_json::to_string_pretty(&summary)?)?;
    eprintln!("xtask: wrote {}", path.display());
    Ok(())
}

fn summarise(row: &Value) -> Value {
    let value = row["value"].as_f64();
    let baseline = row["baseline_value"].as_f64();
    let ratio = match (value, baseline) {
        (Some(v), Some(b)) if b != 0.0 => json!(v / b),
        _ => Value::Null,
    };
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
    })
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
        "{:<34} {:>12} {:<6} {:>12}  {:<28} {:>8}  goal",
        "name", "value", "unit", "baseline", "baseline name", "ratio"
    );
    for row in rows {
        println!(
            "{:<34} {:>12} {:<6} {:>12}  {:<28} {:>8}  {}",
            row["name"].as_str().unwrap_or("?"),
            fmt(&row["value"]),
            row["unit"].as_str().unwrap_or(""),
            fmt(&row["baseline_value"]),
            row["baseline_name"].as_str().unwrap_or("-"),
            fmt(&row["ratio"]),
            goal(row),
        );
    }
}
