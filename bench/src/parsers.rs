//! The parser components and the project index against native baselines,
//! measured in the same run:
//! - `parse_rust_file_component`: the parser-rust component's outline of a
//!   large Rust file vs the same extraction code (`guests/parser-core`)
//!   compiled natively;
//! - `index_cold_56k_lines`: indexing a corpus of ≥ 56k lines of Rust with
//!   an empty outline cache vs `ctags -R` (Debian's universal-ctags) on the
//!   same files;
//! - `outline_56k_lines_native_floor`: the same outlines natively, on as
//!   many threads: what the cold index could reach with no sandbox at all;
//! - `index_warm_56k_lines`: indexing it again with nothing changed vs the
//!   same `ctags -R`.
//!
//! The corpus is copied at bench time from the sources of crates this
//! workspace builds with (cargo's registry), never committed.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;

use amber_core::Ledger;
use amber_index::{Index, LedgerParsers, Parsers};
use amber_runtime::{AmberDirs, Grants, PluginRuntime, RuntimeOptions};
use anyhow::{Context, Result};

use crate::measure::{guest, paired_ms, time_ms, Figure, Rows};

const CORPUS_LINES: usize = 56_000;
const ROUNDS: usize = 7;
/// Rounds of the single-file parse pair.
const PARSE_ROUNDS: usize = 21;
/// Crates whose `src/` make the corpus, taken in this order.
const CORPUS_CRATES: &[&str] = &["regex-syntax", "serde_json", "syn", "tokio", "hyper"];

fn cargo_registry() -> Result<PathBuf> {
    let home = std::env::var_os("CARGO_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cargo")))
        .context("neither CARGO_HOME nor HOME is set")?;
    let src = home.join("registry/src");
    let mut indexes: Vec<PathBuf> = std::fs::read_dir(&src)
        .with_context(|| format!("cannot list {}", src.display()))?
        .flatten()
        .map(|e| e.path())
        .collect();
    indexes.sort();
    indexes.pop().context("cargo's registry holds no sources")
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<PathBuf> = entries.flatten().map(|e| e.path()).collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// Copies whole crates' `src/` into `corpus` until it holds
/// [`CORPUS_LINES`]; returns the line count.
fn make_corpus(corpus: &Path) -> Result<usize> {
    let registry = cargo_registry()?;
    let mut crates: Vec<PathBuf> = std::fs::read_dir(&registry)?
        .flatten()
        .map(|e| e.path())
        .collect();
    crates.sort();
    let mut lines = 0;
    for name in CORPUS_CRATES {
        let found = crates.iter().rev().find(|c| {
            let dir = c
                .file_name()
                .map(|f| f.to_string_lossy().into_owned())
                .unwrap_or_default();
            dir.strip_prefix(name)
                .and_then(|rest| rest.strip_prefix('-'))
                .is_some_and(|v| v.starts_with(|ch: char| ch.is_ascii_digit()))
        });
        let Some(krate) = found else { continue };
        let mut files = Vec::new();
        rust_files(&krate.join("src"), &mut files);
        for file in files {
            let rel = file.strip_prefix(krate)?;
            let to = corpus.join(name).join(rel);
            std::fs::create_dir_all(to.parent().context("a file has a folder")?)?;
            let text = std::fs::read(&file)?;
            lines += text.iter().filter(|b| **b == b'\n').count();
            std::fs::write(to, text)?;
        }
        if lines >= CORPUS_LINES {
            return Ok(lines);
        }
    }
    anyhow::bail!("the registry's crates give only {lines} lines of Rust, under {CORPUS_LINES}")
}

/// One `ctags -R` over the corpus.
fn ctags(corpus: &Path, tags: &Path) -> Result<()> {
    let out = Command::new("ctags")
        .current_dir(corpus)
        .args(["-R", "-f"])
        .arg(tags)
        .arg(".")
        .output()
        .context("cannot run ctags (cargo xtask bench installs universal-ctags)")?;
    anyhow::ensure!(
        out.status.success(),
        "ctags failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    Ok(())
}

/// The largest file of the corpus.
fn largest(corpus: &Path) -> Result<String> {
    let mut files = Vec::new();
    rust_files(corpus, &mut files);
    let path = files
        .into_iter()
        .max_by_key(|f| std::fs::metadata(f).map(|m| m.len()).unwrap_or(0))
        .context("the corpus is empty")?;
    Ok(std::fs::read_to_string(path)?)
}

/// Every corpus file outlined natively, split over the machine's threads
/// as the index splits them.
fn native_outline_all(corpus: &Path) -> Result<()> {
    let mut files = Vec::new();
    rust_files(corpus, &mut files);
    let threads = std::thread::available_parallelism().map_or(2, |n| n.get());
    let chunk = files.len().div_ceil(threads).max(1);
    std::thread::scope(|scope| {
        let workers: Vec<_> = files
            .chunks(chunk)
            .map(|part| {
                scope.spawn(move || -> Result<()> {
                    let mut outliner = amber_tests::native_parsers::outliner();
                    for file in part {
                        let source = std::fs::read_to_string(file)?;
                        outliner
                            .outline("rust", &source)
                            .map_err(anyhow::Error::msg)?;
                    }
                    Ok(())
                })
            })
            .collect();
        workers
            .into_iter()
            .try_for_each(|w| w.join().map_err(|_| anyhow::anyhow!("a worker panicked"))?)
    })
}

pub fn run(rows: &mut Rows) -> Result<()> {
    let scratch = tempfile::tempdir()?;
    let corpus = scratch.path().join("corpus");
    let lines = make_corpus(&corpus)?;
    println!("parsers: corpus of {lines} lines of Rust");

    let options = RuntimeOptions::new(
        AmberDirs::under(&scratch.path().join("home")),
        corpus.clone(),
    );
    let runtime = PluginRuntime::new(options, Arc::new(Ledger::new()))?;
    let (id, _) = runtime.register_file(&guest("parser-rust")?)?;
    runtime.enable(&id, Grants::default())?;
    let ledger = runtime.ledger().clone();

    // One file, parsed by the component and natively.
    let source = largest(&corpus)?;
    let component = ledger.parser("rust").context("parser-rust is installed")?;
    let mut native = amber_tests::native_parsers::outliner();
    let expected = native
        .outline("rust", &source)
        .map_err(anyhow::Error::msg)?
        .len();
    // Paired, 21 rounds: one parse takes ~60-90 ms and the ratio sits
    // near its goal, where 7 rounds of each side in turn swung it by 0.5.
    let (wasm, native_ms) = paired_ms(
        PARSE_ROUNDS,
        || {
            let symbols = component
                .outline(&source)
                .map_err(|e| anyhow::anyhow!("{e}"))?;
            anyhow::ensure!(symbols.len() == expected, "the component's outline differs");
            Ok(())
        },
        || {
            native
                .outline("rust", &source)
                .map_err(anyhow::Error::msg)?;
            Ok(())
        },
    )?;
    rows.push(
        Figure {
            name: "parse_rust_file_component",
            unit: "ms",
            value: wasm,
            baseline: Some(("native_tree_sitter", native_ms)),
            goal_value: None,
            goal_ratio: Some(1.5),
        }
        .row(),
    )?;

    let parsers: Arc<dyn Parsers> = Arc::new(LedgerParsers::new(
        ledger,
        [("rust".to_string(), "bench".to_string())].into(),
    ));
    let tags = scratch.path().join("tags");
    let mut round = 0;
    let (cold, ctags_ms) = paired_ms(
        ROUNDS,
        || {
            round += 1;
            let cache = scratch.path().join(format!("cold-cache-{round}"));
            let (_, report) = Index::new(&corpus, parsers.as_ref(), &cache).build(&|_| {});
            anyhow::ensure!(
                report.cached == 0 && report.skipped.is_empty(),
                "a cold run: {report:?}"
            );
            Ok(())
        },
        || ctags(&corpus, &tags),
    )?;
    rows.push(
        Figure {
            name: "index_cold_56k_lines",
            unit: "ms",
            value: cold,
            baseline: Some(("ctags_R", ctags_ms)),
            goal_value: None,
            goal_ratio: Some(2.0),
        }
        .row(),
    )?;
    // The floor under the cold index: the same extraction natively, on as
    // many threads, with no walk, hashing or cache.
    let floor = time_ms(ROUNDS, || native_outline_all(&corpus))?;
    rows.push(
        Figure {
            name: "outline_56k_lines_native_floor",
            unit: "ms",
            value: floor,
            baseline: Some(("ctags_R", ctags_ms)),
            goal_value: None,
            goal_ratio: None,
        }
        .row(),
    )?;
    let warm_cache = scratch.path().join("warm-cache");
    let warm = time_ms(ROUNDS, || {
        let (_, report) = Index::new(&corpus, parsers.as_ref(), &warm_cache).build(&|_| {});
        anyhow::ensure!(report.skipped.is_empty(), "{report:?}");
        Ok(())
    })?;
    rows.push(
        Figure {
            name: "index_warm_56k_lines",
            unit: "ms",
            value: warm,
            baseline: Some(("ctags_R", ctags_ms)),
            goal_value: None,
            goal_ratio: Some(0.25),
        }
        .row(),
    )?;
    Ok(())
}
