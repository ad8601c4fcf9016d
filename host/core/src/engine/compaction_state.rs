//! What compaction leaves behind in the agent: the outcome `/compact`
//! reports, and the gate's memory within a run. A file of its own so the
//! agent (`mod.rs`, which holds the state) and the compaction that runs on
//! it (`compact.rs`) both name these without naming each other.

use crate::ports::{CompressionStats, LearnReport};

/// Compressions the gate may start that fail in a row before compression
/// is off for the rest of the run.
pub const MAX_COMPACTION_FAILURES: u32 = 3;

/// What a compression did, for `/compact`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CompactionOutcome {
    /// The context was rebuilt.
    Completed {
        stats: CompressionStats,
        /// Memories and skills the learner wrote.
        learned: LearnReport,
    },
    /// The context is unchanged; why.
    Failed(String),
    /// No compression pipeline is installed.
    Unavailable,
    /// A pre-compact hook skipped an automatic compaction; why.
    Skipped(String),
}

/// The compression gate's memory within a run.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct CompactionState {
    /// Failures in a row of compressions the gate started; at
    /// `MAX_COMPACTION_FAILURES` the gate is off for the rest of the run.
    pub(super) failures: u32,
    /// A compression just succeeded: the gate does not fire on the next
    /// turn.
    pub(super) rested: bool,
}
