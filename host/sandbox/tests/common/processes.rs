//! Finding processes by a marker in their command line, for the tests
//! that nothing outlives its command: this crate's and `amber exec`'s
//! (host/cli/tests/processes.rs includes this file). "Gone" is checked
//! in `/proc` after a bounded wait, never by timing.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "a test fails by panicking, its helpers too"
)]
#![allow(dead_code)]

use std::time::{Duration, Instant};

/// The pids of the processes whose command line holds `marker`. A zombie
/// has an empty command line: it is gone, only unreaped.
pub fn alive_with(marker: &str) -> Vec<u32> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        let Ok(cmdline) = std::fs::read(entry.path().join("cmdline")) else {
            continue;
        };
        if String::from_utf8_lossy(&cmdline).contains(marker) {
            found.push(pid);
        }
    }
    found
}

/// Waits (ten seconds at most) until `done` holds of how many processes
/// hold `marker`; whether it did.
pub fn until(marker: &str, done: impl Fn(usize) -> bool) -> bool {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        if done(alive_with(marker).len()) {
            return true;
        }
        if Instant::now() >= deadline {
            return false;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// Whether every process holding `marker` is gone within ten seconds.
pub fn gone(marker: &str) -> bool {
    until(marker, |n| n == 0)
}

/// Kills what a test left running on purpose.
pub fn kill_all(marker: &str) {
    for pid in alive_with(marker) {
        // SAFETY: kill(2) of a process whose command line holds this
        // test's own marker.
        unsafe {
            libc::kill(pid as i32, libc::SIGKILL);
        }
    }
}

/// A marker no other test process uses: `sleep` takes it as seconds.
pub fn marker_for(n: u32) -> String {
    format!("1000.{}{n:03}", std::process::id())
}

/// A fork loop that stops itself: it forks until refused, at most 3,000
/// processes, each sleeping at most 20 s; it says after how many it was
/// refused.
pub const FORK_LOOP: &str = r#"perl -e 'my $n = 0; while ($n < 3000) { my $p = fork(); if (!defined $p) { print "refused after $n\n"; exit 0 } if ($p == 0) { sleep 20; exit 0 } $n++ } print "forked $n\n"'"#;
