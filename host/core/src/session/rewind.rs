//! Rewinding a conversation to a turn, through the chain's own records:
//! a `clear`, the messages the chain held at that turn's head, and a new
//! head, the same unit a compaction's rebuild is. Nothing before is
//! destroyed, the file verifies after, and a kill mid-rewind resumes the
//! context before it (a rebuild counts only once its head is written).

use std::path::Path;

use super::{resume, resume_to, SessionError, SessionLock, SessionWriter};
use crate::ports::dialect::Message;
use crate::ports::FileChange;

/// The messages the chain of the session at `path` held at the head of
/// `turn` (verified as a resume verifies).
pub fn messages_at(path: &Path, turn: usize) -> Result<Vec<Message>, SessionError> {
    let whole = resume(path)?;
    if turn == 0 || turn > whole.turns {
        return Err(SessionError::Io {
            path: path.to_path_buf(),
            reason: format!(
                "there is no turn {turn} to rewind to; the session has {} (1 to {})",
                whole.turns, whole.turns
            ),
        });
    }
    Ok(resume_to(path, Some(turn))?.chain.get_all().to_vec())
}

/// A session no run has open, written under its lock: what a rewind
/// from the shell records (a checkpoint of the files it wrote, then the
/// conversation's rebuild), through one writer.
pub struct ClosedSession {
    path: std::path::PathBuf,
    writer: SessionWriter,
}

impl ClosedSession {
    /// Opens the session at `path`, whose `lock` the caller took.
    pub fn open(path: &Path, lock: SessionLock) -> Result<Self, SessionError> {
        let resumed = resume(path)?;
        Ok(ClosedSession {
            path: path.to_path_buf(),
            writer: SessionWriter::reopen(path, &resumed, lock)?,
        })
    }

    /// Records a checkpoint: files amber changed outside a run's turns
    /// (a code rewind, or a killed turn's changes found later).
    pub fn checkpoint(&mut self, files: &[FileChange]) -> Result<(), SessionError> {
        if files.is_empty() {
            return Ok(());
        }
        self.writer.checkpoint(files)
    }

    /// Rewinds the conversation to `turn`; returns the messages kept.
    pub fn rewind_conversation(&mut self, turn: usize) -> Result<usize, SessionError> {
        let target = messages_at(&self.path, turn)?;
        let resumed = resume(&self.path)?;
        let mut chain = resumed.chain.clone();
        let writer = &mut self.writer;
        // Inside the rebuild unit: a rewind cut short leaves no marker.
        writer.clear(&mut chain)?;
        writer.rewound(turn)?;
        for message in &target {
            writer.push(&mut chain, message.clone())?;
        }
        writer.end_turn_with(&chain, Some(resumed.usage), resumed.cost_usd)?;
        Ok(target.len())
    }
}
