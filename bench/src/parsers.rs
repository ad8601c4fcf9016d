//! The parser components and the project index against native baselines,
//! measured in the same run, over the pinned corpus (corpus.rs):
//! - `parse_rust_file_component`: the parser-rust component's outline of
//!   the corpus's largest file vs the same extraction code
//!   (`guests/parser-core`) compiled natively, built alike (the bench
//!   profile in the root Cargo.toml);
//! - `index_cold_*_1_thread`: indexing the corpus with an empty outline
//!   cache on one worker vs one `ctags -R` (Debian's universal-ctags);
//! - `index_cold_*_N_threads`: the same on all the index's workers vs
//!   ctags run as N processes over the same file list, split evenly (what
//!   `xargs -P N` does);
//! - `outline_*_native_floor_*`: the same outlines natively on 1 and on N
//!   threads, with no walk, hashing or cache: what the cold index could
//!   reach with no sandbox at all (no goal);
//! - `index_warm_*`: indexing again with nothing changed, an absolute
//!   figure; `index_one_changed_*`: again after one file changed.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;

use amber_core::Ledger;
use amber_index::{Index, LedgerParsers, Parsers};
use amber_runtime::{AmberDirs, Grants, PluginRuntime, RuntimeOptions};
use anyhow::{Context, Result};

use crate::corpus::rust_files;
use crate::measure::{guest, paired_ms, time_ms, Figure, Rows};

const ROUNDS: usize = 7;
/// Rounds of the single-file parse pair.
const PARSE_ROUNDS: usize = 21;

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

/// `ctags` as `processes` processes at once over the corpus's files split
/// evenly, each writing its own tags file: `xargs -P` without the shell.
fn ctags_parallel(corpus: &Path, files: &[PathBuf], processes: usize, tags: &Path) -> Result<()> {
    let chunk = files.len().div_ceil(processes).max(1);
    let children: Vec<_> = files
        .chunks(chunk)
        .enumerate()
        .map(|(i, part)| {
            Command::new("ctags")
                .current_dir(corpus)
                .arg("-f")
                .arg(tags.with_extension(i.to_string()))
                .args(part)
                .stdout(std::process::Stdio::null())
                .stderr(std::process::Stdio::piped())
                .spawn()
                .context("cannot run ctags (cargo xtask bench installs universal-ctags)")
        })
        .collect::<Result<_>>()?;
    for child in children {
        let out = child.wait_with_output()?;
        anyhow::ensure!(
            out.status.success(),
            "ctags failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    Ok(())
}

/// The largest file of the corpus.
fn largest(corpus: &Path) -> Result<String> {
    let mut files = Vec::new();
    rust_files(corpus, &mut files)?;
    let path = files
        .into_iter()
        .max_by_key(|f| std::fs::metadata(f).map(|m| m.len()).unwrap_or(0))
        .context("the corpus is empty")?;
    Ok(std::fs::read_to_string(path)?)
}

/// Every corpus file outlined natively, split over `threads` threads as
/// the index splits them.
fn native_outline_all(files: &[PathBuf], threads: usize) -> Result<()> {
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
    let lines = crate::corpus::make(&corpus)?;
    let size = format!("{}k_lines", lines / 1000);
    println!("parsers: the pinned corpus holds {lines} lines of Rust");

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
    let mut files = Vec::new();
    rust_files(&corpus, &mut files)?;
    let relative: Vec<PathBuf> = files
        .iter()
        .map(|f| f.strip_prefix(&corpus).map(Path::to_path_buf))
        .collect::<Result<_, _>>()?;
    let all = Index::new(&corpus, parsers.as_ref(), scratch.path()).threads();
    let tags = scratch.path().join("tags");
    let mut round = 0;
    for threads in [1, all] {
        let cold = |round: usize| -> Result<()> {
            let cache = scratch.path().join(format!("cold-cache-{threads}-{round}"));
            let index = Index::new(&corpus, parsers.as_ref(), &cache).with_threads(threads);
            let (_, report) = index.build(&|_| {});
            anyhow::ensure!(
                report.cached == 0 && report.skipped.is_empty(),
                "a cold run: {report:?}"
            );
            Ok(())
        };
        let (label, baseline) = if threads == 1 {
            ("1_thread".to_string(), "ctags_R".to_string())
        } else {
            (
                format!("{threads}_threads"),
                format!("ctags_{threads}_processes"),
            )
        };
        let ctags_run = || {
            if threads == 1 {
                ctags(&corpus, &tags)
            } else {
                ctags_parallel(&corpus, &relative, threads, &tags)
            }
        };
        let (cold_ms, ctags_ms) = paired_ms(
            ROUNDS,
            || {
                round += 1;
                cold(round)
            },
            ctags_run,
        )?;
        rows.push(
            Figure {
                name: &format!("index_cold_{size}_{label}"),
                unit: "ms",
                value: cold_ms,
                baseline: Some((baseline.as_str(), ctags_ms)),
                goal_value: None,
                goal_ratio: Some(2.0),
            }
            .row(),
        )?;
        // The floor under the cold index: the same extraction natively,
        // on as many threads, with no walk, hashing or cache.
        let floor = time_ms(ROUNDS, || native_outline_all(&files, threads))?;
        rows.push(
            Figure {
                name: &format!("outline_{size}_native_floor_{label}"),
                unit: "ms",
                value: floor,
                baseline: Some((baseline.as_str(), ctags_ms)),
                goal_value: None,
                goal_ratio: None,
            }
            .row(),
        )?;
    }

    let warm_cache = scratch.path().join("warm-cache");
    let index = Index::new(&corpus, parsers.as_ref(), &warm_cache);
    let warm = time_ms(ROUNDS, || {
        let (_, report) = index.build(&|_| {});
        anyhow::ensure!(report.skipped.is_empty(), "{report:?}");
        Ok(())
    })?;
    rows.push(
        Figure {
            name: &format!("index_warm_{size}"),
            unit: "ms",
            value: warm,
            baseline: None,
            goal_value: Some(10.0),
            goal_ratio: None,
        }
        .row(),
    )?;
    // One file edited between runs: it alone is parsed again.
    let edited = files.first().context("the corpus is empty")?.clone();
    let original = std::fs::read_to_string(&edited)?;
    let mut edit = 0;
    let one_changed = time_ms(ROUNDS, || {
        edit += 1;
        std::fs::write(&edited, format!("{original}\n// edit {edit}\n"))?;
        let (_, report) = index.build(&|_| {});
        anyhow::ensure!(
            report.skipped.is_empty() && report.cached + 1 == files.len(),
            "one file parsed again: {report:?}"
        );
        Ok(())
    })?;
    rows.push(
        Figure {
            name: &format!("index_one_changed_{size}"),
            unit: "ms",
            value: one_changed,
            baseline: None,
            goal_value: Some(25.0),
            goal_ratio: None,
        }
        .row(),
    )?;
    Ok(())
}
