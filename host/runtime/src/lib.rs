//! amber-runtime: runs untrusted plugins as sandboxed WebAssembly components.
//!
//! - one process-wide [`engine`] (Cranelift, pooling allocator, epoch ticker);
//! - a content-addressed [`cache`] of compiled code shared across homes;
//! - a [`sandbox`] per instance: WASI p2 with no env, args, stdin or sockets,
//!   and preopens only as granted;
//! - [`limits`]: a memory cap, a guest-time deadline, an output cap;
//! - the host-side [`imports`] (`host`, `exec`), linked for every plugin;
//! - the [`lifecycle`] of the seed's "Capability ledger": enable installs
//!   each declared capability through the core's ledger, disable unwinds.
//!
//! Components are adapted to `amber-core`'s ports in [`adapters`].

// A library reports what happened; its front end decides what to print.
#![deny(clippy::print_stdout, clippy::print_stderr)]

pub mod adapters;
pub mod api;
pub mod bindings;
pub mod cache;
pub mod compat;
pub mod declarations;
pub mod engine;
pub mod error;
pub mod exec_policy;
pub mod grants;
pub mod host_state;
pub mod imports;
pub mod instance;
pub mod lifecycle;
pub mod limits;
pub mod log;
pub mod manager;
pub mod plugin_context;
pub mod pool_cell;
pub mod sandbox;

/// The dirs are `amber-state`'s; named here too for the runtime's callers.
pub use amber_state::AmberDirs;
pub use cache::{CompileProgress, ComponentCache};
pub use engine::{shared_engine, RuntimeLimits};
pub use error::{CallError, LoadError};
pub use grants::{Grants, Permission};
pub use lifecycle::{
    ComponentFile, PluginManifest, PluginRuntime, PluginState, PluginStatus, Prepared,
    Registration, RuntimeOptions,
};
pub use log::PluginLog;

/// The `amber:plugin` package version this host speaks natively; the
/// older ones it still loads are in [`api::SUPPORTED`].
pub const API_VERSION: &str = "0.3.0";
