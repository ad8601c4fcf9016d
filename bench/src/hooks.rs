//! Hooks (issue 29): what one pre-tool component hook adds to a tool call,
//! against a goal of 20 µs; and the same component against the same
//! checks compiled natively and run as a command hook in Claude Code's
//! format, which it must beat fifty times over (≤ 0.02×). Both run through
//! the same HookRunner a session uses, so only the way the hook is called
//! differs: an instance of a component, or a process.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;

use amber_core::engine::Mode;
use amber_core::hooks::{HookRunner, PreTool};
use amber_core::Ledger;
use amber_runtime::{AmberDirs, Grants, PluginRuntime, RuntimeOptions};
use anyhow::{ensure, Context, Result};
use serde_json::json;

use crate::measure::{median, Figure, Rows};

/// A call hook-guard allows: what most calls are.
fn call() -> serde_json::Value {
    json!({"path": "src/lib.rs"})
}

fn allowed(answer: &PreTool) -> bool {
    matches!(answer, PreTool::Allow(_))
}

pub fn run(rows: &mut Rows) -> Result<()> {
    let home = tempfile::tempdir()?;
    let workspace = home.path().join("ws");
    std::fs::create_dir_all(&workspace)?;

    // The component, loaded as a session loads it.
    let ledger = Arc::new(Ledger::new());
    let options = RuntimeOptions::new(AmberDirs::under(home.path()), workspace.clone());
    let runtime = PluginRuntime::new(options, ledger.clone())?;
    let (id, _) = runtime.register_file(&crate::measure::guest("hook-guard")?)?;
    runtime.enable(&id, Grants::none())?;
    let component = HookRunner::new(ledger.clone(), "bench".into(), None);
    let bare = HookRunner::new(Arc::new(Ledger::new()), "bench".into(), None);
    // Warm: the instance is made at the first call.
    ensure!(allowed(&component.pre_tool(
        "main",
        Mode::Write,
        "write_file",
        call()
    )));
    ensure!(matches!(
        component.pre_tool("main", Mode::Write, "read_file", json!({"path": ".env"})),
        PreTool::Deny(_)
    ));

    // What the hook adds: the runner with it, against the runner without.
    let mut with = Vec::new();
    let mut without = Vec::new();
    for _ in 0..30 {
        let start = Instant::now();
        for _ in 0..200 {
            let answer = component.pre_tool("main", Mode::Write, "write_file", call());
            std::hint::black_box(&answer);
        }
        with.push(start.elapsed().as_secs_f64() * 1e6 / 200.0);
        let start = Instant::now();
        for _ in 0..200 {
            let answer = bare.pre_tool("main", Mode::Write, "write_file", call());
            std::hint::black_box(&answer);
        }
        without.push(start.elapsed().as_secs_f64() * 1e6 / 200.0);
        component.take_outcomes();
    }
    let without = median(without);
    let added = (median(with) - without).max(0.0);

    // The same checks, native, as a command hook through the spawner.
    let native = native_hook()?;
    let mut config = amber_config::Config::default();
    config.hooks.command.push(amber_config::CommandHookConfig {
        event: "PreToolUse".into(),
        matcher: None,
        command: native.display().to_string(),
        timeout_ms: Some(10_000),
        on_error: None,
        priority: 0,
    });
    let command_ledger = Arc::new(Ledger::new());
    let warnings = amber_app::hooks::install(
        &command_ledger,
        &config,
        &AmberDirs::under(home.path()),
        &workspace,
        &runtime.options().exec,
        amber_app::hooks::Trusting::Ask,
    );
    ensure!(warnings.is_empty(), "{warnings:?}");
    let command = HookRunner::new(command_ledger, "bench".into(), None);
    ensure!(matches!(
        command.pre_tool("main", Mode::Write, "read_file", json!({"path": ".env"})),
        PreTool::Deny(_)
    ));
    let mut spawned = Vec::new();
    for _ in 0..40 {
        let start = Instant::now();
        let answer = command.pre_tool("main", Mode::Write, "write_file", call());
        spawned.push(start.elapsed().as_secs_f64() * 1e6);
        ensure!(allowed(&answer), "{answer:?}");
        command.take_outcomes();
    }
    let spawned = median(spawned);

    rows.push(
        Figure {
            name: "hook_pre_tool_component_added_per_call",
            unit: "us",
            value: added,
            baseline: Some(("the_same_runner_without_hooks", without)),
            goal_value: Some(20.0),
            goal_ratio: None,
        }
        .row(),
    )?;
    rows.push(
        Figure {
            name: "hook_pre_tool_component_vs_native_command_hook",
            unit: "us",
            value: added,
            baseline: Some(("native_command_hook_same_checks", spawned)),
            goal_value: None,
            goal_ratio: Some(0.02),
        }
        .row(),
    )
}

/// The native hook binary, built beside the bench binary.
fn native_hook() -> Result<PathBuf> {
    let exe = std::env::current_exe()?;
    let path = exe
        .parent()
        .context("the bench binary has no folder")?
        .join("hook-guard-native");
    ensure!(
        path.exists(),
        "{} is missing: `cargo xtask bench` builds it",
        path.display()
    );
    Ok(path)
}
