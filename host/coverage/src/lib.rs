//! Read coverage (seed 003, ambits' memory loop, for amber's own
//! sessions): every tool call becomes per-symbol reads
//! ([`mapper::ToolCallMapper`]), kept per agent in a
//! [`ledger::ContextLedger`], diffed into a journal at the end of each
//! turn ([`journal`]); [`classify`] compares the journal with the
//! current tree, and the [`digest`] tells a compacted session what it had
//! already read. No wasm and no network: the host gives it the parse side
//! through [`symbols::SymbolSource`]. docs/coverage.md.

// A library reports what happened; its front end decides what to print.
#![deny(clippy::print_stdout, clippy::print_stderr)]

pub mod classify;
pub mod depth;
pub mod digest;
pub mod journal;
pub mod ledger;
pub mod mapper;
pub mod report;
pub mod symbols;

pub use classify::{classify, Classified, Freshness};
pub use depth::Depth;
pub use digest::Digest;
pub use ledger::{ContextLedger, Read, Record, MAIN};
pub use mapper::{Mapped, ToolCallMapper};
pub use symbols::{FileSymbols, SymbolInfo, SymbolSource};
