//! Live reload (issue 27): from the file event of a changed plugin to its
//! new version answering a call, against a cold enable of the same new
//! component (register, enable, first call) in the same run. Each pair
//! starts from an empty AOT cache, so both compile the new component; the
//! reload's side also pays the watcher and the quiet period the TUI waits
//! for (`watch::QUIET`).

use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use amber_app::watch::{settle, PluginWatcher};
use amber_core::Ledger;
use amber_runtime::manager::{GrantChoice, NoTty, PluginManager};
use amber_runtime::{AmberDirs, Grants, Permission, PluginRuntime, RuntimeOptions};
use amber_tests::guest;
use anyhow::{anyhow, ensure, Context, Result};
use serde_json::json;

use crate::measure::{median, Figure, Rows};

const PAIRS: usize = 7;

/// A runtime over `home`, with its own (empty) cache under it.
fn runtime(home: &Path, workspace: &Path) -> Result<PluginRuntime> {
    let dirs = AmberDirs::under(home);
    let options = RuntimeOptions::new(dirs, workspace.to_path_buf());
    Ok(PluginRuntime::new(options, Arc::new(Ledger::new()))?)
}

fn call_hello(runtime: &PluginRuntime) -> Result<String> {
    let tool = runtime
        .ledger()
        .tool("hello")
        .ok_or_else(|| anyhow!("no `hello` tool"))?;
    tool.call(&json!({"name": "bench"}))
        .map(|o| o.content)
        .map_err(|e| anyhow!("{e}"))
}

/// Milliseconds from v1 appearing in the plugin folder of a host running
/// v2 to v1 answering.
fn reload_ms() -> Result<f64> {
    let scratch = tempfile::tempdir()?;
    let (home, ws) = (scratch.path().join("home"), scratch.path().join("ws"));
    std::fs::create_dir_all(&ws)?;
    let dirs = AmberDirs::under(&home);
    let mut manager = PluginManager::new(runtime(&home, &ws)?, &dirs, Default::default(), None);
    let choice = GrantChoice {
        explicit: vec![Permission::WorkspaceRead],
        all: false,
    };
    manager.add(&guest("hello-v2"), &choice, &mut NoTty)?;
    let folder = manager.plugin_dir().join("hello");
    let (tx, rx) = std::sync::mpsc::channel();
    let _watcher = PluginWatcher::start(manager.plugin_dir(), move || {
        let _ = tx.send(());
    })?;
    let staged = folder.join(".v1.part");
    std::fs::copy(guest("hello-tool"), &staged)?;
    let start = Instant::now();
    std::fs::rename(&staged, folder.join("v1.wasm"))?;
    rx.recv_timeout(Duration::from_secs(10))
        .context("the watcher never fired")?;
    // As the TUI does: the burst waited out, then one sync.
    settle(|quiet| rx.recv_timeout(quiet).is_ok());
    let changes = manager.sync_plugin_dir();
    let answer = call_hello(manager.runtime())?;
    let ms = start.elapsed().as_secs_f64() * 1e3;
    ensure!(
        answer == "Hello, bench!",
        "v1 did not answer: {answer} ({changes:?})"
    );
    Ok(ms)
}

/// Milliseconds to register, enable and first call v1 with a cold cache.
fn cold_enable_ms() -> Result<f64> {
    let scratch = tempfile::tempdir()?;
    let (home, ws) = (scratch.path().join("home"), scratch.path().join("ws"));
    std::fs::create_dir_all(&ws)?;
    let runtime = runtime(&home, &ws)?;
    let start = Instant::now();
    let (id, _) = runtime.register_file(&guest("hello-tool"))?;
    runtime.enable(&id, Grants::none())?;
    let answer = call_hello(&runtime)?;
    let ms = start.elapsed().as_secs_f64() * 1e3;
    ensure!(answer == "Hello, bench!", "{answer}");
    Ok(ms)
}

pub fn run(rows: &mut Rows) -> Result<()> {
    let mut reloads = Vec::with_capacity(PAIRS);
    let mut colds = Vec::with_capacity(PAIRS);
    for i in 0..PAIRS {
        // Interleaved, the order swapped each pair.
        if i % 2 == 0 {
            reloads.push(reload_ms()?);
            colds.push(cold_enable_ms()?);
        } else {
            colds.push(cold_enable_ms()?);
            reloads.push(reload_ms()?);
        }
    }
    rows.push(
        Figure {
            name: "plugin_reload_file_event_to_callable",
            unit: "ms",
            value: median(reloads),
            baseline: Some(("cold_enable_of_the_same_component", median(colds))),
            goal_value: None,
            goal_ratio: Some(1.2),
        }
        .row(),
    )
}
