//! What `/proc` says of a process: its `stat` fields, and amber's own
//! children.

/// The fields of `/proc/PID/stat` after the command name, numbered from 0
/// (the state): `1` the parent, `3` the session, `19` the start time. The
/// name may hold spaces and parentheses, so the count starts after the
/// last `)`. A zombie's are there too.
pub(crate) fn stat_fields(pid: u32) -> Option<Vec<String>> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let rest = &stat[stat.rfind(')')? + 1..];
    Some(rest.split_whitespace().map(str::to_string).collect())
}

/// One numeric field of [`stat_fields`].
pub(crate) fn stat_field<T: std::str::FromStr>(pid: u32, index: usize) -> Option<T> {
    stat_fields(pid)?.get(index)?.parse().ok()
}

/// The children of this process: every thread's `children` list (a child
/// belongs to the thread that forked it, an orphan to any of them), or,
/// on a kernel without those lists, every process whose parent it is.
pub(crate) fn own_children() -> Vec<u32> {
    let me = std::process::id();
    let mut pids = Vec::new();
    let mut listed = false;
    if let Ok(tasks) = std::fs::read_dir("/proc/self/task") {
        for task in tasks.flatten() {
            if let Ok(text) = std::fs::read_to_string(task.path().join("children")) {
                listed = true;
                pids.extend(
                    text.split_whitespace()
                        .filter_map(|p| p.parse::<u32>().ok()),
                );
            }
        }
    }
    if !listed {
        pids = std::fs::read_dir("/proc")
            .into_iter()
            .flatten()
            .flatten()
            .filter_map(|e| e.file_name().to_str()?.parse::<u32>().ok())
            .filter(|pid| stat_field::<u32>(*pid, 1) == Some(me))
            .collect();
    }
    pids.sort_unstable();
    pids.dedup();
    pids
}

/// The cgroup lines of a process (`ID:CONTROLLERS:PATH`).
pub(crate) fn cgroups_of(pid: u32) -> String {
    std::fs::read_to_string(format!("/proc/{pid}/cgroup")).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_fields_are_counted_after_the_name() {
        let me = std::process::id();
        // SAFETY: getsid(0) and getppid take no pointer.
        let (sid, parent) = unsafe { (libc::getsid(0), libc::getppid()) };
        assert_eq!(stat_field::<i32>(me, 3), Some(sid));
        assert_eq!(stat_field::<i32>(me, 1), Some(parent));
        assert_eq!(stat_field::<i32>(u32::MAX, 3), None);
    }

    #[test]
    fn a_child_is_listed_until_it_is_reaped() {
        let mut child = std::process::Command::new("sleep")
            .arg("5")
            .spawn()
            .unwrap();
        assert!(own_children().contains(&child.id()));
        child.kill().unwrap();
        child.wait().unwrap();
        assert!(!own_children().contains(&child.id()));
    }
}
