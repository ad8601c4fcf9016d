//! `amber:plugin/exec`: runs a shell command for a plugin granted `exec`.
//!
//! `sh -c` in its own process group, stdin from /dev/null, an allowlisted
//! environment (so API keys never reach a command), cwd confined to the
//! workspace, a timeout that kills the whole group, and output capped with
//! a note saying what was cut. The time spent here does not count toward
//! the plugin's guest deadline. Before running, the policy's
//! `CommandGate` classifies the exact command and approves or denies it.

use std::collections::BTreeSet;
use std::io::Read;
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::{mpsc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use crate::bindings::amber::plugin::exec::{ExecOutput, Host};
use crate::grants::Permission;
use crate::instance::HostState;

/// What the user's config decides about commands.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExecPolicy {
    /// Variables passed through from the host's environment.
    pub env_allowlist: Vec<String>,
    pub default_timeout: Duration,
    /// Bytes kept of stdout and of stderr, each.
    pub output_cap: usize,
}

impl Default for ExecPolicy {
    fn default() -> Self {
        ExecPolicy {
            env_allowlist: ["PATH", "HOME", "LANG", "TERM", "USER"]
                .map(String::from)
                .to_vec(),
            default_timeout: Duration::from_secs(120),
            output_cap: 256 * 1024,
        }
    }
}

/// Keeps the head and the tail of a stream, and counts what was cut.
struct CappedOutput {
    head: Vec<u8>,
    tail: Vec<u8>,
    cut: usize,
    half: usize,
}

impl CappedOutput {
    fn new(cap: usize) -> Self {
        let half = cap / 2;
        CappedOutput {
            head: Vec::new(),
            tail: Vec::new(),
            cut: 0,
            half,
        }
    }

    fn push(&mut self, mut bytes: &[u8]) {
        let room = self.half.saturating_sub(self.head.len());
        let take = room.min(bytes.len());
        self.head.extend_from_slice(&bytes[..take]);
        bytes = &bytes[take..];
        self.tail.extend_from_slice(bytes);
        if self.tail.len() > self.half {
            let excess = self.tail.len() - self.half;
            self.tail.drain(..excess);
            self.cut += excess;
        }
    }

    fn finish(self) -> (String, bool) {
        let mut text = String::from_utf8_lossy(&self.head).into_owned();
        let truncated = self.cut > 0;
        if truncated {
            text.push_str(&format!(
                "\n[... {} bytes cut by amber's output cap ...]\n",
                self.cut
            ));
        }
        text.push_str(&String::from_utf8_lossy(&self.tail));
        (text, truncated)
    }
}

fn drain(mut source: impl Read + Send + 'static, cap: usize) -> thread::JoinHandle<CappedOutput> {
    thread::spawn(move || {
        let mut out = CappedOutput::new(cap);
        let mut buf = [0u8; 8192];
        while let Ok(n) = source.read(&mut buf) {
            if n == 0 {
                break;
            }
            out.push(&buf[..n]);
        }
        out
    })
}

/// The process groups of the commands running now, so an interrupted run
/// can kill them all ([`kill_running`]).
static RUNNING: Mutex<BTreeSet<u32>> = Mutex::new(BTreeSet::new());

/// Kills the whole group of every command still running (Ctrl-C): nothing
/// a plugin started outlives the run.
pub fn kill_running() -> usize {
    let running = RUNNING.lock().map(|r| r.clone()).unwrap_or_default();
    for pid in &running {
        kill_group(*pid);
    }
    running.len()
}

fn kill_group(pid: u32) {
    // SAFETY: kill(2) with a negative pid signals the process group we
    // created for this command (process_group(0) made its pid the pgid).
    unsafe {
        libc::kill(-(pid as i32), libc::SIGKILL);
    }
}

/// Runs `command` under `policy` in `cwd`; the core of the import.
pub fn run_command(
    command: &str,
    cwd: &Path,
    timeout: Duration,
    policy: &ExecPolicy,
) -> Result<ExecOutput, String> {
    let mut cmd = Command::new("sh");
    cmd.arg("-c")
        .arg(command)
        .current_dir(cwd)
        .env_clear()
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0);
    for key in &policy.env_allowlist {
        if let Some(value) = std::env::var_os(key) {
            cmd.env(key, value);
        }
    }
    let mut child = cmd
        .spawn()
        .map_err(|e| format!("cannot start `sh -c {command}`: {e}"))?;
    let pid = child.id();
    if let Ok(mut running) = RUNNING.lock() {
        running.insert(pid);
    }
    let stdout = child.stdout.take().map(|s| drain(s, policy.output_cap));
    let stderr = child.stderr.take().map(|s| drain(s, policy.output_cap));

    let (tx, rx) = mpsc::channel();
    let waiter = thread::spawn(move || {
        let status = child.wait();
        let _ = tx.send(());
        status
    });
    let timed_out = rx.recv_timeout(timeout).is_err();
    // Kill the group either way: on timeout to stop the command, after a
    // normal exit to stop stragglers that would hold the pipes open.
    kill_group(pid);
    if let Ok(mut running) = RUNNING.lock() {
        running.remove(&pid);
    }
    let status = waiter
        .join()
        .map_err(|_| "the command's waiter thread panicked".to_string())?
        .map_err(|e| format!("cannot wait for `{command}`: {e}"))?;
    let collect = |h: Option<thread::JoinHandle<CappedOutput>>| match h.map(|h| h.join()) {
        Some(Ok(out)) => out.finish(),
        _ => (String::new(), false),
    };
    let (stdout, cut_out) = collect(stdout);
    let (mut stderr, cut_err) = collect(stderr);
    if timed_out {
        stderr.push_str(&format!(
            "\n[amber: killed after the {} ms timeout]",
            timeout.as_millis()
        ));
    }
    Ok(ExecOutput {
        exit_code: if timed_out { None } else { status.code() },
        stdout,
        stderr,
        timed_out,
        truncated: cut_out || cut_err,
    })
}

impl Host for HostState {
    fn run(
        &mut self,
        command: String,
        cwd: Option<String>,
        timeout_ms: Option<u32>,
    ) -> Result<ExecOutput, String> {
        let plugin = &self.plugin;
        if !plugin.grants.has(Permission::Exec) {
            return Err(format!(
                "exec is not granted to plugin `{}`; grant it with `amber plugin grant {} exec`",
                plugin.id, plugin.id
            ));
        }
        let cwd = amber_core::confine(&plugin.workspace, cwd.as_deref().unwrap_or("."))
            .map_err(|e| format!("cwd refused: {e}"))?;
        let timeout = timeout_ms
            .map(|ms| Duration::from_millis(ms.into()))
            .unwrap_or(plugin.exec.default_timeout);
        // Waiting for the user to approve is import time too.
        let started = Instant::now();
        let approved = match &plugin.gate {
            Some(gate) => gate.check(&plugin.id, &command, &cwd),
            None => Ok(()),
        };
        let result = approved.and_then(|()| run_command(&command, &cwd, timeout, &plugin.exec));
        self.clock.add_import_time(started.elapsed());
        result
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(command: &str, timeout_ms: u64, cap: usize) -> ExecOutput {
        let policy = ExecPolicy {
            output_cap: cap,
            ..ExecPolicy::default()
        };
        let dir = std::env::temp_dir();
        run_command(command, &dir, Duration::from_millis(timeout_ms), &policy).unwrap()
    }

    #[test]
    fn returns_exit_code_and_both_streams() {
        let out = run("echo out; echo err >&2; exit 3", 10_000, 1024);
        assert_eq!(
            (out.exit_code, out.stdout.as_str(), out.stderr.as_str()),
            (Some(3), "out\n", "err\n")
        );
        assert!(!out.timed_out && !out.truncated);
    }

    #[test]
    fn the_environment_is_an_allowlist() {
        std::env::set_var("AMBER_TEST_SECRET_KEY", "sk-should-not-leak");
        let out = run("env", 10_000, 64 * 1024);
        assert!(!out.stdout.contains("sk-should-not-leak"));
        assert!(out.stdout.contains("PATH="));
    }

    #[test]
    fn stdin_is_empty() {
        let out = run("cat; echo done", 10_000, 1024);
        assert_eq!(out.stdout, "done\n");
    }

    #[test]
    fn a_timeout_kills_the_whole_group() {
        let started = Instant::now();
        let out = run("sleep 30 & sleep 30; echo never", 200, 1024);
        assert!(out.timed_out);
        assert_eq!(out.exit_code, None);
        assert!(started.elapsed() < Duration::from_secs(10));
        assert!(out.stderr.contains("timeout"));
    }

    #[test]
    fn output_is_capped_keeping_head_and_tail_with_a_note() {
        let out = run("seq 1 100000", 10_000, 1000);
        assert!(out.truncated);
        assert!(out.stdout.starts_with("1\n2\n"));
        assert!(out.stdout.ends_with("100000\n"));
        assert!(out.stdout.contains("bytes cut by amber's output cap"));
    }
}
