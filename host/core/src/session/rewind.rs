//! Rewinding a conversation to a turn, through the chain's own records:
//! a `clear`, the messages the chain held at that turn's head, and a new
//! head, the same unit a compaction's rebuild is. Nothing before is
//! destroyed, the file verifies after, and a kill mid-rewind resumes the
//! context before it (a rebuild counts only once its head is written).

use std::path::Path;

use super::{resume, resume_to, SessionError, SessionLock, SessionWriter};
use crate::ports::dialect::Message;

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

/// Rewinds the conversation of the session at `path`, whose `lock` the
/// caller took, to `turn`; returns the messages kept.
pub fn rewind_conversation(
    path: &Path,
    turn: usize,
    lock: SessionLock,
) -> Result<usize, SessionError> {
    let target = messages_at(path, turn)?;
    let resumed = resume(path)?;
    let mut chain = resumed.chain.clone();
    let mut writer = SessionWriter::reopen(path, &resumed, lock)?;
    // Inside the rebuild unit: a rewind cut short leaves no marker.
    writer.clear(&mut chain)?;
    writer.rewound(turn)?;
    for message in &target {
        writer.push(&mut chain, message.clone())?;
    }
    writer.end_turn_with(&chain, Some(resumed.usage), resumed.cost_usd)?;
    Ok(target.len())
}
