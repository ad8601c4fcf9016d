//! Rewinding the workspace to a turn: every file the session's later
//! turns changed gets back the content it had before the first of them
//! (a file they created is deleted). A file whose content is not what the
//! session's last change left (someone edited it since, outside amber) is
//! not written over: the rewind refuses, naming each such file, unless
//! forced. Nothing is changed when it refuses.

use std::collections::BTreeMap;
use std::path::Path;

use amber_core::ports::FileChange;
use amber_core::session::Record;
use serde::Serialize;

use super::store::{hash_of, ObjectStore};

/// What a code rewind did.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Restored {
    pub restored: Vec<String>,
    pub deleted: Vec<String>,
    /// Changed after the turn but never kept (over the cap): left as is.
    pub not_restorable: Vec<String>,
    /// Changed outside amber since, and written over (`--force`).
    pub forced: Vec<String>,
}

#[derive(Debug, thiserror::Error)]
pub enum RewindError {
    #[error("changed outside amber since the session last touched them, so a rewind would lose those changes (--force writes over them): {}", .0.join(", "))]
    ChangedOutside(Vec<String>),
    #[error("cannot read the session: {0}")]
    Session(String),
    #[error("{path}: {reason}")]
    File { path: String, reason: String },
}

/// The checkpoints of the session at `path` after turn `turn`, in order.
pub fn changes_after(path: &Path, turn: usize) -> Result<Vec<FileChange>, RewindError> {
    let text = std::fs::read_to_string(path).map_err(|e| RewindError::Session(e.to_string()))?;
    let mut changes = Vec::new();
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        if let Ok(Record::Checkpoint { turn: at, files }) = serde_json::from_str::<Record>(line) {
            if at > turn {
                changes.extend(files);
            }
        }
    }
    Ok(changes)
}

/// Per file: its content before the first change and after the last.
fn ends(changes: &[FileChange]) -> BTreeMap<String, (Option<String>, Option<String>, bool)> {
    let mut ends: BTreeMap<String, (Option<String>, Option<String>, bool)> = BTreeMap::new();
    for change in changes {
        let entry = ends.entry(change.path.clone()).or_insert((
            change.before.clone(),
            None,
            change.not_restorable,
        ));
        entry.1 = change.after.clone();
    }
    ends
}

/// Puts the workspace at `root` back as it was after turn `turn`.
pub fn rewind_code(
    root: &Path,
    store: &ObjectStore,
    changes: &[FileChange],
    force: bool,
) -> Result<Restored, RewindError> {
    let ends = ends(changes);
    let current = |rel: &str| std::fs::read(root.join(rel)).ok().map(|b| hash_of(&b));
    let outside: Vec<String> = ends
        .iter()
        .filter(|(rel, (_, last, _))| current(rel) != *last)
        .map(|(rel, _)| rel.clone())
        .collect();
    if !outside.is_empty() && !force {
        return Err(RewindError::ChangedOutside(outside));
    }
    let mut done = Restored {
        forced: outside,
        ..Restored::default()
    };
    for (rel, (first, _, not_restorable)) in ends {
        let path = amber_core::confine(root, &rel).map_err(|e| RewindError::File {
            path: rel.clone(),
            reason: e.to_string(),
        })?;
        let failed = |e: std::io::Error| RewindError::File {
            path: rel.clone(),
            reason: e.to_string(),
        };
        match (first, not_restorable) {
            (_, true) => done.not_restorable.push(rel),
            (Some(hash), false) => {
                let bytes = store.get(&hash).map_err(failed)?;
                if let Some(dir) = path.parent() {
                    std::fs::create_dir_all(dir).map_err(failed)?;
                }
                amber_core::atomic::write_atomic(&path, &bytes).map_err(failed)?;
                done.restored.push(rel);
            }
            (None, false) => {
                match std::fs::remove_file(&path) {
                    Ok(()) => {}
                    Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                    Err(e) => return Err(failed(e)),
                }
                done.deleted.push(rel);
            }
        }
    }
    Ok(done)
}

/// What to rewind.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum What {
    Both,
    Code,
    Conversation,
}

impl What {
    pub fn code(self) -> bool {
        self != What::Conversation
    }

    pub fn conversation(self) -> bool {
        self != What::Code
    }
}

/// One turn of a session as `/rewind` lists it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct TurnSummary {
    pub turn: usize,
    /// The prompt of the run the turn belongs to.
    pub prompt: String,
    /// Files its calls changed.
    pub files: Vec<String>,
}

/// The turns of the session at `path`, each with its run's prompt and
/// the files it changed.
pub fn turns(path: &Path) -> Result<Vec<TurnSummary>, RewindError> {
    let text = std::fs::read_to_string(path).map_err(|e| RewindError::Session(e.to_string()))?;
    let mut out = Vec::new();
    let mut prompt = String::new();
    let mut files = Vec::new();
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        match serde_json::from_str::<Record>(line) {
            Ok(Record::Prompt { text }) => prompt = amber_core::text::one_line(&text, 60),
            Ok(Record::Checkpoint { files: changed, .. }) => {
                files.extend(changed.into_iter().map(|c| c.path))
            }
            Ok(Record::Head { .. }) => out.push(TurnSummary {
                turn: out.len() + 1,
                prompt: prompt.clone(),
                files: std::mem::take(&mut files),
            }),
            _ => {}
        }
    }
    Ok(out)
}

/// The turns as text, newest last, with how to rewind to one.
pub fn listing(turns: &[TurnSummary]) -> String {
    let mut out = String::new();
    for t in turns {
        let changed = if t.files.is_empty() {
            String::new()
        } else {
            format!(" · changed {}", t.files.join(", "))
        };
        out.push_str(&format!("{:>3}  {}{changed}\n", t.turn, t.prompt));
    }
    out.push_str("/rewind TURN [code|conversation] [--force]: code and conversation back to the end of TURN\n");
    out
}
