//! The seccomp filters of both Linux backends, through the real spawner:
//! no Unix socket reaches anything, io_uring, ptrace and new namespaces
//! are refused (their x32 twins too), `clone3` falls back to `clone`, and
//! what a build needs (threads, loopback TCP inside its own namespace)
//! still works. The probe names x86_64's system call numbers.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "a test fails by panicking, its helpers too"
)]
#![cfg(target_arch = "x86_64")]

mod common;

use amber_sandbox::Backend;
use common::{backends, profile, run, scene, unix_connect_probe};

/// Each call as `name: ok` or `name: <the error>`, by number, so the
/// filter is what answers (the libc wrappers might refuse first).
const SYSCALL_PROBE: &str = r#"
sub try { my ($name, $nr, @args) = @_; my $r = syscall($nr, @args); print "$name: ", ($r == -1 ? "$!" : "ok"), "\n"; }
try("io_uring_setup", 425, 1, 0);
try("ptrace", 101, 0, 0, 0, 0);
try("unshare_user", 272, 0x10000000);
try("unshare_net", 272, 0x40000000);
try("unshare_files", 272, 0x400);
try("setns", 308, 0, 0);
try("keyctl", 250, 0, 0, 0, 0, 0);
try("keyctl_x32", 0x40000000 + 250, 0, 0, 0, 0, 0);
try("io_uring_setup_x32", 0x40000000 + 425, 1, 0);
try("unshare_user_x32", 0x40000000 + 272, 0x10000000);
try("clone_newns", 56, 0x20000 | 17, 0, 0, 0, 0);
try("clone3", 435, 0, 0);
try("socket_unix", 41, 1, 1, 0);
try("socket_unix_x32", 0x40000000 + 41, 1, 1, 0);
try("ptrace_x32", 0x40000000 + 521, 0, 0, 0, 0);
try("socket_inet", 41, 2, 1, 0);
"#;

fn answers(stdout: &str) -> std::collections::BTreeMap<String, String> {
    stdout
        .lines()
        .filter_map(|l| l.split_once(": "))
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

#[test]
fn the_calls_no_command_needs_are_refused_under_both_backends() {
    for spawner in backends() {
        let scene = scene();
        std::fs::write(scene.workspace.join("probe.pl"), SYSCALL_PROBE).unwrap();
        let out = run(&spawner, &profile(&scene, true), "perl probe.pl");
        let got = answers(&out.stdout);
        let backend = spawner.backend();
        for refused in [
            "io_uring_setup",
            "ptrace",
            "unshare_user",
            "unshare_net",
            "setns",
            "keyctl",
            "keyctl_x32",
            "io_uring_setup_x32",
            "unshare_user_x32",
            "clone_newns",
            "socket_unix",
            "socket_unix_x32",
            "ptrace_x32",
        ] {
            assert_eq!(
                got.get(refused).map(String::as_str),
                Some("Operation not permitted"),
                "{backend:?} {refused}: {out:?}"
            );
        }
        assert_eq!(
            got.get("clone3").map(String::as_str),
            Some("Function not implemented"),
            "{backend:?}: {out:?}"
        );
        assert_eq!(got.get("unshare_files").map(String::as_str), Some("ok"));
        // AF_INET stays inside bubblewrap's own network namespace; without
        // one (Landlock) and without the network granted, no socket at all.
        let inet = if matches!(backend, Backend::Bubblewrap(_)) {
            "ok"
        } else {
            "Operation not permitted"
        };
        assert_eq!(
            got.get("socket_inet").map(String::as_str),
            Some(inet),
            "{backend:?}"
        );
    }
}

#[test]
fn threads_and_processes_still_start_after_clone3_is_refused() {
    for spawner in backends() {
        let scene = scene();
        let out = run(
            &spawner,
            &profile(&scene, true),
            "/usr/bin/python3 -c \"import threading; t = threading.Thread(target=print, args=('thread',)); t.start(); t.join()\"; (echo child) & wait",
        );
        assert!(
            out.stdout.contains("thread") && out.stdout.contains("child"),
            "{:?}: {out:?}",
            spawner.backend()
        );
    }
}

/// A listener in a folder beside the workspace, outside `/run` and `/tmp`
/// (which the sandbox replaces): a read-only mount does not stop
/// `connect()`, the filter does.
#[test]
fn a_unix_socket_outside_run_and_tmp_gets_no_connection_network_or_not() {
    let dir = tempfile::tempdir_in("/var/tmp").unwrap();
    let socket = dir.path().join("agent.sock");
    let listener = std::os::unix::net::UnixListener::bind(&socket).unwrap();
    listener.set_nonblocking(true).unwrap();
    let probe = unix_connect_probe(&socket);
    for spawner in backends() {
        for network in [false, true] {
            let scene = scene();
            let mut profile = profile(&scene, true);
            profile.network = network;
            let out = run(&spawner, &profile, &probe);
            assert!(
                out.stdout.contains("socket: Operation not permitted"),
                "{:?} network={network}: {out:?}",
                spawner.backend()
            );
        }
    }
    assert!(
        matches!(listener.accept(), Err(e) if e.kind() == std::io::ErrorKind::WouldBlock),
        "a sandboxed command connected to the socket"
    );
}

/// A server and its client in one command, on loopback: what a
/// `cargo test` of a network crate does.
const LOOPBACK_PAIR: &str = r#"perl -MSocket -e 'socket(L, PF_INET, SOCK_STREAM, 0) or die "socket: $!\n"; bind(L, sockaddr_in(0, INADDR_LOOPBACK)) or die "bind: $!\n"; listen(L, 1) or die "listen: $!\n"; my ($port) = sockaddr_in(getsockname(L)); socket(C, PF_INET, SOCK_STREAM, 0) or die "socket: $!\n"; connect(C, sockaddr_in($port, INADDR_LOOPBACK)) or die "connect: $!\n"; accept(A, L) or die "accept: $!\n"; syswrite(C, "ping"); sysread(A, $got, 4); print "got $got\n"' 2>&1; true"#;

#[test]
fn loopback_inside_one_command_works_in_bubblewraps_namespace_and_with_the_network_granted() {
    for spawner in backends() {
        let scene = scene();
        let bwrap = matches!(spawner.backend(), Backend::Bubblewrap(_));
        let out = run(&spawner, &profile(&scene, true), LOOPBACK_PAIR);
        if bwrap {
            assert!(out.stdout.contains("got ping"), "{out:?}");
        } else {
            // No namespace of its own: the host's loopback stays shut.
            assert!(
                out.stdout.contains("socket: Operation not permitted"),
                "{out:?}"
            );
        }
        let mut granted = profile(&scene, true);
        granted.network = true;
        let out = run(&spawner, &granted, LOOPBACK_PAIR);
        assert!(
            out.stdout.contains("got ping"),
            "{:?}: {out:?}",
            spawner.backend()
        );
    }
}
