//! amber's trusted core.
//!
//! It owns the ports (traits that plugins are adapted to), the capability
//! ledger with its registries, the context chain and its sessions, hooks,
//! the policy, compression and the agent loop, and the state files written
//! so nothing is lost (`atomic`, `bounded`). Command lines and path
//! confinement are `amber-shell`'s, below it. It knows nothing of
//! WebAssembly or the network: `amber-runtime` adapts components to these
//! ports, and host-native contributions implement them directly. Both
//! install and unwind through the same [`Ledger`]. Inside, it layers one
//! way (docs/architecture.md): the ports and the context, then hooks, the
//! policy, sessions, compression, and the engine on top.

// A library reports what happened; its front end decides what to print.
#![deny(clippy::print_stdout, clippy::print_stderr)]

pub mod blocking;
pub mod bounded;
pub mod commands;
pub mod compress;
pub mod context;
pub mod engine;
pub mod hooks;
pub mod ledger;
pub mod policy;
pub mod ports;
pub mod printable;
pub mod project;
pub mod session;
pub mod text;
pub mod workspace_fs;

/// Command lines and path confinement live in `amber-shell`; these are
/// their old paths, kept for callers.
pub use amber_shell::{self as shell, confine, ConfineError};
/// amber's own files are written through `amber-state`; this is the old
/// path of its atomic writes, kept for callers.
pub use amber_state::atomic;
/// Where a test may have amber killed (docs/sessions.md).
pub use amber_state::crash_point;
pub use context::{ChainError, ChainHash, ContextChain, ContextSnapshot};
pub use ledger::{CapabilityKind, Contribution, Ledger, LedgerError, Owner, Service};
