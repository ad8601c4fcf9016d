//! `amber:plugin/files`: walks the workspace and reads a batch of its files
//! in one crossing, for a plugin granted `workspace-read`.
//!
//! Through WASI a file costs several host calls (open, stat, a stream,
//! reads, drops); a grep over thousands of files spent more time crossing
//! than searching. The files are read through the host's own
//! [`WorkspaceDir`], which confines exactly as the WASI preopen does: the
//! lexical check refuses `..` and outside absolute paths, and the cap-std
//! directory refuses symlinks that lead out. The time spent here does not
//! count toward the plugin's guest deadline.

use std::path::{Path, PathBuf};
use std::time::Instant;

use amber_core::workspace_fs::{CappedRead, WorkspaceDir};
use wasmtime::component::Resource;

use crate::bindings::amber::plugin::files::{
    self, EntryKind, Host, HostWalk, ReadError, WalkEntry,
};
use crate::instance::HostState;
use crate::sandbox::WORKSPACE_MOUNT;

/// Bytes one batch may return in all; the files after it fail with "ask
/// again", so a plugin cannot make the host hold the whole workspace.
pub const BATCH_BUDGET: u64 = 64 << 20;

/// Walks one instance may hold open at once. A walk keeps a directory
/// handle open per level it is inside, so walks a plugin never drops must
/// not be able to use up the host's file descriptors.
pub const MAX_OPEN_WALKS: usize = 16;

/// A path as the plugin sees it, as the host's path relative to the
/// workspace root: absolute ones must be under the mount.
fn host_path(path: &str) -> Result<String, String> {
    if !path.starts_with('/') {
        return Ok(path.to_string());
    }
    match path.strip_prefix(WORKSPACE_MOUNT) {
        Some("") => Ok(".".to_string()),
        Some(rest) if rest.starts_with('/') => Ok(format!(".{rest}")),
        _ => Err(format!(
            "{path} is outside the workspace (mounted at {WORKSPACE_MOUNT})"
        )),
    }
}

/// A walk in progress, held in the store's resource table. The plugin holds
/// a `files::Walk` handle with the same index.
pub struct Walk {
    entries: ignore::Walk,
    /// Where the walk started on the host, its real path.
    host_root: PathBuf,
    /// The same root as the plugin wrote it; entries are given under it.
    guest_root: String,
}

/// The ignore files of the folders from the workspace root down to just
/// above a walk's root, deepest first: a walk of `src/` still honours the
/// root's `.gitignore`, and nothing outside the workspace is read.
struct AboveTheRoot(Vec<ignore::gitignore::Gitignore>);

fn above_the_root(workspace: &Path, root: &Path) -> AboveTheRoot {
    let mut rules = Vec::new();
    // A folder's own ignore files are read by the walk; for a file, its
    // folder's are above it. Either way, start at the parent.
    let mut dir = root.parent();
    while let Some(folder) = dir.filter(|d| d.starts_with(workspace)) {
        let mut builder = ignore::gitignore::GitignoreBuilder::new(folder);
        for name in [".gitignore", ".ignore"] {
            let file = folder.join(name);
            if file.is_file() {
                // A bad pattern drops only itself, as in ripgrep.
                let _ = builder.add(file);
            }
        }
        if let Ok(matcher) = builder.build() {
            if !matcher.is_empty() {
                rules.push(matcher);
            }
        }
        dir = folder.parent();
    }
    AboveTheRoot(rules)
}

impl AboveTheRoot {
    /// The deepest folder with a say decides: ignored, or kept by a `!`
    /// pattern.
    fn ignores(&self, path: &Path, is_dir: bool) -> bool {
        for rules in &self.0 {
            let verdict = rules.matched_path_or_any_parents(path, is_dir);
            if verdict.is_ignore() {
                return true;
            }
            if verdict.is_whitelist() {
                return false;
            }
        }
        false
    }
}

impl Walk {
    /// What `start` does once the plugin may read: the root confined by
    /// text, then by its real path, so a symlink inside the workspace that
    /// points out of it is not walked.
    fn start(workspace: &Path, root: &str) -> Result<Walk, String> {
        let relative = host_path(root).map_err(|e| format!("cannot walk {root}: {e}"))?;
        let confined = amber_core::confine(workspace, &relative)
            .map_err(|e| format!("cannot walk {root}: {e}"))?;
        let real =
            std::fs::canonicalize(&confined).map_err(|e| format!("cannot walk {root}: {e}"))?;
        let real_workspace = std::fs::canonicalize(workspace)
            .map_err(|e| format!("cannot open the workspace {}: {e}", workspace.display()))?;
        if !real.starts_with(&real_workspace) {
            return Err(format!(
                "cannot walk {root}: it leads outside the workspace"
            ));
        }
        // Nothing above the workspace is read: no parent folders' ignore
        // files and no user-wide git excludes, as when the walk ran inside
        // the sandbox. The folders between the workspace root and the
        // walk's root still count, through `above_the_root`.
        let above = above_the_root(&real_workspace, &real);
        let entries = ignore::WalkBuilder::new(&real)
            .require_git(false)
            .parents(false)
            .git_global(false)
            .sort_by_file_name(|a, b| a.cmp(b))
            .filter_entry(move |entry| {
                !above.ignores(entry.path(), entry.file_type().is_some_and(|t| t.is_dir()))
            })
            .build();
        Ok(Walk {
            entries,
            host_root: real,
            guest_root: root.to_string(),
        })
    }

    /// Up to `max` entries; unreadable ones are left out, as rg does.
    fn next_batch(&mut self, max: usize) -> Vec<WalkEntry> {
        let mut out = Vec::with_capacity(max.min(4096));
        while out.len() < max {
            let Some(entry) = self.entries.next() else {
                break;
            };
            let Ok(entry) = entry else {
                continue;
            };
            let rest = entry
                .path()
                .strip_prefix(&self.host_root)
                .unwrap_or(entry.path());
            let path = if rest.as_os_str().is_empty() {
                self.guest_root.clone()
            } else {
                Path::new(&self.guest_root)
                    .join(rest)
                    .to_string_lossy()
                    .into_owned()
            };
            let kind = match entry.file_type() {
                Some(t) if t.is_file() => EntryKind::File,
                Some(t) if t.is_dir() => EntryKind::Folder,
                Some(t) if t.is_symlink() => EntryKind::Symlink,
                _ => EntryKind::Other,
            };
            out.push(WalkEntry { path, kind });
        }
        out
    }
}

impl HostState {
    fn refuse_unless_readable(&self) -> Result<(), String> {
        let plugin = &self.plugin;
        if plugin.grants.can_read_workspace() {
            return Ok(());
        }
        Err(format!(
            "workspace-read is not granted to plugin `{}`; grant it with `amber plugin grant {} workspace-read`",
            plugin.id, plugin.id
        ))
    }

    fn workspace_dir(&mut self) -> Result<&WorkspaceDir, String> {
        if self.workspace_dir.is_none() {
            self.workspace_dir = Some(WorkspaceDir::open(&self.plugin.workspace)?);
        }
        self.workspace_dir
            .as_ref()
            .ok_or_else(|| "the workspace is not open".to_string())
    }
}

impl Host for HostState {
    fn read_many(
        &mut self,
        paths: Vec<String>,
        max_bytes: u64,
    ) -> Result<Vec<Result<Vec<u8>, ReadError>>, String> {
        self.refuse_unless_readable()?;
        let started = Instant::now();
        let result = self.workspace_dir().map(|dir| {
            let mut budget = BATCH_BUDGET;
            paths
                .iter()
                .map(|path| {
                    if budget == 0 {
                        return Err(ReadError::Failed(format!(
                            "{path}: not read, the batch passed {} MiB; ask again",
                            BATCH_BUDGET >> 20
                        )));
                    }
                    let relative = host_path(path).map_err(ReadError::Failed)?;
                    match dir.read_capped(&relative, max_bytes.min(budget)) {
                        Ok(CappedRead::Bytes(bytes)) => {
                            budget -= bytes.len() as u64;
                            Ok(bytes)
                        }
                        Ok(CappedRead::TooLarge(size)) if size <= max_bytes => {
                            budget = 0;
                            Err(ReadError::Failed(format!(
                                "{path}: not read, the batch passed {} MiB; ask again",
                                BATCH_BUDGET >> 20
                            )))
                        }
                        Ok(CappedRead::TooLarge(size)) => Err(ReadError::TooLarge(size)),
                        Err(e) => Err(ReadError::Failed(e.replace(&relative, path))),
                    }
                })
                .collect()
        });
        self.clock.add_import_time(started.elapsed());
        result
    }
}

/// The table entry behind a plugin's handle: what we stored is a [`Walk`].
fn entry(handle: &Resource<files::Walk>) -> Resource<Walk> {
    Resource::new_borrow(handle.rep())
}

impl HostWalk for HostState {
    fn start(&mut self, root: String) -> Result<Resource<files::Walk>, String> {
        self.refuse_unless_readable()?;
        if self.open_walks >= MAX_OPEN_WALKS {
            return Err(format!(
                "cannot walk {root}: {MAX_OPEN_WALKS} walks are open already; drop one first"
            ));
        }
        let started = Instant::now();
        let walk = Walk::start(&self.plugin.workspace, &root);
        self.clock.add_import_time(started.elapsed());
        let stored = self
            .table
            .push(walk?)
            .map_err(|e| format!("cannot walk {root}: {e}"))?;
        self.open_walks += 1;
        Ok(Resource::new_own(stored.rep()))
    }

    fn next(&mut self, walk: Resource<files::Walk>, max: u32) -> Vec<WalkEntry> {
        let started = Instant::now();
        let entries = match self.table.get_mut(&entry(&walk)) {
            Ok(walk) => walk.next_batch(max as usize),
            Err(_) => Vec::new(),
        };
        self.clock.add_import_time(started.elapsed());
        entries
    }

    fn drop(&mut self, walk: Resource<files::Walk>) -> wasmtime::Result<()> {
        let owned: Resource<Walk> = Resource::new_own(walk.rep());
        self.table.delete(owned)?;
        self.open_walks = self.open_walks.saturating_sub(1);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_map_from_the_mount_to_the_root() {
        assert_eq!(host_path("src/a.rs").unwrap(), "src/a.rs");
        assert_eq!(host_path("/workspace/src/a.rs").unwrap(), "./src/a.rs");
        assert_eq!(host_path("/workspace").unwrap(), ".");
        assert!(host_path("/workspace2/a").is_err());
        assert!(host_path("/etc/passwd").is_err());
    }
}
