//! The pinned Rust corpus of the index and parse rows: the crates that
//! bench/corpus/Cargo.toml pins, whose source folders `cargo xtask bench`
//! fetches and passes in `$AMBER_BENCH_CORPUS` (`name=folder`, one a line).
//! Nothing is skipped: a crate or a `src/` that is missing is an error, so
//! the figures are always of the same files.

use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};

/// The Rust files under `dir`, sorted, recursively.
pub fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) -> Result<()> {
    let entries =
        std::fs::read_dir(dir).with_context(|| format!("cannot list {}", dir.display()))?;
    let mut entries: Vec<PathBuf> = entries.flatten().map(|e| e.path()).collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            rust_files(&path, out)?;
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
    Ok(())
}

/// Copies every pinned crate's `src/` into `corpus/<name>/src`; returns
/// the number of lines.
pub fn make(corpus: &Path) -> Result<usize> {
    let listed = std::env::var("AMBER_BENCH_CORPUS").context(
        "AMBER_BENCH_CORPUS is not set: run the benchmarks with `cargo xtask bench`, \
         which fetches the pinned corpus (bench/corpus/Cargo.toml)",
    )?;
    let mut lines = 0;
    for entry in listed.lines().filter(|l| !l.trim().is_empty()) {
        let (name, dir) = entry
            .split_once('=')
            .with_context(|| format!("AMBER_BENCH_CORPUS: `{entry}` is not name=folder"))?;
        let src = Path::new(dir).join("src");
        if !src.is_dir() {
            bail!(
                "the corpus crate {name} has no sources at {}",
                src.display()
            );
        }
        let mut files = Vec::new();
        rust_files(&src, &mut files)?;
        for file in files {
            let rel = file.strip_prefix(dir)?;
            let to = corpus.join(name).join(rel);
            std::fs::create_dir_all(to.parent().context("a file has a folder")?)?;
            let text =
                std::fs::read(&file).with_context(|| format!("cannot read {}", file.display()))?;
            lines += text.iter().filter(|b| **b == b'\n').count();
            std::fs::write(to, text)?;
        }
    }
    if lines == 0 {
        bail!("the pinned corpus holds no Rust");
    }
    Ok(lines)
}
