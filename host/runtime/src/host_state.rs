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
    pub(crate) http_ctx: wasmtime_wasi_http::WasiHttpCtx,
    pub(crate) http_hooks: crate::imports::http::HttpHooks,
}

impl wasmtime_wasi_http::WasiHttpView for HostState {
    fn http(&mut self) -> wasmtime_wasi_http::WasiHttpCtxView<'_> {
        wasmtime_wasi_http::WasiHttpCtxView {
            ctx: &mut self.http_ctx,
            table: &mut self.table,
            hooks: &mut self.http_hooks,
        }
    }
}

impl WasiView for HostState {
    fn ctx(&mut self) -> WasiCtxView<'_> {
        WasiCtxView {
            ctx: &mut self.wasi,
            table: &mut self.table,
        }
    }
}
