//! A command that keeps running: a server amber talks to over its stdin
//! and stdout (an MCP server over stdio). It starts through the same
//! [`Spawner`] as every command, so it gets the same walls: its own
//! process group and session, no controlling terminal, death with amber,
//! no ptrace of amber, the environment allowlist (never a secret), and
//! the OS sandbox when asked for. Its stderr goes to a log file, never
//! to amber's terminal. Dropping it kills its whole group.

use std::fs::File;
use std::path::Path;
use std::process::{Child, ChildStdin, ChildStdout, Stdio};

use std::sync::Arc;

use crate::cgroup::CommandCgroup;
use crate::reaper::{self, ChildHandle, Kind};
use crate::spawn::{CommandSpec, PrivateTmp, SpawnError, Spawner};

/// A running server. The spec's `timeout` and `output_cap` do not apply:
/// it runs until stopped, and speaks through its pipes.
pub struct Server {
    child: Child,
    handle: ChildHandle,
    /// Its `Child` has reaped it: its pid may be another's now.
    reaped: bool,
    stdin: Option<ChildStdin>,
    stdout: Option<ChildStdout>,
    /// Its private /tmp, when sandboxed: lives as long as it does.
    _private_tmp: Option<PrivateTmp>,
    /// Its cgroup, removed once it is stopped.
    cgroup: Option<Arc<CommandCgroup>>,
    stopped: bool,
}

impl Server {
    /// The process id, which is also its process group's.
    pub fn id(&self) -> u32 {
        self.child.id()
    }

    /// What [`crate::kill_server`] takes to kill it from elsewhere.
    pub fn handle(&self) -> ChildHandle {
        self.handle
    }

    /// Its stdin and stdout, for the protocol; `None` once taken.
    pub fn take_pipes(&mut self) -> Option<(ChildStdin, ChildStdout)> {
        Some((self.stdin.take()?, self.stdout.take()?))
    }

    /// Whether it has exited, and how (reaping it: it is no longer
    /// tracked, and its group is not killed by pid after this).
    pub fn exited(&mut self) -> Option<std::process::ExitStatus> {
        let status = self.child.try_wait().ok().flatten()?;
        self.reaped = true;
        reaper::untrack(self.handle);
        Some(status)
    }

    /// Whether it has ended, without reaping it: [`Self::stop`] still
    /// kills its group afterwards, so what it left in its group goes too.
    pub fn has_ended(&self) -> bool {
        if self.reaped {
            return true;
        }
        // SAFETY: siginfo_t is plain data, zeroed is a valid value.
        let mut info: libc::siginfo_t = unsafe { std::mem::zeroed() };
        // SAFETY: waitid on this process's own child; WNOWAIT leaves it
        // waitable, so its pid stays ours until `stop` reaps it.
        let r = unsafe {
            libc::waitid(
                libc::P_PID,
                self.child.id() as libc::id_t,
                &mut info,
                libc::WEXITED | libc::WNOHANG | libc::WNOWAIT,
            )
        };
        #[cfg(target_os = "linux")]
        // SAFETY: waitid filled `info` (or left it zeroed: no child ended).
        let pid = unsafe { info.si_pid() };
        #[cfg(not(target_os = "linux"))]
        let pid = info.si_pid;
        r == 0 && pid != 0
    }

    /// Kills its whole group and cgroup, reaps it, and kills what it
    /// left behind (a process that left its group).
    pub fn stop(&mut self) {
        if self.stopped {
            return;
        }
        self.stopped = true;
        if !self.reaped {
            reaper::kill_group(self.handle.pid);
        }
        if let Some(cgroup) = &self.cgroup {
            cgroup.kill();
        }
        if !self.reaped {
            let _ = self.child.wait();
            self.reaped = true;
            reaper::untrack(self.handle);
        }
        reaper::sweep();
        self.cgroup = None;
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.stop();
    }
}

impl Spawner {
    /// Starts `spec` as a server: stdin and stdout piped to amber, stderr
    /// appended to `stderr_log` (its folder made if missing). `given` are
    /// the variables the user gave this server by name in config: set even
    /// when they look like secrets, since that is how a key reaches the one
    /// server meant to have it (`spec.env`, the allowlist, still never
    /// passes one).
    pub fn start_server(
        &self,
        spec: &CommandSpec,
        given: &[(String, std::ffi::OsString)],
        stderr_log: &Path,
    ) -> Result<Server, SpawnError> {
        let start_error = |reason: String| SpawnError::Start {
            command: spec.command.to_string(),
            reason,
        };
        if let Some(dir) = stderr_log.parent() {
            std::fs::create_dir_all(dir)
                .map_err(|e| start_error(format!("cannot make {}: {e}", dir.display())))?;
        }
        let log = File::options()
            .create(true)
            .append(true)
            .open(stderr_log)
            .map_err(|e| start_error(format!("cannot open {}: {e}", stderr_log.display())))?;
        let crate::spawn::Prepared {
            mut cmd,
            private_tmp,
            #[cfg(target_os = "linux")]
            seccomp,
            cgroup,
            // A server's stderr is its log's; the doctor says what
            // enforces its limits.
            cgroup_failed: _,
        } = self.prepare(spec, None, Kind::Server)?;
        cmd.stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(log);
        for (key, value) in given {
            cmd.env(key, value);
        }
        let (mut child, handle) = reaper::spawn_tracked(&mut cmd, Kind::Server, cgroup.clone())
            .map_err(|e| start_error(e.to_string()))?;
        // bubblewrap has its copies of the filters now.
        #[cfg(target_os = "linux")]
        drop(seccomp);
        Ok(Server {
            stdin: child.stdin.take(),
            stdout: child.stdout.take(),
            child,
            handle,
            reaped: false,
            _private_tmp: private_tmp,
            cgroup,
            stopped: false,
        })
    }
}

#[cfg(test)]
mod tests {
    use std::io::{BufRead, BufReader, Write};
    use std::time::Duration;

    use super::*;
    use crate::backend::Backend;
    use crate::profile::Confinement;

    fn spec<'a>(command: &'a str, cwd: &'a Path) -> CommandSpec<'a> {
        CommandSpec {
            command,
            cwd,
            env: vec![
                ("PATH".into(), std::env::var_os("PATH").unwrap_or_default()),
                ("GIVEN".into(), "yes".into()),
                ("OPENAI_API_KEY".into(), "sk-never".into()),
            ],
            timeout: Duration::from_secs(1),
            output_cap: 1024,
            confinement: Confinement::Unsandboxed,
        }
    }

    #[test]
    fn a_server_speaks_over_its_pipes_logs_stderr_and_dies_with_its_handle() {
        let dir = tempfile::tempdir().unwrap();
        let log = dir.path().join("logs/server.log");
        let spawner = Spawner::new(Backend::None("not needed".into()));
        let command = "echo \"given=$GIVEN key=${OPENAI_API_KEY:-none} \
                       own=${SERVER_TOKEN:-none}\" >&2; \
                       while read line; do echo \"got $line\"; done";
        let own = [("SERVER_TOKEN".to_string(), "t-1".into())];
        let mut server = spawner
            .start_server(&spec(command, dir.path()), &own, &log)
            .unwrap();
        let pid = server.id();
        let (mut stdin, stdout) = server.take_pipes().unwrap();
        writeln!(stdin, "ping").unwrap();
        let mut line = String::new();
        BufReader::new(stdout).read_line(&mut line).unwrap();
        assert_eq!(line, "got ping\n");
        // Its own process group, as every command's.
        let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap();
        let after_name = &stat[stat.rfind(')').unwrap() + 2..];
        let pgid: u32 = after_name.split(' ').nth(2).unwrap().parse().unwrap();
        assert_eq!(pgid, pid);
        assert!(server.exited().is_none());
        drop(server);
        assert!(!Path::new(&format!("/proc/{pid}")).exists());
        // The allowlist reached it, and the token given to it by name;
        // amber's own key never did.
        let logged = std::fs::read_to_string(&log).unwrap();
        assert_eq!(logged, "given=yes key=none own=t-1\n");
    }
}
