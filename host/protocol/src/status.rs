//! How a tool call ended, as the model and the events see it.

use serde::{Deserialize, Serialize};

/// Ran, failed, or was denied before it ran.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    Ok,
    Error,
    Denied,
}
