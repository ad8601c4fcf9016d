//! The project index (seed 003, ambits: "How a query is served").
//!
//! Source files are walked gitignore-aware, routed to parser components by
//! extension and parsed in parallel into a [`ProjectTree`]: every symbol
//! with its id (`src/app.rs::App/handle_key`), spans and a BLAKE3 hash of
//! its bytes. Outlines are cached by file content, so a re-index parses only
//! what changed. `show`, `callers` and `grep` are served from the tree; the
//! host core's `Parser` port is all it knows of the parsers.

// A library reports what happened; its front end decides what to print.
#![deny(clippy::print_stdout, clippy::print_stderr)]

mod cache;
mod ids;
mod indexer;
mod parsers;
pub mod render;
mod search;
mod show;
mod source;
pub mod tools;

mod tree;

pub use indexer::{DroppedLanguage, Index, IndexReport, Progress, Skipped};
pub use parsers::{LedgerParsers, Parsers};
pub use search::{CallSite, Callers, GrepHit};
pub use show::{ShowOptions, Shown};
pub use source::MAX_FILE_BYTES;
pub use tree::{FileEntry, IndexedSymbol, ProjectTree, Selector};

/// What goes wrong in the index, with the file or symbol it concerns.
#[derive(Debug, thiserror::Error)]
pub enum IndexError {
    #[error("cannot read {path}: {reason}")]
    Read { path: String, reason: String },
    #[error("{0}")]
    Selector(String),
    #[error("no symbol `{0}` in the index (try `amber outline <file>` for the ids of a file)")]
    NoSymbol(String),
    #[error("no parser handles `{path}` (installed languages: {installed})")]
    NoParser { path: String, installed: String },
    #[error("{path}: {reason}")]
    Parse { path: String, reason: String },
    #[error("invalid pattern: {0}")]
    Pattern(String),
    #[error("{0} is outside the workspace")]
    OutsideRoot(String),
}
