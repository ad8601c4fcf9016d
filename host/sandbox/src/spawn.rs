//! The spawner: `sh -c COMMAND` in its own process group, with stdin from
//! `/dev/null`, the caller's environment allowlist (never a key), a
//! timeout that kills the whole group, output capped, and the OS sandbox
//! of the command's [`Confinement`].

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
use crate::cgroup::CommandCgroup;
use crate::child;
use crate::guard::{ProtectedChange, WorkspaceGuard};
use crate::limits::{Enforcement, Limits};
use crate::output::CappedOutput;
use crate::profile::{Confinement, Profile};
use crate::reaper::{self, Kind};

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

/// How long the output is still read once the command's group is gone: a
/// process that left the group (`setsid … &`) may hold the pipe open for
/// ever, and must not hold the run.
const OUTPUT_GRACE: Duration = Duration::from_secs(2);

/// Reads `source` into a shared capped buffer, on a thread of its own;
/// the receiver hears when the pipe closed.
fn drain(
    mut source: impl Read + Send + 'static,
    cap: usize,
) -> (Arc<Mutex<CappedOutput>>, mpsc::Receiver<()>) {
    let out = Arc::new(Mutex::new(CappedOutput::new(cap)));
    let (done, closed) = mpsc::channel();
    let sink = out.clone();
    thread::spawn(move || {
        let mut buf = [0u8; 8192];
        while let Ok(n) = source.read(&mut buf) {
            if n == 0 {
                break;
            }
            if let Ok(mut out) = sink.lock() {
                out.push(&buf[..n]);
            }
        }
        let _ = done.send(());
    });
    (out, closed)
}

/// The text read so far, waiting for the pipe to close until `until`;
/// whether it was still open.
fn collect(
    drained: Option<(Arc<Mutex<CappedOutput>>, mpsc::Receiver<()>)>,
    cap: usize,
    until: std::time::Instant,
) -> (String, bool, bool) {
    let Some((out, closed)) = drained else {
        return (String::new(), false, false);
    };
    let still_open = closed
        .recv_timeout(until.saturating_duration_since(std::time::Instant::now()))
        .is_err();
    let taken = out
        .lock()
        .map(|mut o| std::mem::replace(&mut *o, CappedOutput::new(cap)))
        .unwrap_or_else(|_| CappedOutput::new(cap));
    let (text, cut) = taken.finish();
    (text, cut, still_open)
}

/// A private temporary folder for backends that cannot mount one; removed
/// when the command ends.
pub(crate) struct PrivateTmp(PathBuf);

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
    /// Every `.git` of the workspaces it runs commands in, and what the
    /// commands did to the files other agents read (crate::guard).
    guard: Arc<WorkspaceGuard>,
    /// The guard and bubblewrap's seccomp filters are on (always, but
    /// for the benchmark that measures what they cost).
    hardened: bool,
    /// What each command may take.
    limits: Limits,
    /// Each command gets a cgroup where this machine lets amber make one
    /// (`[sandbox] cgroups`).
    cgroups: bool,
}

/// A command ready to start, and what must live until it has started or
/// ended.
pub(crate) struct Prepared {
    pub cmd: Command,
    /// The private temporary folder (if any), until the command ends.
    pub private_tmp: Option<PrivateTmp>,
    /// The seccomp filters bubblewrap reads, until it has started.
    #[cfg(target_os = "linux")]
    pub seccomp: Vec<std::os::fd::OwnedFd>,
    /// Its cgroup, which its first process joins before `exec`.
    pub cgroup: Option<Arc<CommandCgroup>>,
    /// Said to the model when the cgroup could not be made.
    pub cgroup_failed: Option<String>,
}

impl std::fmt::Debug for Spawner {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Spawner")
            .field("choice", &self.choice)
            .field("backend", &self.backend.get())
            .field("limits", &self.limits)
            .field("cgroups", &self.cgroups)
            .finish()
    }
}

impl Spawner {
    /// A spawner with this backend, found already.
    pub fn new(backend: Backend) -> Spawner {
        Spawner {
            choice: BackendChoice::Auto,
            backend: Arc::new(OnceLock::from(backend)),
            guard: Arc::default(),
            hardened: true,
            limits: Limits::default(),
            cgroups: true,
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
        Spawner {
            choice,
            backend,
            guard: Arc::default(),
            hardened: true,
            limits: Limits::default(),
            cgroups: true,
        }
    }

    /// This spawner with `limits` for every command.
    pub fn with_limits(mut self, limits: Limits) -> Spawner {
        self.limits = limits;
        self
    }

    /// This spawner with cgroups (where the machine allows) or without
    /// (`[sandbox] cgroups = false`: a process limit is then not
    /// enforced, memory is bounded per process).
    pub fn with_cgroups(mut self, cgroups: bool) -> Spawner {
        self.cgroups = cgroups;
        self
    }

    pub fn limits(&self) -> &Limits {
        &self.limits
    }

    /// The cgroups this spawner's commands get; `None` when they are off.
    pub fn cgroups(&self) -> Option<&'static crate::cgroup::Available> {
        self.cgroups.then(crate::cgroup::available)
    }

    /// How each limit is enforced on this machine, or why not.
    pub fn enforcement(&self) -> Enforcement {
        Enforcement::of(&self.limits, self.cgroups())
    }

    /// This spawner without the workspace guard and without bubblewrap's
    /// seccomp filters: the sandbox as it was before them, which the
    /// benchmark `sandbox_command_bubblewrap` measures them against.
    /// Never for a command a model or a plugin runs.
    pub fn without_guard_and_filters(mut self) -> Spawner {
        self.hardened = false;
        self
    }

    /// What commands did to guarded paths since the last call: repository
    /// hooks and settings undone, and created or changed files that other
    /// agents run things from. The end of a turn shows them.
    pub fn take_protected_changes(&self) -> Vec<ProtectedChange> {
        self.guard.take_changes()
    }

    pub fn backend(&self) -> &Backend {
        self.backend.get_or_init(|| Backend::detect(self.choice))
    }

    /// The process to start, with its sandbox. `protected`: what to bind
    /// read-only in the workspace (every `.git` the guard found), else its
    /// top `.git` and `.amber`.
    pub(crate) fn prepare(
        &self,
        spec: &CommandSpec,
        protected: Option<&[PathBuf]>,
        kind: Kind,
    ) -> Result<Prepared, SpawnError> {
        let sandbox_error = |reason: String| SpawnError::Sandbox {
            command: spec.command.to_string(),
            reason,
        };
        if let Confinement::Sandboxed(profile) = &spec.confinement {
            profile.check().map_err(sandbox_error)?;
        }
        let mut private_tmp = None;
        #[cfg(target_os = "linux")]
        let mut plan: Option<crate::landlock_seccomp::Plan> = None;
        #[cfg(target_os = "linux")]
        let mut seccomp: Vec<std::os::fd::OwnedFd> = Vec::new();
        let mut cmd = match (&spec.confinement, self.backend()) {
            (Confinement::Unsandboxed, _) => Command::new("sh"),
            (Confinement::Sandboxed(_), Backend::None(why)) => {
                return Err(sandbox_error(format!("no OS sandbox here ({why})")))
            }
            #[cfg(target_os = "linux")]
            (Confinement::Sandboxed(profile), Backend::Bubblewrap(bwrap)) => {
                let top = profile.protected();
                let protected = protected.unwrap_or(&top);
                let mut cmd = Command::new(bwrap);
                if self.hardened {
                    seccomp = crate::bwrap::seccomp_fds(profile.network).map_err(sandbox_error)?;
                    crate::bwrap::pass_filters(&mut cmd, &seccomp);
                }
                cmd.args(crate::bwrap::arguments(profile, spec.cwd, protected))
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
                private_tmp = Some(tmp);
                Command::new("sh")
            }
            (Confinement::Sandboxed(profile), Backend::Seatbelt) => {
                let tmp = PrivateTmp::new()
                    .map_err(|e| sandbox_error(format!("cannot make a private /tmp: {e}")))?;
                let mut cmd = Command::new("/usr/bin/sandbox-exec");
                cmd.arg("-p")
                    .arg(crate::seatbelt::profile_text(profile, &tmp.0))
                    .arg("sh");
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
            .stderr(Stdio::piped());
        for (key, value) in &spec.env {
            if !looks_secret(key) {
                cmd.env(key, value);
            }
        }
        if let Some(tmp) = &private_tmp {
            cmd.env("TMPDIR", &tmp.0);
        }
        let (cgroup, cgroup_failed) = match self.cgroups() {
            Some(found) => match CommandCgroup::create(found, &self.limits) {
                Ok(cgroup) => (cgroup.map(Arc::new), None),
                Err(why) => (None, Some(why)),
            },
            None => (None, None),
        };
        let join = cgroup.as_ref().map(|c| c.join_fds()).unwrap_or_default();
        let has_cgroup = cgroup.is_some();
        // A server runs for the session: CPU time is a command's bound.
        let cpu_seconds = self.limits.cpu_seconds.filter(|_| kind == Kind::Command);
        let data_bytes = self
            .limits
            .memory_bytes
            .filter(|_| !cgroup.as_ref().is_some_and(|c| c.bounds_memory()));
        // SAFETY: the closure calls only async-signal-safe functions
        // (write, setrlimit, prctl, getppid, capget/capset,
        // landlock_restrict_self, seccomp); the cgroup files were opened
        // and the Landlock ruleset and the filter built before the fork.
        let parent = std::process::id() as libc::pid_t;
        unsafe {
            cmd.pre_exec(move || {
                // In its cgroup before it can start anything.
                let in_cgroup = has_cgroup && crate::cgroup::join_in_child(&join);
                crate::limits::apply_in_child(cpu_seconds, data_bytes)?;
                // A session of its own: its own process group (so the
                // whole group can be killed) and no controlling terminal,
                // so it cannot push keystrokes into amber's (TIOCSTI).
                child::own_session()?;
                child::die_with_parent(parent)?;
                child::drop_ptrace();
                // Without a cgroup to hold them, its orphans stay in its
                // own tree while it runs (reaper.rs).
                if !in_cgroup {
                    reaper::subreaper_in_child();
                }
                #[cfg(target_os = "linux")]
                if let Some(plan) = plan.as_mut() {
                    plan.apply()?;
                }
                Ok(())
            });
        }
        Ok(Prepared {
            cmd,
            private_tmp,
            #[cfg(target_os = "linux")]
            seccomp,
            cgroup,
            cgroup_failed,
        })
    }

    /// The guard's walk before a command that may write the workspace in
    /// the OS sandbox; None when the guard has nothing to do (read mode,
    /// unsandboxed, no backend).
    fn guard_before(&self, spec: &CommandSpec) -> Option<crate::guard::Before> {
        let Confinement::Sandboxed(profile) = &spec.confinement else {
            return None;
        };
        if !profile.workspace_writable || !self.hardened {
            return None;
        }
        match self.backend() {
            Backend::Bubblewrap(_) => Some(self.guard.before(&profile.workspace, false)),
            Backend::Landlock(_) | Backend::Seatbelt => {
                Some(self.guard.before(&profile.workspace, true))
            }
            Backend::None(_) => None,
        }
    }

    /// Runs `spec` to its end, its timeout or its output cap.
    pub fn run(&self, spec: &CommandSpec) -> Result<CommandOutput, SpawnError> {
        self.run_inner(spec, None)
    }

    /// [`Self::run`] with `input` on the command's stdin (then closed):
    /// a hook's payload. Nothing else reaches its stdin.
    pub fn run_with_input(
        &self,
        spec: &CommandSpec,
        input: &[u8],
    ) -> Result<CommandOutput, SpawnError> {
        self.run_inner(spec, Some(input))
    }

    fn run_inner(
        &self,
        spec: &CommandSpec,
        input: Option<&[u8]>,
    ) -> Result<CommandOutput, SpawnError> {
        let guarded = self.guard_before(spec);
        let Prepared {
            mut cmd,
            private_tmp,
            #[cfg(target_os = "linux")]
            seccomp,
            cgroup,
            cgroup_failed,
        } = self.prepare(spec, guarded.as_ref().map(|b| &b.binds[..]), Kind::Command)?;
        if input.is_some() {
            cmd.stdin(Stdio::piped());
        }
        let started = reaper::spawn_tracked(&mut cmd, Kind::Command, cgroup.clone());
        let (mut child, handle) = started.map_err(|e| SpawnError::Start {
            command: spec.command.to_string(),
            reason: match (&spec.confinement, e.raw_os_error()) {
                // Only the errno crosses from the child: say what it was.
                (Confinement::Sandboxed(_), Some(libc::EPERM | libc::EINVAL | libc::ENOSYS)) => {
                    format!(
                        "{e}: the kernel refused the sandbox ({})",
                        self.backend().describe()
                    )
                }
                _ => e.to_string(),
            },
        })?;
        // bubblewrap has its copies of the filters now.
        #[cfg(target_os = "linux")]
        drop(seccomp);
        let pid = child.id();
        let cgroup_failed = cgroup_failed.or_else(|| not_joined(cgroup.as_deref(), pid));
        if let (Some(input), Some(mut stdin)) = (input, child.stdin.take()) {
            // On a thread of its own: a command that never reads its
            // input must not block amber on a full pipe. A command that
            // exits without reading it breaks the pipe; that is its choice.
            let input = input.to_vec();
            thread::spawn(move || {
                use std::io::Write;
                let _ = stdin.write_all(&input);
            });
        }
        let stdout = child.stdout.take().map(|s| drain(s, spec.output_cap));
        let stderr = child.stderr.take().map(|s| drain(s, spec.output_cap));
        // Told when the first process ended, which stays unreaped (and
        // its pid, the group's id, its own) until the group is killed.
        let (tx, rx) = mpsc::channel();
        thread::spawn(move || {
            reaper::wait_ended(pid);
            let _ = tx.send(());
        });
        let timed_out = rx.recv_timeout(spec.timeout).is_err();
        // Kill the group and the cgroup either way: on timeout to stop the
        // command, after a normal exit to stop what it left behind.
        reaper::kill_group(pid);
        if let Some(cgroup) = &cgroup {
            cgroup.kill();
        }
        let status = child.wait().map_err(|e| SpawnError::Wait {
            command: spec.command.to_string(),
            reason: e.to_string(),
        });
        reaper::untrack(handle);
        // What left the group (setsid, a double fork) and reached amber
        // when the command's first process ended.
        reaper::sweep();
        let hits = cgroup.as_ref().map(|c| c.hits()).unwrap_or_default();
        drop(cgroup);
        // The whole group is gone: what it did to the workspace is final,
        // and checked even when waiting for it failed.
        let changes = guarded
            .map(|before| self.guard.after(before))
            .unwrap_or_default();
        let status = status?;
        let until = std::time::Instant::now() + OUTPUT_GRACE;
        let (stdout, cut_out, open_out) = collect(stdout, spec.output_cap, until);
        let (mut stderr, cut_err, open_err) = collect(stderr, spec.output_cap, until);
        drop(private_tmp);
        if let Some(note) = crate::guard::note_for_model(&changes) {
            stderr.push('\n');
            stderr.push_str(&note);
        }
        if open_out || open_err {
            stderr.push_str(
                "\n[amber: a process the command left behind still held its output open; amber stopped reading]",
            );
        }
        if timed_out {
            stderr.push_str(&format!(
                "\n[amber: killed after the {} ms timeout]",
                spec.timeout.as_millis()
            ));
        }
        for note in crate::limits::notes(&self.limits, hits, Some(status)) {
            stderr.push('\n');
            stderr.push_str(&note);
        }
        if let Some(why) = cgroup_failed {
            stderr.push_str(&format!(
                "\n[amber: this command ran without its cgroup: {why}]"
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

/// Why the first process `pid` is not in `cgroup`, which it was to join
/// before `exec` (a v2 cgroup amber may make but not move into).
fn not_joined(cgroup: Option<&CommandCgroup>, pid: u32) -> Option<String> {
    let cgroup = cgroup?;
    (!cgroup.holds(pid)).then(|| {
        format!(
            "it could not join {}; its process and memory limits were not applied to it",
            cgroup.tail()
        )
    })
}

/// A profile's one-line summary with the backend, for approvals.
pub fn describe(spawner: &Spawner, profile: &Profile) -> String {
    format!("{} ({})", profile.describe(), spawner.backend().describe())
}
