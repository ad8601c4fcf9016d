//! What checkpoints cost (docs/checkpoints.md), on a copy of this
//! repository's tracked tree committed in a git repository of its own (as
//! a user's workspace is):
//!
//! - `checkpoint_edit_turn`: a turn whose one call writes one file, the
//!   host's checkpoint work around it (keep before, compare after) with
//!   the write, against the write alone: goal ≤ 5 ms;
//! - `checkpoint_command_turn`: the walk before a command and the compare
//!   after it (a `cargo test`, whose output is ignored, changes nothing
//!   the walk sees), against `git status` on the same tree (what a
//!   git-based snapshot would ask at least): goal ≤ 50 ms;
//! - `rewind_100_files`: a code rewind of 100 changed files, against
//!   writing the same 100 files whole: goal ≤ 100 ms.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use amber_app::checkpoints::rewind::rewind_code;
use amber_app::checkpoints::store::ObjectStore;
use amber_app::checkpoints::WorkspaceCheckpoints;
use amber_core::ports::{Checkpoints, FileChange};
use anyhow::{bail, Context, Result};

use crate::measure::{median, paired_ms, Figure, Rows};

const ROUNDS: usize = 31;

fn git(dir: &Path, args: &[&str]) -> Result<()> {
    let ok = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(["-c", "user.name=bench", "-c", "user.email=bench@amber"])
        .args(args)
        .status()
        .context("cannot run git")?
        .success();
    if !ok {
        bail!("git {args:?} failed in {}", dir.display());
    }
    Ok(())
}

/// This repository's tracked files, copied to `to` and committed there.
fn copy_of_this_repository(to: &Path) -> Result<usize> {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .context("the bench crate has no parent folder")?;
    let listed = Command::new("git")
        .arg("-C")
        .arg(repo)
        .args(["ls-files", "-z"])
        .output()
        .context("cannot list the repository's files")?;
    let mut n = 0;
    for rel in listed.stdout.split(|b| *b == 0).filter(|p| !p.is_empty()) {
        let rel = Path::new(std::str::from_utf8(rel)?);
        let from = repo.join(rel);
        if !from.is_file() || from.is_symlink() {
            continue;
        }
        let dest = to.join(rel);
        if let Some(dir) = dest.parent() {
            std::fs::create_dir_all(dir)?;
        }
        std::fs::copy(&from, &dest)?;
        n += 1;
    }
    git(to, &["init", "-q"])?;
    git(to, &["add", "-A"])?;
    git(to, &["commit", "-qm", "bench"])?;
    Ok(n)
}

pub fn run(rows: &mut Rows) -> Result<()> {
    let tmp = tempfile::tempdir()?;
    let ws = tmp.path().join("ws");
    let files = copy_of_this_repository(&ws)?;
    eprintln!("checkpoints: a workspace of {files} files");
    let checkpoints = WorkspaceCheckpoints::new(
        &ws,
        ObjectStore::new(tmp.path().join("store")),
        8 << 20,
        64 << 20,
    );
    let edited: PathBuf = ws.join("README.md");
    let mut round = 0u64;
    let mut write = || -> Result<()> {
        round += 1;
        std::fs::write(&edited, format!("edit {round}\n"))?;
        Ok(())
    };
    let (turn, alone) = {
        // Beside the workspace: a write in it would be a change made
        // outside amber, found at the next turn.
        let mut write_b = {
            let edited = tmp.path().join("plain.txt");
            let mut n = 0u64;
            move || -> Result<()> {
                n += 1;
                std::fs::write(&edited, format!("plain {n}\n"))?;
                Ok(())
            }
        };
        paired_ms(
            ROUNDS,
            || {
                checkpoints.before(std::slice::from_ref(&edited), false);
                write()?;
                let (changes, _) = checkpoints.after();
                checkpoints.recorded();
                if changes.len() != 1 {
                    bail!("the edit turn recorded {changes:?}");
                }
                Ok(())
            },
            &mut write_b,
        )?
    };
    rows.push(
        Figure {
            name: "checkpoint_edit_turn",
            unit: "ms",
            value: turn,
            baseline: Some(("the_write_alone", alone)),
            goal_value: Some(5.0),
            goal_ratio: None,
        }
        .row(),
    )?;
    let status = || -> Result<()> {
        let out = Command::new("git")
            .arg("-C")
            .arg(&ws)
            .args(["status", "--porcelain"])
            .output()?;
        if !out.status.success() {
            bail!("git status failed");
        }
        Ok(())
    };
    let (command, git_status) = paired_ms(
        ROUNDS,
        || {
            checkpoints.before(&[], true);
            // What `cargo test` writes: its target folder, ignored.
            std::fs::create_dir_all(ws.join("target"))?;
            std::fs::write(ws.join("target/out"), "built")?;
            let (changes, notes) = checkpoints.after();
            checkpoints.recorded();
            if !notes.is_empty() {
                bail!("the command turn said {notes:?}");
            }
            // The edit rows leave README.md changed once, seen here.
            let _ = changes;
            Ok(())
        },
        status,
    )?;
    rows.push(
        Figure {
            name: "checkpoint_command_turn",
            unit: "ms",
            value: command,
            baseline: Some(("git_status", git_status)),
            goal_value: Some(50.0),
            goal_ratio: None,
        }
        .row(),
    )?;
    rewind_rows(rows, tmp.path())
}

/// 100 files changed after a turn, rewound; each round puts them back
/// to "after" first, untimed.
fn rewind_rows(rows: &mut Rows, dir: &Path) -> Result<()> {
    let root = dir.join("rewound");
    std::fs::create_dir_all(&root)?;
    let store = ObjectStore::new(dir.join("rewind-store"));
    let mut changes = Vec::new();
    for n in 0..100 {
        let rel = format!("src/file{n}.rs");
        let before = format!("// file {n}, before\n{}", "let x = 1;\n".repeat(200));
        let after = format!("// file {n}, after\n{}", "let y = 2;\n".repeat(200));
        let (hash_before, _) = store.put(before.as_bytes())?;
        changes.push((rel, hash_before, after));
    }
    let put_after = || -> Result<Vec<FileChange>> {
        let mut recorded = Vec::new();
        for (rel, before, after) in &changes {
            let path = root.join(rel);
            std::fs::create_dir_all(path.parent().context("a file has a folder")?)?;
            std::fs::write(&path, after)?;
            recorded.push(FileChange {
                path: rel.clone(),
                before: Some(before.clone()),
                after: Some(amber_app::checkpoints::store::hash_of(after.as_bytes())),
                not_restorable: false,
                outside: false,
            });
        }
        Ok(recorded)
    };
    let (mut rewinds, mut writes) = (Vec::new(), Vec::new());
    for round in 0..=ROUNDS {
        let recorded = put_after()?;
        let start = Instant::now();
        let done = rewind_code(&root, &store, &recorded, false)?;
        let rewind = start.elapsed().as_secs_f64() * 1e3;
        if done.restored.len() != 100 {
            bail!("the rewind restored {}", done.restored.len());
        }
        let start = Instant::now();
        for (rel, _, after) in &changes {
            amber_core::atomic::write_atomic(&root.join(rel), after.as_bytes())?;
        }
        let plain = start.elapsed().as_secs_f64() * 1e3;
        // The first round warms the page cache.
        if round > 0 {
            rewinds.push(rewind);
            writes.push(plain);
        }
    }
    rows.push(
        Figure {
            name: "rewind_100_files",
            unit: "ms",
            value: median(rewinds),
            baseline: Some(("write_100_files_atomically", median(writes))),
            goal_value: Some(100.0),
            goal_ratio: None,
        }
        .row(),
    )
}
