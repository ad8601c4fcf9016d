//! The bundled tools through the runtime against native baselines, measured
//! in the same run:
//! - `grep` (the tool-grep component) on a generated tree of 20,000 files
//!   vs the same ripgrep crates (`ignore`, `grep-searcher`, `grep-regex`)
//!   run in-process over the same files, one thread like the component,
//!   rounds interleaved: the sandbox's whole cost. `rg -j1` and `rg` on
//!   all threads, as processes, are informational rows without a goal;
//! - `read_file` of a 200-line range in the middle of a 100 MB file vs the
//!   same range read natively with std::fs.

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::Command;
use std::sync::Arc;

use amber_core::Ledger;
use amber_runtime::{AmberDirs, Grants, Permission, PluginRuntime, RuntimeOptions};
use anyhow::{Context, Result};
use serde_json::json;

use grep_regex::RegexMatcher;
use grep_searcher::{BinaryDetection, Searcher, SearcherBuilder, Sink, SinkMatch};

use crate::measure::{guest, paired_ms, time_ms, Figure, Rows};

const FILES: usize = 20_000;
const ROUNDS: usize = 7;

/// 200 folders of 100 files of ~2 KB of code-like text; one file in 50
/// holds the needle.
fn make_tree(root: &Path) -> Result<()> {
    for d in 0..FILES / 100 {
        let dir = root.join(format!("mod_{d:03}"));
        std::fs::create_dir_all(&dir)?;
        for f in 0..100 {
            let n = d * 100 + f;
            let mut text = String::with_capacity(2200);
            for line in 0..40 {
                text.push_str(&format!(
                    "    let value_{line} = compute_{n}(input, {line}); // step {line}\n"
                ));
            }
            if n % 50 == 0 {
                text.push_str(&format!("    needle_{n}();\n"));
            }
            std::fs::write(dir.join(format!("file_{f:03}.rs")), text)?;
        }
    }
    Ok(())
}

fn runtime_over(home: &Path, workspace: &Path, guest_name: &str) -> Result<PluginRuntime> {
    let options = RuntimeOptions::new(AmberDirs::under(home), workspace.to_path_buf());
    let runtime = PluginRuntime::new(options, Arc::new(Ledger::new()))?;
    let (id, _) = runtime.register_file(&guest(guest_name)?)?;
    runtime.enable(&id, Grants::of([Permission::WorkspaceRead]))?;
    Ok(runtime)
}

fn rg(tree: &Path, threads: Option<&str>) -> Result<f64> {
    time_ms(ROUNDS, || {
        let mut cmd = Command::new("rg");
        cmd.current_dir(tree).args(["-n", "needle_[0-9]+", "."]);
        if let Some(j) = threads {
            cmd.args(["-j", j]);
        }
        let out = cmd
            .output()
            .context("cannot run rg (cargo xtask bench installs ripgrep)")?;
        anyhow::ensure!(out.status.success(), "rg failed");
        anyhow::ensure!(
            out.stdout.iter().filter(|b| **b == b'\n').count() == FILES / 50,
            "rg found the wrong lines"
        );
        Ok(())
    })
}

/// rg-style `path:line:text` lines, as the component writes them.
struct Lines<'a> {
    path: &'a str,
    out: &'a mut String,
}

impl Sink for Lines<'_> {
    type Error = std::io::Error;

    fn matched(&mut self, _s: &Searcher, m: &SinkMatch<'_>) -> Result<bool, Self::Error> {
        let text = String::from_utf8_lossy(m.bytes());
        let text = text.trim_end_matches(['\n', '\r']);
        let number = m.line_number().unwrap_or(0);
        self.out
            .push_str(&format!("{}:{number}:{text}\n", self.path));
        Ok(true)
    }
}

/// The component's work natively: walk as `ignore` walks (hidden files
/// skipped, .gitignore honoured), read each file whole, search it with
/// line numbers, binaries skipped; returns the lines.
fn grep_in_process(tree: &Path, pattern: &str) -> Result<String> {
    let matcher = RegexMatcher::new(pattern)?;
    let mut searcher = SearcherBuilder::new()
        .line_number(true)
        .binary_detection(BinaryDetection::quit(0))
        .build();
    let mut out = String::new();
    for entry in ignore::WalkBuilder::new(tree).build() {
        let entry = entry?;
        if !entry.file_type().is_some_and(|t| t.is_file()) {
            continue;
        }
        let path = entry.path();
        let shown = path.strip_prefix(tree)?.to_string_lossy().into_owned();
        let bytes = std::fs::read(path)?;
        searcher.search_slice(
            &matcher,
            &bytes,
            Lines {
                path: &shown,
                out: &mut out,
            },
        )?;
    }
    Ok(out)
}

pub fn run(rows: &mut Rows) -> Result<()> {
    let scratch = tempfile::tempdir()?;
    let tree = scratch.path().join("tree");
    make_tree(&tree)?;
    let runtime = runtime_over(&scratch.path().join("home"), &tree, "tool-grep")?;
    let grep = runtime.ledger().tool("grep").context("grep is installed")?;
    let pattern = "needle_[0-9]+";
    let args = json!({"pattern": pattern, "max_results": 100000});
    let (component, in_process) = paired_ms(
        ROUNDS,
        || {
            let out = grep
                .call(&args)
                .map_err(|e| anyhow::anyhow!("grep failed: {e}"))?;
            anyhow::ensure!(
                out.content.lines().count() == FILES / 50,
                "the component found the wrong lines"
            );
            Ok(())
        },
        || {
            let out = grep_in_process(&tree, pattern)?;
            anyhow::ensure!(
                out.lines().count() == FILES / 50,
                "the in-process search found the wrong lines"
            );
            Ok(())
        },
    )?;
    rows.push(
        Figure {
            name: "grep_20k_files_component",
            unit: "ms",
            value: component,
            baseline: Some(("ripgrep_crates_in_process", in_process)),
            goal_value: None,
            goal_ratio: Some(2.0),
        }
        .row(),
    )?;
    let single = rg(&tree, Some("1"))?;
    let multi = rg(&tree, None)?;
    for (name, baseline, value) in [
        ("grep_20k_files_component_vs_rg_j1", "rg_j1_process", single),
        (
            "grep_20k_files_component_vs_rg_all_threads",
            "rg_all_threads_process",
            multi,
        ),
    ] {
        rows.push(
            Figure {
                name,
                unit: "ms",
                value: component,
                baseline: Some((baseline, value)),
                goal_value: None,
                goal_ratio: None,
            }
            .row(),
        )?;
    }
    read_range(rows, scratch.path())
}

fn read_range(rows: &mut Rows, scratch: &Path) -> Result<()> {
    const LINES: usize = 1_000_000;
    let ws = scratch.join("big");
    std::fs::create_dir_all(&ws)?;
    let path = ws.join("big.log");
    {
        let mut out = std::io::BufWriter::new(std::fs::File::create(&path)?);
        for i in 0..LINES {
            // ~100 bytes a line: 100 MB.
            writeln!(out, "{i:>8} 2026-11-30T12:00:00Z INFO request served in {:>4} ms by worker {:>3} ok padding", i % 997, i % 64)?;
        }
    }
    let (offset, limit) = (LINES / 2, 200);
    let runtime = runtime_over(&scratch.join("home2"), &ws, "tools-fs")?;
    let read = runtime
        .ledger()
        .tool("read_file")
        .context("read_file is installed")?;
    let args = json!({"path": "big.log", "offset": offset, "limit": limit});
    let component = time_ms(ROUNDS, || {
        let out = read
            .call(&args)
            .map_err(|e| anyhow::anyhow!("read_file failed: {e}"))?;
        anyhow::ensure!(
            out.content.lines().filter(|l| !l.starts_with('[')).count() == limit,
            "wrong range"
        );
        Ok(())
    })?;
    // Native: the same work done the same way (stream line by line into
    // one reused buffer up to the range, keep the range's lines).
    let native = time_ms(ROUNDS, || {
        // The component's buffer size (1 MiB).
        let mut reader = BufReader::with_capacity(1 << 20, std::fs::File::open(&path)?);
        let mut line = Vec::new();
        let mut kept = Vec::with_capacity(limit);
        let mut number = 0;
        while number < offset + limit - 1 {
            line.clear();
            if reader.read_until(b'\n', &mut line)? == 0 {
                break;
            }
            number += 1;
            if number >= offset {
                kept.push(String::from_utf8_lossy(&line).into_owned());
            }
        }
        anyhow::ensure!(kept.len() == limit, "wrong range");
        std::hint::black_box(kept);
        Ok(())
    })?;
    rows.push(
        Figure {
            name: "read_file_range_100mb_component",
            unit: "ms",
            value: component,
            baseline: Some(("std_fs_native", native)),
            goal_value: None,
            goal_ratio: Some(2.0),
        }
        .row(),
    )
}
