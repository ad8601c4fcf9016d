//! The hostile-guest suite: each misbehaviour is contained. The host
//! survives, the error names the plugin and the cause, other plugins still
//! answer, the bad plugin's next call gets a fresh instance, and nothing
//! outside the workspace is read.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "a test fails by panicking, its helpers too"
)]

use std::time::Duration;

use amber_runtime::{Grants, Permission, PluginRuntime, PluginState, RuntimeOptions};
use amber_tests::{call_tool, enable, Scratch};
use serde_json::json;

fn hostile_runtime(scratch: &Scratch, tune: impl FnOnce(&mut RuntimeOptions)) -> PluginRuntime {
    let mut options = scratch.options();
    tune(&mut options);
    let runtime = scratch.runtime_with(options);
    enable(
        &runtime,
        "misbehave",
        Grants::of([Permission::WorkspaceRead]),
    );
    enable(&runtime, "hello-tool", Grants::none());
    runtime
}

/// Calls a misbehaving tool, then proves the host and the other plugins
/// are fine and the bad plugin itself recovers on a fresh instance.
fn contained(runtime: &PluginRuntime, tool: &str, args: serde_json::Value) -> String {
    let err =
        call_tool(runtime, tool, args).expect_err("the misbehaviour must surface as an error");
    assert_eq!(
        call_tool(runtime, "hello", json!({"name": "neighbour"})).unwrap(),
        "Hello, neighbour!"
    );
    assert_eq!(call_tool(runtime, "ok", json!({})).unwrap(), "still here");
    assert_eq!(runtime.state("misbehave"), Some(PluginState::Active));
    err
}

#[test]
fn spinning_forever_hits_the_guest_deadline() {
    let scratch = Scratch::new();
    let runtime = hostile_runtime(&scratch, |o| o.limits.deadline = Duration::from_millis(300));
    let err = contained(&runtime, "spin", json!({}));
    assert!(
        err.contains(
            "plugin `misbehave` exceeded its deadline of 300 ms of guest time in tool `spin`"
        ),
        "{err}"
    );
}

#[test]
fn allocating_past_the_cap_hits_the_memory_limit() {
    let scratch = Scratch::new();
    let runtime = hostile_runtime(&scratch, |o| o.limits.memory_bytes = 64 << 20);
    let err = contained(&runtime, "alloc", json!({}));
    assert!(
        err.contains("plugin `misbehave` exceeded its memory limit of 64 MiB in tool `alloc`"),
        "{err}"
    );
}

#[test]
fn unbounded_recursion_is_a_stack_overflow_trap() {
    let scratch = Scratch::new();
    let runtime = hostile_runtime(&scratch, |_| {});
    let err = contained(&runtime, "recurse", json!({}));
    assert!(
        err.contains("plugin `misbehave` trapped in tool `recurse`"),
        "{err}"
    );
    assert!(err.contains("stack"), "{err}");
}

#[test]
fn a_trap_is_reported_with_its_cause() {
    let scratch = Scratch::new();
    let runtime = hostile_runtime(&scratch, |_| {});
    let err = contained(&runtime, "trap", json!({}));
    assert!(
        err.contains("plugin `misbehave` trapped in tool `trap`"),
        "{err}"
    );
    assert!(err.contains("unreachable"), "{err}");
}

#[test]
fn a_panic_is_reported_with_the_plugins_last_words() {
    let scratch = Scratch::new();
    let runtime = hostile_runtime(&scratch, |_| {});
    let err = contained(&runtime, "panic", json!({}));
    assert!(err.contains("trapped in tool `panic`"), "{err}");
    assert!(err.contains("misbehave panicked on purpose"), "{err}");
    let log = runtime.recent_log("misbehave", 10).unwrap().join("\n");
    assert!(
        log.contains("panicked on purpose"),
        "the panic is in the plugin's log: {log}"
    );
}

#[test]
fn a_100_mb_string_is_refused_at_the_output_cap() {
    let scratch = Scratch::new();
    let runtime = hostile_runtime(&scratch, |_| {});
    let err = contained(&runtime, "big-output", json!({}));
    assert!(
        err.contains(
            "returned 104857600 bytes from tool `big-output`, over the cap of 16777216 bytes"
        ),
        "{err}"
    );
}

#[test]
fn dot_dot_paths_cannot_leave_the_workspace() {
    let scratch = Scratch::new();
    let runtime = hostile_runtime(&scratch, |_| {});
    for path in [
        "../../etc/passwd",
        "/workspace/../../etc/passwd",
        "../../../../../../etc/passwd",
    ] {
        let err = contained(&runtime, "read", json!({ "path": path }));
        assert!(
            err.contains(path) && !err.contains("root:"),
            "{path}: {err}"
        );
    }
}

#[test]
fn absolute_paths_outside_the_workspace_do_not_exist_for_the_plugin() {
    let scratch = Scratch::new();
    let runtime = hostile_runtime(&scratch, |_| {});
    let err = contained(&runtime, "read", json!({"path": "/etc/passwd"}));
    assert!(
        err.starts_with("/etc/passwd:") && !err.contains("root:"),
        "{err}"
    );
}

#[test]
fn a_symlink_planted_in_the_workspace_cannot_lead_outside() {
    let scratch = Scratch::new();
    std::fs::write(scratch.workspace.join("inside.txt"), "in the workspace").unwrap();
    std::os::unix::fs::symlink("/etc/passwd", scratch.workspace.join("passwd-link")).unwrap();
    std::os::unix::fs::symlink("/etc", scratch.workspace.join("etc-link")).unwrap();
    let runtime = hostile_runtime(&scratch, |_| {});
    // The preopen works, so the refusals below are the sandbox at work.
    assert_eq!(
        call_tool(&runtime, "read", json!({"path": "inside.txt"})).unwrap(),
        "in the workspace"
    );
    assert_eq!(
        call_tool(&runtime, "read", json!({"path": "/workspace/inside.txt"})).unwrap(),
        "in the workspace"
    );
    for path in ["passwd-link", "/workspace/passwd-link", "etc-link/passwd"] {
        let err = contained(&runtime, "read", json!({ "path": path }));
        assert!(!err.contains("root:"), "{path}: {err}");
    }
}

/// The `files` import (batched reads and a native walk) confines exactly
/// as the WASI preopen does.
#[test]
fn the_files_import_reads_and_walks_only_inside_the_workspace() {
    let scratch = Scratch::new();
    let ws = &scratch.workspace;
    std::fs::write(ws.join("inside.txt"), "in the workspace").unwrap();
    std::fs::create_dir(ws.join("sub")).unwrap();
    std::fs::write(ws.join("sub/a.txt"), "a").unwrap();
    std::fs::write(ws.join(".gitignore"), "ignored.txt\n").unwrap();
    std::fs::write(ws.join("ignored.txt"), "skip me").unwrap();
    // The root's rules apply to a walk of a subfolder too.
    std::fs::write(ws.join("sub/ignored.txt"), "skip me too").unwrap();
    // Nothing above the workspace is read: this would hide everything.
    std::fs::write(ws.parent().unwrap().join(".gitignore"), "*\n").unwrap();
    std::os::unix::fs::symlink("/etc/passwd", ws.join("passwd-link")).unwrap();
    std::os::unix::fs::symlink("/etc", ws.join("etc-link")).unwrap();
    let fifo = std::ffi::CString::new(ws.join("pipe").to_string_lossy().as_bytes()).unwrap();
    // SAFETY: a valid, NUL-terminated path.
    assert_eq!(unsafe { libc::mkfifo(fifo.as_ptr(), 0o600) }, 0);
    let runtime = hostile_runtime(&scratch, |_| {});

    let paths = [
        "inside.txt",
        "/workspace/inside.txt",
        "./sub/a.txt",
        "../../etc/passwd",
        "/etc/passwd",
        "/workspace/../../etc/passwd",
        "passwd-link",
        "etc-link/passwd",
        "pipe",
        "sub",
        "missing.txt",
    ];
    let read = call_tool(&runtime, "read-many", json!({ "paths": paths })).unwrap();
    let lines: Vec<&str> = read.lines().collect();
    assert_eq!(lines.len(), paths.len(), "{read}");
    assert_eq!(lines[0], "inside.txt: ok in the workspace");
    assert_eq!(lines[1], "/workspace/inside.txt: ok in the workspace");
    assert_eq!(lines[2], "./sub/a.txt: ok a");
    for (line, path) in lines[3..].iter().zip(&paths[3..]) {
        assert!(
            line.starts_with(&format!("{path}: failed")) && !line.contains("root:"),
            "{line}"
        );
    }
    assert!(lines[8].contains("not a regular file"), "{}", lines[8]);
    // Errors show paths as the plugin wrote them, never the host's path.
    let host_path = scratch.workspace.to_string_lossy().into_owned();
    assert!(!read.contains(&host_path), "{read}");
    let capped = call_tool(
        &runtime,
        "read-many",
        json!({"paths": ["inside.txt"], "max_bytes": 3}),
    )
    .unwrap();
    assert_eq!(capped, "inside.txt: too large 16");

    let walked = call_tool(&runtime, "walk", json!({"root": "."})).unwrap();
    assert_eq!(
        walked.lines().collect::<Vec<_>>(),
        [
            "folder .",
            "symlink ./etc-link",
            "file ./inside.txt",
            "symlink ./passwd-link",
            "other ./pipe",
            "folder ./sub",
            "file ./sub/a.txt",
        ],
        "gitignored and hidden files are left out, symlinks are not followed"
    );
    let sub = call_tool(&runtime, "walk", json!({"root": "/workspace/sub"})).unwrap();
    assert_eq!(sub, "folder /workspace/sub\nfile /workspace/sub/a.txt");
    for root in ["etc-link", "../..", "/etc", "/workspace/../.."] {
        let err = contained(&runtime, "walk", json!({ "root": root }));
        assert!(!err.contains(&host_path), "{root}: {err}");
        assert!(
            err.contains(&format!("cannot walk {root}")),
            "{root}: {err}"
        );
    }
}

#[test]
fn walks_never_dropped_cannot_use_up_the_hosts_file_descriptors() {
    let scratch = Scratch::new();
    std::fs::create_dir_all(scratch.workspace.join("a/b/c")).unwrap();
    let runtime = hostile_runtime(&scratch, |_| {});
    let err = contained(&runtime, "walk-leak", json!({}));
    assert!(
        err.contains("cannot walk .: 8 walks are open already; drop one first"),
        "{err}"
    );
}

#[test]
fn the_files_import_answers_an_ungranted_plugin_with_an_error() {
    let scratch = Scratch::new();
    let runtime = scratch.runtime_with(scratch.options());
    enable(&runtime, "misbehave", Grants::none());
    let expected = "not granted: workspace-read (plugin `misbehave`; grant it with `amber plugin grant misbehave workspace-read`)";
    for (tool, args) in [
        ("read-many", json!({"paths": ["a.txt"]})),
        ("walk", json!({"root": "."})),
    ] {
        let err = call_tool(&runtime, tool, args).unwrap_err();
        assert!(err.contains(expected), "{tool}: {err}");
    }
}

#[test]
fn environment_variables_are_invisible() {
    std::env::set_var("AMBER_TEST_SECRET", "sk-must-not-leak");
    let scratch = Scratch::new();
    let runtime = hostile_runtime(&scratch, |_| {});
    let vars = call_tool(&runtime, "env", json!({})).unwrap();
    assert_eq!(vars, "", "a plugin sees no environment at all");
}

#[test]
fn an_ungranted_import_answers_with_an_error_and_runs_nothing() {
    let scratch = Scratch::new();
    let runtime = hostile_runtime(&scratch, |_| {});
    let err = contained(&runtime, "exec", json!({}));
    assert!(
        err.contains("not granted: exec (plugin `misbehave`; grant it with `amber plugin grant misbehave exec`)"),
        "{err}"
    );
}

#[test]
fn three_traps_in_a_row_fail_the_plugin_and_unwind_it() {
    let scratch = Scratch::new();
    let runtime = hostile_runtime(&scratch, |_| {});
    for _ in 0..3 {
        assert!(call_tool(&runtime, "trap", json!({})).is_err());
    }
    let status = runtime.status("misbehave").unwrap();
    assert_eq!(status.state, PluginState::Failed);
    let reason = status.reason.unwrap();
    assert!(
        reason.contains("3 calls in a row failed") && reason.contains("trapped in tool `trap`"),
        "{reason}"
    );
    assert!(status.contributions.is_empty());
    assert!(runtime.ledger().tool("ok").is_none());
    assert_eq!(
        call_tool(&runtime, "hello", json!({"name": "n"})).unwrap(),
        "Hello, n!"
    );
}

#[test]
fn traps_separated_by_successes_do_not_fail_the_plugin() {
    let scratch = Scratch::new();
    let runtime = hostile_runtime(&scratch, |_| {});
    for _ in 0..4 {
        assert!(call_tool(&runtime, "trap", json!({})).is_err());
        assert!(call_tool(&runtime, "ok", json!({})).is_ok());
    }
    assert_eq!(runtime.state("misbehave"), Some(PluginState::Active));
}

/// A guest that writes to stderr (here, a panic's message) while it is
/// called from inside an async runtime: wasmtime-wasi's blocking write
/// enters the runtime with `block_on`, which panicked the host on a worker
/// thread ("Cannot start a runtime from within a runtime"). The runtime
/// now leaves the worker for the call, on either kind of async runtime.
#[test]
fn a_guest_that_prints_inside_an_async_runtime_does_not_take_the_host_down() {
    let scratch = Scratch::new();
    let runtime = hostile_runtime(&scratch, |_| {});
    let multi = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let on_worker = runtime.clone();
    let task = multi.spawn(async move { call_tool(&on_worker, "panic", json!({})).unwrap_err() });
    let err = multi.block_on(task).unwrap();
    assert!(err.contains("panicked on purpose"), "{err}");
    let single = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let err = single.block_on(async { call_tool(&runtime, "panic", json!({})).unwrap_err() });
    assert!(err.contains("panicked on purpose"), "{err}");
    assert_eq!(
        call_tool(&runtime, "hello", json!({"name": "after"})).unwrap(),
        "Hello, after!"
    );
}

/// The error of a network attempt: a denial by the sandbox, never a
/// connection, whatever the address.
fn denied(runtime: &PluginRuntime, tool: &str, args: serde_json::Value) -> String {
    let err = contained(runtime, tool, args);
    assert!(err.contains("denied: "), "{tool} was not denied: {err}");
    assert!(!err.contains("reached: "), "{err}");
    err
}

#[test]
fn a_tcp_connect_is_denied_even_to_a_listener_on_loopback() {
    let scratch = Scratch::new();
    let runtime = hostile_runtime(&scratch, |_| {});
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    listener.set_nonblocking(true).unwrap();
    let local = listener.local_addr().unwrap().to_string();
    for to in [local.as_str(), "1.1.1.1:443"] {
        let err = denied(&runtime, "tcp-connect", json!({"to": to}));
        assert!(err.contains("PermissionDenied"), "{to}: {err}");
    }
    let accepted = listener.accept();
    assert!(
        matches!(&accepted, Err(e) if e.kind() == std::io::ErrorKind::WouldBlock),
        "the listener saw a connection: {accepted:?}"
    );
}

#[test]
fn a_udp_send_is_denied_and_nothing_arrives() {
    let scratch = Scratch::new();
    let runtime = hostile_runtime(&scratch, |_| {});
    let socket = std::net::UdpSocket::bind("127.0.0.1:0").unwrap();
    socket
        .set_read_timeout(Some(Duration::from_millis(200)))
        .unwrap();
    let local = socket.local_addr().unwrap().to_string();
    for to in [local.as_str(), "1.1.1.1:53"] {
        let err = denied(&runtime, "udp-send", json!({"to": to}));
        assert!(err.contains("PermissionDenied"), "{to}: {err}");
    }
    let mut buf = [0u8; 16];
    assert!(socket.recv(&mut buf).is_err(), "a datagram arrived");
}

#[test]
fn a_dns_lookup_is_denied() {
    let scratch = Scratch::new();
    let runtime = hostile_runtime(&scratch, |_| {});
    for name in ["example.com:80", "localhost:80"] {
        denied(&runtime, "dns-lookup", json!({"name": name}));
    }
}
