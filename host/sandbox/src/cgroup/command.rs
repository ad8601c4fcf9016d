//! One command's cgroup: made before the command starts, joined by its
//! first process between `fork` and `exec` (so nothing it starts is ever
//! outside), killed whole when it ends, read for the limits it hit, and
//! removed.

use std::fs::File;
use std::os::fd::AsRawFd;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};

use super::{files, Available, Hierarchy};
use crate::limits::Limits;

/// What a command ran into, read from its cgroup when it ended.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct LimitHits {
    /// Forks the `pids` controller refused.
    pub processes_refused: u64,
    /// Processes the `memory` controller's OOM killer ended.
    pub memory_kills: u64,
}

/// A command's cgroup, one folder in each hierarchy it needs.
#[derive(Debug)]
pub(crate) struct CommandCgroup {
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
            folders: Vec::new(),
            procs: Vec::new(),
            pids: None,
            memory: None,
        };
        let mut wanted: Vec<&Hierarchy> = vec![tracker];
        let pids = found.pids().filter(|_| limits.processes.is_some());
        let memory = found.memory().filter(|_| limits.memory_bytes.is_some());
        for h in [pids, memory].into_iter().flatten() {
            if !wanted.contains(&h) {
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
            if Some(h) == pids {
                made.pids = Some(folder.clone());
            }
            if Some(h) == memory {
                made.memory = Some((folder, h.is_v2()));
            }
        }
        if let (Some(folder), Some(max)) = (&made.pids, limits.processes) {
            write(folder, "pids.max", &max.to_string())?;
        }
        if let (Some((folder, v2)), Some(bytes)) = (&made.memory, limits.memory_bytes) {
            let file = if *v2 { "memory.max" } else { "memory.limit_in_bytes" };
            write(folder, file, &bytes.to_string())?;
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

    /// Kills every process in it. Safe to call again, and from another
    /// thread while the command runs (an interrupt).
    pub fn kill(&self) {
        if let Some((folder, v2)) = self.folders.first() {
            files::kill_all(folder, *v2);
        }
        // A v1 hierarchy beside v2 holds the same processes: none left.
        for (folder, v2) in self.folders.iter().skip(1) {
            files::kill_all(folder, *v2);
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
/// `cgroup.procs` `fds` are. Async-signal-safe: only `write(2)`.
pub(crate) fn join_in_child(fds: &[i32]) -> std::io::Result<()> {
    for fd in fds {
        // SAFETY: write(2) of one byte from a static buffer to a
        // descriptor the parent opened and keeps open until the spawn
        // returned.
        let wrote = unsafe { libc::write(*fd, b"0".as_ptr().cast(), 1) };
        if wrote < 0 {
            return Err(std::io::Error::last_os_error());
        }
    }
    Ok(())
}
