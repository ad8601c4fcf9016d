//! The first run after an install (issue: "the first run is fast"): the
//! installed `amber` (`cargo xtask install` into a scratch prefix, which
//! the xtask names in `$AMBER_BENCH_INSTALLED`) on a fresh home, against
//! the same command warm in the same home, in alternating rounds.
//!
//! A fresh home has no cache of its own: everything it does not compute
//! comes from the precompiled cache the install laid beside the bundle.
//! Goals: `amber plugin list` ≤ 150 ms and `amber index` of this
//! repository ≤ 2 s.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

use anyhow::{ensure, Context, Result};

use crate::measure::{median, Figure, Rows};

const ROUNDS: usize = 7;

/// The installed binary, or None when the xtask did not install one.
fn installed() -> Option<PathBuf> {
    std::env::var_os("AMBER_BENCH_INSTALLED").map(PathBuf::from)
}

/// `amber ARGS` in `home`, as a user without amber's test variables.
fn amber(bin: &Path, home: &Path, workspace: &Path, args: &[&str]) -> Result<()> {
    let out = Command::new(bin)
        .args(args)
        .current_dir(workspace)
        .env("AMBER_HOME", home)
        .env_remove("AMBER_CACHE_DIR")
        .env_remove("AMBER_BUNDLE_DIR")
        .env_remove("AMBER_WORKSPACE")
        .env_remove("XDG_CACHE_HOME")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .output()
        .with_context(|| format!("cannot run {}", bin.display()))?;
    ensure!(
        out.status.success(),
        "amber {} failed: {}",
        args.join(" "),
        String::from_utf8_lossy(&out.stderr)
    );
    // A compile would say so on stderr: then the figure is not a first run
    // after an install, and the install is broken.
    let stderr = String::from_utf8_lossy(&out.stderr);
    ensure!(
        !stderr.contains("compiling"),
        "amber {} compiled on a fresh home after install: {stderr}",
        args.join(" ")
    );
    Ok(())
}

/// Medians of the command on a fresh home and again in that home (warm).
fn fresh_and_warm(bin: &Path, workspace: &Path, args: &[&str]) -> Result<(f64, f64)> {
    let scratch = tempfile::tempdir()?;
    let (mut fresh, mut warm) = (Vec::new(), Vec::new());
    let time = |home: &Path, into: &mut Vec<f64>| -> Result<()> {
        let start = Instant::now();
        amber(bin, home, workspace, args)?;
        into.push(start.elapsed().as_secs_f64() * 1e3);
        Ok(())
    };
    // One untimed round for the page cache of the binary and the bundle.
    amber(bin, &scratch.path().join("warm-up"), workspace, args)?;
    for round in 0..ROUNDS {
        let home = scratch.path().join(format!("home-{round}"));
        std::fs::create_dir_all(&home)?;
        time(&home, &mut fresh)?;
        time(&home, &mut warm)?;
    }
    Ok((median(fresh), median(warm)))
}

pub fn run(rows: &mut Rows) -> Result<()> {
    let Some(bin) = installed() else {
        eprintln!("bench: first_run skipped: AMBER_BENCH_INSTALLED is not set (cargo xtask bench sets it)");
        return Ok(());
    };
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .context("the bench crate has no parent folder")?
        .to_path_buf();
    let outside = tempfile::tempdir()?;
    let (fresh, warm) = fresh_and_warm(&bin, outside.path(), &["plugin", "list"])?;
    rows.push(
        Figure {
            name: "first_plugin_list_fresh_home_after_install",
            unit: "ms",
            value: fresh,
            baseline: Some(("plugin_list_warm", warm)),
            goal_value: Some(150.0),
            goal_ratio: None,
        }
        .row(),
    )?;
    let (fresh, warm) = fresh_and_warm(&bin, &repo, &["index"])?;
    rows.push(
        Figure {
            name: "first_index_of_this_repo_fresh_home_after_install",
            unit: "ms",
            value: fresh,
            baseline: Some(("index_of_this_repo_warm", warm)),
            goal_value: Some(2000.0),
            goal_ratio: None,
        }
        .row(),
    )?;
    Ok(())
}
