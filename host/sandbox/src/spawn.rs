//! The spawner: `sh -c COMMAND` in its own process group, with stdin from
//! `/dev/null`, the caller's environment allowlist (never a key), a
//! timeout that kills the whole group, output capped, and the OS sandbox
//! of the command's [`Confinement`].

use std::collections::BTreeSet;
use std::ffi::OsString;
use std::io::Read;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{mpsc, Arc, Mutex, OnceLock};
use std::thread;
use std::time::Duration;

use crate::backend::{Backend, BackendChoice};
use crate::child;
use crate::output::CappedOutput;
use crate::profile::{Confinement, Profile};

/// One command to run.
#[derive(Debug, Clone)]
pub struct CommandSpec<'a> {
    /// Run by `sh -c`.
    pub command: &'a str,
    /// Already confined to the workspace by the caller.
    pub cwd: &'a Path,
    /// The whole environment of the command (an allowlist).
    pub env: Vec<(String, OsString)>,
    pub timeout: Duration,
    /// Bytes kept of stdout and of stderr, each.
    pub output_cap: usize,
    pub confinement: Confinement,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CommandOutput {
    /// None when killed (timeout or signal).
    pub exit_code: Option<i32>,
    pub stdout: String,
    pub stderr: String,
    pub timed_out: bool,
    pub truncated: bool,
}

#[derive(Debug, thiserror::Error)]
pub enum SpawnError {
    #[error("cannot start `sh -c {command}`: {reason}")]
    Start { command: String, reason: String },
    #[error("cannot run `{command}` in the sandbox: {reason}")]
    Sandbox { command: String, reason: String },
    #[error("cannot wait for `{command}`: {reason}")]
    Wait { command: String, reason: String },
}

/// Names of variables that hold secrets: never passed to a command, even
/// when an allowlist names them (and captured out of amber's environment
/// by amber-wire at start).
pub fn looks_secret(name: &str) -> bool {
    let upper = name.to_ascii_uppercase();
    ["KEY", "TOKEN", "SECRET", "PASSWORD", "PASSWD", "CREDENTIAL"]
        .iter()
        .any(|word| upper.contains(word))
}

#[cfg(test)]
mod tests {
    use super::looks_secret;

    #[test]
    fn names_of_keys_and_tokens_look_secret_and_others_do_not() {
        for name in [
            "OPENAI_API_KEY",
            "GITHUB_TOKEN",
            "aws_secret_access_key",
            "PGPASSWORD",
        ] {
            assert!(looks_secret(name), "{name}");
        }
        for name in ["PATH", "HOME", "LANG", "GIT_AUTHOR_NAME", "TERM"] {
            assert!(!looks_secret(name), "{name}");
        }
    }
}

/// The process groups of the commands running now, so an interrupted run
/// can kill them all ([`kill_running`]).
static RUNNING: Mutex<BTreeSet<u32>> = Mutex::new(BTreeSet::new());

/// Kills the whole group of every command still running (Ctrl-C, SIGTERM):
/// nothing started for a model outlives the run. Returns how many.
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

/// A private temporary folder for backends that cannot mount one; removed
/// when the command ends.
struct PrivateTmp(PathBuf);

impl PrivateTmp {
    fn new() -> std::io::Result<PrivateTmp> {
        static NEXT: AtomicU64 = AtomicU64::new(0);
        let dir = std::env::temp_dir().join(format!(
            "amber-sandbox-{}-{}",
            std::process::id(),
            NEXT.fetch_add(1, Ordering::Relaxed)
        ));
        std::fs::create_dir(&dir)?;
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o700))?;
        Ok(PrivateTmp(dir))
    }
}

impl Drop for PrivateTmp {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Starts every command amber runs for a model or a plugin.
///
/// The backend is found on first use, not when the spawner is made:
/// finding it runs bubblewrap once (some 10–25 ms), which a command that
/// never starts a process should not pay.
#[derive(Clone)]
pub struct Spawner {
    choice: BackendChoice,
    backend: Arc<OnceLock<Backend>>,
}

impl std::fmt::Debug for Spawner {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Spawner")
            .field("choice", &self.choice)
            .field("backend", &self.backend.get())
            .finish()
    }
}

impl Spawner {
    /// A spawner with this backend, found already.
    pub fn new(backend: Backend) -> Spawner {
        Spawner {
            choice: BackendChoice::Auto,
            backend: Arc::new(OnceLock::from(backend)),
        }
    }

    /// The best sandbox of this machine that `choice` allows, found on
    /// first use and once per process per choice.
    pub fn detect(choice: BackendChoice) -> Spawner {
        static FOUND: Mutex<Vec<(BackendChoice, Arc<OnceLock<Backend>>)>> = Mutex::new(Vec::new());
        let mut found = FOUND.lock().unwrap_or_else(|e| e.into_inner());
        let backend = match found.iter().find(|(c, _)| *c == choice) {
            Some((_, backend)) => backend.clone(),
            None => {
                let backend = Arc::new(OnceLock::new());
                found.push((choice, backend.clone()));
                backend
            }
        };
        Spawner { choice, backend }
    }

    pub fn backend(&self) -> &Backend {
        self.backend.get_or_init(|| Backend::detect(self.choice))
    }

    /// The process to start, with its sandbox; the private temporary
    /// folder (if any) must live until it ends.
    fn prepare(&self, spec: &CommandSpec) -> Result<(Command, Option<PrivateTmp>), SpawnError> {
        let sandbox_error = |reason: String| SpawnError::Sandbox {
            command: spec.command.to_string(),
            reason,
        };
        let mut private_tmp = None;
        #[cfg(target_os = "linux")]
        let mut plan: Option<crate::landlock_seccomp::Plan> = None;
        let mut cmd = match (&spec.confinement, self.backend()) {
            (Confinement::Unsandboxed, _) => Command::new("sh"),
            (Confinement::Sandboxed(_), Backend::None(why)) => {
                return Err(sandbox_error(format!("no OS sandbox here ({why})")))
            }
            #[cfg(target_os = "linux")]
            (Confinement::Sandboxed(profile), Backend::Bubblewrap(bwrap)) => {
                let mut cmd = Command::new(bwrap);
                cmd.args(crate::bwrap::arguments(profile, spec.cwd))
                    .arg("sh");
                cmd
            }
            #[cfg(target_os = "linux")]
            (Confinement::Sandboxed(profile), Backend::Landlock(_)) => {
                let tmp = PrivateTmp::new()
                    .map_err(|e| sandbox_error(format!("cannot make a private /tmp: {e}")))?;
                plan = Some(
                    crate::landlock_seccomp::Plan::new(profile, &tmp.0).map_err(sandbox_error)?,
                );
                let mut cmd = Command::new("sh");
                cmd.env("TMPDIR", &tmp.0);
                private_tmp = Some(tmp);
                cmd
            }
            (Confinement::Sandboxed(profile), Backend::Seatbelt) => {
                let tmp = PrivateTmp::new()
                    .map_err(|e| sandbox_error(format!("cannot make a private /tmp: {e}")))?;
                let mut cmd = Command::new("/usr/bin/sandbox-exec");
                cmd.arg("-p")
                    .arg(crate::seatbelt::profile_text(profile, &tmp.0))
                    .arg("sh")
                    .env("TMPDIR", &tmp.0);
                private_tmp = Some(tmp);
                cmd
            }
            #[allow(unreachable_patterns)]
            (Confinement::Sandboxed(_), other) => {
                return Err(sandbox_error(format!(
                    "the {} backend does not run on this system",
                    other.describe()
                )))
            }
        };
        cmd.arg("-c")
            .arg(spec.command)
            .current_dir(spec.cwd)
            .env_clear()
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .process_group(0);
        for (key, value) in &spec.env {
            if !looks_secret(key) {
                cmd.env(key, value);
            }
        }
        if let Some(tmp) = &private_tmp {
            cmd.env("TMPDIR", &tmp.0);
        }
        // SAFETY: the closure calls only async-signal-safe functions
        // (prctl, getppid, capget/capset, landlock_restrict_self, seccomp);
        // the Landlock ruleset and the filter were built before the fork.
        let parent = std::process::id() as libc::pid_t;
        unsafe {
            cmd.pre_exec(move || {
                child::die_with_parent(parent)?;
                child::drop_ptrace();
                #[cfg(target_os = "linux")]
                if let Some(plan) = plan.as_mut() {
                    plan.apply()?;
                }
                Ok(())
            });
        }
        Ok((cmd, private_tmp))
    }

    /// Runs `spec` to its end, its timeout or its output cap.
    pub fn run(&self, spec: &CommandSpec) -> Result<CommandOutput, SpawnError> {
        let (mut cmd, private_tmp) = self.prepare(spec)?;
        let mut child = cmd.spawn().map_err(|e| SpawnError::Start {
            command: spec.command.to_string(),
            reason: e.to_string(),
        })?;
        let pid = child.id();
        if let Ok(mut running) = RUNNING.lock() {
            running.insert(pid);
        }
        let stdout = child.stdout.take().map(|s| drain(s, spec.output_cap));
        let stderr = child.stderr.take().map(|s| drain(s, spec.output_cap));
        let (tx, rx) = mpsc::channel();
        let waiter = thread::spawn(move || {
            let status = child.wait();
            let _ = tx.send(());
            status
        });
        let timed_out = rx.recv_timeout(spec.timeout).is_err();
        // Kill the group either way: on timeout to stop the command, after
        // a normal exit to stop stragglers that would hold the pipes open.
        kill_group(pid);
        if let Ok(mut running) = RUNNING.lock() {
            running.remove(&pid);
        }
        let wait_error = |reason: String| SpawnError::Wait {
            command: spec.command.to_string(),
            reason,
        };
        let status = waiter
            .join()
            .map_err(|_| wait_error("the waiter thread panicked".into()))?
            .map_err(|e| wait_error(e.to_string()))?;
        let collect = |h: Option<thread::JoinHandle<CappedOutput>>| match h.map(|h| h.join()) {
            Some(Ok(out)) => out.finish(),
            _ => (String::new(), false),
        };
        let (stdout, cut_out) = collect(stdout);
        let (mut stderr, cut_err) = collect(stderr);
        drop(private_tmp);
        if timed_out {
            stderr.push_str(&format!(
                "\n[amber: killed after the {} ms timeout]",
                spec.timeout.as_millis()
            ));
        }
        Ok(CommandOutput {
            exit_code: if timed_out { None } else { status.code() },
            stdout,
            stderr,
            timed_out,
            truncated: cut_out || cut_err,
        })
    }
}

/// A profile's one-line summary with the backend, for approvals.
pub fn describe(spawner: &Spawner, profile: &Profile) -> String {
    format!("{} ({})", profile.describe(), spawner.backend().describe())
}
