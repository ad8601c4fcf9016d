//! A rewind of a session, the same for `/rewind` and `amber sessions
//! rewind`: the files back from the checkpoints after the turn (what the
//! rewind wrote recorded as a checkpoint of its own, so a later rewind can
//! undo it), then the conversation rebuilt to that turn's head. The front
//! ends differ only in who writes the session: the live agent, or the
//! file itself under its lock.

use std::path::Path;

use amber_core::engine::Agent;
use amber_core::session::rewind::{messages_at, ClosedSession};
use amber_runtime::AmberDirs;
use serde::Serialize;

use super::rewind::{changes_after, rewind_code, Restored, What};
use super::store::ObjectStore;

/// Who writes the session's records.
pub enum Writer<'a> {
    /// A run has it open: its agent records, and its checkpointer learns
    /// what the rewind wrote.
    Live(&'a mut Agent),
    /// Nobody has it open; the caller holds its lock.
    Closed(Box<ClosedSession>),
}

/// What a rewind did.
#[derive(Debug, Clone, Serialize)]
pub struct Rewound {
    pub turn: usize,
    pub what: What,
    pub files: Option<Restored>,
    /// Messages the conversation kept.
    pub messages: Option<usize>,
}

/// Rewinds the session at `path` (whose files are in `root`) to the end
/// of `turn`. Nothing is written when the turn is not the session's or a
/// file refuses.
pub fn rewind(
    dirs: &AmberDirs,
    root: &Path,
    path: &Path,
    turn: usize,
    what: What,
    force: bool,
    writer: &mut Writer<'_>,
) -> anyhow::Result<Rewound> {
    // Checked whole first: a turn it does not have changes nothing.
    let messages = messages_at(path, turn)?;
    let mut files = None;
    if what.code() {
        let changes = changes_after(path, turn)?;
        let store = ObjectStore::new(super::store_dir(dirs));
        let done = rewind_code(root, &store, &changes, force)?;
        match writer {
            Writer::Live(agent) => agent.record_code_rewind(&done.changes)?,
            Writer::Closed(session) => session.checkpoint(&done.changes)?,
        }
        files = Some(done);
    }
    let mut kept = None;
    if what.conversation() {
        kept = Some(messages.len());
        match writer {
            Writer::Live(agent) => agent.rewind_history(turn, messages)?,
            Writer::Closed(session) => {
                session.rewind_conversation(turn)?;
            }
        }
    }
    Ok(Rewound {
        turn,
        what,
        files,
        messages: kept,
    })
}

impl Rewound {
    /// One line per part, for a person.
    pub fn describe(&self) -> String {
        let mut lines = Vec::new();
        if let Some(files) = &self.files {
            let mut line = format!(
                "files back to turn {}: {} restored, {} deleted",
                self.turn,
                files.restored.len(),
                files.deleted.len()
            );
            if !files.not_restorable.is_empty() {
                line.push_str(&format!(
                    "; not restorable: {}",
                    files.not_restorable.join(", ")
                ));
            }
            if !files.forced.is_empty() {
                line.push_str(&format!(
                    "; written over (--force): {}",
                    files.forced.join(", ")
                ));
            }
            lines.push(line);
        }
        if let Some(messages) = self.messages {
            lines.push(format!(
                "conversation back to turn {} ({messages} messages)",
                self.turn
            ));
        }
        lines.join("\n")
    }
}
