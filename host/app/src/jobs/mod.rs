//! Background processes (docs/tools.md, "Background processes"): a dev
//! server or a test watcher the model starts with `process_start` and
//! reads while it goes on working. Each is a command like `shell`'s,
//! checked by the same policy on the exact line and started by the one
//! spawner in the same sandbox, but run as a server: it keeps running
//! after the call, in its own process group, its output (stdout and
//! stderr together) kept in a capped ring. Ctrl-C interrupts the turn and
//! leaves it running; `/jobs stop`, the session's end and amber's exit
//! stop it with its whole process tree.

mod ring;
pub mod tools;

use std::collections::BTreeMap;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use amber_core::ports::CommandPermit;
use amber_runtime::imports::exec::ExecPolicy;
use amber_sandbox::{CommandSpec, Server};
use serde::Serialize;

pub use ring::Chunk;
use ring::Ring;

/// Output kept per job.
pub const RING_BYTES: usize = 256 * 1024;
/// Jobs running at once.
pub const MAX_RUNNING: usize = 16;

struct Job {
    command: String,
    cwd: PathBuf,
    pid: u32,
    server: Server,
    ring: Arc<Mutex<Ring>>,
    /// Set once it has ended: its exit code (`None`: killed by a signal).
    ended: Option<Option<i32>>,
    stopped: bool,
}

impl Job {
    /// Whether it still runs, noting its end the first time it is seen.
    fn running(&mut self) -> bool {
        if self.ended.is_none() {
            if let Some(status) = self.server.exited() {
                self.ended = Some(status.code());
            }
        }
        self.ended.is_none()
    }

    fn info(&mut self, id: u32, tail: usize) -> JobInfo {
        let running = self.running();
        JobInfo {
            id,
            command: self.command.clone(),
            cwd: self.cwd.display().to_string(),
            pid: self.pid,
            running,
            exit_code: self.ended.flatten(),
            stopped: self.stopped,
            tail: self.ring.lock().map(|r| r.tail(tail)).unwrap_or_default(),
        }
    }
}

/// A job as `process_list` and `/jobs` show it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct JobInfo {
    pub id: u32,
    pub command: String,
    pub cwd: String,
    pub pid: u32,
    pub running: bool,
    /// Once ended: its exit code (none when a signal ended it).
    pub exit_code: Option<i32>,
    /// Ended by `process_stop` or `/jobs stop`.
    pub stopped: bool,
    /// Its last lines.
    pub tail: Vec<String>,
}

impl JobInfo {
    /// How it stands, as `process_list` and `/jobs` say it.
    pub fn state(&self) -> String {
        match (self.running, self.stopped, self.exit_code) {
            (true, _, _) => "running".to_string(),
            (false, true, _) => "stopped".to_string(),
            (false, false, Some(code)) => format!("exited with {code}"),
            (false, false, None) => "killed by a signal".to_string(),
        }
    }
}

/// What a read gave: the output since the offset asked, and the state.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JobRead {
    pub chunk: Chunk,
    pub running: bool,
    pub exit_code: Option<i32>,
}

/// A session's jobs.
pub struct Jobs {
    jobs: Mutex<BTreeMap<u32, Job>>,
    next: Mutex<u32>,
    exec: ExecPolicy,
    workspace: PathBuf,
    /// Where each job's start-up errors (before its output is joined to
    /// stdout) are logged.
    logs: PathBuf,
}

impl Jobs {
    pub fn new(exec: ExecPolicy, workspace: &Path, logs: PathBuf) -> Arc<Jobs> {
        Arc::new(Jobs {
            jobs: Mutex::new(BTreeMap::new()),
            next: Mutex::new(1),
            exec,
            workspace: workspace.to_path_buf(),
            logs,
        })
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, BTreeMap<u32, Job>> {
        self.jobs.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Starts `command` in `cwd` (already confined) as `permit` allows.
    pub fn start(
        &self,
        command: &str,
        cwd: &Path,
        permit: &CommandPermit,
    ) -> Result<JobInfo, String> {
        let running = self.running();
        if running >= MAX_RUNNING {
            return Err(format!(
                "{running} background processes run already (at most {MAX_RUNNING}); stop one with process_stop"
            ));
        }
        let id = {
            let mut next = self.next.lock().unwrap_or_else(|e| e.into_inner());
            let id = *next;
            *next += 1;
            id
        };
        // Its stderr joins its stdout, in the order written.
        let joined = format!("exec 2>&1\n{command}");
        let spec = CommandSpec {
            command: &joined,
            cwd,
            env: self.exec.environment(),
            timeout: Duration::MAX,
            output_cap: self.exec.output_cap,
            confinement: self.exec.confinement(&self.workspace, permit),
        };
        let log = self.logs.join(format!("job-{id}.log"));
        let mut server = self
            .exec
            .spawner
            .start_server(&spec, &[], &log)
            .map_err(|e| e.to_string())?;
        let ring = Arc::new(Mutex::new(Ring::new(RING_BYTES)));
        if let Some((stdin, mut stdout)) = server.take_pipes() {
            // Nothing is typed to a background process: its stdin ends.
            drop(stdin);
            let ring = ring.clone();
            std::thread::spawn(move || {
                let mut buf = [0u8; 8192];
                loop {
                    match stdout.read(&mut buf) {
                        Ok(0) => break,
                        Ok(n) => {
                            if let Ok(mut ring) = ring.lock() {
                                ring.push(&buf[..n]);
                            }
                        }
                        Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                        Err(_) => break,
                    }
                }
            });
        }
        let mut job = Job {
            command: command.to_string(),
            cwd: cwd.to_path_buf(),
            pid: server.id(),
            server,
            ring,
            ended: None,
            stopped: false,
        };
        let info = job.info(id, 0);
        self.lock().insert(id, job);
        Ok(info)
    }

    /// The output of job `id` since offset `since`.
    pub fn read(&self, id: u32, since: u64) -> Result<JobRead, String> {
        let mut jobs = self.lock();
        let job = jobs.get_mut(&id).ok_or_else(|| unknown(id))?;
        let running = job.running();
        let chunk = job
            .ring
            .lock()
            .map(|r| r.read(since))
            .map_err(|_| format!("job {id}'s output could not be read"))?;
        Ok(JobRead {
            chunk,
            running,
            exit_code: job.ended.flatten(),
        })
    }

    /// Stops job `id` with its whole process tree; its output stays
    /// readable.
    pub fn stop(&self, id: u32) -> Result<JobInfo, String> {
        // Out of the list while it is stopped: stopping waits for its
        // tree to go, and the list stays free meanwhile.
        let mut job = self.lock().remove(&id).ok_or_else(|| unknown(id))?;
        if job.running() {
            job.server.stop();
            job.stopped = true;
            job.ended = Some(None);
        }
        let info = job.info(id, 5);
        self.lock().insert(id, job);
        Ok(info)
    }

    /// Stops every job still running; returns how many.
    pub fn stop_all(&self) -> usize {
        let ids: Vec<u32> = self
            .lock()
            .iter_mut()
            .filter_map(|(id, j)| j.running().then_some(*id))
            .collect();
        for id in &ids {
            let _ = self.stop(*id);
        }
        ids.len()
    }

    /// Every job, with its last `tail` lines.
    pub fn list(&self, tail: usize) -> Vec<JobInfo> {
        self.lock()
            .iter_mut()
            .map(|(id, job)| job.info(*id, tail))
            .collect()
    }

    /// How many run now (the TUI's status line).
    pub fn running(&self) -> usize {
        self.lock()
            .values_mut()
            .map(Job::running)
            .filter(|r| *r)
            .count()
    }
}

impl Drop for Jobs {
    /// The session ends: its jobs end with it.
    fn drop(&mut self) {
        self.stop_all();
    }
}

fn unknown(id: u32) -> String {
    format!("no background process {id} (process_list shows them)")
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Instant;

    fn jobs(dir: &Path) -> Arc<Jobs> {
        Jobs::new(ExecPolicy::default(), dir, dir.join("logs"))
    }

    /// The sandbox where this machine has one, as `shell` would run.
    fn permit(jobs: &Jobs) -> CommandPermit {
        CommandPermit {
            unsandboxed: !jobs.exec.spawner.backend().is_available(),
            workspace_writable: true,
            ..CommandPermit::default()
        }
    }

    fn alive(pid: u32) -> bool {
        std::path::Path::new(&format!("/proc/{pid}")).exists()
            && !std::fs::read_to_string(format!("/proc/{pid}/stat"))
                .unwrap_or_default()
                .contains(") Z ")
    }

    fn until(what: impl Fn() -> bool) -> bool {
        let start = Instant::now();
        while start.elapsed() < Duration::from_secs(10) {
            if what() {
                return true;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        false
    }

    #[test]
    fn a_job_runs_on_reads_only_what_is_new_and_stops_with_its_tree() {
        let dir = tempfile::tempdir().unwrap();
        let jobs = jobs(dir.path());
        let info = jobs
            .start(
                "i=0; while true; do i=$((i+1)); echo line $i; sleep 0.1; done",
                dir.path(),
                &permit(&jobs),
            )
            .unwrap();
        assert!(info.running);
        assert!(until(|| jobs
            .read(info.id, 0)
            .unwrap()
            .chunk
            .text
            .contains("line 2")));
        let first = jobs.read(info.id, 0).unwrap();
        assert!(
            first.chunk.text.starts_with("line 1\n"),
            "{:?}",
            first.chunk.text
        );
        assert!(until(|| jobs
            .read(info.id, first.chunk.next)
            .unwrap()
            .chunk
            .text
            .contains("line")));
        let second = jobs.read(info.id, first.chunk.next).unwrap();
        assert!(
            !second.chunk.text.contains("line 1\n"),
            "{:?}",
            second.chunk.text
        );
        assert!(second.running);
        let stopped = jobs.stop(info.id).unwrap();
        assert!(!stopped.running && stopped.stopped);
        assert!(until(|| !alive(info.pid)), "pid {} still runs", info.pid);
        // Its output stays readable; an unknown id is named.
        assert!(jobs.read(info.id, 0).unwrap().chunk.text.contains("line 1"));
        assert!(jobs
            .read(99, 0)
            .unwrap_err()
            .contains("no background process 99"));
    }

    #[test]
    fn a_flood_stays_within_the_ring_and_dropping_the_jobs_stops_them() {
        let dir = tempfile::tempdir().unwrap();
        let jobs = jobs(dir.path());
        let flood = jobs
            .start(
                "yes flood | head -c 3000000; sleep 30",
                dir.path(),
                &permit(&jobs),
            )
            .unwrap();
        assert!(until(
            || jobs.read(flood.id, 0).unwrap().chunk.next >= 3_000_000
        ));
        let read = jobs.read(flood.id, 0).unwrap();
        assert!(read.chunk.text.len() <= RING_BYTES);
        assert_eq!(read.chunk.dropped, 3_000_000 - RING_BYTES as u64);
        let sleeper = jobs.start("sleep 60", dir.path(), &permit(&jobs)).unwrap();
        assert_eq!(jobs.running(), 2);
        drop(jobs);
        assert!(until(|| !alive(sleeper.pid) && !alive(flood.pid)));
    }
}
