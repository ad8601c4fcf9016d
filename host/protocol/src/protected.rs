//! What the commands of a turn did to the paths other programs run
//! things from (docs/sandbox.md), as the turn's end reports it.

use serde::{Deserialize, Serialize};

/// What happened to one guarded path.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ProtectedChangeKind {
    Created,
    Changed,
    Removed,
    /// amber undid what the command did; `detail` says what.
    Reverted,
}

/// One change to a guarded path.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProtectedChange {
    /// Relative to the workspace.
    pub path: String,
    pub change: ProtectedChangeKind,
    /// What amber did, or what the path is for.
    pub detail: String,
}

impl ProtectedChange {
    /// One line for a terminal.
    pub fn describe(&self) -> String {
        match self.change {
            ProtectedChangeKind::Reverted => self.detail.clone(),
            ProtectedChangeKind::Created => format!("created {} ({})", self.path, self.detail),
            ProtectedChangeKind::Changed => format!("changed {} ({})", self.path, self.detail),
            ProtectedChangeKind::Removed => format!("removed {} ({})", self.path, self.detail),
        }
    }
}
