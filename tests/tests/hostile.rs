//! The hostile-guest suite: each misbehaviour is contained. The host
//! survives, the error names the plugin and the cause, other plugins still
//! answer, the bad plugin's next call gets a fresh instance, and nothing
//! outside the workspace is read.

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
        err.contains("exec is not granted to plugin `misbehave`; grant it with `amber plugin grant misbehave exec`"),
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
