//! Workspace files read many at a time (`amber:plugin/files`). Through
//! `std::fs` each file costs several WASI calls; a batch costs one. Needs
//! the `workspace-read` permission, like `std::fs` on the workspace;
//! without it the host's import refuses, naming the permission and the
//! command that grants it.

use std::path::{Path, PathBuf};

use crate::bindings::amber::plugin::files as wit;
pub use crate::bindings::amber::plugin::files::{EntryKind, ReadError, WalkEntry};

/// `path` as the host takes it: relative ones from the current folder.
pub(crate) fn from_cwd(cwd: Option<&Path>, path: &str) -> String {
    match cwd {
        Some(cwd) if !path.starts_with('/') => {
            let relative = path.strip_prefix("./").unwrap_or(path);
            cwd.join(relative).to_string_lossy().into_owned()
        }
        _ => path.to_string(),
    }
}

/// The workspace below `root` (a folder, or one file), in path order, as
/// ripgrep walks it: .gitignore, .ignore and the repository's excludes
/// honoured, even outside a git repository, hidden files skipped, symlinks
/// listed but not followed. The host walks natively and hands entries over in batches;
/// each entry's path starts with `root` as written here.
pub fn walk(root: &str) -> Result<Walk, String> {
    let cwd = std::env::current_dir().ok();
    let host_root = from_cwd(cwd.as_deref(), root);
    // Errors name the root as the caller wrote it.
    let inner = wit::Walk::start(&host_root).map_err(|e| e.replace(&host_root, root))?;
    Ok(Walk {
        inner,
        host_root,
        root: PathBuf::from(root),
        buffer: Vec::new().into_iter(),
        batch: 64,
        done: false,
    })
}

/// A walk in progress; see [`walk`].
pub struct Walk {
    inner: wit::Walk,
    host_root: String,
    root: PathBuf,
    buffer: std::vec::IntoIter<WalkEntry>,
    /// Entries asked for per crossing: few at first, since a caller may
    /// stop early, then more.
    batch: u32,
    done: bool,
}

impl Iterator for Walk {
    type Item = WalkEntry;

    fn next(&mut self) -> Option<WalkEntry> {
        loop {
            if let Some(mut entry) = self.buffer.next() {
                if let Some(rest) = entry.path.strip_prefix(&self.host_root) {
                    let rest = rest.trim_start_matches('/');
                    entry.path = if rest.is_empty() {
                        self.root.to_string_lossy().into_owned()
                    } else {
                        self.root.join(rest).to_string_lossy().into_owned()
                    };
                }
                return Some(entry);
            }
            if self.done {
                return None;
            }
            let batch = self.inner.next(self.batch);
            self.batch = (self.batch * 2).min(4096);
            self.done = batch.is_empty();
            self.buffer = batch.into_iter();
        }
    }
}

/// The bytes of each of `paths`, in order. A relative path is taken from
/// the current folder, as `std::fs` would take it (the workspace root
/// unless the plugin changed folder). A file larger than `max_bytes` comes
/// back as [`ReadError::TooLarge`] with its size, so it can be streamed
/// with `std::fs` instead. The whole call fails only when the plugin may
/// not read the workspace, or asks for more than 4096 paths at once.
pub fn read_many<P: AsRef<str>>(
    paths: &[P],
    max_bytes: u64,
) -> Result<Vec<Result<Vec<u8>, ReadError>>, String> {
    let cwd = std::env::current_dir().ok();
    let absolute: Vec<String> = paths
        .iter()
        .map(|path| from_cwd(cwd.as_deref(), path.as_ref()))
        .collect();
    let read = wit::read_many(&absolute, max_bytes)?;
    // Errors name each path as the caller wrote it.
    Ok(read
        .into_iter()
        .zip(paths.iter().zip(&absolute))
        .map(|(result, (path, sent))| match result {
            Err(ReadError::Failed(why)) => Err(ReadError::Failed(why.replace(sent, path.as_ref()))),
            other => other,
        })
        .collect())
}
