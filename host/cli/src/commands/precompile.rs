//! `amber plugin precompile`: compile every enabled plugin now, so no
//! later command waits for it. With `--into DIR` it writes a cache of its
//! own there, laid out as amber's cache is (`compiled/`, `declarations/`):
//! what `cargo xtask install` lays beside the bundled plugins, read-only,
//! so a fresh home compiles nothing and lists plugins without loading one.

use std::path::{Path, PathBuf};
use std::time::Instant;

use amber_runtime::{AmberDirs, PluginState};
use anyhow::{Context, Result};
use serde::Serialize;

use super::print_json;
use amber_app::host::{self, Host};

#[derive(Serialize)]
struct Precompiled {
    id: String,
    /// Why it could not be compiled.
    error: Option<String>,
}

#[derive(Serialize)]
struct Report {
    cache: PathBuf,
    plugins: Vec<Precompiled>,
    /// Components compiled by this run (the rest were in the cache).
    compiled_now: usize,
    bytes: u64,
    elapsed_ms: f64,
}

/// The compiled entries in a cache.
fn entries(cache: &Path) -> usize {
    amber_state::CacheDir::new(cache.join("compiled"))
        .list()
        .len()
}

/// The cache written to: `into`, else amber's own.
fn target(host: &Host, into: Option<&Path>) -> Result<(AmberDirs, bool)> {
    let mut dirs = host.dirs.clone();
    let Some(into) = into else {
        return Ok((dirs, false));
    };
    std::fs::create_dir_all(into).with_context(|| format!("cannot create {}", into.display()))?;
    dirs.cache =
        std::fs::canonicalize(into).with_context(|| format!("cannot read {}", into.display()))?;
    Ok((dirs, true))
}

pub fn run(host: &Host, into: Option<&Path>, json: bool, workspace: &Path) -> Result<()> {
    let started = Instant::now();
    let config = host.config()?;
    let (dirs, own_cache) = target(host, into)?;
    let cache = dirs.cache.clone();
    let before = entries(&cache);
    // A cache of its own is written whole: nothing is taken from the
    // install's read-only layers.
    let mut manager = host::manager_in(host, dirs, workspace, &config, None, |mut options| {
        if own_cache {
            options.prebuilt_caches.clear();
        }
        options
    })?;
    if host::bundle().found.is_none() {
        eprintln!("amber: warning: {}", host::bundle().not_found_message());
    }
    manager.load_all()?;
    for problem in manager.problems() {
        eprintln!("amber: warning: {problem}");
    }
    let runtime = manager.runtime();
    let active: Vec<String> = runtime
        .list()
        .into_iter()
        .filter(|s| s.state == PluginState::Active)
        .map(|s| s.id)
        .collect();
    let sizes: Vec<u64> = runtime
        .list()
        .iter()
        .filter(|s| active.contains(&s.id) && !runtime.is_in_cache(&s.id))
        .map(|s| std::fs::metadata(&s.source).map(|m| m.len()).unwrap_or(0))
        .collect();
    runtime.expect_compiles(sizes.len(), sizes.iter().sum());
    let plugins: Vec<Precompiled> = active
        .iter()
        .map(|id| Precompiled {
            id: id.clone(),
            error: runtime.compile_now(id).err().map(|e| e.to_string()),
        })
        .collect();
    let report = Report {
        bytes: size_of_tree(&cache),
        compiled_now: entries(&cache).saturating_sub(before),
        cache,
        plugins,
        elapsed_ms: started.elapsed().as_secs_f64() * 1000.0,
    };
    let failed: Vec<&Precompiled> = report
        .plugins
        .iter()
        .filter(|p| p.error.is_some())
        .collect();
    if json {
        print_json(&report)?;
    } else {
        println!(
            "{} ready in {} ({} compiled now, {:.1} MB), in {:.1} s",
            amber_core::text::count(report.plugins.len(), "plugin"),
            report.cache.display(),
            report.compiled_now,
            report.bytes as f64 / 1e6,
            report.elapsed_ms / 1000.0
        );
        for plugin in &failed {
            eprintln!(
                "amber: plugin `{}` did not compile: {}",
                plugin.id,
                plugin.error.as_deref().unwrap_or_default()
            );
        }
    }
    anyhow::ensure!(
        failed.is_empty(),
        "{} did not compile",
        amber_core::text::count(failed.len(), "plugin")
    );
    Ok(())
}

/// The bytes of every file under `dir`.
pub fn size_of_tree(dir: &Path) -> u64 {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return 0;
    };
    entries
        .flatten()
        .map(|entry| match entry.file_type() {
            Ok(t) if t.is_dir() => size_of_tree(&entry.path()),
            Ok(_) => entry.metadata().map(|m| m.len()).unwrap_or(0),
            Err(_) => 0,
        })
        .sum()
}
