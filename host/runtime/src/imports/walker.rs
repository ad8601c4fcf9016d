//! The walk behind `files.walk`: the workspace below a folder, in name
//! order, with ripgrep's rules (`.gitignore`, `.ignore`, the repository's
//! `.git/info/exclude`, hidden files skipped, symlinks listed and never
//! followed), and no way out of the workspace.
//!
//! Every folder is opened from its parent's cap-std handle, never by path
//! string, so a folder swapped for a symlink between two `next` calls
//! cannot lead the walk outside. Ignore files are read the same way, only
//! when they are small regular files, so a `.gitignore` that is a symlink
//! to a secret, to `/dev/zero` or to a pipe is not read. Nothing above the
//! workspace is read; the ignore files of the folders between the
//! workspace root and the walk's root apply.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use amber_core::workspace_fs::{read_regular, CappedRead};
use cap_std::fs::Dir;
use ignore::gitignore::{Gitignore, GitignoreBuilder};

/// An ignore file larger than this is not read: rule files are small.
const MAX_RULES_FILE: u64 = 1 << 20;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    File,
    Folder,
    Symlink,
    Other,
}

/// One entry, its path relative to the walk's root (empty for the root).
#[derive(Debug, PartialEq, Eq)]
pub struct Entry {
    pub path: PathBuf,
    pub kind: Kind,
}

/// The rules in force in a folder, shallowest first; shared, never copied.
type Rules = Arc<Vec<Arc<Gitignore>>>;

/// Folders deeper than this below the walk's root are listed but not
/// entered: each level holds a directory handle open, and walks must not
/// use up the host's file descriptors.
pub const MAX_DEPTH: usize = 48;

struct Level {
    dir: Dir,
    /// The folder, relative to the workspace root.
    at: PathBuf,
    entries: std::vec::IntoIter<(OsString, Kind)>,
    rules: Rules,
}

pub struct Walker {
    /// The workspace's path: matchers are rooted under it. Never opened.
    workspace: PathBuf,
    /// The walk's root, relative to the workspace root.
    root: PathBuf,
    first: Option<Entry>,
    stack: Vec<Level>,
}

fn kind_of(file_type: cap_std::fs::FileType) -> Kind {
    if file_type.is_symlink() {
        Kind::Symlink
    } else if file_type.is_dir() {
        Kind::Folder
    } else if file_type.is_file() {
        Kind::File
    } else {
        Kind::Other
    }
}

/// A small regular file in `dir`, read without following it out of `dir`
/// and without blocking on a pipe; `None` for anything else.
fn small_file(dir: &Dir, name: &Path) -> Option<String> {
    match read_regular(dir, name, MAX_RULES_FILE) {
        Ok(CappedRead::Bytes(bytes)) => String::from_utf8(bytes).ok(),
        _ => None,
    }
}

/// `rules` with the folder's own ignore files added (`.ignore` after
/// `.gitignore`, so it wins), plus `extra` lines first when given.
fn with_folder_rules(rules: &Rules, dir: &Dir, folder: &Path, extra: Option<String>) -> Rules {
    let mut builder = GitignoreBuilder::new(folder);
    let texts = extra.into_iter().chain(
        [".gitignore", ".ignore"]
            .iter()
            .filter_map(|n| small_file(dir, Path::new(n))),
    );
    let mut any = false;
    for text in texts {
        for line in text.lines() {
            // A bad pattern drops only itself, as in ripgrep.
            any |= builder.add_line(None, line).is_ok();
        }
    }
    match builder.build() {
        Ok(matcher) if any && !matcher.is_empty() => {
            let mut more = rules.as_ref().clone();
            more.push(Arc::new(matcher));
            Arc::new(more)
        }
        _ => Arc::clone(rules),
    }
}

/// The deepest folder with a say decides: ignored, or kept by a `!` rule.
fn ignored(rules: &[Arc<Gitignore>], path: &Path, is_dir: bool) -> bool {
    for matcher in rules.iter().rev() {
        let verdict = matcher.matched(path, is_dir);
        if verdict.is_ignore() {
            return true;
        }
        if verdict.is_whitelist() {
            return false;
        }
    }
    false
}

/// A folder's entries by name, hidden ones left out.
fn listing(dir: &Dir) -> Vec<(OsString, Kind)> {
    let mut entries: Vec<(OsString, Kind)> = match dir.entries() {
        Ok(entries) => entries
            .flatten()
            .filter_map(|entry| {
                let name = entry.file_name();
                if name.as_encoded_bytes().first() == Some(&b'.') {
                    return None;
                }
                let mut kind = kind_of(entry.file_type().ok()?);
                // Some filesystems give no type in the listing; ask the
                // entry itself, without following it.
                if kind == Kind::Other {
                    kind = kind_of(entry.metadata().ok()?.file_type());
                }
                Some((name, kind))
            })
            .collect(),
        Err(_) => Vec::new(),
    };
    entries.sort_by(|a, b| a.0.cmp(&b.0));
    entries
}

impl Walker {
    /// A walk of `root` (relative to the workspace root, already confined by
    /// text) inside `workspace_dir`, the workspace's own handle.
    pub fn start(workspace: &Path, workspace_dir: &Dir, root: &Path) -> std::io::Result<Walker> {
        let root = root
            .components()
            .filter(|c| !matches!(c, std::path::Component::CurDir))
            .collect::<PathBuf>();
        // The rules from the workspace root down to the walk's root's
        // parent; the repository's excludes count at the top.
        let exclude = match workspace_dir.symlink_metadata(".git") {
            Ok(m) if m.is_dir() => small_file(workspace_dir, Path::new(".git/info/exclude")),
            _ => None,
        };
        let mut rules = with_folder_rules(&Arc::new(Vec::new()), workspace_dir, workspace, exclude);
        let mut at = PathBuf::new();
        let parents: Vec<_> = root
            .parent()
            .map(|p| p.components().collect())
            .unwrap_or_default();
        for component in parents {
            at.push(component);
            // From the workspace's handle: a symlink on the way may lead
            // anywhere inside the workspace, never out of it.
            let folder = workspace_dir.open_dir(&at)?;
            rules = with_folder_rules(&rules, &folder, &workspace.join(&at), None);
        }
        let target = if root.as_os_str().is_empty() {
            Path::new(".")
        } else {
            root.as_path()
        };
        let metadata = workspace_dir.metadata(target)?;
        let mut walker = Walker {
            workspace: workspace.to_path_buf(),
            root: root.clone(),
            first: Some(Entry {
                path: PathBuf::new(),
                kind: kind_of(metadata.file_type()),
            }),
            stack: Vec::new(),
        };
        if metadata.is_dir() {
            let dir = workspace_dir.open_dir(target)?;
            // The walk's root's own files were read above unless it is the
            // workspace root itself.
            let rules = if root.as_os_str().is_empty() {
                rules
            } else {
                with_folder_rules(&rules, &dir, &workspace.join(&root), None)
            };
            walker.stack.push(Level {
                entries: listing(&dir).into_iter(),
                dir,
                at: root,
                rules,
            });
        }
        Ok(walker)
    }
}

impl Iterator for Walker {
    type Item = Entry;

    fn next(&mut self) -> Option<Entry> {
        if let Some(first) = self.first.take() {
            return Some(first);
        }
        loop {
            let depth = self.stack.len();
            let level = self.stack.last_mut()?;
            let Some((name, kind)) = level.entries.next() else {
                self.stack.pop();
                continue;
            };
            let at = level.at.join(&name);
            let is_dir = kind == Kind::Folder;
            if ignored(&level.rules, &self.workspace.join(&at), is_dir) {
                continue;
            }
            // A folder is opened from its parent's handle: if it was
            // swapped for a symlink, cap-std keeps it inside the workspace.
            let child = if is_dir && depth < MAX_DEPTH {
                level.dir.open_dir(&name).ok().map(|dir| {
                    let rules =
                        with_folder_rules(&level.rules, &dir, &self.workspace.join(&at), None);
                    Level {
                        entries: listing(&dir).into_iter(),
                        dir,
                        at: at.clone(),
                        rules,
                    }
                })
            } else {
                None
            };
            if let Some(child) = child {
                self.stack.push(child);
            }
            let path = at.strip_prefix(&self.root).unwrap_or(&at).to_path_buf();
            return Some(Entry { path, kind });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn walk(workspace: &Path, root: &str) -> Walker {
        let dir = Dir::open_ambient_dir(workspace, cap_std::ambient_authority()).unwrap();
        Walker::start(workspace, &dir, Path::new(root)).unwrap()
    }

    fn names(walker: Walker) -> Vec<String> {
        walker
            .map(|e| e.path.to_string_lossy().into_owned())
            .collect()
    }

    #[test]
    fn ignore_files_that_are_symlinks_out_or_not_regular_files_are_not_read() {
        let outside = tempfile::tempdir().unwrap();
        std::fs::write(outside.path().join("rules"), "keep.txt\n").unwrap();
        let ws = tempfile::tempdir().unwrap();
        let root = ws.path().canonicalize().unwrap();
        std::fs::write(root.join("keep.txt"), "k").unwrap();
        std::fs::create_dir(root.join("sub")).unwrap();
        std::fs::write(root.join("sub/keep.txt"), "k").unwrap();
        std::os::unix::fs::symlink(outside.path().join("rules"), root.join(".gitignore")).unwrap();
        std::os::unix::fs::symlink("/dev/zero", root.join(".ignore")).unwrap();
        let fifo = std::ffi::CString::new(root.join("sub/.gitignore").to_string_lossy().as_bytes())
            .unwrap();
        // SAFETY: a valid, NUL-terminated path.
        assert_eq!(unsafe { libc::mkfifo(fifo.as_ptr(), 0o600) }, 0);
        assert_eq!(
            names(walk(&root, ".")),
            ["", "keep.txt", "sub", "sub/keep.txt"]
        );
    }

    #[test]
    fn a_folder_swapped_for_a_symlink_mid_walk_does_not_lead_outside() {
        let outside = tempfile::tempdir().unwrap();
        std::fs::write(outside.path().join("secret.txt"), "s").unwrap();
        let ws = tempfile::tempdir().unwrap();
        let root = ws.path().canonicalize().unwrap();
        std::fs::write(root.join("a.txt"), "a").unwrap();
        std::fs::create_dir(root.join("sub")).unwrap();
        std::fs::write(root.join("sub/b.txt"), "b").unwrap();
        let mut walker = walk(&root, ".");
        // The root's listing is taken; `sub` is not opened yet.
        assert_eq!(walker.next().unwrap().path, Path::new(""));
        assert_eq!(walker.next().unwrap().path, Path::new("a.txt"));
        std::fs::rename(root.join("sub"), root.join("old")).unwrap();
        std::os::unix::fs::symlink(outside.path(), root.join("sub")).unwrap();
        let rest = names(walker);
        assert!(!rest.iter().any(|n| n.contains("secret")), "{rest:?}");
    }

    #[test]
    fn a_sub_walk_keeps_the_rules_above_it_and_a_deeper_rule_wins() {
        let ws = tempfile::tempdir().unwrap();
        let root = ws.path().canonicalize().unwrap();
        std::fs::create_dir_all(root.join("src/deep")).unwrap();
        std::fs::write(root.join(".gitignore"), "*.log\n").unwrap();
        std::fs::write(root.join("src/.gitignore"), "!keep.log\n").unwrap();
        for f in [
            "src/a.log",
            "src/keep.log",
            "src/deep/b.log",
            "src/deep/c.rs",
        ] {
            std::fs::write(root.join(f), "x").unwrap();
        }
        let expected = ["", "deep", "deep/c.rs", "keep.log"];
        assert_eq!(names(walk(&root, "src")), expected);
        let whole: Vec<String> = names(walk(&root, "."));
        assert_eq!(
            whole,
            ["", "src", "src/deep", "src/deep/c.rs", "src/keep.log"]
        );
    }
}
