//! What a sandboxed command costs (docs/sandbox.md): `true` through the
//! real spawner, in write mode, with this repository's own tree as the
//! workspace, so the workspace guard walks a real tree (its `target/`
//! ignored, read two levels deep) before and after each command.
//!
//! - `sandbox_command_bubblewrap` against the same spawner without the
//!   guard and without the seccomp filters (the sandbox before them):
//!   goal ≤ 1.3×, and ≤ 10 ms a command;
//! - the same against a bare `sh -c true` (no goal: what the sandbox
//!   costs in all);
//! - the Landlock backend against a bare `sh -c true` (no goal);
//! - bubblewrap with each command in a cgroup of its own (where this
//!   machine lets amber make one) against the same without cgroups (no
//!   goal: what finding and bounding a command's processes costs).

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

use amber_sandbox::{Backend, BackendChoice, CommandSpec, Confinement, Profile, Spawner};
use anyhow::{bail, Context, Result};

use crate::measure::{paired_ms, Figure, Rows};

const ROUNDS: usize = 61;

fn command_in<'a>(workspace: &'a Path) -> CommandSpec<'a> {
    CommandSpec {
        command: "true",
        cwd: workspace,
        env: vec![("PATH".into(), std::env::var_os("PATH").unwrap_or_default())],
        timeout: Duration::from_secs(30),
        output_cap: 4096,
        confinement: Confinement::Sandboxed(Profile::new(workspace, true)),
    }
}

fn once(spawner: &Spawner, workspace: &Path) -> Result<()> {
    let out = spawner.run(&command_in(workspace))?;
    if out.exit_code != Some(0) {
        bail!("`true` failed in the sandbox: {out:?}");
    }
    Ok(())
}

fn bare_sh() -> Result<()> {
    let status = Command::new("sh")
        .args(["-c", "true"])
        .stdin(Stdio::null())
        .status()
        .context("cannot run sh")?;
    if !status.success() {
        bail!("sh -c true failed");
    }
    Ok(())
}

pub fn run(rows: &mut Rows) -> Result<()> {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .context("the bench crate has no parent folder")?
        .canonicalize()?;
    let bwrap = Spawner::detect(BackendChoice::Bubblewrap);
    if !matches!(bwrap.backend(), Backend::Bubblewrap(_)) {
        bail!(
            "the sandbox rows need bubblewrap: {}",
            bwrap.backend().describe()
        );
    }
    let before = Spawner::detect(BackendChoice::Bubblewrap).without_guard_and_filters();
    let (now, then) = paired_ms(ROUNDS, || once(&bwrap, &repo), || once(&before, &repo))?;
    rows.push(
        Figure {
            name: "sandbox_command_bubblewrap",
            unit: "ms",
            value: now,
            baseline: Some(("sandbox_command_bubblewrap_without_guard_and_filters", then)),
            goal_value: Some(10.0),
            goal_ratio: Some(1.3),
        }
        .row(),
    )?;
    if bwrap
        .cgroups()
        .is_some_and(|found| found.describe() != "none")
    {
        let without = bwrap.clone().with_cgroups(false);
        let (now, then) = paired_ms(ROUNDS, || once(&bwrap, &repo), || once(&without, &repo))?;
        rows.push(
            Figure {
                name: "sandbox_command_bubblewrap_cgroup",
                unit: "ms",
                value: now,
                baseline: Some(("sandbox_command_bubblewrap_without_cgroup", then)),
                goal_value: None,
                goal_ratio: None,
            }
            .row(),
        )?;
    }
    let landlock = Spawner::detect(BackendChoice::Landlock);
    let mut against_bare = vec![("sandbox_command_bubblewrap_vs_bare_sh", &bwrap)];
    if matches!(landlock.backend(), Backend::Landlock(_)) {
        against_bare.push(("sandbox_command_landlock_vs_bare_sh", &landlock));
    }
    for (name, spawner) in against_bare {
        let (now, bare) = paired_ms(ROUNDS, || once(spawner, &repo), bare_sh)?;
        rows.push(
            Figure {
                name,
                unit: "ms",
                value: now,
                baseline: Some(("bare_sh_c_true", bare)),
                goal_value: None,
                goal_ratio: None,
            }
            .row(),
        )?;
    }
    Ok(())
}
