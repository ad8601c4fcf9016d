//! Nothing amber starts outlives it.
//!
//! A command's process group is not enough: a process that calls `setsid`
//! leaves it, and one whose parent exits (a double fork) is handed to
//! init. So amber is a child subreaper (`PR_SET_CHILD_SUBREAPER`): an
//! orphan of anything it started is handed to amber instead, and each
//! command's own first process (`sh`, or bubblewrap) is a subreaper too,
//! so a command's orphans stay inside its tree while it runs and reach
//! amber only when it ends. When a command ends, then, every child of
//! amber in a session other than amber's own that the spawner did not
//! start itself is what some ended command left behind: [`sweep`] kills
//! and reaps exactly those, by pid, so a [`std::process::Child`] anywhere
//! in amber still gets its own child's status from `wait`.
//!
//! The spawner's own children (commands and servers, each the leader of
//! its own session) are [tracked](track) from before they can be seen
//! until their `Child` has reaped them, and with them their cgroups, so
//! an interrupt ([`kill_running`]) and amber's exit ([`shutdown`]) reach
//! every process they made.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, RwLock};
use std::time::{Duration, Instant};

use crate::cgroup::CommandCgroup;

/// What a tracked child is: a command belongs to a turn and dies with an
/// interrupt; a server belongs to the session.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    Command,
    Server,
}

struct Tracked {
    kind: Kind,
    cgroup: Option<Arc<CommandCgroup>>,
}

/// The spawner's children not yet reaped, by pid (which is also their
/// process group's and session's id).
static TRACKED: Mutex<BTreeMap<u32, Tracked>> = Mutex::new(BTreeMap::new());

/// Held (shared) from a fork until its child is tracked, and (alone)
/// while [`sweep`] picks what to kill: between its `setsid` and being
/// tracked, a new child would look like an orphan.
static SPAWNING: RwLock<()> = RwLock::new(());

/// Makes amber a child subreaper; whether the kernel took it. Call once,
/// first thing: orphans made before it go to init.
pub fn become_subreaper() -> bool {
    #[cfg(target_os = "linux")]
    // SAFETY: prctl with integer arguments only.
    unsafe {
        libc::prctl(libc::PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0
    }
    #[cfg(not(target_os = "linux"))]
    false
}

/// What [`on_start`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Started {
    /// amber is a child subreaper.
    pub subreaper: bool,
    /// Processes left in the cgroups of an amber that was killed, killed
    /// now.
    pub stale_killed: usize,
}

/// What the binary does first: become a subreaper, and kill what an
/// amber killed with `kill -9` left in its cgroups.
pub fn on_start() -> Started {
    Started {
        subreaper: become_subreaper(),
        stale_killed: crate::cgroup::reap_stale(),
    }
}

/// Whether amber is a child subreaper now.
pub fn is_subreaper() -> bool {
    #[cfg(target_os = "linux")]
    {
        let mut flag: libc::c_int = 0;
        // SAFETY: PR_GET_CHILD_SUBREAPER writes one int through the
        // pointer, which points at a live local.
        let got = unsafe {
            libc::prctl(
                libc::PR_GET_CHILD_SUBREAPER,
                &mut flag as *mut libc::c_int,
                0,
                0,
                0,
            )
        };
        got == 0 && flag != 0
    }
    #[cfg(not(target_os = "linux"))]
    false
}

/// In a forked child before `exec`: this process becomes the subreaper of
/// what it starts, so the command's orphans stay in its own tree while it
/// runs. Async-signal-safe.
pub(crate) fn subreaper_in_child() {
    #[cfg(target_os = "linux")]
    // SAFETY: prctl with integer arguments only.
    unsafe {
        libc::prctl(libc::PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
    }
}

/// Starts `cmd` and tracks its child, atomically for [`sweep`].
pub(crate) fn spawn_tracked(
    cmd: &mut std::process::Command,
    kind: Kind,
    cgroup: Option<Arc<CommandCgroup>>,
) -> std::io::Result<std::process::Child> {
    let _spawning = SPAWNING.read().unwrap_or_else(|e| e.into_inner());
    let child = cmd.spawn()?;
    lock_tracked().insert(child.id(), Tracked { kind, cgroup });
    Ok(child)
}

/// Forgets a child its `Child` has reaped.
pub(crate) fn untrack(pid: u32) {
    lock_tracked().remove(&pid);
}

fn lock_tracked() -> std::sync::MutexGuard<'static, BTreeMap<u32, Tracked>> {
    TRACKED.lock().unwrap_or_else(|e| e.into_inner())
}

/// Kills the server `pid` (a [`crate::Server`]'s id) with its group and
/// cgroup, from wherever its handle is: a hub that is going away while a
/// start is still under way holds no handle yet. Nothing when `pid` is
/// not a running server's.
pub fn kill_server(pid: u32) {
    let is_server = lock_tracked()
        .get(&pid)
        .is_some_and(|t| t.kind == Kind::Server);
    if is_server {
        kill_tracked(pid);
    }
}

/// Kills the process group and the cgroup of `pid`, a tracked child.
pub(crate) fn kill_tracked(pid: u32) {
    let cgroup = lock_tracked().get(&pid).and_then(|t| t.cgroup.clone());
    kill_group(pid);
    if let Some(cgroup) = cgroup {
        cgroup.kill();
    }
}

pub(crate) fn kill_group(pid: u32) {
    // SAFETY: kill(2) with a negative pid signals the process group the
    // spawner created for this child (its setsid made its pid the pgid).
    unsafe {
        libc::kill(-(pid as i32), libc::SIGKILL);
    }
}

/// Kills every command still running, with its process group and cgroup
/// (Ctrl-C, SIGTERM): nothing started for a model outlives the turn.
/// Servers are the session's and stay. Returns how many.
pub fn kill_running() -> usize {
    kill_kind(Some(Kind::Command))
}

fn kill_kind(kind: Option<Kind>) -> usize {
    let targets: Vec<(u32, Option<Arc<CommandCgroup>>)> = lock_tracked()
        .iter()
        .filter(|(_, t)| kind.is_none_or(|k| t.kind == k))
        .map(|(pid, t)| (*pid, t.cgroup.clone()))
        .collect();
    for (pid, cgroup) in &targets {
        kill_group(*pid);
        if let Some(cgroup) = cgroup {
            cgroup.kill();
        }
    }
    targets.len()
}

/// amber is leaving: every command and server, their groups and cgroups,
/// and every orphan they left are killed, and amber's cgroup folders
/// removed. Called on every way out of the binary.
pub fn shutdown() {
    kill_kind(None);
    sweep();
    crate::cgroup::remove_own();
}

/// How long [`sweep`] waits for the orphans it killed to be reapable.
const SWEEP_WAIT: Duration = Duration::from_secs(2);

/// Kills and reaps what ended commands left behind: each child of amber
/// (handed over as an orphan, amber being a subreaper) that the spawner
/// did not start and that is not in amber's own session. Their children
/// come to amber in turn and are taken in the next round. Returns how
/// many it killed.
pub(crate) fn sweep() -> usize {
    let deadline = Instant::now() + SWEEP_WAIT;
    let mut killed = 0;
    loop {
        let orphans = {
            let _alone = SPAWNING.write().unwrap_or_else(|e| e.into_inner());
            let tracked = lock_tracked();
            let orphans: Vec<u32> = own_children()
                .into_iter()
                .filter(|pid| !tracked.contains_key(pid))
                .filter(|pid| session_of(*pid).is_some_and(|sid| sid != own_session()))
                .collect();
            for pid in &orphans {
                // SAFETY: the pid is an unreaped child of amber, so it
                // cannot have been reused; signalling it is harmless
                // if it is already a zombie.
                unsafe {
                    libc::kill(*pid as i32, libc::SIGKILL);
                }
            }
            orphans
        };
        if orphans.is_empty() {
            return killed;
        }
        killed += orphans.len();
        for pid in orphans {
            reap(pid, deadline);
        }
        if Instant::now() >= deadline {
            return killed;
        }
    }
}

/// Waits (until `deadline`) for the child `pid` to end, and reaps it.
fn reap(pid: u32, deadline: Instant) {
    let mut pause = Duration::from_micros(200);
    loop {
        let mut status = 0;
        // SAFETY: waitpid on one pid of amber's own children, with a
        // pointer to a live local.
        let got = unsafe { libc::waitpid(pid as i32, &mut status, libc::WNOHANG) };
        if got != 0 || Instant::now() >= deadline {
            return;
        }
        std::thread::sleep(pause);
        pause = (pause * 2).min(Duration::from_millis(20));
    }
}

fn own_session() -> i32 {
    // SAFETY: getsid(0) takes no pointer.
    unsafe { libc::getsid(0) }
}

/// The children of amber, from every thread's `children` list (a child
/// belongs to the thread that forked it, an orphan to any of them).
fn own_children() -> Vec<u32> {
    let mut pids = Vec::new();
    let Ok(tasks) = std::fs::read_dir("/proc/self/task") else {
        return pids;
    };
    for task in tasks.flatten() {
        if let Ok(text) = std::fs::read_to_string(task.path().join("children")) {
            pids.extend(text.split_whitespace().filter_map(|p| p.parse::<u32>().ok()));
        }
    }
    pids.sort_unstable();
    pids.dedup();
    pids
}

/// The session id of a process, from `/proc/PID/stat` (a zombie's too).
fn session_of(pid: u32) -> Option<i32> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // "pid (comm) state ppid pgrp session …": comm may hold spaces and
    // parentheses, so count from the last ')'.
    let rest = &stat[stat.rfind(')')? + 1..];
    rest.split_whitespace().nth(3)?.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_session_is_read_after_the_name_whatever_the_name_holds() {
        let pid = std::process::id();
        assert_eq!(session_of(pid), Some(own_session()));
        assert_eq!(session_of(u32::MAX), None);
    }
}
