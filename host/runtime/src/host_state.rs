//! The data of one Store: what the host keeps per instance, and what
//! every import's implementation, whichever API version it serves, works
//! on. Its own module so that the version adapters (`crate::api`) and the
//! instances that hold them both depend on it, not on each other.

use std::sync::Arc;

use wasmtime::component::ResourceTable;
use wasmtime_wasi::{WasiCtx, WasiCtxView, WasiView};

use crate::limits::{GuestClock, GuestLimiter};
use crate::plugin_context::PluginContext;

/// The data of one Store.
pub struct HostState {
    pub(crate) wasi: WasiCtx,
    pub(crate) table: ResourceTable,
    pub(crate) limiter: GuestLimiter,
    pub(crate) clock: GuestClock,
    pub(crate) plugin: Arc<PluginContext>,
    /// The workspace for the `files` import, opened on its first use.
    pub(crate) workspace_dir: Option<amber_core::workspace_fs::WorkspaceDir>,
    /// Walks of the `files` import this instance holds open.
    pub(crate) open_walks: usize,
}

impl WasiView for HostState {
    fn ctx(&mut self) -> WasiCtxView<'_> {
        WasiCtxView {
            ctx: &mut self.wasi,
            table: &mut self.table,
        }
    }
}
