//! Live reload: while amber runs, the plugin directory (`<data>/plugins`,
//! where `amber plugin add` keeps plugins) is brought back in line with
//! the runtime whenever it changes (docs/plugins.md, "Live reload").
//!
//! - A plugin's folder (`<id>/`) whose newest `.wasm` is new content: the
//!   plugin is replaced in place. Calls in flight finish on the old
//!   instance; new calls go to the new one.
//! - Grants are bound to the component's hash: a new version keeps the
//!   decisions on what it still asks for; when it asks for something not
//!   decided yet it waits, Deactivated, until the user decides.
//! - A folder that holds no known plugin: its newest `.wasm` is
//!   registered (Registered, not enabled: the user enables it).
//! - An installed plugin whose folder lost its `.wasm`: unwound and
//!   forgotten.
//! - A file that does not load is reported, and everything else goes on.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use super::{requested, InstalledPlugin, PluginManager};
use crate::error::LoadError;
use crate::grants::Permission;
use crate::lifecycle::PluginState;

/// One thing a sync of the plugin directory did.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[serde(tag = "change", rename_all = "snake_case")]
pub enum DirChange {
    /// A new version replaced the old one in place.
    Reloaded { id: String },
    /// A new version asks for permissions not decided yet; it waits,
    /// Deactivated, until the user grants or refuses them.
    Waiting {
        id: String,
        permissions: Vec<Permission>,
    },
    /// A plugin new to amber, registered and not enabled.
    Added { id: String },
    /// A plugin whose file is gone, unwound.
    Removed { id: String },
    /// A file that did not load; nothing else changed for it.
    Failed { path: PathBuf, reason: String },
}

/// What a plugin waiting for grants is told in its status.
fn waiting_reason(permissions: &[Permission]) -> String {
    let names: Vec<&str> = permissions.iter().map(|p| p.as_str()).collect();
    format!(
        "the new version asks for {}: grant or refuse in the plugin view (or `amber plugin grant`)",
        names.join(", ")
    )
}

/// The newest `.wasm` of each folder of `dir`, by folder name. Files
/// being written (`.tmp-*`) are not plugins yet.
fn newest_wasm_by_folder(dir: &Path) -> BTreeMap<String, PathBuf> {
    let mut found = BTreeMap::new();
    let Ok(folders) = std::fs::read_dir(dir) else {
        return found;
    };
    for folder in folders.flatten() {
        let path = folder.path();
        if !path.is_dir() {
            continue;
        }
        let Ok(files) = std::fs::read_dir(&path) else {
            continue;
        };
        let newest = files
            .flatten()
            .map(|f| f.path())
            .filter(|p| {
                p.extension().is_some_and(|e| e == "wasm")
                    && !p
                        .file_name()
                        .is_some_and(|n| n.to_string_lossy().starts_with('.'))
            })
            .filter_map(|p| {
                let modified = std::fs::metadata(&p).and_then(|m| m.modified()).ok()?;
                Some((modified, p))
            })
            .max();
        if let Some((_, wasm)) = newest {
            found.insert(folder.file_name().to_string_lossy().into_owned(), wasm);
        }
    }
    found
}

fn folder_of(file: &Path) -> Option<String> {
    Some(file.parent()?.file_name()?.to_string_lossy().into_owned())
}

impl PluginManager {
    /// Where `amber plugin add` keeps plugins: the directory a front end
    /// watches for live reload.
    pub fn plugin_dir(&self) -> &Path {
        self.state.dir()
    }

    /// Brings the runtime in line with the plugin directory (see the
    /// module's doc) and says what changed; nothing when nothing did.
    pub fn sync_plugin_dir(&mut self) -> Vec<DirChange> {
        let dir = self.state.dir().to_path_buf();
        let installed = match self.state.read_installed() {
            Ok(installed) => installed,
            Err(e) => {
                return vec![DirChange::Failed {
                    path: dir.join("installed.json"),
                    reason: e.to_string(),
                }]
            }
        };
        let mut folders = newest_wasm_by_folder(&dir);
        let mut changes = Vec::new();
        let added: Vec<(String, InstalledPlugin)> = installed
            .plugins
            .into_iter()
            .filter(|(_, p)| !p.bundled)
            .collect();
        for (id, plugin) in added {
            let newest = folder_of(&plugin.file).and_then(|f| folders.remove(&f));
            match newest {
                Some(path) => changes.extend(self.reload(&id, &path, plugin.enabled)),
                None if !plugin.file.exists() => match self.remove(&id) {
                    Ok(()) => changes.push(DirChange::Removed { id }),
                    Err(e) => changes.push(DirChange::Failed {
                        path: plugin.file,
                        reason: e.to_string(),
                    }),
                },
                None => {}
            }
        }
        // Folders of no installed plugin: new plugins. A bundled plugin's
        // folder holds only its log.
        for path in folders.into_values() {
            changes.extend(self.add_found(&path));
        }
        changes
    }

    /// Replaces plugin `id` with the component in `path` if its content
    /// changed; see the module's doc for grants.
    fn reload(&mut self, id: &str, path: &Path, enabled: bool) -> Option<DirChange> {
        let failed = |e: LoadError| DirChange::Failed {
            path: path.to_path_buf(),
            reason: e.to_string(),
        };
        let file = match self.runtime.open_component(path) {
            Ok(file) => file,
            Err(e) => return Some(failed(e)),
        };
        let current = self.runtime.status(id).map(|s| s.hash);
        if current.as_deref() == Some(file.hash.as_str()) {
            return None;
        }
        let hash = file.hash.clone();
        let was_active = self.runtime.state(id) == Some(PluginState::Active);
        if let Err(e) = self.runtime.disable(id) {
            return Some(failed(e));
        }
        if let Err(e) = self.runtime.replace_with(id, file) {
            // The old version is still registered: put it back to work.
            if was_active {
                let _ = self.enable_with_grants(id);
            }
            return Some(failed(e));
        }
        let stored = path.to_path_buf();
        let recorded = self.state.update_installed(|installed| {
            if let Some(entry) = installed.plugins.get_mut(id) {
                entry.file = stored;
                entry.hash = hash.clone();
            }
        });
        if let Err(e) = recorded {
            return Some(failed(e));
        }
        let waiting = match self.rebind_grants(id, &hash) {
            Ok(waiting) => waiting,
            Err(e) => return Some(failed(e)),
        };
        if !waiting.is_empty() {
            self.held.insert(id.to_string());
            return Some(match self.runtime.hold(id, &waiting_reason(&waiting)) {
                Ok(()) => DirChange::Waiting {
                    id: id.to_string(),
                    permissions: waiting,
                },
                Err(e) => failed(e),
            });
        }
        if enabled {
            if let Err(e) = self.enable_with_grants(id) {
                return Some(failed(e));
            }
        }
        Some(DirChange::Reloaded { id: id.to_string() })
    }

    /// Moves `id`'s grant record to the component `hash`; returns what it
    /// asks for that the user never decided on (nor granted in config).
    fn rebind_grants(&mut self, id: &str, hash: &str) -> Result<Vec<Permission>, LoadError> {
        let status = self.manifest(id)?;
        let requested = requested(&status);
        let pre: BTreeSet<Permission> = self
            .prefs
            .get(id)
            .map(|p| p.grants.iter().copied().collect())
            .unwrap_or_default();
        let mut waiting = Vec::new();
        self.state.update_grants(|all| {
            let record = all.entry(id.to_string()).or_default();
            record.rebind(hash, &requested);
            waiting = requested
                .iter()
                .copied()
                .filter(|p| !record.asked.contains(p) && !pre.contains(p))
                .collect();
        })?;
        Ok(waiting)
    }

    /// Enables `id` with what it is granted now.
    fn enable_with_grants(&mut self, id: &str) -> Result<(), LoadError> {
        let mut grants = self.state.read_grants()?;
        let effective = self.effective_grants(id, &mut grants);
        self.runtime.enable(id, effective).map(|_| ())
    }

    /// A held plugin (waiting for grants) whose permissions are all
    /// decided now is enabled.
    pub(super) fn release_if_decided(&mut self, id: &str) -> Result<(), LoadError> {
        if !self.held.contains(id) {
            return Ok(());
        }
        let status = self.manifest(id)?;
        let record = self.state.read_grants()?.remove(id).unwrap_or_default();
        if requested(&status).iter().all(|p| record.asked.contains(p)) {
            self.held.remove(id);
            self.enable_with_grants(id)?;
        }
        Ok(())
    }

    /// A `.wasm` in a folder of no installed plugin: a new plugin,
    /// registered and recorded (not enabled); or, when it is a known
    /// plugin, that plugin's new version.
    fn add_found(&mut self, path: &Path) -> Option<DirChange> {
        let failed = |e: LoadError| DirChange::Failed {
            path: path.to_path_buf(),
            reason: e.to_string(),
        };
        let file = match self.runtime.open_component(path) {
            Ok(file) => file,
            Err(e) => return Some(failed(e)),
        };
        let id = match self.runtime.peek_id(&file) {
            Ok(id) => id,
            Err(e) => return Some(failed(e)),
        };
        if self.runtime.status(&id).is_some() {
            if self.bundled_ids.contains(&id) {
                let reason = LoadError::Plugin {
                    id: id.clone(),
                    reason: format!(
                        "a bundled plugin has this id; add it with `amber plugin add {}` to replace it",
                        path.display()
                    ),
                };
                return Some(failed(reason));
            }
            let enabled = self
                .state
                .read_installed()
                .ok()
                .and_then(|i| i.plugins.get(&id).map(|p| p.enabled))
                .unwrap_or(true);
            return self.reload(&id, path, enabled);
        }
        let hash = file.hash.clone();
        if let Err(e) = self.runtime.register(file) {
            return Some(failed(e));
        }
        let entry = InstalledPlugin {
            file: path.to_path_buf(),
            hash,
            enabled: false,
            bundled: false,
        };
        let recorded = self.state.update_installed(|installed| {
            installed.removed_bundled.remove(&id);
            installed.plugins.insert(id.clone(), entry);
        });
        match recorded {
            Ok(()) => Some(DirChange::Added { id }),
            Err(e) => Some(failed(e)),
        }
    }
}
