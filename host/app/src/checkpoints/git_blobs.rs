//! git's own copies, for a checkpoint before a command: a file git tracks
//! that is unchanged since HEAD already has its content in the
//! repository, so it is not copied into the store before the command.
//! Only if the command changes it is its blob read (`git cat-file`) and
//! kept. Every question is asked with the repository's programs off (see
//! `crate::git`) and its attributes read from the empty tree, so no filter
//! runs.
//!
//! A blob is the working file's content only when no attribute converts
//! it on checkout (a `filter` such as LFS's, `ident`, `eol=crlf`), asked
//! of every attribute source at every turn: a file with one, or whose size
//! differs from its blob's, is copied as any other. Neither is a file git
//! is told not to look at (`--assume-unchanged`, `--skip-worktree`: a
//! person's local edit of a tracked config), whatever `diff-index` says.
//! A repository with `info/attributes` is not asked at all: those could
//! name a filter that comparing would run.

use std::collections::HashMap;
use std::path::Path;
use std::sync::Arc;

/// A blob of HEAD's tree.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Blob {
    pub id: String,
    pub size: u64,
}

/// HEAD's regular files under a workspace, by path relative to it.
#[derive(Debug, Default)]
pub struct HeadTree {
    pub head: String,
    pub blobs: HashMap<String, Blob>,
}

/// The files of `root` git tracks that are unchanged since HEAD, with
/// their blobs; `None` when `root` is no git work tree (or git is
/// missing, or its repository has `info/attributes`). `cached` is the last
/// HEAD's tree, reused while HEAD stays.
pub fn unchanged(root: &Path, cached: Option<Arc<HeadTree>>) -> Option<(Arc<HeadTree>, Vec<String>)> {
    let out = crate::git::plumbing(root, &["rev-parse", "--absolute-git-dir", "--verify", "--quiet", "HEAD"], None, None)?;
    let text = String::from_utf8_lossy(&out);
    let mut lines = text.lines();
    let git_dir = std::path::PathBuf::from(lines.next()?);
    let head = lines.next()?.trim().to_string();
    if std::fs::metadata(git_dir.join("info/attributes")).is_ok_and(|m| m.len() > 0) {
        return None;
    }
    let tree = match cached {
        Some(tree) if tree.head == head => tree,
        _ => Arc::new(head_tree(root, head)?),
    };
    let mut changed = changed_since_head(root, &tree.head)?;
    changed.extend(not_looked_at(root)?);
    // Asked each turn: an attribute can change without a commit.
    changed.extend(converted(root, tree.blobs.keys())?);
    Some((tree, changed))
}

/// The files git is told not to compare (`ls-files -v`: an
/// assume-unchanged entry's tag is lowercase, a skip-worktree one's `S`).
fn not_looked_at(root: &Path) -> Option<Vec<String>> {
    let out = crate::git::plumbing(root, &["ls-files", "-v", "-z"], None, None)?;
    Some(
        out.split(|b| *b == 0)
            .filter_map(|entry| {
                let text = String::from_utf8_lossy(entry);
                let (tag, path) = text.split_once(' ')?;
                let hidden = tag == "S" || tag.chars().all(|c| c.is_ascii_lowercase());
                hidden.then(|| path.to_string())
            })
            .collect(),
    )
}

/// `git ls-tree -r -l HEAD` under `root`: regular files (not symlinks or
/// submodules).
fn head_tree(root: &Path, head: String) -> Option<HeadTree> {
    let out = crate::git::plumbing(root, &["ls-tree", "-r", "-l", "-z", "HEAD"], None, None)?;
    let mut blobs = HashMap::new();
    for entry in out.split(|b| *b == 0).filter(|e| !e.is_empty()) {
        let text = String::from_utf8_lossy(entry);
        let Some((meta, path)) = text.split_once('\t') else {
            continue;
        };
        let fields: Vec<&str> = meta.split_whitespace().collect();
        let [mode, "blob", id, size] = fields.as_slice() else {
            continue;
        };
        if !matches!(*mode, "100644" | "100755") {
            continue;
        }
        if let Ok(size) = size.parse() {
            blobs.insert(
                path.to_string(),
                Blob {
                    id: id.to_string(),
                    size,
                },
            );
        }
    }
    Some(HeadTree { head, blobs })
}

/// The paths whose checkout converts their content (`filter`, `ident`,
/// `eol=crlf`), as the work tree's attributes say.
fn converted<'a>(root: &Path, paths: impl Iterator<Item = &'a String>) -> Option<Vec<String>> {
    let mut input = Vec::new();
    for path in paths {
        input.extend_from_slice(path.as_bytes());
        input.push(0);
    }
    // The work tree's own attributes: they say how checkout wrote it.
    let out = crate::git::plumbing(
        root,
        &["check-attr", "-z", "--stdin", "filter", "ident", "eol"],
        Some(&input),
        None,
    )?;
    // path NUL attribute NUL value NUL, three per path.
    let fields: Vec<String> = out
        .split(|b| *b == 0)
        .map(|f| String::from_utf8_lossy(f).into_owned())
        .collect();
    let mut converted = Vec::new();
    for triple in fields.chunks(3) {
        let [path, attribute, value] = triple else {
            continue;
        };
        let converts = match attribute.as_str() {
            "eol" => value == "crlf",
            _ => value != "unspecified" && value != "unset",
        };
        if converts {
            converted.push(path.clone());
        }
    }
    Some(converted)
}

/// The files under `root` whose content differs from HEAD's, staged or
/// not (by the index's stat data: a file touched but not changed is
/// listed too, which only costs its copy).
fn changed_since_head(root: &Path, head: &str) -> Option<Vec<String>> {
    let out = crate::git::plumbing(
        root,
        &[
            "diff-index",
            "--name-only",
            "-z",
            "--relative",
            "--no-renames",
            "--ignore-submodules=all",
            "HEAD",
            "--",
        ],
        None,
        Some(crate::git::empty_tree_of(head)),
    )?;
    Some(
        out.split(|b| *b == 0)
            .filter(|p| !p.is_empty())
            .map(|p| String::from_utf8_lossy(p).into_owned())
            .collect(),
    )
}

/// The content of blob `id`.
pub fn read_blob(root: &Path, id: &str) -> Option<Vec<u8>> {
    if !id.chars().all(|c| c.is_ascii_hexdigit()) {
        return None;
    }
    crate::git::plumbing(root, &["cat-file", "blob", id], None, None)
}

#[cfg(test)]
mod tests {
    use super::*;
    use amber_tests::edits::git;

    #[test]
    fn unchanged_tracked_files_have_their_blobs_and_converted_ones_do_not() {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path();
        git(root, &["init", "-q"]);
        std::fs::write(root.join("same.txt"), "same\n").unwrap();
        std::fs::write(root.join("edited.txt"), "before\n").unwrap();
        std::fs::write(root.join("staged.txt"), "before\n").unwrap();
        std::fs::write(root.join("lfs.bin"), "pointer\n").unwrap();
        std::fs::write(root.join("hidden.txt"), "token\n").unwrap();
        std::fs::write(root.join("assumed.txt"), "token\n").unwrap();
        std::fs::write(root.join(".gitattributes"), "*.bin filter=lfs\n").unwrap();
        git(root, &["add", "-A"]);
        git(root, &["commit", "-qm", "one"]);
        std::fs::write(root.join("edited.txt"), "after\n").unwrap();
        std::fs::write(root.join("staged.txt"), "after\n").unwrap();
        git(root, &["add", "staged.txt"]);
        // Local edits git is told not to see, of the blob's size.
        git(root, &["update-index", "--skip-worktree", "hidden.txt"]);
        git(root, &["update-index", "--assume-unchanged", "assumed.txt"]);
        std::fs::write(root.join("hidden.txt"), "local\n").unwrap();
        std::fs::write(root.join("assumed.txt"), "local\n").unwrap();
        let (tree, mut changed) = unchanged(root, None).unwrap();
        changed.sort();
        assert_eq!(
            changed,
            ["assumed.txt", "edited.txt", "hidden.txt", "lfs.bin", "staged.txt"]
        );
        let blob = &tree.blobs["same.txt"];
        assert_eq!(blob.size, 5);
        assert_eq!(read_blob(root, &blob.id).unwrap(), b"same\n");
        // The same HEAD: the tree is reused.
        let (again, _) = unchanged(root, Some(tree.clone())).unwrap();
        assert!(Arc::ptr_eq(&tree, &again));
        // No git work tree: nothing.
        let plain = tempfile::tempdir().unwrap();
        assert!(unchanged(plain.path(), None).is_none());
        // A repository whose info/attributes could name a filter: not asked.
        std::fs::write(root.join(".git/info/attributes"), "*.txt filter=x\n").unwrap();
        assert!(unchanged(root, None).is_none());
    }
}
