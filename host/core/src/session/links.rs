//! How sessions name each other: a fork its source, a sub-agent's
//! session its parent. A leaf file: the start record, the store's listing
//! and the fork all name these types.

use serde::{Deserialize, Serialize};

/// Where a fork came from.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ForkLink {
    /// The session it was taken from.
    pub session: String,
    /// The turn it was taken at (1 is the first head).
    pub turn: usize,
    /// That turn's head hash in the source: the prefix is verifiable
    /// against it.
    pub head: String,
}
