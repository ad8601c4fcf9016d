//! The workspace guard: every `.git` of the workspace protected, the ones
//! a command creates included, and the files other agents run things
//! from watched.
//!
//! Before each sandboxed command of write mode, a walk ([`scan`]) finds
//! every `.git` and `.amber` under the workspace: bubblewrap binds each
//! read-only. After the command, the walk runs again and:
//! - a repository the command created (or a `.git` file or symlink it
//!   made, followed to its repository) has its new hooks removed and its
//!   config reduced to what is safe ([`gitdir`]);
//! - under Landlock, which cannot carve a read-only `.git` out of a
//!   writable workspace, every repository is compared with a snapshot of
//!   its hooks and config taken before the command, and put back;
//! - a created, changed or removed `.claude/settings*.json`, `.mcp.json`,
//!   `.amber/` or `.codex/` is noted: amber runs nothing they name
//!   without trust, but other agents may.
//!
//! What was undone is told to the model in the command's output; all of
//! it waits in [`WorkspaceGuard::take_changes`] for the end of the turn,
//! when the front end shows it to the user.

mod beneath;
pub mod git_config;
mod gitdir;
mod scan;

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::hash::{Hash, Hasher};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime};

pub use scan::{Marker, MAX_DEPTH, MAX_FOLDERS};

use beneath::{Folder, Identity};
use gitdir::{Leads, Snapshot};
use scan::TreeScan;

/// What happened to one guarded path during a command.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ChangeKind {
    /// It did not exist before the command.
    Created,
    /// Its content changed.
    Changed,
    /// The command removed it.
    Removed,
    /// amber undid what the command did (`detail` says what).
    Reverted,
}

impl ChangeKind {
    pub fn as_str(self) -> &'static str {
        match self {
            ChangeKind::Created => "created",
            ChangeKind::Changed => "changed",
            ChangeKind::Removed => "removed",
            ChangeKind::Reverted => "reverted",
        }
    }
}

/// One change to a guarded path, for the user.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProtectedChange {
    /// Relative to the workspace.
    pub path: String,
    pub kind: ChangeKind,
    /// One line: what amber did, or why the path matters.
    pub detail: String,
}

impl ProtectedChange {
    /// One line for a terminal.
    pub fn describe(&self) -> String {
        match self.kind {
            ChangeKind::Reverted => self.detail.clone(),
            kind => format!("{} {} ({})", kind.as_str(), self.path, self.detail),
        }
    }
}

/// What a guarded file or folder looked like.
type Fingerprint = u64;

/// Entries of an `.amber` or `.codex` folder that a fingerprint reads at
/// most; past that, changes deeper in it go unseen.
const FINGERPRINT_ENTRIES: usize = 2000;

fn fingerprint(path: &Path) -> Fingerprint {
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    let mut todo = vec![path.to_path_buf()];
    let mut seen = 0;
    while let Some(next) = todo.pop() {
        let Ok(meta) = std::fs::symlink_metadata(&next) else {
            continue;
        };
        next.hash(&mut hasher);
        meta.len().hash(&mut hasher);
        // The change time, which no command can set back (`touch -d` sets
        // the modification time only).
        use std::os::unix::fs::MetadataExt;
        (meta.ino(), meta.ctime(), meta.ctime_nsec()).hash(&mut hasher);
        if meta.is_dir() {
            let mut children: Vec<PathBuf> = std::fs::read_dir(&next)
                .into_iter()
                .flatten()
                .flatten()
                .map(|e| e.path())
                .collect();
            children.sort();
            for child in children {
                seen += 1;
                if seen > FINGERPRINT_ENTRIES {
                    return hasher.finish();
                }
                todo.push(child);
            }
        }
    }
    hasher.finish()
}

fn why(marker: Marker) -> &'static str {
    match marker {
        Marker::Git => "a repository",
        Marker::Amber => "amber's project folder: config, hooks, commands",
        Marker::Codex => "Codex's project folder",
        Marker::McpJson => "MCP servers other agents start",
        Marker::ClaudeSettings => "Claude Code's hooks and permissions",
    }
}

/// The workspace before one command.
pub(crate) struct Before {
    root: PathBuf,
    started: SystemTime,
    /// The guarded files and folders but `.git`s, fingerprinted.
    watched: BTreeMap<PathBuf, (Marker, Fingerprint)>,
    /// Every `.git` entry the walk found.
    gits: BTreeSet<PathBuf>,
    /// Every repository folder, by identity (a moved one is the same),
    /// with its snapshot where the backend leaves it writable.
    gitdirs: BTreeMap<Identity, Option<Arc<Snapshot>>>,
    /// What bubblewrap binds read-only: every `.git`, the repository it
    /// leads to, and every `.amber`, parents first.
    pub binds: Vec<PathBuf>,
}

/// The guard of every workspace a spawner runs commands in: the walks,
/// kept between commands, the snapshots of the commands running now, and
/// the changes not yet shown.
#[derive(Debug, Default)]
pub struct WorkspaceGuard {
    scans: Mutex<HashMap<PathBuf, TreeScan>>,
    /// Landlock: each repository's snapshot while any command runs,
    /// shared, with how many commands hold it. A command that starts while
    /// another runs must not take the other's changes as its baseline.
    baselines: Mutex<HashMap<Identity, (Arc<Snapshot>, usize)>>,
    pending: Mutex<Vec<ProtectedChange>>,
}

/// Every repository folder a `.git` entry leads to (and the one it shares
/// config and hooks with), inside `root`.
fn gitdirs_of(dot_git: &Path, root: &Path) -> Vec<PathBuf> {
    let Leads::Inside(gitdir) = gitdir::resolve(dot_git, root) else {
        return Vec::new();
    };
    let common = gitdir::common_dir(&gitdir, root);
    std::iter::once(gitdir).chain(common).collect()
}

fn shown(path: &Path, root: &Path) -> String {
    path.strip_prefix(root)
        .map(|p| p.display().to_string())
        .unwrap_or_else(|_| path.display().to_string())
}

/// A repository folder, opened beneath the workspace.
fn open(gitdir: &Path, root: &Path) -> Option<(Folder, Identity)> {
    let folder = Folder::open_beneath(root, gitdir.strip_prefix(root).ok()?).ok()?;
    let identity = folder.identity().ok()?;
    Some((folder, identity))
}

/// Born before the command started (with the coarse clock's slack), where
/// the filesystem keeps birth times: a repository that only came into the
/// walk's reach, not one the command made.
fn born_before(path: &Path, started: SystemTime) -> bool {
    const SLACK: Duration = Duration::from_millis(50);
    std::fs::symlink_metadata(path)
        .and_then(|m| m.created())
        .is_ok_and(|born| born + SLACK < started)
}

impl WorkspaceGuard {
    /// Walks `workspace` (again) and returns what it found.
    fn walk(&self, root: &Path) -> BTreeMap<PathBuf, Marker> {
        let mut scans = self.scans.lock().unwrap_or_else(|e| e.into_inner());
        let scan = scans
            .entry(root.to_path_buf())
            .or_insert_with(|| TreeScan::new(root));
        scan.refresh();
        scan.found.clone()
    }

    /// The shared snapshot of a repository, taken now if no running
    /// command holds one.
    fn hold_baseline(&self, identity: Identity, gitdir: &Folder) -> Arc<Snapshot> {
        let mut baselines = self.baselines.lock().unwrap_or_else(|e| e.into_inner());
        let entry = baselines
            .entry(identity)
            .or_insert_with(|| (Arc::new(Snapshot::take(gitdir)), 0));
        entry.1 += 1;
        entry.0.clone()
    }

    fn release_baselines(&self, before: &Before) {
        let mut baselines = self.baselines.lock().unwrap_or_else(|e| e.into_inner());
        for (identity, snapshot) in &before.gitdirs {
            if snapshot.is_none() {
                continue;
            }
            if let Some(entry) = baselines.get_mut(identity) {
                entry.1 = entry.1.saturating_sub(1);
                if entry.1 == 0 {
                    baselines.remove(identity);
                }
            }
        }
    }

    /// Before a command in `workspace`: what to bind, and what to compare
    /// with afterwards. `snapshot`: the backend leaves `.git` writable, so
    /// every repository's hooks and config are kept to restore.
    pub(crate) fn before(&self, workspace: &Path, snapshot: bool) -> Before {
        let started = SystemTime::now();
        let root = workspace
            .canonicalize()
            .unwrap_or_else(|_| workspace.to_path_buf());
        let found = self.walk(&root);
        let mut binds = BTreeSet::new();
        let mut gits = BTreeSet::new();
        let mut gitdirs = BTreeMap::new();
        let mut watched = BTreeMap::new();
        for (path, marker) in &found {
            match marker {
                Marker::Git => {
                    gits.insert(path.clone());
                    let is_link =
                        std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink());
                    if !is_link {
                        binds.insert(path.clone());
                    }
                    for gitdir in gitdirs_of(path, &root) {
                        binds.insert(gitdir.clone());
                        if let Some((folder, identity)) = open(&gitdir, &root) {
                            let kept = snapshot.then(|| self.hold_baseline(identity, &folder));
                            gitdirs.entry(identity).or_insert(kept);
                        }
                    }
                }
                Marker::Amber => {
                    binds.insert(path.clone());
                    watched.insert(path.clone(), (*marker, fingerprint(path)));
                }
                _ => {
                    watched.insert(path.clone(), (*marker, fingerprint(path)));
                }
            }
        }
        Before {
            root,
            started,
            watched,
            gits,
            gitdirs,
            binds: binds.into_iter().collect(),
        }
    }

    /// After the command: puts back what it did to repositories, notes
    /// what it did to the files other agents read, and returns both (also
    /// kept for [`Self::take_changes`]).
    pub(crate) fn after(&self, before: Before) -> Vec<ProtectedChange> {
        let root = &before.root;
        let found = self.walk(root);
        let mut changes = Vec::new();
        let mut checked = BTreeSet::new();
        let reverted = |path: &Path, detail: String| ProtectedChange {
            path: shown(path, root),
            kind: ChangeKind::Reverted,
            detail,
        };
        for path in found
            .iter()
            .filter(|(_, m)| **m == Marker::Git)
            .map(|(p, _)| p)
        {
            let new_entry = !before.gits.contains(path);
            if new_entry && !matches!(gitdir::resolve(path, root), Leads::Inside(_)) {
                // A `.git` file or symlink the command made that leads out
                // of the workspace or nowhere: git would follow it to a
                // repository nobody checks.
                if let Some(detail) = remove_pointer(path, root) {
                    changes.push(reverted(path, detail));
                }
                continue;
            }
            for gitdir in gitdirs_of(path, root) {
                let Some((folder, identity)) = open(&gitdir, root) else {
                    continue;
                };
                if !checked.insert(identity) {
                    continue;
                }
                let baseline = match before.gitdirs.get(&identity) {
                    // Bound read-only: nothing can have changed.
                    Some(None) => continue,
                    Some(Some(snapshot)) => snapshot.clone(),
                    // It existed, out of the walk's reach, and came into
                    // it: not the command's to judge by an empty baseline.
                    None if born_before(&gitdir, before.started) => continue,
                    None => Arc::new(Snapshot::created()),
                };
                let done = gitdir::restore(&folder, &baseline, &shown(&gitdir, root));
                changes.extend(done.into_iter().map(|detail| reverted(&gitdir, detail)));
            }
        }
        self.release_baselines(&before);
        for (path, marker) in found.iter().filter(|(_, m)| **m != Marker::Git) {
            let now = fingerprint(path);
            let kind = match before.watched.get(path) {
                None => ChangeKind::Created,
                Some((_, old)) if *old != now => ChangeKind::Changed,
                Some(_) => continue,
            };
            changes.push(ProtectedChange {
                path: shown(path, root),
                kind,
                detail: why(*marker).to_string(),
            });
        }
        for (path, (marker, _)) in &before.watched {
            if !found.contains_key(path) {
                changes.push(ProtectedChange {
                    path: shown(path, root),
                    kind: ChangeKind::Removed,
                    detail: why(*marker).to_string(),
                });
            }
        }
        if !changes.is_empty() {
            // Commands that ran at once (parallel tool calls) each saw what
            // any of them created: the user hears of it once.
            let mut pending = self.pending.lock().unwrap_or_else(|e| e.into_inner());
            for change in &changes {
                if !pending.contains(change) {
                    pending.push(change.clone());
                }
            }
        }
        changes
    }

    /// The changes made since the last call, oldest first: what the end
    /// of a turn shows the user.
    pub fn take_changes(&self) -> Vec<ProtectedChange> {
        let mut pending = self.pending.lock().unwrap_or_else(|e| e.into_inner());
        std::mem::take(&mut *pending)
    }
}

/// Removes the `.git` entry `path` (a file or a symlink), through its
/// folder opened beneath the workspace.
fn remove_pointer(path: &Path, root: &Path) -> Option<String> {
    let parent = path.parent()?.strip_prefix(root).ok()?;
    let name = path.file_name()?;
    let folder = Folder::open_beneath(root, parent).ok()?;
    if folder.stat(name).ok()?.kind == rustix::fs::FileType::Directory {
        return None;
    }
    let label = shown(path, root);
    Some(match folder.remove(name) {
        Ok(()) => format!("removed {label}, which the command made and which leads out of the workspace or to no repository"),
        Err(e) => format!("could not remove {label}: {e}"),
    })
}

/// The note added to a command's output when amber undid part of it, so
/// the model knows why its hook or setting is gone.
pub fn note_for_model(changes: &[ProtectedChange]) -> Option<String> {
    let undone: Vec<&str> = changes
        .iter()
        .filter(|c| c.kind == ChangeKind::Reverted)
        .map(|c| c.detail.as_str())
        .collect();
    (!undone.is_empty()).then(|| {
        format!(
            "[amber: git hooks and config keys that run programs are not kept in a repository a command writes: {}]",
            undone.join("; ")
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;
    use std::os::unix::fs::PermissionsExt;

    fn workspace() -> (tempfile::TempDir, PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        fs::create_dir_all(root.join(".git/hooks")).unwrap();
        fs::write(root.join(".git/config"), "[core]\n\tbare = false\n").unwrap();
        fs::create_dir_all(root.join("vendor/lib/.git/hooks")).unwrap();
        fs::create_dir_all(root.join(".amber")).unwrap();
        (dir, root)
    }

    #[test]
    fn binds_cover_every_git_and_amber_parents_first() {
        let (_dir, root) = workspace();
        let guard = WorkspaceGuard::default();
        let before = guard.before(&root, false);
        assert_eq!(
            before.binds,
            [
                root.join(".amber"),
                root.join(".git"),
                root.join("vendor/lib/.git")
            ]
        );
    }

    #[test]
    fn a_created_repository_is_cleaned_and_a_planted_settings_file_noted() {
        let (_dir, root) = workspace();
        let guard = WorkspaceGuard::default();
        let before = guard.before(&root, false);
        let made = root.join("sub/.git");
        fs::create_dir_all(made.join("hooks")).unwrap();
        fs::write(made.join("hooks/post-checkout"), "#!/bin/sh\n").unwrap();
        fs::set_permissions(
            made.join("hooks/post-checkout"),
            fs::Permissions::from_mode(0o755),
        )
        .unwrap();
        fs::write(made.join("config"), "[core]\n\tfsmonitor = x\n").unwrap();
        fs::create_dir_all(root.join(".claude")).unwrap();
        fs::write(root.join(".claude/settings.json"), "{}").unwrap();
        let changes = guard.after(before);
        let lines: Vec<String> = changes.iter().map(ProtectedChange::describe).collect();
        assert_eq!(
            lines,
            [
                "removed the hook sub/.git/hooks/post-checkout, which the command made",
                "reverted core.fsmonitor in sub/.git/config",
                "created .claude/settings.json (Claude Code's hooks and permissions)",
            ]
        );
        assert_eq!(guard.take_changes(), changes);
        assert!(guard.take_changes().is_empty());
        let note = note_for_model(&changes).unwrap();
        assert!(note.contains("post-checkout") && !note.contains("settings.json"));
    }

    #[test]
    fn under_a_snapshot_an_existing_repository_is_put_back_and_bound_ones_are_left() {
        let (_dir, root) = workspace();
        let guard = WorkspaceGuard::default();
        let before = guard.before(&root, true);
        fs::write(
            root.join(".git/config"),
            "[core]\n\tbare = false\n\tpager = x\n",
        )
        .unwrap();
        let changes = guard.after(before);
        assert_eq!(changes.len(), 1, "{changes:?}");
        assert_eq!(changes[0].detail, "reverted core.pager in .git/config");
        assert!(guard.baselines.lock().unwrap().is_empty());
        // Without a snapshot the repositories were bound: left alone.
        let before = guard.before(&root, false);
        fs::write(root.join(".git/config"), "[core]\n\tpager = x\n").unwrap();
        assert!(guard.after(before).is_empty());
    }

    #[test]
    fn a_command_that_starts_while_another_runs_shares_its_baseline() {
        let (_dir, root) = workspace();
        let hook = root.join(".git/hooks/pre-commit");
        fs::write(&hook, "#!/bin/sh\ncargo fmt --check\n").unwrap();
        fs::set_permissions(&hook, fs::Permissions::from_mode(0o755)).unwrap();
        let guard = WorkspaceGuard::default();
        let first = guard.before(&root, true);
        // The first command changes the hook; the second starts meanwhile.
        fs::write(&hook, "#!/bin/sh\nevil\n").unwrap();
        let second = guard.before(&root, true);
        assert_eq!(guard.after(first).len(), 1);
        assert!(guard.after(second).is_empty());
        assert_eq!(
            fs::read_to_string(&hook).unwrap(),
            "#!/bin/sh\ncargo fmt --check\n"
        );
        assert!(guard.baselines.lock().unwrap().is_empty());
    }
}
