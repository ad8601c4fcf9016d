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

use super::store::{hash_file, ObjectStore};

/// What a code rewind did.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Restored {
    pub restored: Vec<String>,
    pub deleted: Vec<String>,
    /// Changed after the turn but never kept (over the cap): left as is.
    pub not_restorable: Vec<String>,
    /// Changed outside amber since, and written over (`--force`).
    pub forced: Vec<String>,
    /// What the rewind wrote, as a checkpoint: each file's content before
    /// it and after, for the session to record.
    #[serde(skip)]
    pub changes: Vec<FileChange>,
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

/// Per file: its content before the first change and after the last,
/// whether it is not restorable, and whether someone changed it outside
/// amber on the way.
fn ends(changes: &[FileChange]) -> BTreeMap<String, End> {
    let mut ends: BTreeMap<String, End> = BTreeMap::new();
    for change in changes {
        let entry = ends.entry(change.path.clone()).or_insert(End {
            first: change.before.clone(),
            last: None,
            not_restorable: change.not_restorable,
            outside: false,
        });
        entry.last = change.after.clone();
        entry.outside |= change.outside;
    }
    ends
}

struct End {
    first: Option<String>,
    last: Option<String>,
    not_restorable: bool,
    outside: bool,
}

/// The file `rel` names under `root`, if it is one a rewind may touch: a
/// relative path of plain names (the session file is not trusted), none
/// of whose folders under the root is a symlink, so nothing is read or
/// written outside the workspace.
fn inside(root: &Path, rel: &str) -> Result<std::path::PathBuf, RewindError> {
    use std::path::Component;
    let refused = |why: &str| RewindError::File {
        path: rel.to_string(),
        reason: why.to_string(),
    };
    let relative = Path::new(rel);
    if rel.is_empty()
        || !relative
            .components()
            .all(|c| matches!(c, Component::Normal(_)))
    {
        return Err(refused("not a plain path inside the workspace"));
    }
    let mut at = root.to_path_buf();
    let mut parts = relative.components().peekable();
    while let Some(part) = parts.next() {
        at.push(part);
        let is_last = parts.peek().is_none();
        match std::fs::symlink_metadata(&at) {
            Ok(meta) if meta.file_type().is_symlink() => {
                return Err(refused(
                    "a symlink on its path: a rewind does not follow one",
                ))
            }
            Ok(meta) if !is_last && !meta.is_dir() => {
                return Err(refused("a folder on its path is not a folder"))
            }
            _ => {}
        }
    }
    Ok(at)
}

/// Puts the workspace at `root` back as it was after turn `turn`. Every
/// path is checked, every content loaded and every file's content now
/// kept in the store before the first write, so a refusal changes
/// nothing and the rewind itself can be undone. A file already as it was
/// is left alone, so a rewind cut short by a crash finishes when run
/// again.
pub fn rewind_code(
    root: &Path,
    store: &ObjectStore,
    changes: &[FileChange],
    force: bool,
) -> Result<Restored, RewindError> {
    let ends = ends(changes);
    let mut planned = Vec::new();
    let mut outside = Vec::new();
    for (rel, end) in ends {
        let path = inside(root, &rel)?;
        let now = hash_file(&path);
        let action = if end.not_restorable {
            Action::NotRestorable
        } else if now == end.first {
            // As it was already: nothing to write. A rewind cut short by a
            // crash put it there (having kept what it wrote over), so it
            // is recorded as the rewind's; put back by hand, with what was
            // there not kept, it is left out of the record, which could
            // not undo it.
            let undoable = end.last.as_deref().is_none_or(|last| store.has(last));
            if end.last == end.first || !undoable {
                continue;
            }
            Action::Already
        } else {
            if end.outside || now != end.last {
                outside.push(rel.clone());
            }
            match &end.first {
                Some(hash) => Action::Write(store.get(hash).map_err(|e| RewindError::File {
                    path: rel.clone(),
                    reason: format!("its content before is not in the checkpoint store: {e}"),
                })?),
                None => Action::Delete,
            }
        };
        let before = if matches!(action, Action::Already) {
            end.last
        } else {
            now
        };
        planned.push(Planned {
            rel,
            path,
            before,
            first: end.first,
            action,
        });
    }
    if !outside.is_empty() && !force {
        return Err(RewindError::ChangedOutside(outside));
    }
    // A rewind killed mid-write left its temporary beside the file.
    let folders: std::collections::BTreeSet<&Path> =
        planned.iter().filter_map(|p| p.path.parent()).collect();
    for folder in folders {
        amber_core::atomic::remove_stale_temps(folder);
    }
    // What is there now is kept, so a rewind past the rewind undoes it.
    for plan in &planned {
        if matches!(plan.action, Action::Write(_) | Action::Delete) && plan.before.is_some() {
            keep_now(store, plan)?;
        }
    }
    let mut done = Restored {
        forced: outside,
        ..Restored::default()
    };
    for plan in planned {
        let failed = |e: std::io::Error| RewindError::File {
            path: plan.rel.clone(),
            reason: e.to_string(),
        };
        match &plan.action {
            Action::NotRestorable => {
                done.not_restorable.push(plan.rel);
                continue;
            }
            Action::Already => {}
            Action::Write(bytes) => {
                if let Some(dir) = plan.path.parent() {
                    std::fs::create_dir_all(dir).map_err(failed)?;
                }
                amber_core::atomic::write_atomic(&plan.path, bytes).map_err(failed)?;
                done.restored.push(plan.rel.clone());
            }
            Action::Delete => {
                match std::fs::remove_file(&plan.path) {
                    Ok(()) => {}
                    Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                    Err(e) => return Err(failed(e)),
                }
                done.deleted.push(plan.rel.clone());
            }
        }
        done.changes.push(FileChange {
            path: plan.rel,
            before: plan.before,
            after: plan.first,
            not_restorable: false,
            outside: false,
        });
        amber_core::crash_point::pass("rewind-file");
    }
    Ok(done)
}

/// What a rewind does to one file.
enum Action {
    Write(Vec<u8>),
    Delete,
    /// Already as it was after the turn.
    Already,
    /// Its content before was never kept: left as it is.
    NotRestorable,
}

/// One file a rewind will put back.
struct Planned {
    rel: String,
    path: std::path::PathBuf,
    /// Its content's hash before the rewind.
    before: Option<String>,
    /// What it goes back to (none: deleted).
    first: Option<String>,
    action: Action,
}

/// Puts the file's content now in the store, unless it is there.
fn keep_now(store: &ObjectStore, plan: &Planned) -> Result<(), RewindError> {
    if plan.before.as_deref().is_some_and(|hash| store.touch(hash)) {
        return Ok(());
    }
    let failed = |reason: String| RewindError::File {
        path: plan.rel.clone(),
        reason: format!("cannot keep its content before the rewind: {reason}"),
    };
    let bytes = std::fs::read(&plan.path).map_err(|e| failed(e.to_string()))?;
    let (hash, _) = store.put(&bytes).map_err(|e| failed(e.to_string()))?;
    if Some(&hash) != plan.before.as_ref() {
        return Err(failed("it changed while the rewind read it".into()));
    }
    Ok(())
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
            // A rewind's rebuild is a turn of its own: its head says so.
            Ok(Record::Rewound { turn }) => prompt = format!("(rewound to turn {turn})"),
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

#[cfg(test)]
mod tests {
    use super::*;

    fn change(path: &str, before: Option<&str>, after: Option<&str>) -> FileChange {
        FileChange {
            path: path.into(),
            before: before.map(str::to_string),
            after: after.map(str::to_string),
            not_restorable: false,
            outside: false,
        }
    }

    #[test]
    fn a_path_out_of_the_workspace_or_through_a_symlink_is_refused_and_nothing_changes() {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().join("ws");
        let outside = tmp.path().join("outside");
        std::fs::create_dir_all(&root).unwrap();
        std::fs::create_dir_all(&outside).unwrap();
        std::fs::write(outside.join("rc"), "mine").unwrap();
        std::os::unix::fs::symlink(&outside, root.join("d")).unwrap();
        let store = ObjectStore::new(tmp.path().join("store"));
        let (bad, _) = store.put(b"harm").unwrap();
        let mine = hash_file(&outside.join("rc"));
        for path in ["../outside/rc", "/etc/passwd", "d/rc"] {
            let changes = [change(path, Some(&bad), mine.as_deref())];
            let err = rewind_code(&root, &store, &changes, true)
                .unwrap_err()
                .to_string();
            assert!(err.starts_with(path), "{path}: {err}");
        }
        assert_eq!(std::fs::read_to_string(outside.join("rc")).unwrap(), "mine");
        // A good file beside a refused one is not written either.
        std::fs::write(root.join("ok.txt"), "now").unwrap();
        let changes = [
            change(
                "ok.txt",
                Some(&bad),
                hash_file(&root.join("ok.txt")).as_deref(),
            ),
            change("d/rc", Some(&bad), mine.as_deref()),
        ];
        assert!(rewind_code(&root, &store, &changes, true).is_err());
        assert_eq!(std::fs::read_to_string(root.join("ok.txt")).unwrap(), "now");
    }

    #[test]
    fn a_rewind_is_recorded_so_it_can_be_undone_and_one_cut_short_finishes() {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().join("ws");
        std::fs::create_dir_all(&root).unwrap();
        let store = ObjectStore::new(tmp.path().join("store"));
        let (one, _) = store.put(b"one").unwrap();
        std::fs::write(root.join("a"), "two").unwrap();
        std::fs::write(root.join("new"), "made").unwrap();
        let two = hash_file(&root.join("a"));
        let made = hash_file(&root.join("new"));
        let turn = [
            change("a", Some(&one), two.as_deref()),
            change("new", None, made.as_deref()),
        ];
        let done = rewind_code(&root, &store, &turn, false).unwrap();
        assert_eq!(std::fs::read_to_string(root.join("a")).unwrap(), "one");
        assert!(!root.join("new").exists());
        assert_eq!(
            done.changes,
            [
                change("a", two.as_deref(), Some(&one)),
                change("new", made.as_deref(), None),
            ]
        );
        // The rewind's own record undoes it: what it wrote over was kept.
        rewind_code(&root, &store, &done.changes, false).unwrap();
        assert_eq!(std::fs::read_to_string(root.join("a")).unwrap(), "two");
        assert_eq!(std::fs::read_to_string(root.join("new")).unwrap(), "made");
        // Cut short after a: run again, unforced, it finishes, and records
        // a as its own though it did not write it this time.
        std::fs::write(root.join("a"), "one").unwrap();
        let again = rewind_code(&root, &store, &turn, false).unwrap();
        assert_eq!(again.restored, Vec::<String>::new());
        assert_eq!(again.deleted, ["new"]);
        assert_eq!(again.changes, done.changes);
        // Once recorded, nothing is left to do.
        let recorded = [turn.to_vec(), again.changes].concat();
        let nothing = rewind_code(&root, &store, &recorded, false).unwrap();
        assert_eq!(nothing, Restored::default());
    }
}
