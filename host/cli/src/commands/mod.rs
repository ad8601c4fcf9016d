//! One module per command group.

pub mod plugin;
pub mod tool;

use std::path::Path;
use std::sync::Arc;

use amber_core::Ledger;
use amber_runtime::{AmberDirs, PluginRuntime, RuntimeOptions};
use anyhow::Result;

/// A runtime over the user's dirs and `workspace`, with a fresh ledger.
pub fn runtime(workspace: &Path) -> Result<PluginRuntime> {
    let options = RuntimeOptions::new(AmberDirs::from_env(), workspace.to_path_buf());
    Ok(PluginRuntime::new(options, Arc::new(Ledger::new()))?)
}
