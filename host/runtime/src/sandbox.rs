//! The WASI context of one instance, locked down: no env, no args, no
//! stdin, no sockets, stdout discarded, stderr into the plugin's log, and
//! the workspace preopened at [`WORKSPACE_MOUNT`] only when granted
//! (read-only unless `workspace-write`). Symlinks inside the preopen that
//! point outside it are refused by WASI's capability-based filesystem.

use wasmtime_wasi::{FsPerms, WasiCtx, WasiCtxBuilder};

use crate::error::CallError;
use crate::grants::Permission;
use crate::plugin_context::PluginContext;

/// Where the workspace appears inside the sandbox.
pub const WORKSPACE_MOUNT: &str = "/workspace";

pub fn wasi_ctx(plugin: &PluginContext) -> Result<WasiCtx, CallError> {
    let mut builder = WasiCtxBuilder::new();
    // Calls are synchronous on a blocking thread already; let file I/O run
    // inline instead of hopping to another thread.
    builder.allow_blocking_current_thread(true);
    builder.stderr(plugin.log.stderr_pipe());
    if plugin.grants.can_read_workspace() {
        let perms = if plugin.grants.has(Permission::WorkspaceWrite) {
            FsPerms::ReadWrite
        } else {
            FsPerms::ReadOnly
        };
        builder
            .preopened_dir(&plugin.workspace, WORKSPACE_MOUNT, perms)
            .map_err(|e| CallError::Instantiate {
                plugin: plugin.id.clone(),
                reason: format!(
                    "cannot open the workspace {}: {e:#}",
                    plugin.workspace.display()
                ),
            })?;
    }
    Ok(builder.build())
}
