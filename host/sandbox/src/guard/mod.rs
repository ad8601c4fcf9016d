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
mod git_config;
mod gitdir;
mod scan;

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::hash::{Hash, Hasher};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime};

use beneath::{Folder, Identity};
use gitdir::{Leads, Snapshot};
use scan::{Marker, TreeScan};

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
    /// When this command's walk began, and when the session's first did.
    started: SystemTime,
    session_started: SystemTime,
    /// The guarded files and folders but `.git`s, fingerprinted.
    watched: BTreeMap<PathBuf, (Marker, Fingerprint)>,
    /// Every `.git` entry the walk found, and where it led.
    gits: BTreeMap<PathBuf, Leads>,
    /// Every repository folder, by identity (a moved one is the same).
    gitdirs: BTreeMap<Identity, Held>,
    /// What bubblewrap binds read-only: every `.git`, the repository it
    /// leads to, and every `.amber`, parents first.
    pub binds: Vec<PathBuf>,
    /// The guard's shared snapshots, released when this is dropped: after
    /// the check, or when the command never started.
    baselines: Baselines,
}

/// One repository as a command found it.
struct Held {
    /// Where the backend leaves it writable: its snapshot.
    snapshot: Option<Arc<Snapshot>>,
    /// The open folder, kept (up to [`HELD_FOLDERS`]) so a repository the
    /// command hid from the second walk is put back all the same.
    folder: Option<Folder>,
    path: PathBuf,
}

/// Repository folders kept open across one command at most.
const HELD_FOLDERS: usize = 256;

/// Each repository's snapshot while any command runs, with how many
/// commands hold it.
type Baselines = Arc<Mutex<HashMap<Identity, (Arc<Snapshot>, usize)>>>;

impl Drop for Before {
    fn drop(&mut self) {
        let mut baselines = self.baselines.lock().unwrap_or_else(|e| e.into_inner());
        for (identity, held) in &self.gitdirs {
            if held.snapshot.is_none() {
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
}

/// One workspace's walk, kept between commands, with what the session
/// has seen of it.
#[derive(Debug)]
struct Watched {
    scan: TreeScan,
    /// The session's first walk.
    started: SystemTime,
    /// Every repository any walk found.
    seen: HashSet<Identity>,
    /// Walks so far.
    walks: u64,
}

/// The guard of every workspace a spawner runs commands in: the walks,
/// kept between commands, the snapshots of the commands running now, and
/// the changes not yet shown.
#[derive(Debug, Default)]
pub struct WorkspaceGuard {
    workspaces: Mutex<HashMap<PathBuf, Watched>>,
    /// Landlock: each repository's snapshot while any command runs,
    /// shared. A command that starts while another runs must not take the
    /// other's changes as its baseline.
    baselines: Baselines,
    pending: Mutex<Vec<ProtectedChange>>,
}

/// Every repository folder a `.git` entry leads to (and the one it shares
/// config and hooks with), inside `root`.
fn gitdirs_of(leads: &Leads, root: &Path) -> Vec<PathBuf> {
    let Leads::Inside(gitdir) = leads else {
        return Vec::new();
    };
    let common = gitdir::common_dir(gitdir, root);
    std::iter::once(gitdir.clone()).chain(common).collect()
}

/// Puts the repository `gitdir` (open as `folder`) back to `baseline`
/// plus what is safe, each thing done as a change to report.
fn check(folder: &Folder, gitdir: &Path, root: &Path, baseline: &Snapshot) -> Vec<ProtectedChange> {
    let shown = shown(gitdir, root);
    let outside = gitdir::common_outside(gitdir, root);
    gitdir::restore(folder, baseline, &shown, outside)
        .into_iter()
        .map(|detail| reverted(&shown, detail))
        .collect()
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

/// The coarse clock the kernel stamps files with may run a few
/// milliseconds behind the one amber reads: what is this close to a start
/// counts as after it.
const CLOCK_SLACK: Duration = Duration::from_millis(50);

fn since(time: SystemTime) -> beneath::Changed {
    beneath::changed_at(time.checked_sub(CLOCK_SLACK).unwrap_or(time))
}

impl WorkspaceGuard {
    /// Walks `workspace` (again): what it found, when the session's first
    /// walk was, and the repositories seen before this walk (None on the
    /// first: then nothing of the session's commands can be in the tree).
    fn walk(
        &self,
        root: &Path,
    ) -> (
        BTreeMap<PathBuf, Marker>,
        SystemTime,
        Option<HashSet<Identity>>,
    ) {
        let mut workspaces = self.workspaces.lock().unwrap_or_else(|e| e.into_inner());
        let watched = workspaces
            .entry(root.to_path_buf())
            .or_insert_with(|| Watched {
                scan: TreeScan::new(root),
                started: SystemTime::now(),
                seen: HashSet::new(),
                walks: 0,
            });
        watched.scan.refresh();
        watched.walks += 1;
        let seen = (watched.walks > 1).then(|| watched.seen.clone());
        (watched.scan.found.clone(), watched.started, seen)
    }

    fn mark_seen(&self, root: &Path, identities: impl IntoIterator<Item = Identity>) {
        let mut workspaces = self.workspaces.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(watched) = workspaces.get_mut(root) {
            watched.seen.extend(identities);
        }
    }

    fn report(&self, changes: &[ProtectedChange]) {
        // Commands that ran at once (parallel tool calls) each saw what
        // any of them created: the user hears of it once.
        let mut pending = self.pending.lock().unwrap_or_else(|e| e.into_inner());
        for change in changes {
            if !pending.contains(change) {
                pending.push(change.clone());
            }
        }
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

    /// Before a command in `workspace`: what to bind, and what to compare
    /// with afterwards. `snapshot`: the backend leaves `.git` writable, so
    /// every repository's hooks and config are kept to restore.
    ///
    /// A repository the session had not seen (it came into the walk's
    /// reach between commands) that changed since the session began is
    /// checked first, as one a command created: it is about to be bound
    /// read-only, and what was planted in it would stay.
    pub(crate) fn before(&self, workspace: &Path, snapshot: bool) -> Before {
        let started = SystemTime::now();
        let root = workspace
            .canonicalize()
            .unwrap_or_else(|_| workspace.to_path_buf());
        let (found, session_started, seen) = self.walk(&root);
        let mut binds = BTreeSet::new();
        let mut gits = BTreeMap::new();
        let mut gitdirs: BTreeMap<Identity, Held> = BTreeMap::new();
        let mut watched = BTreeMap::new();
        let mut changes = Vec::new();
        for (path, marker) in &found {
            match marker {
                Marker::Git => {
                    let leads = gitdir::resolve(path, &root);
                    let is_link =
                        std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink());
                    if !is_link {
                        binds.insert(path.clone());
                    }
                    for gitdir in gitdirs_of(&leads, &root) {
                        binds.insert(gitdir.clone());
                        let Some((folder, identity)) = open(&gitdir, &root) else {
                            continue;
                        };
                        // Held once a repository, however many `.git`s lead
                        // to it: dropping `Before` lets go once.
                        if gitdirs.contains_key(&identity) {
                            continue;
                        }
                        if seen.as_ref().is_some_and(|s| !s.contains(&identity))
                            && gitdir::touched_since(&folder, since(session_started))
                        {
                            changes.extend(check(&folder, &gitdir, &root, &Snapshot::created()));
                        }
                        let kept = snapshot.then(|| self.hold_baseline(identity, &folder));
                        let keep_open = kept.is_some() && gitdirs.len() < HELD_FOLDERS;
                        gitdirs.insert(
                            identity,
                            Held {
                                snapshot: kept,
                                folder: keep_open.then_some(folder),
                                path: gitdir,
                            },
                        );
                    }
                    gits.insert(path.clone(), leads);
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
        self.mark_seen(&root, gitdirs.keys().copied());
        if !changes.is_empty() {
            self.report(&changes);
        }
        Before {
            root,
            started,
            session_started,
            watched,
            gits,
            gitdirs,
            binds: binds.into_iter().collect(),
            baselines: self.baselines.clone(),
        }
    }

    /// After the command: puts back what it did to repositories, notes
    /// what it did to the files other agents read, and returns both (also
    /// kept for [`Self::take_changes`]). Dropping `before` at the end
    /// releases its snapshots.
    pub(crate) fn after(&self, before: Before) -> Vec<ProtectedChange> {
        let root = &before.root;
        let (found, _, _) = self.walk(root);
        let mut changes = Vec::new();
        let mut checked = BTreeSet::new();
        for path in found
            .iter()
            .filter(|(_, m)| **m == Marker::Git)
            .map(|(p, _)| p)
        {
            let leads = gitdir::resolve(path, root);
            let moved = before.gits.get(path) != Some(&leads);
            if moved && !matches!(leads, Leads::Inside(_)) {
                // A `.git` file or symlink the command made or changed to
                // lead out of the workspace or nowhere: git would follow
                // it to a repository nobody checks.
                if let Some(detail) = remove_pointer(path, root, since(before.started)) {
                    changes.push(reverted(&shown(path, root), detail));
                }
                continue;
            }
            for gitdir in gitdirs_of(&leads, root) {
                let Some((folder, identity)) = open(&gitdir, root) else {
                    continue;
                };
                if !checked.insert(identity) {
                    continue;
                }
                let baseline = match before.gitdirs.get(&identity) {
                    // Bound read-only: nothing can have changed.
                    Some(Held { snapshot: None, .. }) => continue,
                    Some(Held {
                        snapshot: Some(snapshot),
                        ..
                    }) => snapshot.clone(),
                    // Not there before the command: made by it, or brought
                    // into the walk's reach. One nothing touched since the
                    // session began is the user's, and left alone.
                    None if !gitdir::touched_since(&folder, since(before.session_started)) => {
                        continue
                    }
                    None => Arc::new(Snapshot::created()),
                };
                changes.extend(check(&folder, &gitdir, root, &baseline));
            }
        }
        // A repository the command hid from this walk (a `.gitignore`
        // line, 20,000 folders) is put back all the same.
        for (identity, held) in &before.gitdirs {
            let Some(snapshot) = &held.snapshot else {
                continue;
            };
            if checked.contains(identity) {
                continue;
            }
            let reopened;
            let folder = match &held.folder {
                Some(folder) => folder,
                None => match open(&held.path, root) {
                    Some((folder, id)) if id == *identity => {
                        reopened = folder;
                        &reopened
                    }
                    _ => continue,
                },
            };
            changes.extend(check(folder, &held.path, root, snapshot));
        }
        self.mark_seen(root, checked);
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
            self.report(&changes);
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

fn reverted(path: &str, detail: String) -> ProtectedChange {
    ProtectedChange {
        path: path.to_string(),
        kind: ChangeKind::Reverted,
        detail,
    }
}

/// Removes the `.git` entry `path` (a file or a symlink) that changed at
/// or after `since` (the command's), through its folder opened beneath the
/// workspace. An older one is the user's own (a worktree of a repository
/// elsewhere that came into the walk's reach): left alone.
fn remove_pointer(path: &Path, root: &Path, since: beneath::Changed) -> Option<String> {
    let parent = path.parent()?.strip_prefix(root).ok()?;
    let name = path.file_name()?;
    let folder = Folder::open_beneath(root, parent).ok()?;
    let stat = folder.stat(name).ok()?;
    if stat.kind == rustix::fs::FileType::Directory || stat.changed < since {
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
    use std::time::Duration;

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
        // A second way into the same repository: held once all the same.
        fs::create_dir_all(root.join("wt")).unwrap();
        fs::write(root.join("wt/.git"), "gitdir: ../.git\n").unwrap();
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
        // A command that never started lets its snapshots go too.
        drop(guard.before(&root, true));
        assert!(guard.baselines.lock().unwrap().is_empty());
    }

    fn plant_hook(gitdir: &Path, name: &str) {
        fs::create_dir_all(gitdir.join("hooks")).unwrap();
        let hook = gitdir.join("hooks").join(name);
        fs::write(&hook, "#!/bin/sh\nevil\n").unwrap();
        fs::set_permissions(&hook, fs::Permissions::from_mode(0o755)).unwrap();
    }

    #[test]
    fn a_repository_the_command_hides_from_the_second_walk_is_put_back() {
        let (_dir, root) = workspace();
        let deep = root.join("x/a/b/.git");
        fs::create_dir_all(deep.join("hooks")).unwrap();
        let guard = WorkspaceGuard::default();
        let before = guard.before(&root, true);
        plant_hook(&deep, "post-checkout");
        fs::write(root.join(".gitignore"), "x/\n").unwrap();
        let changes = guard.after(before);
        assert!(!deep.join("hooks/post-checkout").exists(), "{changes:?}");
        assert!(guard.baselines.lock().unwrap().is_empty());
    }

    #[test]
    fn a_repository_that_comes_into_reach_is_checked_only_if_touched_in_the_session() {
        let (_dir, root) = workspace();
        fs::write(root.join(".gitignore"), "x/\n").unwrap();
        let old = root.join("x/a/b/old/.git");
        plant_hook(&old, "pre-commit");
        std::thread::sleep(Duration::from_millis(120));
        let guard = WorkspaceGuard::default();
        drop(guard.before(&root, false));
        // Planted beyond the walk's reach during the session.
        let planted = root.join("x/a/b/new/.git");
        plant_hook(&planted, "post-checkout");
        fs::write(root.join(".gitignore"), "").unwrap();
        let before = guard.before(&root, false);
        assert!(!planted.join("hooks/post-checkout").exists());
        assert!(old.join("hooks/pre-commit").exists());
        assert!(before.binds.contains(&planted));
        let said = guard.take_changes();
        assert_eq!(said.len(), 1, "{said:?}");
        assert_eq!(said[0].path, "x/a/b/new/.git");
    }

    #[test]
    fn what_commands_running_at_once_all_saw_is_reported_once() {
        let (_dir, root) = workspace();
        let guard = WorkspaceGuard::default();
        let first = guard.before(&root, false);
        let second = guard.before(&root, false);
        fs::write(root.join(".mcp.json"), "{}").unwrap();
        assert_eq!(guard.after(first).len(), 1);
        assert_eq!(guard.after(second).len(), 1);
        assert_eq!(guard.take_changes().len(), 1);
    }
}
