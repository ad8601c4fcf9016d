//! amber's trusted core.
//!
//! It owns the ports (traits that plugins are adapted to), the capability
//! ledger with its registries, and path confinement. It knows nothing of
//! WebAssembly or the network: `amber-runtime` adapts components to these
//! ports, and host-native contributions implement them directly. Both install
//! and unwind through the same [`Ledger`].

pub mod atomic;
pub mod bounded;
pub mod commands;
pub mod compress;
pub mod confine;
pub mod context;
pub mod crash_point;
pub mod engine;
pub mod hooks;
pub mod ledger;
pub mod policy;
pub mod ports;
pub mod printable;
pub mod project;
pub mod session;
pub mod shell;
pub mod text;
pub mod workspace_fs;

pub use confine::{confine, ConfineError};
pub use context::{ChainError, ChainHash, ContextChain, ContextSnapshot};
pub use ledger::{CapabilityKind, Contribution, Ledger, LedgerError, Owner, Service};
