//! One command's cgroup: made before the command starts, joined by its
//! first process between `fork` and `exec` (so nothing it starts is ever
//! outside), killed whole when it ends, read for the limits it hit, and
//! removed.

use std::fs::File;
use std::os::fd::AsRawFd;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};

use super::{files, Available, Hierarchy};
use crate::limits::{LimitHits, Limits};

/// A command's cgroup, one folder in each hierarchy it needs.
#[derive(Debug)]
pub(crate) struct CommandCgroup {
    /// `/amber-PID-START/cmd-N`: how `/proc/PID/cgroup` lines of its
    /// processes end.
    tail: String,
    /// (folder, is v2), the tracking hierarchy first.
    folders: Vec<(PathBuf, bool)>,
    /// Each folder's `cgroup.procs`, open for the child to write `0` to.
    procs: Vec<File>,
    pids: Option<PathBuf>,
    memory: Option<(PathBuf, bool)>,
}

impl CommandCgroup {
    /// Makes the cgroup of one command with `limits` (only the process
    /// count and memory are a cgroup's), in the hierarchies `found`
    /// offers. `None` when there is none to make.
    pub fn create(found: &Available, limits: &Limits) -> Result<Option<CommandCgroup>, String> {
        let Some(tracker) = found.tracker() else {
            return Ok(None);
        };
        static NEXT: AtomicU64 = AtomicU64::new(0);
        let name = format!("cmd-{}", NEXT.fetch_add(1, Ordering::Relaxed));
        let mut made = CommandCgroup {
            tail: format!(
                "/{}/{name}",
                tracker
                    .folder
                    .file_name()
                    .unwrap_or_default()
                    .to_string_lossy()
            ),
            folders: Vec::new(),
            procs: Vec::new(),
            pids: None,
            memory: None,
        };
        let mut wanted: Vec<&Hierarchy> = vec![tracker];
        let pids = found.pids().filter(|_| limits.processes.is_some());
        let memory = found.memory().filter(|_| limits.memory_bytes.is_some());
        for h in [pids, memory].into_iter().flatten() {
            // v1 pids and memory may be mounted together: one folder.
            if !wanted.iter().any(|w| w.folder == h.folder) {
                wanted.push(h);
            }
        }
        for h in wanted {
            let folder = h.folder.join(&name);
            std::fs::create_dir(&folder)
                .map_err(|e| format!("cannot make the cgroup {}: {e}", folder.display()))?;
            // From here on, dropping `made` removes it again.
            made.folders.push((folder.clone(), h.is_v2()));
            let procs = File::options()
                .write(true)
                .open(folder.join("cgroup.procs"))
                .map_err(|e| format!("cannot open {}/cgroup.procs: {e}", folder.display()))?;
            made.procs.push(procs);
            if pids.is_some_and(|p| p.folder == h.folder) {
                made.pids = Some(folder.clone());
            }
            if memory.is_some_and(|m| m.folder == h.folder) {
                made.memory = Some((folder, h.is_v2()));
            }
        }
        if let (Some(folder), Some(max)) = (&made.pids, limits.processes) {
            write(folder, "pids.max", &max.to_string())?;
        }
        if let (Some((folder, v2)), Some(bytes)) = (&made.memory, limits.memory_bytes) {
            let bytes = bytes.to_string();
            if *v2 {
                write(folder, "memory.max", &bytes)?;
                // Swapped out is not stopped: no swap beyond the cap.
                if folder.join("memory.swap.max").exists() {
                    write(folder, "memory.swap.max", "0")?;
                }
            } else {
                write(folder, "memory.limit_in_bytes", &bytes)?;
                // Memory and swap together (where swap is accounted):
                // no swap beyond the cap.
                if folder.join("memory.memsw.limit_in_bytes").exists() {
                    write(folder, "memory.memsw.limit_in_bytes", &bytes)?;
                }
            }
        }
        Ok(Some(made))
    }

    /// Whether memory is bounded here (else the spawner falls back to
    /// `RLIMIT_DATA`).
    pub fn bounds_memory(&self) -> bool {
        self.memory.is_some()
    }

    /// The descriptors the child writes its pid (`0`) to, between `fork`
    /// and `exec`. Open (and close-on-exec) for as long as `self` lives.
    pub fn join_fds(&self) -> Vec<i32> {
        self.procs.iter().map(|f| f.as_raw_fd()).collect()
    }

    /// `/amber-PID-START/cmd-N`, the end of its processes' cgroup lines.
    pub fn tail(&self) -> String {
        self.tail.clone()
    }

    /// Whether `pid` is in it: a child that could not join runs without.
    /// One that already ended cannot tell (v1 moves an exiting process to
    /// the root) and counts as in.
    pub fn holds(&self, pid: u32) -> bool {
        let ended = crate::procfs::stat_fields(pid)
            .is_none_or(|f| f.first().is_some_and(|state| state == "Z"));
        ended
            || crate::procfs::cgroups_of(pid)
                .lines()
                .any(|line| line.ends_with(&self.tail))
    }

    /// Kills every process in it and waits (bounded) until none is left.
    /// Safe to call again.
    pub fn kill(&self) {
        // Each hierarchy holds the same processes; the later ones find
        // none left, or a process that joined only there.
        for (folder, v2) in &self.folders {
            files::kill_all(folder, *v2);
        }
    }

    /// Sends every process in it SIGKILL, without waiting (an interrupt,
    /// from any thread, while the command runs).
    pub fn signal(&self) {
        for (folder, v2) in &self.folders {
            files::signal_all(folder, *v2);
        }
    }

    /// What the command ran into.
    pub fn hits(&self) -> LimitHits {
        LimitHits {
            processes_refused: self
                .pids
                .as_ref()
                .map_or(0, |f| files::keyed(f, "pids.events", "max")),
            memory_kills: match &self.memory {
                Some((f, true)) => files::keyed(f, "memory.events", "oom_kill"),
                Some((f, false)) => files::keyed(f, "memory.oom_control", "oom_kill"),
                None => 0,
            },
        }
    }
}

impl Drop for CommandCgroup {
    /// Nothing is left in it, and it is removed.
    fn drop(&mut self) {
        self.kill();
        for (folder, _) in &self.folders {
            files::remove_tree(folder);
        }
    }
}

fn write(folder: &std::path::Path, file: &str, value: &str) -> Result<(), String> {
    std::fs::write(folder.join(file), value)
        .map_err(|e| format!("cannot set {} to {value}: {e}", folder.join(file).display()))
}

/// In the child between `fork` and `exec`: joins the cgroups whose
/// `cgroup.procs` `fds` are; whether it joined them all. A refusal (a v2
/// cgroup amber may make but not move into) does not stop the command:
/// the parent sees it outside and says so. Async-signal-safe: only
/// `write(2)`.
pub(crate) fn join_in_child(fds: &[i32]) -> bool {
    let mut joined = true;
    for fd in fds {
        // SAFETY: write(2) of one byte from a static buffer to a
        // descriptor the parent opened and keeps open until the spawn
        // returned.
        let wrote = unsafe { libc::write(*fd, b"0".as_ptr().cast(), 1) };
        joined &= wrote == 1;
    }
    joined
}
