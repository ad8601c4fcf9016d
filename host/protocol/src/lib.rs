//! What amber says to whoever reads it. A run reports as it goes in
//! [`AgentEvent`]s: `amber exec --json` writes them one per line, the TUI
//! draws them, the bench client and the tests read them back. They live
//! here, below the core, with everything they carry, so a reader parses
//! typed values with the same definitions the writer used, and nothing
//! indexes a JSON object by field names it hopes are right.
//!
//! Each line of `exec --json` is a [`Line`]: the event with `"v"`, the
//! version of this protocol (docs/exec-json.md says what a bump means).

#![deny(clippy::print_stdout, clippy::print_stderr)]

mod compression;
mod cost;
mod events;
mod hook;
mod line;
mod model_error;
mod protected;
mod report;
mod status;
mod todo;
mod usage;

pub use compression::CompressionStats;
pub use cost::{add_cost, dollars, Price};
pub use events::{AgentEvent, CompactionTrigger, DeltaKind, FailureKind};
pub use hook::{HookEvent, HookOutcome};
pub use line::{parse_line, to_line, Line, LineError, VERSION};
pub use model_error::{ModelError, ModelErrorKind};
pub use protected::{ProtectedChange, ProtectedChangeKind};
pub use report::{Outcome, RunReport};
pub use status::Status;
pub use todo::{Todo, TodoStatus};
pub use usage::{StopReason, Usage};
