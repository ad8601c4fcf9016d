//! Governed engineering memory (seed 004, Agent Memory Bridge).
//!
//! Three layers, kept apart as the seed asks:
//! - **durable authority**: [`Store`], one SQLite file of records, their
//!   full revision history, typed edges, recall receipts and feedback;
//! - **derived views**: [`recall`] (FTS5 + bm25 with lifecycle-aware
//!   eligibility, fused with the optional embedding view of [`semantic`])
//!   and [`assembly`] (the governed task-memory report);
//! - **transient context**: [`compiler`], which turns explicit inputs into
//!   a rendered string that lives in memory only, plus a manifest of
//!   digests and accounting that never holds titles or bodies.
//!
//! The crate knows the core's ports ([`prompt_block`] is a head block,
//! [`learner`] keeps what compression learns, with [`skills`]' folders)
//! and nothing of WebAssembly. Feedback is stored and changes nothing by
//! itself. The one place anything is learned is the learner, driven by a
//! compression cycle's judgement: it writes candidates, which only a
//! person promotes.

// A library reports what happened; its front end decides what to print.
#![deny(clippy::print_stdout, clippy::print_stderr)]

pub mod assembly;
pub mod compiler;
pub mod eligibility;
pub mod error;
pub mod fts_query;
pub mod learner;
pub mod model;
pub mod namespace;
pub mod prompt_block;
mod ranking;
pub mod recall;
mod schema;
pub mod semantic;
pub mod skills;
pub mod store;
pub mod tokens;
pub mod validate;

pub use eligibility::Suppression;
pub use error::MemoryError;
pub use learner::MemoryLearner;
pub use model::{
    Applicability, ChangeKind, Draft, Edge, EdgeKind, Feedback, Provenance, Receipt, Record,
    RecordType, Revision, Status, Verdict,
};
pub use prompt_block::RecallBlock;
pub use recall::{Hit, Ranking, Recall, RecallQuery, Semantic, Suppressed};
pub use schema::SCHEMA_VERSION;
pub use store::{Added, Check, ListFilter, Refreshed, Store};
