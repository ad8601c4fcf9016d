//! What one command may take: processes, memory and CPU time
//! (`[sandbox] max_processes`, `max_memory_mib`, `max_cpu_seconds`), how
//! each is enforced on this machine, and what the tool result says when a
//! command hit one.
//!
//! A cgroup bounds a whole command ([`crate::cgroup`]): the `pids`
//! controller its processes and threads together, the `memory` controller
//! its memory together. Where there is no memory cgroup, `RLIMIT_DATA`
//! bounds each process instead: not `RLIMIT_AS`, which counts address
//! space merely reserved, and V8 and wasmtime reserve gigabytes they never
//! touch. `RLIMIT_NPROC` is no fallback for the process count: it counts
//! every process of the user, not the command's, and does not bind root,
//! so without a `pids` cgroup the count is not enforced and `amber doctor`
//! says so. CPU time is `RLIMIT_CPU`, per process.

use crate::cgroup::Available;

/// What a command ran into, read from its cgroup when it ended.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct LimitHits {
    /// Forks the `pids` controller refused.
    pub processes_refused: u64,
    /// Processes the `memory` controller's OOM killer ended.
    pub memory_kills: u64,
}

/// The default process (and thread) count of one command: a `cargo build`
/// of a large workspace on a many-core machine stays far below it.
pub const DEFAULT_MAX_PROCESSES: u32 = 4096;

/// The default CPU time of one process of a command, in seconds, all its
/// threads together: an hour, more than a compiler process of a release
/// build takes; the command's timeout usually ends it first.
pub const DEFAULT_MAX_CPU_SECONDS: u64 = 3600;

/// What one command may take; `None` leaves a resource unbounded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    pub processes: Option<u32>,
    pub memory_bytes: Option<u64>,
    pub cpu_seconds: Option<u64>,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            processes: Some(DEFAULT_MAX_PROCESSES),
            memory_bytes: default_memory_bytes(),
            cpu_seconds: Some(DEFAULT_MAX_CPU_SECONDS),
        }
    }
}

/// Three quarters of the machine's memory: a runaway command meets its own
/// limit before the kernel's OOM killer picks among amber, the editor and
/// the rest, and a parallel build keeps what it needs.
pub fn default_memory_bytes() -> Option<u64> {
    let meminfo = std::fs::read_to_string("/proc/meminfo").ok()?;
    let kib: u64 = meminfo
        .lines()
        .find_map(|l| l.strip_prefix("MemTotal:"))?
        .trim()
        .trim_end_matches("kB")
        .trim()
        .parse()
        .ok()?;
    Some(kib * 1024 / 4 * 3)
}

/// Bytes as a person reads them: `512 MiB`, `12.0 GiB`.
pub fn human_bytes(bytes: u64) -> String {
    const MIB: u64 = 1024 * 1024;
    const GIB: u64 = 1024 * MIB;
    if bytes >= GIB {
        format!("{:.1} GiB", bytes as f64 / GIB as f64)
    } else {
        format!("{} MiB", bytes / MIB)
    }
}

/// How one limit is enforced here, or why it is not.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Enforced {
    /// Enforced, and how.
    By(String),
    /// Not enforced, and why.
    Not(String),
}

impl Enforced {
    pub fn is_enforced(&self) -> bool {
        matches!(self, Enforced::By(_))
    }

    pub fn describe(&self) -> String {
        match self {
            Enforced::By(how) => how.clone(),
            Enforced::Not(why) => format!("not enforced: {why}"),
        }
    }
}

/// What this machine enforces of `limits`, for `amber doctor`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Enforcement {
    pub processes: Enforced,
    pub memory: Enforced,
    pub cpu: Enforced,
}

impl Enforcement {
    pub(crate) fn of(limits: &Limits, cgroups: Option<&Available>) -> Enforcement {
        let why_no_cgroup = || match cgroups {
            None => "cgroups are off (`[sandbox] cgroups = false`)".to_string(),
            Some(found) if found.notes.is_empty() => "no cgroup amber may make".to_string(),
            Some(found) => found.notes.join("; "),
        };
        let processes = match (limits.processes, cgroups.and_then(Available::pids)) {
            (None, _) => Enforced::Not("`max_processes` is 0".into()),
            (Some(max), Some(h)) => Enforced::By(format!(
                "{max} processes and threads a command (the pids cgroup, {})",
                h.name_for_people()
            )),
            (Some(_), None) => Enforced::Not(format!(
                "no pids cgroup ({}); RLIMIT_NPROC counts all of the user's processes and does not bind root",
                why_no_cgroup()
            )),
        };
        let memory = match (limits.memory_bytes, cgroups.and_then(Available::memory)) {
            (None, _) => Enforced::Not("`max_memory_mib` is 0".into()),
            (Some(bytes), Some(h)) => Enforced::By(format!(
                "{} a command (the memory cgroup, {})",
                human_bytes(bytes),
                h.name_for_people()
            )),
            (Some(bytes), None) => Enforced::By(format!(
                "{} a process (RLIMIT_DATA; no memory cgroup: {}), so a command's processes together may take more",
                human_bytes(bytes),
                why_no_cgroup()
            )),
        };
        let cpu = match limits.cpu_seconds {
            None => Enforced::Not("`max_cpu_seconds` is 0".into()),
            Some(s) => Enforced::By(format!("{s} s of CPU a process (RLIMIT_CPU)")),
        };
        Enforcement {
            processes,
            memory,
            cpu,
        }
    }
}

/// The lines the tool result gets about the limits a command hit.
pub(crate) fn notes(
    limits: &Limits,
    hits: LimitHits,
    status: Option<std::process::ExitStatus>,
) -> Vec<String> {
    let mut notes = Vec::new();
    if let (Some(max), true) = (limits.processes, hits.processes_refused > 0) {
        notes.push(format!(
            "[amber: the command hit the process limit ({max}): the kernel refused to start {} more; `[sandbox] max_processes` sets it]",
            hits.processes_refused
        ));
    }
    if let (Some(bytes), true) = (limits.memory_bytes, hits.memory_kills > 0) {
        notes.push(format!(
            "[amber: the command hit the memory limit ({}): the kernel killed {} of its processes; `[sandbox] max_memory_mib` sets it]",
            human_bytes(bytes),
            hits.memory_kills
        ));
    }
    if let (Some(seconds), true) = (limits.cpu_seconds, status.is_some_and(hit_cpu_limit)) {
        notes.push(format!(
            "[amber: the command hit the CPU-time limit ({seconds} s of CPU a process); `[sandbox] max_cpu_seconds` sets it]"
        ));
    }
    notes
}

/// Whether the command's first process died of `SIGXCPU`, or is a shell
/// that says one of its children did (status 128 + 24).
fn hit_cpu_limit(status: std::process::ExitStatus) -> bool {
    use std::os::unix::process::ExitStatusExt;
    status.signal() == Some(libc::SIGXCPU) || status.code() == Some(128 + libc::SIGXCPU)
}

/// In the child between `fork` and `exec`: the per-process limits.
/// Async-signal-safe: only `setrlimit(2)`.
pub(crate) fn apply_in_child(
    cpu_seconds: Option<u64>,
    data_bytes: Option<u64>,
) -> std::io::Result<()> {
    if let Some(seconds) = cpu_seconds {
        // The soft limit sends SIGXCPU, which ends a process that does not
        // catch it; one that does gets SIGKILL five seconds later.
        set(libc::RLIMIT_CPU, seconds, seconds.saturating_add(5))?;
    }
    if let Some(bytes) = data_bytes {
        set(libc::RLIMIT_DATA, bytes, bytes)?;
    }
    Ok(())
}

#[cfg(all(target_os = "linux", target_env = "gnu"))]
type Resource = libc::__rlimit_resource_t;
#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
type Resource = libc::c_int;

fn set(resource: Resource, soft: u64, hard: u64) -> std::io::Result<()> {
    let mut old = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit/setrlimit with pointers to live locals.
    unsafe {
        if libc::getrlimit(resource, &mut old) != 0 {
            return Err(std::io::Error::last_os_error());
        }
        // Never above what the process has: lowering is always allowed.
        let new = libc::rlimit {
            rlim_cur: soft.min(old.rlim_max),
            rlim_max: hard.min(old.rlim_max),
        };
        if libc::setrlimit(resource, &new) != 0 {
            return Err(std::io::Error::last_os_error());
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::process::ExitStatusExt;

    #[test]
    fn each_hit_limit_is_named_with_its_value_and_its_setting() {
        let limits = Limits {
            processes: Some(64),
            memory_bytes: Some(256 << 20),
            cpu_seconds: Some(2),
        };
        let hits = LimitHits {
            processes_refused: 3,
            memory_kills: 1,
        };
        let notes = notes(
            &limits,
            hits,
            Some(std::process::ExitStatus::from_raw(libc::SIGXCPU)),
        );
        assert_eq!(notes.len(), 3, "{notes:?}");
        assert!(notes[0].contains("the process limit (64)"), "{}", notes[0]);
        assert!(
            notes[1].contains("the memory limit (256 MiB)"),
            "{}",
            notes[1]
        );
        assert!(notes[2].contains("CPU-time limit (2 s"), "{}", notes[2]);
        // sh reports a child killed by SIGXCPU as 152.
        let by_shell = std::process::ExitStatus::from_raw(152 << 8);
        assert_eq!(notes_for_status(by_shell).len(), 1);
        assert!(notes_for_status(std::process::ExitStatus::from_raw(0)).is_empty());
    }

    fn notes_for_status(status: std::process::ExitStatus) -> Vec<String> {
        let limits = Limits {
            processes: None,
            memory_bytes: None,
            cpu_seconds: Some(1),
        };
        notes(&limits, LimitHits::default(), Some(status))
    }

    #[test]
    fn bytes_read_as_mebibytes_or_gibibytes() {
        assert_eq!(human_bytes(512 << 20), "512 MiB");
        assert_eq!(human_bytes(12 << 30), "12.0 GiB");
        #[cfg(target_os = "linux")]
        assert!(default_memory_bytes().is_some_and(|b| b > 0));
    }
}
