//! What one compression cycle did, for its event and the session record.

use serde::{Deserialize, Serialize};

/// What one cycle did, in its own token estimate for before and after.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct CompressionStats {
    pub tokens_before: u64,
    pub tokens_after: u64,
    /// Segments in the compressed set.
    pub kept: usize,
    /// Segments folded into another by collapsing a tool-call loop.
    pub collapsed: usize,
    /// Segments dropped: labelled prune, or the oldest context ones to
    /// reach the target.
    pub pruned: usize,
}
