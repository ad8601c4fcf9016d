//! Timing helpers and the row writer.

use std::fs::OpenOptions;
use std::io::Write;
use std::path::PathBuf;
use std::time::Instant;

use anyhow::{Context, Result};
use serde_json::{json, Value};

/// Appends rows to `$AMBER_BENCH_ROWS` and echoes them to stdout.
pub struct Rows {
    path: Option<PathBuf>,
}

impl Rows {
    pub fn from_env() -> Result<Self> {
        Ok(Rows {
            path: std::env::var_os("AMBER_BENCH_ROWS").map(PathBuf::from),
        })
    }

    pub fn push(&mut self, row: Value) -> Result<()> {
        println!("{row}");
        if let Some(path) = &self.path {
            let mut file = OpenOptions::new()
                .create(true)
                .append(true)
                .open(path)
                .with_context(|| format!("cannot open {}", path.display()))?;
            writeln!(file, "{row}")?;
        }
        Ok(())
    }
}

/// A figure with its baseline, in microseconds or milliseconds.
pub struct Figure<'a> {
    pub name: &'a str,
    pub unit: &'a str,
    pub value: f64,
    pub baseline: Option<(&'a str, f64)>,
    pub goal_value: Option<f64>,
    pub goal_ratio: Option<f64>,
}

impl Figure<'_> {
    pub fn row(&self) -> Value {
        json!({
            "name": self.name,
            "unit": self.unit,
            "stat": "median",
            "better": "lower",
            "value": self.value,
            "baseline_name": self.baseline.map(|b| b.0),
            "baseline_value": self.baseline.map(|b| b.1),
            "goal_value": self.goal_value,
            "goal_ratio": self.goal_ratio,
        })
    }
}

pub fn median(mut xs: Vec<f64>) -> f64 {
    xs.sort_by(|a, b| a.total_cmp(b));
    xs[xs.len() / 2]
}

/// Median per-iteration time in microseconds of `f`, measured in `batches`
/// batches of `per_batch` iterations after a warm-up batch.
pub fn per_call_us(batches: usize, per_batch: usize, mut f: impl FnMut()) -> f64 {
    for _ in 0..per_batch {
        f();
    }
    let samples = (0..batches)
        .map(|_| {
            let start = Instant::now();
            for _ in 0..per_batch {
                f();
            }
            start.elapsed().as_secs_f64() * 1e6 / per_batch as f64
        })
        .collect();
    median(samples)
}

/// Median wall time in milliseconds of `rounds` runs of `f`, after one
/// warm-up run (the page cache, instances, caches).
pub fn time_ms(rounds: usize, mut f: impl FnMut() -> Result<()>) -> Result<f64> {
    f()?;
    let mut samples = Vec::new();
    for _ in 0..rounds {
        let start = Instant::now();
        f()?;
        samples.push(start.elapsed().as_secs_f64() * 1e3);
    }
    Ok(median(samples))
}

/// Medians in milliseconds of `a` and of its baseline `b`, measured in
/// alternation after one warm-up each: a round runs both, in turn first,
/// so a neighbour's burst or a slow drift on this shared machine lands on
/// both sides of the ratio instead of on whichever ran in that stretch.
pub fn paired_ms(
    rounds: usize,
    mut a: impl FnMut() -> Result<()>,
    mut b: impl FnMut() -> Result<()>,
) -> Result<(f64, f64)> {
    a()?;
    b()?;
    let (mut sa, mut sb) = (Vec::with_capacity(rounds), Vec::with_capacity(rounds));
    let timed = |f: &mut dyn FnMut() -> Result<()>, into: &mut Vec<f64>| -> Result<()> {
        let start = Instant::now();
        f()?;
        into.push(start.elapsed().as_secs_f64() * 1e3);
        Ok(())
    };
    for round in 0..rounds {
        if round % 2 == 0 {
            timed(&mut a, &mut sa)?;
            timed(&mut b, &mut sb)?;
        } else {
            timed(&mut b, &mut sb)?;
            timed(&mut a, &mut sa)?;
        }
    }
    Ok((median(sa), median(sb)))
}

/// The median ms of each of `fs`, run `rounds` times each, their order
/// turned by one every round so no one always runs after another.
pub fn interleaved_ms(
    rounds: usize,
    fs: &mut [&mut dyn FnMut() -> Result<()>],
) -> Result<Vec<f64>> {
    for f in fs.iter_mut() {
        f()?;
    }
    let mut samples = vec![Vec::with_capacity(rounds); fs.len()];
    for round in 0..rounds {
        for k in 0..fs.len() {
            let i = (round + k) % fs.len();
            let start = Instant::now();
            fs[i]()?;
            samples[i].push(start.elapsed().as_secs_f64() * 1e3);
        }
    }
    Ok(samples.into_iter().map(median).collect())
}

/// The repository's built guests.
pub fn guest(name: &str) -> Result<PathBuf> {
    let dir = std::env::var_os("AMBER_GUESTS_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("target/guests"));
    let path = dir.join(format!("{name}.wasm"));
    anyhow::ensure!(
        path.exists(),
        "{} is missing: run `cargo xtask guests`",
        path.display()
    );
    Ok(path)
}

/// The lowest and highest of `xs`.
pub fn spread(xs: &[f64]) -> serde_json::Value {
    let min = xs.iter().copied().fold(f64::INFINITY, f64::min);
    let max = xs.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    json!([min, max])
}

/// The row of samples `a` against their baseline's `b`: the medians, the
/// ratio goal if any, and the spread of both.
pub fn pair_row(
    (name, a): (&str, &[f64]),
    (baseline, b): (&str, &[f64]),
    unit: &str,
    goal_ratio: Option<f64>,
) -> serde_json::Value {
    let mut row = Figure {
        name,
        unit,
        value: median(a.to_vec()),
        baseline: Some((baseline, median(b.to_vec()))),
        goal_value: None,
        goal_ratio,
    }
    .row();
    row["spread"] = json!({"pairs": a.len(), "value": spread(a), "baseline": spread(b)});
    row
}
