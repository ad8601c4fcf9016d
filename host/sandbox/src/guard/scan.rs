//! The bounded, cached walk of a workspace that finds every `.git` (and
//! the files other agents run things from) before and after each command.
//!
//! Bounds, so a command never waits on a huge tree:
//! - every folder git does not ignore is read, to [`MAX_DEPTH`] levels;
//! - a folder git ignores (`target/`, `node_modules/`) is read with its
//!   subfolders, so `node_modules/pkg/.git` is found, and no deeper;
//! - symlinked folders are not followed (git does not follow them);
//! - at most [`MAX_FOLDERS`] folders a walk; past that the walk stops and
//!   says so ([`TreeScan::truncated`]).
//!
//! A walk reads a folder again only when its status-change time or inode
//! changed (an entry was created, removed or renamed in it: the
//! modification time says so too, but a command can set that back with
//! `touch -d`, and not the change time) and keeps the rest from the last
//! walk, so a walk of an unchanged tree costs one `stat` a folder.

use std::collections::{BTreeMap, HashMap};
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use ignore::gitignore::{Gitignore, GitignoreBuilder};

/// Folders below the root that a walk descends at most.
pub const MAX_DEPTH: usize = 48;
/// Folders a walk reads at most.
pub const MAX_FOLDERS: usize = 20_000;
/// Levels of an ignored folder that are read: the folder and its children.
const IGNORED_LEVELS: usize = 2;

/// What a walk looks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Marker {
    /// A `.git`: a folder, a file (`gitdir: …`) or a symlink.
    Git,
    /// An `.amber` folder: amber's own project state.
    Amber,
    /// A `.codex` folder: Codex's project config.
    Codex,
    /// A `.mcp.json`: servers other agents start.
    McpJson,
    /// A `.claude/settings*.json`: Claude Code's hooks and permissions.
    ClaudeSettings,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Dir,
    File,
    Symlink,
    Other,
}

#[derive(Debug, Clone)]
struct Entry {
    name: OsString,
    kind: Kind,
}

/// When a folder's entries last changed, as no command can fake it: its
/// inode and status-change time.
type Stamp = (u64, i64, i64);

fn stamp(meta: &std::fs::Metadata) -> Stamp {
    use std::os::unix::fs::MetadataExt;
    (meta.ino(), meta.ctime(), meta.ctime_nsec())
}

/// One folder as last read.
#[derive(Debug, Clone)]
struct Listing {
    stamp: Stamp,
    entries: Arc<Vec<Entry>>,
    /// The folder's `.gitignore` matcher, with the `.gitignore`'s stamp.
    ignore: Option<(Stamp, Arc<Gitignore>)>,
}

/// The walk of one workspace, kept between commands.
#[derive(Debug)]
pub struct TreeScan {
    root: PathBuf,
    listings: HashMap<PathBuf, Listing>,
    /// What the last walk found.
    pub found: BTreeMap<PathBuf, Marker>,
    /// The last walk stopped at [`MAX_FOLDERS`].
    pub truncated: bool,
}

/// Where a folder sits, for how far the walk goes below it.
#[derive(Debug, Clone, Copy)]
enum Reach {
    /// Git tracks it (or could): descend.
    Tracked,
    /// Git ignores it or a folder above it: read this many more levels.
    Ignored(usize),
    /// `.claude`: walked as a tracked folder, and its settings files
    /// count.
    Claude,
}

struct Walk<'a> {
    old: &'a HashMap<PathBuf, Listing>,
    new: HashMap<PathBuf, Listing>,
    found: BTreeMap<PathBuf, Marker>,
    budget: usize,
    truncated: bool,
}

impl TreeScan {
    pub fn new(root: &Path) -> TreeScan {
        TreeScan {
            root: root.to_path_buf(),
            listings: HashMap::new(),
            found: BTreeMap::new(),
            truncated: false,
        }
    }

    /// Walks the tree again, reading only the folders that changed.
    pub fn refresh(&mut self) {
        let mut walk = Walk {
            old: &self.listings,
            new: HashMap::with_capacity(self.listings.len()),
            found: BTreeMap::new(),
            budget: MAX_FOLDERS,
            truncated: false,
        };
        let mut matchers = Vec::new();
        if let Some(exclude) = info_exclude(&self.root) {
            matchers.push(exclude);
        }
        walk.visit(&self.root, Reach::Tracked, 0, &mut matchers);
        let Walk {
            new,
            found,
            truncated,
            ..
        } = walk;
        self.listings = new;
        self.found = found;
        self.truncated = truncated;
    }

    /// Folders the last walk read.
    #[cfg(test)]
    fn folders(&self) -> usize {
        self.listings.len()
    }
}

/// The top repository's `.git/info/exclude`, which ignores as a
/// `.gitignore` at the root does.
fn info_exclude(root: &Path) -> Option<Arc<Gitignore>> {
    let file = root.join(".git/info/exclude");
    if !file.is_file() {
        return None;
    }
    let mut builder = GitignoreBuilder::new(root);
    builder.add(&file);
    builder.build().ok().map(Arc::new)
}

fn kind_of(file_type: std::fs::FileType) -> Kind {
    if file_type.is_symlink() {
        Kind::Symlink
    } else if file_type.is_dir() {
        Kind::Dir
    } else if file_type.is_file() {
        Kind::File
    } else {
        Kind::Other
    }
}

fn read_entries(dir: &Path) -> Vec<Entry> {
    let Ok(read) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    read.flatten()
        .map(|entry| Entry {
            name: entry.file_name(),
            kind: entry.file_type().map(kind_of).unwrap_or(Kind::Other),
        })
        .collect()
}

fn is_claude_settings(name: &str) -> bool {
    name.starts_with("settings") && name.ends_with(".json")
}

impl Walk<'_> {
    /// The folder's listing: the last one if its time is unchanged.
    fn listing(&mut self, dir: &Path) -> Option<Listing> {
        let meta = std::fs::symlink_metadata(dir).ok()?;
        if !meta.is_dir() {
            return None;
        }
        let now = stamp(&meta);
        let reuse = self.old.get(dir).filter(|l| l.stamp == now);
        let entries = match reuse {
            Some(old) => old.entries.clone(),
            None => Arc::new(read_entries(dir)),
        };
        let has_gitignore = entries
            .iter()
            .any(|e| e.name == ".gitignore" && e.kind == Kind::File);
        let ignore = if has_gitignore {
            let file = dir.join(".gitignore");
            let file_stamp = std::fs::metadata(&file).ok().map(|m| stamp(&m));
            match (self.old.get(dir).and_then(|l| l.ignore.clone()), file_stamp) {
                (Some((old, matcher)), Some(new)) if old == new => Some((new, matcher)),
                (_, Some(new)) => {
                    let mut builder = GitignoreBuilder::new(dir);
                    builder.add(&file);
                    builder.build().ok().map(|m| (new, Arc::new(m)))
                }
                (_, None) => None,
            }
        } else {
            None
        };
        let listing = Listing {
            stamp: now,
            entries,
            ignore,
        };
        self.new.insert(dir.to_path_buf(), listing.clone());
        Some(listing)
    }

    fn visit(
        &mut self,
        dir: &Path,
        reach: Reach,
        depth: usize,
        matchers: &mut Vec<Arc<Gitignore>>,
    ) {
        if self.budget == 0 {
            self.truncated = true;
            return;
        }
        self.budget -= 1;
        let Some(listing) = self.listing(dir) else {
            return;
        };
        if let Reach::Claude = reach {
            for entry in listing.entries.iter() {
                if entry.kind == Kind::File && is_claude_settings(&entry.name.to_string_lossy()) {
                    self.found
                        .insert(dir.join(&entry.name), Marker::ClaudeSettings);
                }
            }
        }
        let pushed = match (&listing.ignore, reach) {
            (Some((_, matcher)), Reach::Tracked | Reach::Claude) => {
                matchers.push(matcher.clone());
                true
            }
            _ => false,
        };
        for entry in listing.entries.iter() {
            let marker = match (entry.name.to_str(), entry.kind) {
                (Some(".git"), _) => Some(Marker::Git),
                (Some(".amber"), Kind::Dir) => Some(Marker::Amber),
                (Some(".codex"), Kind::Dir) => Some(Marker::Codex),
                (Some(".mcp.json"), Kind::File | Kind::Symlink) => Some(Marker::McpJson),
                _ => None,
            };
            if let Some(marker) = marker {
                self.found.insert(dir.join(&entry.name), marker);
                // Nothing inside these is walked: they are what is guarded.
                continue;
            }
            if entry.kind != Kind::Dir || depth >= MAX_DEPTH {
                continue;
            }
            let path = dir.join(&entry.name);
            if entry.name == ".claude" && matches!(reach, Reach::Tracked) {
                self.visit(&path, Reach::Claude, depth + 1, matchers);
                continue;
            }
            let below = match reach {
                Reach::Tracked | Reach::Claude if ignored(matchers, &path) => {
                    Reach::Ignored(IGNORED_LEVELS - 1)
                }
                Reach::Tracked | Reach::Claude => Reach::Tracked,
                Reach::Ignored(0) => continue,
                Reach::Ignored(n) => Reach::Ignored(n - 1),
            };
            self.visit(&path, below, depth + 1, matchers);
        }
        if pushed {
            matchers.pop();
        }
    }
}

/// Whether git ignores the folder `path`: the innermost `.gitignore` that
/// says anything about it decides.
fn ignored(matchers: &[Arc<Gitignore>], path: &Path) -> bool {
    for matcher in matchers.iter().rev() {
        let found = matcher.matched(path, true);
        if found.is_ignore() {
            return true;
        }
        if found.is_whitelist() {
            return false;
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;

    fn tree() -> (tempfile::TempDir, PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        for d in [
            ".git/hooks",
            "src/vendored/lib/.git",
            "target/debug/.git",
            "target/debug/build/x/.git",
            "node_modules/pkg/.git",
            "node_modules/pkg/sub/.git",
            ".claude/commands",
            ".claude/worktrees/x/.git",
            "sub/.amber",
            "sub/.codex",
        ] {
            fs::create_dir_all(root.join(d)).unwrap();
        }
        fs::write(root.join(".gitignore"), "target/\nnode_modules/\n").unwrap();
        fs::write(root.join(".claude/settings.local.json"), "{}").unwrap();
        fs::write(root.join(".claude/commands/x.md"), "").unwrap();
        fs::write(root.join(".mcp.json"), "{}").unwrap();
        fs::write(root.join("src/worktree.git"), "").unwrap();
        fs::create_dir_all(root.join("wt")).unwrap();
        fs::write(root.join("wt/.git"), "gitdir: ../.git/worktrees/wt\n").unwrap();
        (dir, root)
    }

    fn found(scan: &TreeScan, root: &Path) -> Vec<(String, Marker)> {
        scan.found
            .iter()
            .map(|(p, m)| (p.strip_prefix(root).unwrap().display().to_string(), *m))
            .collect()
    }

    #[test]
    fn finds_every_git_down_tracked_folders_and_two_levels_into_ignored_ones() {
        let (_dir, root) = tree();
        let mut scan = TreeScan::new(&root);
        scan.refresh();
        assert_eq!(
            found(&scan, &root),
            [
                (
                    ".claude/settings.local.json".to_string(),
                    Marker::ClaudeSettings
                ),
                (".claude/worktrees/x/.git".into(), Marker::Git),
                (".git".into(), Marker::Git),
                (".mcp.json".into(), Marker::McpJson),
                ("node_modules/pkg/.git".into(), Marker::Git),
                ("src/vendored/lib/.git".into(), Marker::Git),
                ("sub/.amber".into(), Marker::Amber),
                ("sub/.codex".into(), Marker::Codex),
                ("target/debug/.git".into(), Marker::Git),
                ("wt/.git".into(), Marker::Git),
            ]
        );
        assert!(!scan.truncated);
    }

    #[test]
    fn a_refresh_sees_a_new_git_and_rereads_only_what_changed() {
        let (_dir, root) = tree();
        let mut scan = TreeScan::new(&root);
        scan.refresh();
        let folders = scan.folders();
        fs::create_dir_all(root.join("src/new/.git")).unwrap();
        scan.refresh();
        assert!(scan.found.contains_key(&root.join("src/new/.git")));
        assert_eq!(scan.folders(), folders + 1);
        fs::remove_dir_all(root.join("src/new")).unwrap();
        scan.refresh();
        assert!(!scan.found.contains_key(&root.join("src/new/.git")));
    }

    #[test]
    fn a_folder_whose_time_was_set_back_is_read_again() {
        let (_dir, root) = tree();
        let mut scan = TreeScan::new(&root);
        scan.refresh();
        let sub = root.join("src");
        let modified = fs::metadata(&sub).unwrap().modified().unwrap();
        fs::create_dir_all(sub.join("hidden/.git")).unwrap();
        fs::File::open(&sub)
            .unwrap()
            .set_modified(modified)
            .unwrap();
        assert_eq!(fs::metadata(&sub).unwrap().modified().unwrap(), modified);
        scan.refresh();
        assert!(scan.found.contains_key(&sub.join("hidden/.git")));
    }

    #[test]
    fn a_negated_pattern_brings_an_ignored_folder_back() {
        let (_dir, root) = tree();
        fs::write(
            root.join(".gitignore"),
            "target/\nnode_modules/\n!target/\n",
        )
        .unwrap();
        let mut scan = TreeScan::new(&root);
        scan.refresh();
        assert!(scan
            .found
            .contains_key(&root.join("target/debug/build/x/.git")));
    }
}
