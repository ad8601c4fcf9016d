//! The peak resident set of a whole run of another program, measured
//! honestly: by a small helper process (this binary, run again) that
//! starts the program and reads its rusage with `wait4`.
//!
//! Why not `wait4` from the bench itself: Linux carries a process's peak
//! RSS across `exec`, and a child spawned by a process shares (vfork) or
//! copies (fork) that process's memory until it execs, so the child's
//! `ru_maxrss` is at least the spawner's resident set. The bench, after
//! the TUI rows have built big sessions, holds about 50 MiB: every run it
//! spawned reported at least that. The helper holds a few MiB when it
//! spawns, below any agent's own peak, so the figure is the program's.

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Instant;

use anyhow::{bail, ensure, Context, Result};
use serde_json::json;

/// Set (to the file the helper writes its figures to) when this binary
/// runs as the helper; its arguments are then the program and its own.
const HELPER: &str = "AMBER_BENCH_RUSAGE_OF";

/// What one run took: its wall time (spawn to exit), the largest resident
/// set of it and the children it waited for, and its exit code (-1 when
/// a signal ended it).
pub struct Usage {
    pub wall_ms: f64,
    pub peak_kib: u64,
    pub code: i32,
}

/// When this process is the helper: runs the program, writes its usage.
pub fn helper() -> Option<Result<()>> {
    let out = std::env::var_os(HELPER)?;
    Some(run_as_helper(Path::new(&out)))
}

fn run_as_helper(out: &Path) -> Result<()> {
    let mut args = std::env::args_os().skip(1);
    let program = args.next().context("the rusage helper got no program")?;
    let start = Instant::now();
    let child = Command::new(&program)
        .args(args)
        .env_remove(HELPER)
        .spawn()
        .with_context(|| format!("cannot start {}", program.to_string_lossy()))?;
    let pid = child.id() as libc::pid_t;
    let mut status = 0;
    // SAFETY: wait4 writes the status and the rusage it is given; the
    // child is ours and not waited for elsewhere (std's handle is dropped
    // without a wait).
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    let waited = loop {
        let waited = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
        let interrupted =
            waited < 0 && std::io::Error::last_os_error().kind() == std::io::ErrorKind::Interrupted;
        if !interrupted {
            break waited;
        }
    };
    let wall_ms = start.elapsed().as_secs_f64() * 1e3;
    if waited != pid {
        let error = std::io::Error::last_os_error();
        let mut child = child;
        let _ = child.kill();
        let _ = child.wait();
        bail!("wait4 failed: {error}");
    }
    drop(child);
    let code = if libc::WIFEXITED(status) {
        libc::WEXITSTATUS(status)
    } else {
        -1
    };
    let figures = json!({"wall_ms": wall_ms, "peak_kib": usage.ru_maxrss.max(0), "code": code});
    std::fs::write(out, figures.to_string())
        .with_context(|| format!("cannot write {}", out.display()))
}

/// Runs `cmd` through the helper, its standard output into `out` and its
/// errors beside it. Only the command's own environment is passed on:
/// the commands measured here all start from an empty one.
pub fn measured(cmd: &Command, out: &Path) -> Result<Usage> {
    let figures = out.with_extension("usage");
    let _ = std::fs::remove_file(&figures);
    let mut helper = Command::new(std::env::current_exe()?);
    helper
        .arg(cmd.get_program())
        .args(cmd.get_args())
        .env_clear()
        .envs(cmd.get_envs().filter_map(|(k, v)| Some((k, v?))))
        .env(HELPER, &figures)
        .stdin(Stdio::null())
        .stdout(std::fs::File::create(out)?)
        .stderr(std::fs::File::create(out.with_extension("err"))?);
    if let Some(dir) = cmd.get_current_dir() {
        helper.current_dir(dir);
    }
    let status = helper.status().context("cannot start the rusage helper")?;
    ensure!(
        status.success(),
        "the rusage helper failed ({status}); see {}",
        out.with_extension("err").display()
    );
    let text = std::fs::read_to_string(&figures)
        .with_context(|| format!("the rusage helper wrote no {}", figures.display()))?;
    let value: serde_json::Value = serde_json::from_str(&text)?;
    Ok(Usage {
        wall_ms: value["wall_ms"].as_f64().context("no wall_ms")?,
        peak_kib: value["peak_kib"].as_u64().context("no peak_kib")?,
        code: value["code"].as_i64().unwrap_or(-1) as i32,
    })
}
