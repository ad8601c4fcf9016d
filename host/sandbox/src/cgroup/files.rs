//! The cgroup filesystem's files, read and written: where hierarchies are
//! mounted, delegating v2 controllers, killing everything in a cgroup and
//! removing it.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use super::Hierarchy;

/// A mounted cgroup hierarchy: `v2`, or a v1 controller it holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Mount {
    pub name: &'static str,
    /// The cgroup at the mount's root (not `/` inside a cgroup namespace
    /// seen from outside it).
    pub root: String,
    pub point: PathBuf,
}

impl Mount {
    /// The folder of the cgroup `path` (as `/proc/self/cgroup` names it),
    /// when it lies under this mount.
    pub fn folder_of(&self, path: &str) -> Option<PathBuf> {
        let rest = if self.root == "/" {
            path
        } else {
            path.strip_prefix(self.root.as_str())?
        };
        if !rest.is_empty() && !rest.starts_with('/') {
            return None;
        }
        let rest = rest.trim_start_matches('/');
        if rest.split('/').any(|part| part == "..") {
            return None;
        }
        Some(if rest.is_empty() {
            self.point.clone()
        } else {
            self.point.join(rest)
        })
    }
}

/// The v2 hierarchy and the v1 `pids` and `memory` ones in
/// `/proc/self/mountinfo`.
pub(super) fn cgroup_mounts(mountinfo: &str) -> Vec<Mount> {
    let mut found = Vec::new();
    for line in mountinfo.lines() {
        // "ID PARENT MAJ:MIN ROOT POINT OPTIONS [OPTIONAL…] - TYPE SOURCE SUPER"
        let Some((head, tail)) = line.split_once(" - ") else {
            continue;
        };
        let head: Vec<&str> = head.split(' ').collect();
        let tail: Vec<&str> = tail.split(' ').collect();
        let (Some(root), Some(point), Some(kind)) = (head.get(3), head.get(4), tail.first()) else {
            continue;
        };
        let point = PathBuf::from(unescape(point));
        let root = unescape(root);
        match *kind {
            "cgroup2" => found.push(Mount {
                name: "v2",
                root,
                point,
            }),
            "cgroup" => {
                let options = tail.get(2).copied().unwrap_or_default();
                for name in ["pids", "memory"] {
                    if options.split(',').any(|o| o == name) {
                        found.push(Mount {
                            name,
                            root: root.clone(),
                            point: point.clone(),
                        });
                    }
                }
            }
            _ => {}
        }
    }
    found
}

/// mountinfo writes a space, tab, newline and backslash as `\040` and
/// the like.
fn unescape(field: &str) -> String {
    let bytes = field.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let octal = bytes
            .get(i + 1..i + 4)
            .filter(|d| d.iter().all(|b| (b'0'..=b'7').contains(b)))
            .map(|d| d.iter().fold(0u32, |n, b| n * 8 + u32::from(b - b'0')));
        match (bytes[i], octal.and_then(|n| u8::try_from(n).ok())) {
            (b'\\', Some(byte)) => {
                out.push(byte);
                i += 4;
            }
            (b, _) => {
                out.push(b);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// Gives the commands' cgroups below `v2.folder` the `pids` and `memory`
/// controllers, where amber's own cgroup delegates them. amber's own
/// cgroup is not changed: it may hold other processes, and its
/// controllers are whoever made it's to choose.
pub(super) fn delegate_v2(v2: &Hierarchy, notes: &mut Vec<String>) -> (bool, bool) {
    let offered = std::fs::read_to_string(v2.folder.join("cgroup.controllers")).unwrap_or_default();
    let mut got = [false, false];
    for (i, name) in ["pids", "memory"].into_iter().enumerate() {
        if !offered.split_whitespace().any(|c| c == name) {
            notes.push(format!(
                "amber's cgroup v2 {} does not delegate the {name} controller (its cgroup.subtree_control)",
                v2.own.display()
            ));
            continue;
        }
        match std::fs::write(v2.folder.join("cgroup.subtree_control"), format!("+{name}")) {
            Ok(()) => got[i] = true,
            Err(e) => notes.push(format!(
                "cannot give the {name} controller to commands in {}: {e}",
                v2.folder.display()
            )),
        }
    }
    (got[0], got[1])
}

/// The pids in a cgroup.
pub(super) fn procs(cgroup: &Path) -> Vec<i32> {
    std::fs::read_to_string(cgroup.join("cgroup.procs"))
        .unwrap_or_default()
        .split_whitespace()
        .filter_map(|p| p.parse().ok())
        // A process outside amber's pid namespace is listed as 0, and
        // kill(0) would signal amber's own group.
        .filter(|p| *p > 0)
        .collect()
}

/// How long killing a cgroup's processes may take before amber goes on.
const KILL_WAIT: Duration = Duration::from_secs(2);

/// Kills every process in `cgroup` (and below it) and waits, bounded,
/// until none is left. v2's `cgroup.kill` does it at once, forks racing
/// it included; elsewhere each listed process is killed until the list
/// is empty. Returns how many processes were listed when it began.
pub(super) fn kill_all(cgroup: &Path, v2: bool) -> usize {
    let first = procs_below(cgroup).len();
    if first == 0 {
        return 0;
    }
    let atomic = signal_all(cgroup, v2);
    let deadline = Instant::now() + KILL_WAIT;
    let mut pause = Duration::from_micros(200);
    loop {
        let left = procs_below(cgroup);
        if left.is_empty() || Instant::now() >= deadline {
            return first;
        }
        if !atomic {
            kill_each(&left);
        }
        std::thread::sleep(pause);
        pause = (pause * 2).min(Duration::from_millis(20));
    }
}

/// SIGKILL to every process in `cgroup` and below, once, without waiting:
/// at once through v2's `cgroup.kill` (whether it was, returned), else to
/// each process listed now.
pub(super) fn signal_all(cgroup: &Path, v2: bool) -> bool {
    if v2 && std::fs::write(cgroup.join("cgroup.kill"), "1").is_ok() {
        return true;
    }
    kill_each(&procs_below(cgroup));
    false
}

fn kill_each(pids: &[i32]) {
    for pid in pids {
        // SAFETY: kill(2) of a pid (never 0) just listed in a cgroup
        // amber made for a command. One that exited since is ESRCH;
        // another process could hold it only after the kernel went
        // through the whole pid space in that moment.
        unsafe {
            libc::kill(*pid, libc::SIGKILL);
        }
    }
}

/// The pids in `cgroup` and in the cgroups below it.
fn procs_below(cgroup: &Path) -> Vec<i32> {
    let mut pids = procs(cgroup);
    for child in subfolders(cgroup) {
        pids.extend(procs_below(&child));
    }
    pids
}

fn subfolders(dir: &Path) -> Vec<PathBuf> {
    std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
        .map(|e| e.path())
        .collect()
}

/// Kills what is in `folder` and the cgroups below it, and removes them
/// (deepest first). Returns how many processes it killed.
pub(super) fn empty_and_remove(folder: &Path, v2: bool) -> usize {
    let killed = kill_all(folder, v2);
    remove_tree(folder);
    killed
}

/// Removes an emptied cgroup and those below it. A cgroup is removed
/// with `rmdir`: its files are the kernel's, not removable ones.
pub(super) fn remove_tree(cgroup: &Path) {
    for child in subfolders(cgroup) {
        remove_tree(&child);
    }
    // A process killed a moment ago may still be leaving: a few tries.
    for _ in 0..20 {
        match std::fs::remove_dir(cgroup) {
            Ok(()) => return,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return,
            Err(_) => std::thread::sleep(Duration::from_millis(5)),
        }
    }
}

/// A number after `key` in a flat keyed file (`pids.events`,
/// `memory.events`, `memory.oom_control`).
pub(super) fn keyed(cgroup: &Path, file: &str, key: &str) -> u64 {
    std::fs::read_to_string(cgroup.join(file))
        .unwrap_or_default()
        .lines()
        .find_map(|line| {
            let (k, v) = line.split_once(' ')?;
            (k == key).then(|| v.trim().parse().ok()).flatten()
        })
        .unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    const HYBRID: &str = "\
31 23 0:28 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755
35 31 0:32 / /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory
39 31 0:36 / /sys/fs/cgroup/pids rw,relatime shared:5 - cgroup cgroup rw,pids
40 31 0:37 / /sys/fs/cgroup/cpu\\040acct rw - cgroup cgroup rw,cpu,cpuacct
41 31 0:38 /outer /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw
";

    #[test]
    fn the_hierarchies_are_found_in_mountinfo_with_their_roots() {
        let mounts = cgroup_mounts(HYBRID);
        let names: Vec<&str> = mounts.iter().map(|m| m.name).collect();
        assert_eq!(names, ["memory", "pids", "v2"]);
        assert_eq!(mounts[1].point, Path::new("/sys/fs/cgroup/pids"));
        assert_eq!(mounts[2].root, "/outer");
        assert_eq!(unescape("/a\\040b"), "/a b");
    }

    #[test]
    fn a_cgroup_path_maps_into_its_mount_and_never_above_it() {
        let mount = Mount {
            name: "v2",
            root: "/outer".into(),
            point: "/sys/fs/cgroup/unified".into(),
        };
        assert_eq!(
            mount.folder_of("/outer/user.slice"),
            Some(PathBuf::from("/sys/fs/cgroup/unified/user.slice"))
        );
        assert_eq!(
            mount.folder_of("/outer"),
            Some(PathBuf::from("/sys/fs/cgroup/unified"))
        );
        assert_eq!(mount.folder_of("/outerx/a"), None);
        assert_eq!(mount.folder_of("/elsewhere"), None);
        assert_eq!(mount.folder_of("/outer/../x"), None);
        let root = Mount {
            root: "/".into(),
            ..mount
        };
        assert_eq!(
            root.folder_of("/"),
            Some(PathBuf::from("/sys/fs/cgroup/unified"))
        );
    }

    #[test]
    fn keyed_files_give_their_counts() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("memory.oom_control"),
            "oom_kill_disable 0\nunder_oom 0\noom_kill 3\n",
        )
        .unwrap();
        assert_eq!(keyed(dir.path(), "memory.oom_control", "oom_kill"), 3);
        assert_eq!(keyed(dir.path(), "memory.oom_control", "missing"), 0);
        assert_eq!(keyed(dir.path(), "pids.events", "max"), 0);
    }
}
