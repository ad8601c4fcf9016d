//! The `exec` import's host side, through a real component granted `exec`:
//! cwd confined to the workspace, time inside the import not counted
//! against the guest deadline, and a long command not blocking other calls.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "a test fails by panicking, its helpers too"
)]

use std::time::Duration;

use amber_runtime::{Grants, Permission};
use amber_tests::{call_tool, enable, Scratch};
use serde_json::json;

fn granted() -> Grants {
    Grants::of([Permission::WorkspaceRead, Permission::Exec])
}

#[test]
fn a_granted_command_runs_in_the_workspace() {
    let scratch = Scratch::new();
    std::fs::create_dir(scratch.workspace.join("sub")).unwrap();
    let runtime = scratch.runtime();
    enable(&runtime, "misbehave", granted());
    let out = call_tool(&runtime, "exec", json!({"command": "pwd"})).unwrap();
    assert_eq!(out.trim(), scratch.workspace.to_string_lossy());
    let out = call_tool(&runtime, "exec", json!({"command": "pwd", "cwd": "sub"})).unwrap();
    assert_eq!(out.trim(), scratch.workspace.join("sub").to_string_lossy());
}

#[test]
fn a_cwd_outside_the_workspace_is_refused() {
    let scratch = Scratch::new();
    let runtime = scratch.runtime();
    enable(&runtime, "misbehave", granted());
    for cwd in ["..", "/tmp", "sub/../../x"] {
        let err = call_tool(&runtime, "exec", json!({"command": "pwd", "cwd": cwd})).unwrap_err();
        assert!(
            err.contains("cwd refused") && err.contains("outside the workspace"),
            "{cwd}: {err}"
        );
    }
}

#[test]
fn time_inside_exec_does_not_count_toward_the_guest_deadline() {
    let scratch = Scratch::new();
    let mut options = scratch.options();
    options.limits.deadline = Duration::from_millis(200);
    let runtime = scratch.runtime_with(options);
    enable(&runtime, "misbehave", granted());
    let out = call_tool(
        &runtime,
        "exec",
        json!({"command": "sleep 0.6; echo slept"}),
    )
    .unwrap();
    assert_eq!(out, "slept\n");
}

#[test]
fn a_running_command_does_not_block_other_calls_of_the_same_plugin() {
    let scratch = Scratch::new();
    let runtime = scratch.runtime();
    enable(&runtime, "misbehave", granted());
    let fifo = scratch.workspace.join("gate");
    let made = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap();
    assert!(made.success());
    let slow = {
        let runtime = runtime.clone();
        std::thread::spawn(move || {
            call_tool(
                &runtime,
                "exec",
                json!({"command": "read line < gate; echo $line"}),
            )
        })
    };
    // The first call is parked in `exec` until the gate opens; this call
    // can only finish on another instance.
    assert_eq!(call_tool(&runtime, "ok", json!({})).unwrap(), "still here");
    assert!(!slow.is_finished());
    std::fs::write(&fifo, "opened\n").unwrap();
    assert_eq!(slow.join().unwrap().unwrap(), "opened\n");
}
