//! Whether a process a test started through amber still runs, and which
//! processes run with a given argument.

use std::time::{Duration, Instant};

/// Whether `pid` still runs a moment later. A process that has exited but
/// not yet been reaped by whoever inherited it (a zombie) does not count:
/// where init does not reap promptly (a container whose first process is
/// not an init) a killed command stays a zombie for a while, and `kill -0`
/// would call it alive. One killed as amber exited is given up to 5 s to
/// be gone, so the check never races the kernel's delivery of SIGKILL.
pub fn still_runs(pid: &str) -> bool {
    let running = || {
        std::fs::read_to_string(format!("/proc/{pid}/stat"))
            .ok()
            .and_then(|stat| {
                let state = stat.rsplit_once(')')?.1.trim_start().chars().next()?;
                Some(state != 'Z' && state != 'X')
            })
            .unwrap_or(false)
    };
    let deadline = Instant::now() + Duration::from_secs(5);
    while running() {
        if Instant::now() > deadline {
            return true;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    false
}

/// The pids of the processes one of whose arguments is exactly `arg`. A
/// process's own `$$` is of no use in the OS sandbox (another pid
/// namespace), so a test finds what it started by an argument no other
/// process has. A zombie has no arguments: it is gone, only unreaped.
pub fn with_argument(arg: &str) -> Vec<u32> {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    entries
        .flatten()
        .filter_map(|entry| {
            let pid = entry.file_name().to_string_lossy().parse::<u32>().ok()?;
            let cmdline = std::fs::read(entry.path().join("cmdline")).ok()?;
            cmdline
                .split(|b| *b == 0)
                .any(|a| a == arg.as_bytes())
                .then_some(pid)
        })
        .collect()
}
