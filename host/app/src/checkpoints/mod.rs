//! Checkpoints (docs/checkpoints.md): before a turn's calls may change
//! the workspace, what they may change is kept in the content store;
//! after them, what changed is compared and recorded in the session, each
//! file with its content hash before and after. A rewind restores from
//! there.
//!
//! Files a call names (`write_file`'s `path`) are read before the call.
//! For commands, whose files are not known ahead, the workspace is walked
//! before them (the gitignore respected, `.git` left out), every file's
//! content kept that is not already in the store (a file up to
//! `[checkpoints] max_file_mib`, within a per-turn budget; one past either
//! is recorded "not restorable" by name), and walked again after them to
//! see what they created, changed or deleted. A file's hash is cached by
//! its size and modification time, so an unchanged file is not read again.
//!
//! What was kept before the calls is also written to a journal beside the
//! store until the session has the turn's `checkpoint` record: a run
//! killed between a call's write and that record leaves the journal, and
//! the next that opens the session compares and records then, so a crash
//! never leaves a change the session cannot rewind.

pub mod git_blobs;
pub mod prune;
pub mod rewind;
pub mod session_rewind;
pub mod store;

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::SystemTime;

use amber_core::ports::{Checkpoints, FileChange};
use serde::{Deserialize, Serialize};

use store::{hash_file, ObjectStore};

/// Where the content store is: one for every session of the user.
pub fn store_dir(dirs: &amber_runtime::AmberDirs) -> PathBuf {
    dirs.data.join("checkpoints")
}

/// The checkpointer of the session `id` in `workspace`: it starts from
/// what the session's earlier turns left of each file (`earlier`, its
/// `checkpoint` records as the resume read them), and journals each turn
/// until it is recorded.
pub fn for_session(
    dirs: &amber_runtime::AmberDirs,
    workspace: &Path,
    settings: &amber_config::CheckpointsConfig,
    earlier: &[FileChange],
    id: &str,
) -> WorkspaceCheckpoints {
    WorkspaceCheckpoints::new(
        workspace,
        ObjectStore::new(store_dir(dirs)),
        settings.max_file_mib.saturating_mul(1024 * 1024),
        settings.turn_budget_mib.saturating_mul(1024 * 1024),
    )
    .with_left(earlier)
    .with_journal(journal_path(dirs, id))
}

/// Where the journal of a session's unrecorded turn is.
pub fn journal_path(dirs: &amber_runtime::AmberDirs, session_id: &str) -> PathBuf {
    store_dir(dirs).join("pending").join(format!("{session_id}.json"))
}

/// Files a walk looks at, at most.
const MAX_WALKED: usize = 20_000;

/// A file as a walk saw it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
struct Meta {
    len: u64,
    modified: Option<SystemTime>,
}

/// What was kept of a file before the calls.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
enum Before {
    Absent,
    Kept {
        meta: Meta,
        hash: String,
    },
    /// Over the cap or the budget: known to exist, not kept.
    TooLarge {
        meta: Meta,
    },
    /// Tracked by git and unchanged since HEAD: its content is this blob,
    /// read only if the calls change the file.
    Git {
        meta: Meta,
        blob: String,
    },
}

#[derive(Default, Serialize, Deserialize)]
struct Pending {
    /// Changes made outside amber since the last turn, found now.
    outside: Vec<FileChange>,
    /// When the walk before the calls began: a file the walk did not
    /// see that was born before it existed then.
    started: Option<SystemTime>,
    files: BTreeMap<String, Before>,
    /// The files the calls named: compared by content, not by time.
    named: Vec<String>,
    /// Walked: the after-walk compares every file.
    walked: bool,
    notes: Vec<String>,
}

pub struct WorkspaceCheckpoints {
    root: PathBuf,
    store: ObjectStore,
    max_file: u64,
    turn_budget: u64,
    pending: Mutex<Option<Pending>>,
    /// Hashes by path, valid while the size and time are the same.
    known: Mutex<HashMap<String, (Meta, String)>>,
    /// What the last turn left of each file it changed (its hash, none:
    /// deleted), to find a change made outside amber before the next.
    left: Mutex<BTreeMap<String, Option<String>>>,
    /// Where the pending turn is journaled (none: not kept past a crash).
    journal: Option<PathBuf>,
    /// HEAD's tree, as the last walk asked git for it.
    head_tree: Mutex<Option<std::sync::Arc<git_blobs::HeadTree>>>,
}

fn meta_of(path: &Path) -> Option<Meta> {
    let m = std::fs::symlink_metadata(path).ok()?;
    m.is_file().then(|| Meta {
        len: m.len(),
        modified: m.modified().ok(),
    })
}

impl WorkspaceCheckpoints {
    pub fn new(root: &Path, store: ObjectStore, max_file: u64, turn_budget: u64) -> Self {
        WorkspaceCheckpoints {
            root: root.to_path_buf(),
            store,
            max_file,
            turn_budget,
            pending: Mutex::new(None),
            known: Mutex::new(HashMap::new()),
            left: Mutex::new(BTreeMap::new()),
            journal: None,
            head_tree: Mutex::new(None),
        }
    }

    /// Journals each turn's pending checkpoint at `path` (one per session).
    pub fn with_journal(mut self, path: PathBuf) -> Self {
        self.journal = Some(path);
        self
    }

    fn write_journal(&self, pending: &Pending) {
        let Some(path) = &self.journal else {
            return;
        };
        // Not fsynced: it must outlive a killed process, which the page
        // cache does; a power cut may lose it with the turn's last writes.
        if let Ok(bytes) = serde_json::to_vec(pending) {
            let _ = amber_core::atomic::write_with(path, &bytes, amber_core::atomic::Options::CACHE);
        }
    }

    fn relative(&self, path: &Path) -> Option<String> {
        path.strip_prefix(&self.root)
            .ok()
            .map(|p| p.to_string_lossy().into_owned())
            .filter(|p| !p.is_empty())
    }

    /// The workspace's files, as the sandbox's `.git` walk sees them: the
    /// gitignore respected, `.git` left out, at most [`MAX_WALKED`].
    fn walk(&self) -> (BTreeMap<String, Meta>, bool) {
        let mut files = BTreeMap::new();
        let walker = ignore::WalkBuilder::new(&self.root)
            .hidden(false)
            .git_ignore(true)
            // A .gitignore says what is generated even before `git init`.
            .require_git(false)
            .git_global(false)
            .parents(false)
            .filter_entry(|e| e.file_name() != ".git")
            .build();
        let mut cut = false;
        for entry in walker.flatten() {
            if files.len() >= MAX_WALKED {
                cut = true;
                break;
            }
            if !entry.file_type().is_some_and(|t| t.is_file())
                || amber_core::atomic::is_temp_file(entry.file_name())
            {
                continue;
            }
            if let (Some(rel), Some(meta)) = (self.relative(entry.path()), meta_of(entry.path())) {
                files.insert(rel, meta);
            }
        }
        (files, cut)
    }

    /// The hash of the file at `rel` now, read when the cache cannot say.
    fn hash_now(&self, rel: &str, meta: Meta) -> Option<String> {
        let mut known = self.known.lock().unwrap_or_else(|e| e.into_inner());
        if let Some((seen, hash)) = known.get(rel) {
            if *seen == meta {
                return Some(hash.clone());
            }
        }
        let hash = hash_file(&self.root.join(rel))?;
        known.insert(rel.to_string(), (meta, hash.clone()));
        Some(hash)
    }

    /// When the file at `rel` was made, where the filesystem says.
    fn born(&self, rel: &str) -> Option<SystemTime> {
        std::fs::symlink_metadata(self.root.join(rel))
            .ok()?
            .created()
            .ok()
    }

    /// Keeps the file at `rel` as it is now, within `budget` (new bytes
    /// stored this turn).
    fn keep(&self, rel: &str, budget: &mut u64) -> Before {
        let Some(meta) = meta_of(&self.root.join(rel)) else {
            return Before::Absent;
        };
        if meta.len > self.max_file {
            return Before::TooLarge { meta };
        }
        // Already kept and unchanged: nothing to read or store.
        if let Some((seen, hash)) = self
            .known
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get(rel)
        {
            // Touched: a prune spares what a turn in flight still names.
            if *seen == meta && self.store.touch(hash) {
                return Before::Kept {
                    meta,
                    hash: hash.clone(),
                };
            }
        }
        if meta.len > *budget {
            return Before::TooLarge { meta };
        }
        match self.store.put_file(&self.root.join(rel)) {
            Ok((hash, new)) => {
                if new {
                    *budget = budget.saturating_sub(meta.len);
                }
                self.known
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .insert(rel.to_string(), (meta, hash.clone()));
                Before::Kept { meta, hash }
            }
            Err(_) => Before::TooLarge { meta },
        }
    }
}

impl WorkspaceCheckpoints {
    /// The blobs of the files git tracks that are unchanged since HEAD
    /// (none outside a git work tree).
    fn unchanged_since_head(&self) -> HashMap<String, git_blobs::Blob> {
        let mut cached = self.head_tree.lock().unwrap_or_else(|e| e.into_inner());
        let Some((tree, changed)) = git_blobs::unchanged(&self.root, cached.clone()) else {
            return HashMap::new();
        };
        *cached = Some(tree.clone());
        let changed: std::collections::HashSet<String> = changed.into_iter().collect();
        tree.blobs
            .iter()
            .filter(|(path, _)| !changed.contains(*path))
            .map(|(path, blob)| (path.clone(), blob.clone()))
            .collect()
    }

    /// Keeps the content of git's blob `id`; its hash.
    fn keep_blob(&self, id: &str) -> Option<String> {
        let bytes = git_blobs::read_blob(&self.root, id)?;
        self.store.put(&bytes).ok().map(|(hash, _)| hash)
    }

    /// The files the session changed that are not as it left them: a
    /// change made outside amber since, recorded as such (and its content
    /// kept, so nothing of the person's is lost to a forced rewind).
    fn changed_outside(&self) -> Vec<FileChange> {
        let mut left = self.left.lock().unwrap_or_else(|e| e.into_inner());
        let mut budget = self.turn_budget;
        let mut changes = Vec::new();
        for (rel, was) in left.iter_mut() {
            let now = hash_file(&self.root.join(rel.as_str()));
            if now == *was {
                continue;
            }
            if now.is_some() {
                let _ = self.keep(rel, &mut budget);
            }
            changes.push(FileChange {
                path: rel.clone(),
                before: was.clone(),
                after: now.clone(),
                not_restorable: false,
                outside: true,
            });
            // Recorded once: the next turn starts from what is there now.
            *was = now;
        }
        changes
    }

    /// Starts from what a resumed session's turns left of each file they
    /// changed, so a change made outside amber before this run is found.
    pub fn with_left(self, changes: &[FileChange]) -> Self {
        {
            let mut left = self.left.lock().unwrap_or_else(|e| e.into_inner());
            for change in changes {
                left.insert(change.path.clone(), change.after.clone());
            }
        }
        self
    }
}

impl Checkpoints for WorkspaceCheckpoints {
    fn before(&self, paths: &[PathBuf], commands: bool) {
        let mut pending = Pending {
            outside: self.changed_outside(),
            ..Pending::default()
        };
        let mut budget = self.turn_budget;
        for path in paths {
            if let Some(rel) = self.relative(path) {
                let kept = self.keep(&rel, &mut budget);
                pending.files.insert(rel.clone(), kept);
                pending.named.push(rel);
            }
        }
        if commands {
            pending.started = Some(SystemTime::now());
            let (files, cut) = self.walk();
            if cut {
                pending.notes.push(format!(
                    "the checkpoint saw the first {MAX_WALKED} files of the workspace only; changes past them cannot be rewound"
                ));
            }
            let blobs = self.unchanged_since_head();
            for (rel, meta) in &files {
                if pending.files.contains_key(rel) {
                    continue;
                }
                let kept = match blobs.get(rel) {
                    // Within the cap: a blob is read whole if it is needed.
                    Some(blob) if blob.size == meta.len && meta.len <= self.max_file => Before::Git {
                        meta: *meta,
                        blob: blob.id.clone(),
                    },
                    _ => self.keep(rel, &mut budget),
                };
                pending.files.insert(rel.clone(), kept);
            }
            pending.walked = true;
        }
        self.write_journal(&pending);
        *self.pending.lock().unwrap_or_else(|e| e.into_inner()) = Some(pending);
    }

    fn recorded(&self) {
        if let Some(path) = &self.journal {
            let _ = std::fs::remove_file(path);
        }
    }

    fn recover(&self) -> Option<(Vec<FileChange>, Vec<String>)> {
        let path = self.journal.as_ref()?;
        let bytes = std::fs::read(path).ok()?;
        let Ok(pending) = serde_json::from_slice::<Pending>(&bytes) else {
            let _ = std::fs::remove_file(path);
            return Some((
                Vec::new(),
                vec![format!(
                    "{} is not a checkpoint journal; the interrupted turn's changes cannot be rewound",
                    path.display()
                )],
            ));
        };
        // A file tool killed mid-write left its temporary beside the file.
        let folders: std::collections::BTreeSet<PathBuf> = pending
            .named
            .iter()
            .filter_map(|rel| self.root.join(rel).parent().map(Path::to_path_buf))
            .collect();
        for folder in folders {
            amber_core::atomic::remove_stale_temps(&folder);
        }
        *self.pending.lock().unwrap_or_else(|e| e.into_inner()) = Some(pending);
        let (changes, mut notes) = self.after();
        notes.insert(
            0,
            format!(
                "the last turn was interrupted before its changes were recorded; found now: {}",
                if changes.is_empty() {
                    "none".to_string()
                } else {
                    changes.iter().map(|c| c.path.as_str()).collect::<Vec<_>>().join(", ")
                }
            ),
        );
        Some((changes, notes))
    }

    fn note(&self, changes: &[FileChange]) {
        let mut left = self.left.lock().unwrap_or_else(|e| e.into_inner());
        for change in changes {
            left.insert(change.path.clone(), change.after.clone());
        }
    }

    fn after(&self) -> (Vec<FileChange>, Vec<String>) {
        let Some(pending) = self
            .pending
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .take()
        else {
            return (Vec::new(), Vec::new());
        };
        let mut now: BTreeMap<String, Option<Meta>> = pending
            .files
            .keys()
            .map(|rel| (rel.clone(), meta_of(&self.root.join(rel))))
            .collect();
        if pending.walked {
            let (files, _) = self.walk();
            for (rel, meta) in files {
                now.insert(rel, Some(meta));
            }
        }
        let mut changes = pending.outside;
        let mut notes = pending.notes;
        if !changes.is_empty() {
            notes.push(format!(
                "changed outside amber since the last turn: {} (recorded; a rewind past it asks for --force)",
                changes.iter().map(|c| c.path.as_str()).collect::<Vec<_>>().join(", ")
            ));
        }
        for (rel, after) in now {
            let before = match pending.files.get(&rel) {
                Some(before) => before.clone(),
                // Not seen before the calls (the walk was cut, a
                // .gitignore changed): made by them only if it was born
                // after the walk began; otherwise its past is unknown, and
                // a rewind must not delete it.
                None => match (pending.started, self.born(&rel)) {
                    (Some(started), Some(born)) if born >= started => Before::Absent,
                    _ => match after {
                        Some(meta) => Before::TooLarge {
                            meta: Meta {
                                len: meta.len,
                                modified: None,
                            },
                        },
                        None => Before::Absent,
                    },
                },
            };
            // A named file's content is compared, whatever its time says:
            // a write in the same clock tick keeps size and time alike.
            if pending.named.contains(&rel) {
                self.known
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .remove(&rel);
            }
            let by_time =
                !pending.named.contains(&rel) || matches!(before, Before::TooLarge { .. });
            let unchanged = by_time
                && match (&before, after) {
                    (Before::Absent, None) => true,
                    (
                        Before::Kept { meta, .. }
                        | Before::TooLarge { meta }
                        | Before::Git { meta, .. },
                        Some(after),
                    ) => *meta == after,
                    _ => false,
                };
            if unchanged {
                continue;
            }
            let after_hash = after.and_then(|meta| self.hash_now(&rel, meta));
            let (before_hash, not_restorable) = match &before {
                Before::Absent => (None, false),
                Before::Kept { hash, .. } => (Some(hash.clone()), false),
                Before::Git { meta, blob } => match self.keep_blob(blob) {
                    Some(hash) => (Some(hash), false),
                    None => {
                        notes.push(format!(
                            "{rel} ({} bytes) was changed, and git could not give its content before (blob {blob}), so a rewind cannot restore it",
                            meta.len
                        ));
                        (None, true)
                    }
                },
                Before::TooLarge { meta } => {
                    notes.push(format!(
                        "{rel} ({} bytes) was changed but its content before was not kept (past [checkpoints] max_file_mib or the turn's budget, or not seen before the calls), so a rewind cannot restore it",
                        meta.len
                    ));
                    (None, true)
                }
            };
            // The same content, or still absent (a write of what was there).
            if !not_restorable && before_hash == after_hash {
                continue;
            }
            changes.push(FileChange {
                path: rel,
                before: before_hash,
                after: after_hash,
                not_restorable,
                outside: false,
            });
        }
        let mut left = self.left.lock().unwrap_or_else(|e| e.into_inner());
        for change in changes.iter().filter(|c| !c.outside) {
            left.insert(change.path.clone(), change.after.clone());
        }
        (changes, notes)
    }
}

#[cfg(test)]
mod tests {
    use super::store::hash_of;
    use super::*;

    fn checkpoints(dir: &Path) -> WorkspaceCheckpoints {
        let ws = dir.join("ws");
        std::fs::create_dir_all(&ws).unwrap();
        WorkspaceCheckpoints::new(&ws, ObjectStore::new(dir.join("store")), 1024, 4096)
    }

    #[test]
    fn a_named_file_and_a_command_s_files_are_kept_and_compared() {
        let tmp = tempfile::tempdir().unwrap();
        let cp = checkpoints(tmp.path());
        let ws = tmp.path().join("ws");
        std::fs::write(ws.join("a.txt"), "a before").unwrap();
        std::fs::write(ws.join("b.txt"), "b before").unwrap();
        std::fs::write(ws.join("big.bin"), vec![7u8; 2048]).unwrap();
        std::fs::write(ws.join(".gitignore"), "ignored/\n").unwrap();
        cp.before(&[ws.join("a.txt")], true);
        std::fs::write(ws.join("a.txt"), "a after").unwrap();
        std::fs::remove_file(ws.join("b.txt")).unwrap();
        std::fs::write(ws.join("c.txt"), "made").unwrap();
        std::fs::write(ws.join("big.bin"), vec![8u8; 2048]).unwrap();
        std::fs::create_dir_all(ws.join("ignored")).unwrap();
        std::fs::write(ws.join("ignored/x"), "x").unwrap();
        let (changes, notes) = cp.after();
        let by: BTreeMap<&str, &FileChange> =
            changes.iter().map(|c| (c.path.as_str(), c)).collect();
        assert_eq!(
            by.keys().copied().collect::<Vec<_>>(),
            ["a.txt", "b.txt", "big.bin", "c.txt"]
        );
        let store = ObjectStore::new(tmp.path().join("store"));
        assert_eq!(
            store.get(by["a.txt"].before.as_ref().unwrap()).unwrap(),
            b"a before"
        );
        assert_eq!(
            by["a.txt"].after.as_deref(),
            Some(hash_of(b"a after").as_str())
        );
        assert_eq!(
            store.get(by["b.txt"].before.as_ref().unwrap()).unwrap(),
            b"b before"
        );
        assert_eq!(by["b.txt"].after, None);
        assert_eq!(by["c.txt"].before, None);
        assert!(by["big.bin"].not_restorable);
        assert!(
            notes[0]
                .contains("big.bin (2048 bytes) was changed but its content before was not kept"),
            "{notes:?}"
        );
        // A turn that changes nothing records nothing.
        cp.before(&[ws.join("a.txt")], true);
        assert!(cp.after().0.is_empty());
    }

    /// Files in the store, each a kept content.
    fn objects(dir: &Path) -> usize {
        walkdir_count(&dir.join("store"))
    }

    fn walkdir_count(dir: &Path) -> usize {
        std::fs::read_dir(dir)
            .map(|entries| {
                entries
                    .flatten()
                    .map(|e| {
                        if e.path().is_dir() {
                            walkdir_count(&e.path())
                        } else {
                            1
                        }
                    })
                    .sum()
            })
            .unwrap_or(0)
    }

    #[test]
    fn a_command_keeps_tracked_unchanged_files_in_git_until_it_changes_one() {
        let tmp = tempfile::tempdir().unwrap();
        let cp = checkpoints(tmp.path());
        let ws = tmp.path().join("ws");
        let git = |args: &[&str]| amber_tests::edits::git(&ws, args);
        git(&["init", "-q"]);
        for n in 0..20 {
            std::fs::write(ws.join(format!("f{n}.rs")), format!("fn f{n}() {{}}\n")).unwrap();
        }
        git(&["add", "-A"]);
        git(&["commit", "-qm", "one"]);
        std::fs::write(ws.join("f1.rs"), "edited, not committed\n").unwrap();
        std::fs::write(ws.join("new.rs"), "untracked\n").unwrap();
        cp.before(&[], true);
        // Only what git does not have as it is: the edited and the new.
        assert_eq!(objects(tmp.path()), 2);
        std::fs::write(ws.join("f0.rs"), "changed by the command\n").unwrap();
        std::fs::write(ws.join("f1.rs"), "changed again\n").unwrap();
        std::fs::remove_file(ws.join("f2.rs")).unwrap();
        let (changes, notes) = cp.after();
        assert!(notes.is_empty(), "{notes:?}");
        let by: BTreeMap<&str, &FileChange> =
            changes.iter().map(|c| (c.path.as_str(), c)).collect();
        assert_eq!(by.keys().copied().collect::<Vec<_>>(), ["f0.rs", "f1.rs", "f2.rs"]);
        let store = ObjectStore::new(tmp.path().join("store"));
        let before = |path: &str| store.get(by[path].before.as_ref().unwrap()).unwrap();
        assert_eq!(before("f0.rs"), b"fn f0() {}\n");
        assert_eq!(before("f1.rs"), b"edited, not committed\n");
        assert_eq!(before("f2.rs"), b"fn f2() {}\n");
        assert!(changes.iter().all(|c| !c.not_restorable));
    }
}
