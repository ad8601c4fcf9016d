//! Nothing a command starts outlives it, and every command is bounded:
//! through the real spawner, under each Linux backend and unsandboxed,
//! with cgroups and without. "Gone" is checked by looking for the
//! processes in `/proc` after a bounded wait, never by timing.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "a test fails by panicking, its helpers too"
)]

mod common;

use std::path::Path;
use std::time::{Duration, Instant};

use amber_sandbox::{CommandOutput, CommandSpec, Confinement, Limits, Spawner};

use common::processes::{alive_with, gone, marker_for, FORK_LOOP};
use common::{backends, profile, scene};

/// One test at a time: an interrupt kills every command running in the
/// process, and a fork loop takes what another test may need.
static ONE_AT_A_TIME: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn alone() -> std::sync::MutexGuard<'static, ()> {
    ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner())
}

/// Starts a grandchild that leaves the session (`setsid`) and one whose
/// parent exits at once (a double fork), both sleeping on `marker`.
fn leavers(marker: &str) -> String {
    format!("setsid sleep {marker}1 & (sleep {marker}2 &); echo started")
}

fn spec<'a>(command: &'a str, cwd: &'a Path, confinement: Confinement) -> CommandSpec<'a> {
    CommandSpec {
        command,
        cwd,
        env: vec![("PATH".into(), std::env::var_os("PATH").unwrap_or_default())],
        timeout: Duration::from_secs(20),
        output_cap: 64 * 1024,
        confinement,
    }
}

/// Every spawner to try: each backend, with cgroups and without.
fn spawners() -> Vec<(String, Spawner)> {
    let mut all = Vec::new();
    for spawner in backends() {
        let name = spawner.backend().describe();
        all.push((format!("{name}, cgroups"), spawner.clone()));
        all.push((format!("{name}, no cgroups"), spawner.with_cgroups(false)));
    }
    all
}

#[test]
fn what_a_command_left_behind_is_gone_when_it_ends_in_every_mode() {
    let _alone = alone();
    assert!(amber_sandbox::become_subreaper());
    let scene = scene();
    let mut n = 0;
    for (name, spawner) in spawners() {
        for (mode, confinement) in [
            ("write", Confinement::Sandboxed(profile(&scene, true))),
            ("yolo", Confinement::Unsandboxed),
        ] {
            n += 1;
            let marker = marker_for(n);
            let command = leavers(&marker);
            let out = spawner
                .run(&spec(&command, &scene.workspace, confinement))
                .unwrap();
            assert_eq!(out.stdout, "started\n", "{name}, {mode}: {out:?}");
            assert!(
                !out.stderr.contains("without its cgroup"),
                "{name}, {mode}: {out:?}"
            );
            assert!(
                gone(&marker),
                "{name}, {mode}: still running: {:?}",
                alive_with(&marker)
            );
        }
    }
}

#[test]
fn a_timeout_and_an_interrupt_end_what_the_command_left_behind_too() {
    let _alone = alone();
    assert!(amber_sandbox::become_subreaper());
    let scene = scene();
    let mut n = 100;
    for (name, spawner) in spawners() {
        n += 1;
        let marker = marker_for(n);
        let command = format!("{}; sleep {marker}3", leavers(&marker));
        let mut timed = spec(&command, &scene.workspace, Confinement::Unsandboxed);
        timed.timeout = Duration::from_millis(500);
        let out = spawner.run(&timed).unwrap();
        assert!(out.timed_out, "{name}: {out:?}");
        assert!(gone(&marker), "{name}: still running after the timeout");

        n += 1;
        let marker = marker_for(n);
        let command = format!("{}; sleep {marker}3", leavers(&marker));
        let workspace = scene.workspace.clone();
        let running = std::thread::spawn(move || {
            let confinement = Confinement::Unsandboxed;
            spawner
                .run(&spec(&command, &workspace, confinement))
                .unwrap()
        });
        // Ctrl-C kills what runs once all three processes are up.
        let deadline = Instant::now() + Duration::from_secs(10);
        while alive_with(&marker).len() < 3 && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(20));
        }
        assert!(amber_sandbox::kill_running() >= 1);
        let out = running.join().unwrap();
        assert_eq!(out.exit_code, None, "{name}: {out:?}");
        assert!(gone(&marker), "{name}: still running after the interrupt");
    }
}

/// Allocates (and fills) 64 MiB more at each step up to `steps`, saying
/// each step it reached; never past 4 GiB.
fn balloon(steps: u64) -> String {
    assert!(steps * 64 <= 4096);
    format!(
        r#"perl -e '$| = 1; my @held; for my $i (1..{steps}) {{ push @held, "x" x (64 << 20); print "step $i\n" }}'"#
    )
}

/// The last step a balloon reached.
fn last_step(out: &CommandOutput) -> u64 {
    out.stdout
        .lines()
        .filter_map(|l| l.strip_prefix("step ")?.parse().ok())
        .max()
        .unwrap_or(0)
}

fn limited(spawner: Spawner) -> Spawner {
    spawner.with_limits(Limits {
        processes: Some(64),
        memory_bytes: Some(256 << 20),
        cpu_seconds: Some(1),
    })
}

#[test]
fn a_fork_loop_is_refused_at_the_process_limit_where_it_is_enforced() {
    let _alone = alone();
    let scene = scene();
    for (name, spawner) in spawners() {
        let spawner = limited(spawner);
        let enforced = spawner.enforcement().processes;
        if !enforced.is_enforced() {
            // Only where the report says so: without cgroups here.
            assert!(
                enforced.describe().contains("not enforced: no pids cgroup"),
                "{name}: {enforced:?}"
            );
            eprintln!(
                "{name}: the process limit is {}; not tried",
                enforced.describe()
            );
            continue;
        }
        let confinement = Confinement::Sandboxed(profile(&scene, true));
        let out = spawner
            .run(&spec(FORK_LOOP, &scene.workspace, confinement))
            .unwrap();
        let refused_after: u32 = out
            .stdout
            .trim()
            .strip_prefix("refused after ")
            .and_then(|n| n.parse().ok())
            .unwrap_or_else(|| panic!("{name}: not refused: {out:?}"));
        assert!(refused_after < 64, "{name}: {refused_after}");
        assert!(
            out.stderr
                .contains("[amber: the command hit the process limit (64)"),
            "{name}: {}",
            out.stderr
        );
    }
}

#[test]
fn a_memory_balloon_is_stopped_at_the_memory_limit() {
    let _alone = alone();
    let scene = scene();
    for (name, spawner) in spawners() {
        let spawner = limited(spawner);
        let enforced = spawner.enforcement().memory;
        assert!(enforced.is_enforced(), "{name}: {enforced:?}");
        let per_process = enforced.describe().contains("RLIMIT_DATA");
        let confinement = Confinement::Sandboxed(profile(&scene, true));
        // Twice the cap: eight steps of 64 MiB.
        let out = spawner
            .run(&spec(&balloon(8), &scene.workspace, confinement))
            .unwrap();
        let reached = last_step(&out);
        assert!(
            reached < 4,
            "{name}: {reached} steps of 64 MiB under 256 MiB: {out:?}"
        );
        assert_ne!(out.exit_code, Some(0), "{name}: {out:?}");
        if per_process {
            // The process's own allocation failed: perl says so.
            assert!(
                out.stderr.contains("Out of memory"),
                "{name}: {}",
                out.stderr
            );
        } else {
            assert!(
                out.stderr
                    .contains("[amber: the command hit the memory limit (256 MiB)"),
                "{name}: {}",
                out.stderr
            );
        }
    }
}

#[test]
fn a_spinning_process_is_stopped_at_the_cpu_time_limit() {
    let _alone = alone();
    let scene = scene();
    for spawner in backends() {
        let name = spawner.backend().describe();
        let spawner = limited(spawner);
        let confinement = Confinement::Sandboxed(profile(&scene, true));
        let out = spawner
            .run(&spec("perl -e '1 while 1'", &scene.workspace, confinement))
            .unwrap();
        assert!(!out.timed_out, "{name}: {out:?}");
        assert!(
            out.stderr
                .contains("[amber: the command hit the CPU-time limit (1 s"),
            "{name}: {}",
            out.stderr
        );
    }
}

#[test]
fn nothing_of_a_command_is_left_in_a_cgroup_once_it_ended() {
    let _alone = alone();
    let scene = scene();
    let spawner = backends().remove(0);
    let Some(found) = spawner.cgroups() else {
        panic!("cgroups are on by default");
    };
    if found.describe() == "none" {
        eprintln!("no cgroup here: {:?}", found.notes);
        return;
    }
    let out = spawner
        .run(&spec("true", &scene.workspace, Confinement::Unsandboxed))
        .unwrap();
    assert_eq!(out.exit_code, Some(0));
    // Each hierarchy's folder of this process holds no command's cgroup.
    for folder in found.folders() {
        let left: Vec<_> = std::fs::read_dir(&folder)
            .unwrap()
            .flatten()
            .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
            .map(|e| e.file_name())
            .collect();
        assert!(left.is_empty(), "{}: {left:?}", folder.display());
    }
    assert!(!found.folders().is_empty());
    assert!(!out.stderr.contains("without its cgroup"), "{}", out.stderr);
}

#[test]
fn a_command_that_ends_leaves_the_orphans_of_one_still_running_alone() {
    let _alone = alone();
    assert!(amber_sandbox::become_subreaper());
    let scene = scene();
    for (name, spawner) in spawners() {
        let flag = scene.workspace.join("first-ended");
        let _ = std::fs::remove_file(&flag);
        // The second command's helper is an orphan (its parent exits at
        // once) that it still needs when the first command ends.
        let marker = marker_for(200);
        let second = format!(
            "(sleep {marker}1 & echo $! > helper.pid); \
             while [ ! -e first-ended ]; do sleep 0.05; done; \
             kill -0 $(cat helper.pid) && echo helper-alive"
        );
        let workspace = scene.workspace.clone();
        let running = {
            let spawner = spawner.clone();
            std::thread::spawn(move || {
                spawner
                    .run(&spec(&second, &workspace, Confinement::Unsandboxed))
                    .unwrap()
            })
        };
        let deadline = Instant::now() + Duration::from_secs(10);
        while alive_with(&format!("{marker}1")).is_empty() && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(20));
        }
        let first = spawner
            .run(&spec(
                "touch first-ended",
                &scene.workspace,
                Confinement::Unsandboxed,
            ))
            .unwrap();
        assert_eq!(first.exit_code, Some(0), "{name}: {first:?}");
        let second = running.join().unwrap();
        assert_eq!(second.stdout, "helper-alive\n", "{name}: {second:?}");
        assert!(gone(&marker), "{name}: the helper outlived its command");
    }
}
