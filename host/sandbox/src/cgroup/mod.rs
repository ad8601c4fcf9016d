//! The cgroups amber may make: a process in a cgroup stays in it whatever
//! it does (`setsid`, a double fork), so a cgroup finds every process a
//! command made, kills them all, and bounds how many there are and how
//! much memory they take.
//!
//! amber makes cgroups only below its own (the one `/proc/self/cgroup`
//! names), never anywhere else: in the cgroup v2 hierarchy, and in the v1
//! `pids` and `memory` hierarchies where a machine has them. Each amber
//! process has one folder in each, `amber-PID-START` (its pid and its
//! start time, so a later process with the same pid is not taken for
//! it), and each command a cgroup `cmd-N` inside ([`CommandCgroup`]). A
//! folder whose amber is gone (a `kill -9`) is stale: the next amber to
//! start kills what is left in it and removes it ([`reap_stale`]).
//!
//! Which hierarchy does what ([`Available`]): v2 tracks and kills
//! (`cgroup.kill`), and bounds processes and memory where amber's own
//! cgroup delegates the `pids` and `memory` controllers to its children;
//! otherwise the v1 `pids` and `memory` hierarchies bound them (and track,
//! when there is no v2).

mod command;
mod files;

use std::path::PathBuf;
use std::sync::OnceLock;

pub use crate::limits::LimitHits;
pub(crate) use command::{join_in_child, CommandCgroup};

/// A cgroup hierarchy, and amber's own cgroup in it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Hierarchy {
    /// `v2`, or the v1 controller (`pids`, `memory`).
    pub name: &'static str,
    /// amber's own cgroup, as a folder.
    pub own: PathBuf,
    /// This amber process's folder below it.
    pub folder: PathBuf,
}

impl Hierarchy {
    pub(crate) fn is_v2(&self) -> bool {
        self.name == "v2"
    }

    /// `cgroup v2 under /sys/fs/cgroup/…`, for `doctor`.
    pub(crate) fn name_for_people(&self) -> String {
        let version = if self.is_v2() { "v2" } else { "v1" };
        format!("cgroup {version} under {}", self.own.display())
    }
}

/// The cgroups this amber process may make, found (and its folders made)
/// once per process.
#[derive(Debug, Clone, Default)]
pub struct Available {
    pub(crate) v2: Option<Hierarchy>,
    /// The v2 folder delegates these to the commands' cgroups.
    pub(crate) v2_pids: bool,
    pub(crate) v2_memory: bool,
    pub(crate) v1_pids: Option<Hierarchy>,
    pub(crate) v1_memory: Option<Hierarchy>,
    /// Why a hierarchy or controller is missing, one line each.
    pub notes: Vec<String>,
}

impl Available {
    /// Where commands are tracked and killed: v2, else a v1 hierarchy.
    pub(crate) fn tracker(&self) -> Option<&Hierarchy> {
        self.v2
            .as_ref()
            .or(self.v1_pids.as_ref())
            .or(self.v1_memory.as_ref())
    }

    /// Where the process count is bounded.
    pub(crate) fn pids(&self) -> Option<&Hierarchy> {
        match &self.v2 {
            Some(v2) if self.v2_pids => Some(v2),
            _ => self.v1_pids.as_ref(),
        }
    }

    /// Where memory is bounded.
    pub(crate) fn memory(&self) -> Option<&Hierarchy> {
        match &self.v2 {
            Some(v2) if self.v2_memory => Some(v2),
            _ => self.v1_memory.as_ref(),
        }
    }

    /// This amber process's folders, one a hierarchy.
    pub fn folders(&self) -> Vec<PathBuf> {
        [&self.v2, &self.v1_pids, &self.v1_memory]
            .into_iter()
            .flatten()
            .map(|h| h.folder.clone())
            .collect()
    }

    /// One line for `doctor`: the hierarchies amber makes cgroups in.
    pub fn describe(&self) -> String {
        let mut parts = Vec::new();
        if let Some(v2) = &self.v2 {
            let mut delegated = Vec::new();
            if self.v2_pids {
                delegated.push("pids");
            }
            if self.v2_memory {
                delegated.push("memory");
            }
            parts.push(format!(
                "v2 in {} ({})",
                v2.own.display(),
                if delegated.is_empty() {
                    "tracking and kill only".to_string()
                } else {
                    format!("tracking, kill, {}", delegated.join(" and "))
                }
            ));
        }
        for v1 in [&self.v1_pids, &self.v1_memory].into_iter().flatten() {
            parts.push(format!("v1 {} in {}", v1.name, v1.own.display()));
        }
        if parts.is_empty() {
            "none".into()
        } else {
            parts.join("; ")
        }
    }
}

/// What [`available`] found, once per process.
static FOUND: OnceLock<Available> = OnceLock::new();

/// What this machine lets amber make, found (and this process's folders
/// made) on first use; [`crate::shutdown`] removes them.
pub fn available() -> &'static Available {
    FOUND.get_or_init(|| {
        let mut found = Available::default();
        let Some(folder_name) = own_folder_name() else {
            found
                .notes
                .push("amber's start time is not in /proc/self/stat".into());
            return found;
        };
        let own = own_cgroups(&mut found.notes);
        let mut make = |name: &'static str, own: Option<PathBuf>| -> Option<Hierarchy> {
            let own = own?;
            let folder = own.join(&folder_name);
            match std::fs::create_dir(&folder) {
                Ok(()) => Some(Hierarchy { name, own, folder }),
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
                    Some(Hierarchy { name, own, folder })
                }
                Err(e) => {
                    found.notes.push(format!(
                        "cannot make a cgroup in {} ({name}): {e}",
                        own.display()
                    ));
                    None
                }
            }
        };
        let v2 = make("v2", own.v2);
        let v1_pids = make("pids", own.pids);
        let v1_memory = make("memory", own.memory);
        if let Some(v2) = &v2 {
            let (pids, memory) = files::delegate_v2(v2, &mut found.notes);
            found.v2_pids = pids;
            found.v2_memory = memory;
        }
        found.v2 = v2;
        found.v1_pids = v1_pids;
        found.v1_memory = v1_memory;
        if found.tracker().is_some() {
            // A process that never calls [`crate::shutdown`] (a test, a
            // library user) still leaves no empty folder behind.
            // SAFETY: atexit with a function that takes and returns
            // nothing and never unwinds.
            unsafe {
                libc::atexit(remove_empty_at_exit);
            }
        }
        found
    })
}

/// At exit: this process's folders, removed where they are empty (a
/// command still running keeps its cgroup, for the next amber to reap).
extern "C" fn remove_empty_at_exit() {
    let removed = std::panic::catch_unwind(|| {
        if let Some(found) = FOUND.get() {
            for folder in found.folders() {
                files::remove_tree(&folder);
            }
        }
    });
    drop(removed);
}

/// amber's own cgroup in each hierarchy it may use, as folders.
#[derive(Debug, Default)]
struct Own {
    v2: Option<PathBuf>,
    pids: Option<PathBuf>,
    memory: Option<PathBuf>,
}

fn own_cgroups(notes: &mut Vec<String>) -> Own {
    let (Ok(membership), Ok(mounts)) = (
        std::fs::read_to_string("/proc/self/cgroup"),
        std::fs::read_to_string("/proc/self/mountinfo"),
    ) else {
        notes.push("no /proc/self/cgroup: this system has no cgroups".into());
        return Own::default();
    };
    let mounts = files::cgroup_mounts(&mounts);
    let mut own = Own::default();
    for line in membership.lines() {
        // "ID:CONTROLLERS:PATH"; v2's line is "0::PATH".
        let mut fields = line.splitn(3, ':');
        let (Some(_), Some(controllers), Some(path)) =
            (fields.next(), fields.next(), fields.next())
        else {
            continue;
        };
        let wanted: &[&str] = if controllers.is_empty() {
            &["v2"]
        } else {
            &["pids", "memory"]
        };
        for name in wanted {
            let listed = *name == "v2" || controllers.split(',').any(|c| c == *name);
            if !listed {
                continue;
            }
            let mut of_kind = mounts.iter().filter(|m| m.name == *name).peekable();
            if of_kind.peek().is_none() {
                notes.push(format!("the {name} cgroup hierarchy is not mounted"));
                continue;
            }
            // A subtree may be mounted elsewhere too: the first mount
            // that holds amber's cgroup.
            let Some(dir) = of_kind.find_map(|m| m.folder_of(path)) else {
                notes.push(format!(
                    "amber's {name} cgroup {path} is outside what is mounted"
                ));
                continue;
            };
            match *name {
                "v2" => own.v2 = Some(dir),
                "pids" => own.pids = Some(dir),
                _ => own.memory = Some(dir),
            }
        }
    }
    if own.v2.is_none() && own.pids.is_none() && own.memory.is_none() && notes.is_empty() {
        notes.push("no cgroup v2, v1 pids or v1 memory hierarchy".into());
    }
    own
}

/// `amber-PID-START`: this process, and when it started.
fn own_folder_name() -> Option<String> {
    let pid = std::process::id();
    Some(format!("amber-{pid}-{}", start_time(pid)?))
}

/// A process's start time (clock ticks since boot), field 22 of its stat.
fn start_time(pid: u32) -> Option<u64> {
    crate::procfs::stat_field(pid, 19)
}

/// Whether the amber a folder is named after still runs.
fn folder_is_live(name: &str) -> bool {
    let Some(rest) = name.strip_prefix("amber-") else {
        return true;
    };
    let Some((pid, start)) = rest.split_once('-') else {
        return true;
    };
    let (Ok(pid), Ok(start)) = (pid.parse::<u32>(), start.parse::<u64>()) else {
        return true;
    };
    start_time(pid) == Some(start)
}

/// Kills what is left in the cgroups of amber processes that are gone (a
/// `kill -9`), and removes them. Returns how many processes it killed.
/// Run at start; only folders named as amber names its own, below
/// amber's own cgroups, are touched.
pub fn reap_stale() -> usize {
    let mut notes = Vec::new();
    let own = own_cgroups(&mut notes);
    let mut killed = 0;
    for (v2, own) in [(true, own.v2), (false, own.pids), (false, own.memory)] {
        let Some(own) = own else { continue };
        let Ok(entries) = std::fs::read_dir(&own) else {
            continue;
        };
        for entry in entries.flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            if !name.starts_with("amber-") || folder_is_live(&name) {
                continue;
            }
            killed += files::empty_and_remove(&entry.path(), v2);
        }
    }
    killed
}

/// Removes this process's folders (at exit, once every command is gone);
/// nothing when none were made.
pub(crate) fn remove_own() {
    let Some(found) = FOUND.get() else {
        return;
    };
    for h in [&found.v2, &found.v1_pids, &found.v1_memory]
        .into_iter()
        .flatten()
    {
        files::empty_and_remove(&h.folder, h.is_v2());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_folder_is_live_only_while_its_process_runs_with_its_start_time() {
        let me = std::process::id();
        let start = start_time(me).unwrap();
        assert!(folder_is_live(&format!("amber-{me}-{start}")));
        assert!(!folder_is_live(&format!("amber-{me}-{}", start + 1)));
        assert!(!folder_is_live(&format!("amber-{}-1", u32::MAX)));
        // Not amber's naming: never taken for stale.
        assert!(folder_is_live("amber-x"));
        assert!(folder_is_live("user.slice"));
    }
}
