//! `amber:plugin/files`: walks the workspace and reads a batch of its files
//! in one crossing, for a plugin granted `workspace-read`; replaces a file
//! whole, for one granted `workspace-write` (the file tools' writes: see
//! `amber_state::atomic`).
//!
//! Through WASI a file costs several host calls (open, stat, a stream,
//! reads, drops); a grep over thousands of files spent more time crossing
//! than searching. The files are read through the host's own
//! [`WorkspaceDir`], which confines exactly as the WASI preopen does: the
//! lexical check refuses `..` and outside absolute paths, and the cap-std
//! directory refuses symlinks that lead out; the walk opens every folder
//! from its parent's handle (see [`super::walker`]). Unlike `exec`, the
//! time spent here counts toward the plugin's guest deadline, and each call
//! handles at most [`MAX_BATCH`] paths or entries: a plugin cannot make the
//! host work for it without limit.

use std::path::Path;
use std::sync::Arc;

use amber_core::workspace_fs::{CappedRead, WorkspaceDir};
use wasmtime::component::Resource;

use super::walker::{Kind, Walker};
use crate::bindings::amber::plugin::files::{
    self, EntryKind, Host, HostWalk, ReadError, WalkEntry,
};
use crate::grants::Permission;
use crate::instance::HostState;
use crate::sandbox::WORKSPACE_MOUNT;

/// Bytes one batch may return in all; the files after it fail with "ask
/// again", so a plugin cannot make the host hold the whole workspace.
pub const BATCH_BUDGET: u64 = 64 << 20;

/// Entries one `walk.next` returns at most, and paths one `read-many`
/// takes at most: each call's work stays bounded.
pub const MAX_BATCH: usize = 4096;

/// Walks one instance may hold open at once. A walk keeps a directory
/// handle open per level it is inside, so walks a plugin never drops must
/// not be able to use up the host's file descriptors.
pub const MAX_OPEN_WALKS: usize = 8;

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
    entries: Walker,
    /// The root as the plugin wrote it; entries are given under it.
    guest_root: String,
}

impl Walk {
    /// What `start` does once the plugin may read: the root confined by
    /// text, then opened through the workspace's cap-std handle, so a
    /// symlink that points out of the workspace is refused.
    fn start(dir: &WorkspaceDir, workspace: &Path, root: &str) -> Result<Walk, String> {
        let cannot = |e: &dyn std::fmt::Display| {
            // The plugin sees the workspace as the mount, never the host's
            // path to it.
            let why = e
                .to_string()
                .replace(&*workspace.to_string_lossy(), WORKSPACE_MOUNT);
            format!("cannot walk {root}: {why}")
        };
        let relative = match host_path(root).map_err(|e| cannot(&e))? {
            empty if empty.is_empty() => ".".to_string(),
            relative => relative,
        };
        let inside = dir.relative(&relative).map_err(|e| cannot(&e))?;
        let entries = Walker::start(workspace, dir.dir(), &inside).map_err(|e| cannot(&e))?;
        Ok(Walk {
            entries,
            guest_root: root.to_string(),
        })
    }

    /// Up to `max` entries.
    fn next_batch(&mut self, max: usize) -> Vec<WalkEntry> {
        let mut out = Vec::with_capacity(max.min(MAX_BATCH));
        for entry in self.entries.by_ref().take(max) {
            let path = if entry.path.as_os_str().is_empty() {
                self.guest_root.clone()
            } else {
                Path::new(&self.guest_root)
                    .join(&entry.path)
                    .to_string_lossy()
                    .into_owned()
            };
            let kind = match entry.kind {
                Kind::File => EntryKind::File,
                Kind::Folder => EntryKind::Folder,
                Kind::Symlink => EntryKind::Symlink,
                Kind::Other => EntryKind::Other,
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
            "not granted: workspace-read (plugin `{}`; grant it with `amber plugin grant {} workspace-read`)",
            plugin.id, plugin.id
        ))
    }

    fn refuse_unless_writable(&self) -> Result<(), String> {
        let plugin = &self.plugin;
        if plugin.grants.has(Permission::WorkspaceWrite) {
            return Ok(());
        }
        Err(format!(
            "not granted: workspace-write (plugin `{}`; grant it with `amber plugin grant {} workspace-write`)",
            plugin.id, plugin.id
        ))
    }

    fn workspace_dir(&mut self) -> Result<&WorkspaceDir, String> {
        if self.workspace_dir.is_none() {
            let workspace = &self.plugin.workspace;
            // Said to the plugin: the mount, never the host's path.
            let dir = WorkspaceDir::open(workspace).map_err(|e| {
                e.to_string()
                    .replace(&*workspace.to_string_lossy(), WORKSPACE_MOUNT)
            })?;
            self.workspace_dir = Some(dir);
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
        if paths.len() > MAX_BATCH {
            return Err(format!(
                "{} paths in one read-many; at most {MAX_BATCH}",
                paths.len()
            ));
        }
        let workspace = self.plugin.workspace.to_string_lossy().into_owned();
        let dir = self.workspace_dir()?;
        let mut left = BATCH_BUDGET;
        let ask_again = |path: &str| {
            ReadError::Failed(format!(
                "{path}: not read, the batch passed {} MiB; ask again",
                BATCH_BUDGET >> 20
            ))
        };
        Ok(paths
            .iter()
            .map(|path| {
                let relative = host_path(path).map_err(ReadError::Failed)?;
                match dir.read_capped(&relative, max_bytes.min(left)) {
                    Ok(CappedRead::Bytes(bytes)) => {
                        left -= bytes.len() as u64;
                        Ok(bytes)
                    }
                    // It would fit in a batch of its own: "ask again" is
                    // an answer that ends; anything larger never would.
                    Ok(CappedRead::TooLarge(size))
                        if size <= max_bytes && size <= BATCH_BUDGET && left < BATCH_BUDGET =>
                    {
                        left = 0;
                        Err(ask_again(path))
                    }
                    Ok(CappedRead::TooLarge(size)) => Err(ReadError::TooLarge(size)),
                    // The plugin sees the workspace as the mount, never the
                    // host's path to it.
                    Err(e) => {
                        let e = e.to_string().replace(&workspace, WORKSPACE_MOUNT);
                        Err(ReadError::Failed(if relative == "." {
                            e
                        } else {
                            e.replace(&relative, path)
                        }))
                    }
                }
            })
            .collect())
    }

    fn replace_file(&mut self, path: String, contents: Vec<u8>) -> Result<(), String> {
        self.refuse_unless_writable()?;
        let relative = host_path(&path)?;
        let workspace = self.plugin.workspace.to_string_lossy().into_owned();
        let dir = self.workspace_dir()?;
        dir.replace(&relative, &contents).map_err(|e| {
            // The plugin's own path, and the mount, never the host's path.
            let e = e.to_string().replace(&workspace, WORKSPACE_MOUNT);
            if relative == path {
                e
            } else {
                e.replace(
                    &format!("(writing {relative})"),
                    &format!("(writing {path})"),
                )
            }
        })
    }
}

/// The same table index as another Rust type, owned or borrowed as it
/// was: a plugin's handle names the [`Walk`] we stored, and a handle of
/// an older API version's `walk` names the same one.
pub(crate) fn retype<A: 'static, B: 'static>(handle: &Resource<A>) -> Resource<B> {
    if handle.owned() {
        Resource::new_own(handle.rep())
    } else {
        Resource::new_borrow(handle.rep())
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
        let workspace = Arc::clone(&self.plugin);
        let walk = Walk::start(self.workspace_dir()?, &workspace.workspace, &root);
        let stored = self
            .table
            .push(walk?)
            .map_err(|e| format!("cannot walk {root}: {e}"))?;
        self.open_walks += 1;
        Ok(Resource::new_own(stored.rep()))
    }

    fn next(&mut self, walk: Resource<files::Walk>, max: u32) -> Vec<WalkEntry> {
        match self.table.get_mut(&entry(&walk)) {
            Ok(walk) => walk.next_batch((max as usize).min(MAX_BATCH)),
            Err(_) => Vec::new(),
        }
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
