//! The workspace guard's port (amber-sandbox behind it; docs/sandbox.md):
//! what the commands of a turn did to the paths other programs run things
//! from, so that the end of the turn can show it. Repository hooks and
//! settings a command planted were already undone, and the model told, by
//! the time they reach here; the rest (`.claude/settings.json`,
//! `.mcp.json`, `.amber/`, `.codex/`) is amber's to show, not to judge.

pub use amber_protocol::{ProtectedChange, ProtectedChangeKind};

pub trait WorkspaceWatch: Send + Sync {
    /// The changes since the last call, oldest first.
    fn take_changes(&self) -> Vec<ProtectedChange>;
}
