//! Checkpoints (docs/checkpoints.md): before a turn's calls change the
//! workspace, the host keeps what they may change; after them, it says
//! what did change, each file with its content before and after (as
//! content hashes), for the session's `checkpoint` record that a rewind
//! restores from. The core says when; the host knows the files.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

/// One file a turn changed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileChange {
    /// Relative to the workspace root.
    pub path: String,
    /// The content's BLAKE3 hash before the turn; `None`: the file did not
    /// exist (the turn created it).
    pub before: Option<String>,
    /// After the turn; `None`: the turn deleted it.
    pub after: Option<String>,
    /// The content before was not kept (over the size cap or the turn's
    /// budget): a rewind names it and leaves it.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub not_restorable: bool,
    /// Changed outside amber between turns (an editor), found at the
    /// next turn: a rewind past it refuses unless forced, so a person's
    /// edit is never silently written over.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub outside: bool,
}

pub trait Checkpoints: Send + Sync {
    /// Before calls that may write: `paths` are the files their arguments
    /// name (confined); `commands` says whether any runs shell commands,
    /// whose files are not known ahead.
    fn before(&self, paths: &[PathBuf], commands: bool);
    /// After them: what changed since [`Self::before`], and notes for the
    /// run (a file past the cap, a walk cut short).
    fn after(&self) -> (Vec<FileChange>, Vec<String>);
    /// The changes [`Self::after`] gave are in the session: what kept
    /// them for a crash in between may go.
    fn recorded(&self) {}
    /// A turn killed between [`Self::before`] and [`Self::recorded`]: its
    /// changes, compared now, with notes; `None` when there was none.
    fn recover(&self) -> Option<(Vec<FileChange>, Vec<String>)> {
        None
    }
    /// Changes amber made between turns (a code rewind), so the next turn
    /// does not take them for a person's.
    fn note(&self, _changes: &[FileChange]) {}
}
