//! Nothing amber starts outlives it.
//!
//! A command's process group is not enough: a process that calls `setsid`
//! leaves it, and one whose parent exits (a double fork) is handed to
//! init. So amber becomes a child subreaper (`PR_SET_CHILD_SUBREAPER`)
//! when it first starts a process through the spawner: an orphan of
//! anything the spawner started is handed to amber instead of init.
//!
//! Whose orphan is it? A command with a cgroup of its own keeps every
//! process it made in that cgroup, so an orphan in the cgroup of a command
//! still running is that command's, and is left alone; the command's end
//! kills its cgroup whole. A command without a cgroup is made a subreaper
//! itself (its first process, before `exec`), so its orphans stay in its
//! own tree while it runs and reach amber only when it ends. Either way,
//! every child of amber that the spawner did not start itself, that is in
//! a session other than amber's and in no running command's cgroup, is
//! what an ended command left behind: [`sweep`] kills and reaps exactly
//! those pids, so a [`std::process::Child`] elsewhere in amber still gets
//! its own child's status from `wait`.
//!
//! The spawner's own children (commands and servers, each the leader of
//! its own session) are [tracked](spawn_tracked) from before they can be
//! seen until their `Child` has reaped them, each with an id of its own
//! (a pid is reused once reaped), and with them their cgroups, so an
//! interrupt ([`kill_running`]) and amber's exit ([`shutdown`]) reach
//! every process they made.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, Once, RwLock};
use std::time::{Duration, Instant};

use crate::cgroup::CommandCgroup;
use crate::procfs;

/// What a tracked child is: a command belongs to a turn and dies with an
/// interrupt; a server belongs to the session.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    Command,
    Server,
}

struct Tracked {
    id: u64,
    kind: Kind,
    cgroup: Option<Arc<CommandCgroup>>,
}

/// The spawner's children not yet reaped, by pid (which is also their
/// process group's and session's id).
static TRACKED: Mutex<BTreeMap<u32, Tracked>> = Mutex::new(BTreeMap::new());

/// Held (shared) from a fork until its child is tracked, and (alone)
/// while a sweep or an interrupt picks what to kill: between its `setsid`
/// and being tracked, a new child would look like an orphan, and an
/// interrupt would miss it.
static SPAWNING: RwLock<()> = RwLock::new(());

/// One sweep at a time, from listing to reaping: two would kill and
/// reap each other's pids.
static SWEEPING: Mutex<()> = Mutex::new(());

/// One tracked child: its pid, and the id that tells it from a later
/// process given the same pid.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ChildHandle {
    pub(crate) pid: u32,
    pub(crate) id: u64,
}

/// Makes amber a child subreaper; whether the kernel took it.
pub fn become_subreaper() -> bool {
    #[cfg(target_os = "linux")]
    // SAFETY: prctl with integer arguments only.
    unsafe {
        libc::prctl(libc::PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0
    }
    #[cfg(not(target_os = "linux"))]
    false
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

/// Starts `cmd` and tracks its child, atomically for a sweep and an
/// interrupt. amber becomes a subreaper first, once: a process that never
/// starts one through the spawner (`amber plugin build`) hands its
/// orphans to init, as any program does.
pub(crate) fn spawn_tracked(
    cmd: &mut std::process::Command,
    kind: Kind,
    cgroup: Option<Arc<CommandCgroup>>,
) -> std::io::Result<(std::process::Child, ChildHandle)> {
    static SUBREAPER: Once = Once::new();
    SUBREAPER.call_once(|| {
        become_subreaper();
    });
    static NEXT: AtomicU64 = AtomicU64::new(1);
    let id = NEXT.fetch_add(1, Ordering::Relaxed);
    let _spawning = SPAWNING.read().unwrap_or_else(|e| e.into_inner());
    let child = cmd.spawn()?;
    let pid = child.id();
    lock_tracked().insert(pid, Tracked { id, kind, cgroup });
    Ok((child, ChildHandle { pid, id }))
}

/// Forgets a child its `Child` has reaped (and nothing a later process
/// with its pid started).
pub(crate) fn untrack(handle: ChildHandle) {
    let gone = {
        let mut tracked = lock_tracked();
        match tracked.get(&handle.pid) {
            Some(t) if t.id == handle.id => tracked.remove(&handle.pid),
            _ => None,
        }
    };
    // Its cgroup (if this held the last reference) is removed outside
    // the lock: removing waits for its processes to be gone.
    drop(gone);
}

fn lock_tracked() -> std::sync::MutexGuard<'static, BTreeMap<u32, Tracked>> {
    TRACKED.lock().unwrap_or_else(|e| e.into_inner())
}

/// Kills the server `handle` names (a [`crate::Server::handle`]) with its
/// group and cgroup, from wherever its `Server` is: a hub that is going
/// away while a start is still under way holds no `Server` yet. Nothing
/// when it is no running server (stopped, reaped).
pub fn kill_server(handle: ChildHandle) {
    let _alone = SPAWNING.write().unwrap_or_else(|e| e.into_inner());
    let cgroup = match lock_tracked().get(&handle.pid) {
        Some(t) if t.id == handle.id && t.kind == Kind::Server => t.cgroup.clone(),
        _ => return,
    };
    kill_group(handle.pid);
    if let Some(cgroup) = cgroup {
        cgroup.signal();
    }
}

/// SIGKILL to the process group of `pid`, a child the spawner made the
/// leader of its own session and not yet reaped (so its group cannot be
/// another's).
pub(crate) fn kill_group(pid: u32) {
    // SAFETY: kill(2) with a negative pid signals the process group the
    // spawner created for this child (its setsid made its pid the pgid);
    // the leader is unreaped, so the id is still this group's.
    unsafe {
        libc::kill(-(pid as i32), libc::SIGKILL);
    }
}

/// Kills every command still running, with its process group and cgroup
/// (Ctrl-C, SIGTERM): nothing started for a model outlives the turn.
/// Servers are the session's and stay. Returns how many. Does not wait:
/// each command's end reaps what it had.
pub fn kill_running() -> usize {
    kill_kind(Some(Kind::Command))
}

fn kill_kind(kind: Option<Kind>) -> usize {
    let _alone = SPAWNING.write().unwrap_or_else(|e| e.into_inner());
    let targets: Vec<(u32, Option<Arc<CommandCgroup>>)> = lock_tracked()
        .iter()
        .filter(|(_, t)| kind.is_none_or(|k| t.kind == k))
        .map(|(pid, t)| (*pid, t.cgroup.clone()))
        .collect();
    for (pid, cgroup) in &targets {
        kill_group(*pid);
        if let Some(cgroup) = cgroup {
            cgroup.signal();
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

/// How long a sweep waits for the orphans it killed to be reapable.
const SWEEP_WAIT: Duration = Duration::from_secs(2);

/// Kills and reaps what ended commands left behind: each child of amber
/// (handed over as an orphan, amber being a subreaper) that the spawner
/// did not start, that is not in amber's own session and not in the
/// cgroup of a command still running. Their children come to amber in
/// turn and are taken in the next round. Returns how many it killed.
pub(crate) fn sweep() -> usize {
    let _one = SWEEPING.lock().unwrap_or_else(|e| e.into_inner());
    if !is_subreaper() {
        return 0;
    }
    // SAFETY: getsid(0) takes no pointer.
    let own_session = unsafe { libc::getsid(0) };
    let deadline = Instant::now() + SWEEP_WAIT;
    let mut killed = 0;
    loop {
        let orphans = {
            let _alone = SPAWNING.write().unwrap_or_else(|e| e.into_inner());
            let tracked = lock_tracked();
            let running: Vec<String> = tracked
                .values()
                .filter_map(|t| Some(t.cgroup.as_ref()?.tail()))
                .collect();
            let orphans: Vec<u32> = procfs::own_children()
                .into_iter()
                .filter(|pid| !tracked.contains_key(pid))
                .filter(|pid| {
                    procfs::stat_field::<i32>(*pid, 3).is_some_and(|sid| sid != own_session)
                })
                .filter(|pid| !in_any(*pid, &running))
                .collect();
            for pid in &orphans {
                // SAFETY: the pid is an unreaped child of amber (only a
                // sweep reaps such pids, one sweep at a time), so it
                // cannot have been reused; a zombie ignores the signal.
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

/// Whether `pid` is in one of the cgroups whose tails are `running`.
fn in_any(pid: u32, running: &[String]) -> bool {
    if running.is_empty() {
        return false;
    }
    procfs::cgroups_of(pid)
        .lines()
        .any(|line| running.iter().any(|tail| line.ends_with(tail.as_str())))
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

/// Blocks until the child `pid` has ended, without reaping it: its pid,
/// and so its process group's id, stay its own until its `Child` reaps
/// it, so killing the group after it ended cannot reach another's.
pub(crate) fn wait_ended(pid: u32) {
    loop {
        // SAFETY: waitid with a zeroed siginfo_t it fills in.
        let mut info: libc::siginfo_t = unsafe { std::mem::zeroed() };
        let got = unsafe {
            libc::waitid(
                libc::P_PID,
                pid as libc::id_t,
                &mut info,
                libc::WEXITED | libc::WNOWAIT,
            )
        };
        if got == 0 || std::io::Error::last_os_error().raw_os_error() != Some(libc::EINTR) {
            return;
        }
    }
}
