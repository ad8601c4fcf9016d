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
use crate::lifecycle::{PluginState, Prepared};

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

/// What a file that did not load (or could not be taken in) reports.
fn failed(path: &Path, reason: String) -> DirChange {
    DirChange::Failed {
        path: path.to_path_buf(),
        reason,
    }
}

/// Whether `a` was modified after `b` (a missing `b` is older).
fn newer_than(a: &Path, b: &Path) -> bool {
    let modified = |p: &Path| std::fs::metadata(p).and_then(|m| m.modified()).ok();
    match (modified(a), modified(b)) {
        (Some(a), Some(b)) => a > b,
        (Some(_), None) => true,
        _ => false,
    }
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
    /// `installed.json` stays the source of truth: a file is adopted only
    /// when it is newer than the one recorded for its plugin.
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
        let mut changes = Vec::new();
        // Removed by another amber (`amber plugin remove`): unloaded here.
        let orphans: Vec<String> = self
            .runtime
            .list()
            .into_iter()
            .map(|s| s.id)
            .filter(|id| !self.bundled_ids.contains(id) && !installed.plugins.contains_key(id))
            .collect();
        for id in orphans {
            self.held.remove(&id);
            match self.runtime.remove(&id) {
                Ok(()) => changes.push(DirChange::Removed { id }),
                Err(e) => changes.push(DirChange::Failed {
                    path: dir.join(&id),
                    reason: e.to_string(),
                }),
            }
        }
        let mut folders = newest_wasm_by_folder(&dir);
        let added: Vec<(String, InstalledPlugin)> = installed
            .plugins
            .iter()
            .filter(|(_, p)| !p.bundled)
            .map(|(id, p)| (id.clone(), p.clone()))
            .collect();
        for (id, plugin) in added {
            let newest = folder_of(&plugin.file).and_then(|f| folders.remove(&f));
            match newest {
                Some(path) if path == plugin.file || newer_than(&path, &plugin.file) => {
                    changes.extend(self.reload(&id, &path, &installed))
                }
                Some(_) => {}
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
        // Folders of no installed plugin: new plugins, or a newer copy of
        // a known one. A bundled plugin's folder holds only its log.
        for path in folders.into_values() {
            changes.extend(self.add_found(&path, &installed));
        }
        changes
    }

    /// Whether `id` should run: config's `enabled` wins over what was
    /// recorded (as at start).
    fn wants_enabled(&self, id: &str, installed: &super::Installed) -> bool {
        let recorded = installed.plugins.get(id).is_none_or(|p| p.enabled);
        self.prefs
            .get(id)
            .and_then(|p| p.enabled)
            .unwrap_or(recorded)
    }

    /// Replaces (or, when it never registered, registers) plugin `id`
    /// with the component in `path` if its content changed; see the
    /// module's doc for grants. The new version is loaded and checked
    /// before the old one is touched.
    fn reload(&mut self, id: &str, path: &Path, installed: &super::Installed) -> Option<DirChange> {
        let failed = |reason: String| failed(path, reason);
        let file = match self.runtime.open_component(path) {
            Ok(file) => file,
            Err(e) => return Some(failed(e.to_string())),
        };
        let current = self.runtime.status(id).map(|s| s.hash);
        if current.as_deref() == Some(file.hash.as_str()) {
            return None;
        }
        let hash = file.hash.clone();
        // Compiled and its manifest read once, here, before the old
        // version is touched; the same load is what gets registered.
        let prepared = match self.runtime.prepare(file) {
            Ok(prepared) if prepared.id() == id => prepared,
            Ok(prepared) => {
                return Some(failed(format!(
                    "it is plugin `{}`, not `{id}`",
                    prepared.id()
                )))
            }
            Err(e) => return Some(failed(e.to_string())),
        };
        self.swap_in(id, path, &hash, prepared, installed)
    }

    /// Puts `prepared` (plugin `id`, from `path`, content `hash`) in the
    /// place of the registered version, or registers it when there was
    /// none; records it, moves its grants and enables it unless it waits
    /// for new ones or is disabled.
    fn swap_in(
        &mut self,
        id: &str,
        path: &Path,
        hash: &str,
        prepared: Prepared,
        installed: &super::Installed,
    ) -> Option<DirChange> {
        let failed = |reason: String| failed(path, reason);
        if self.runtime.status(id).is_some() {
            let was_active = self.runtime.state(id) == Some(PluginState::Active);
            if let Err(e) = self.runtime.disable(id) {
                return Some(failed(e.to_string()));
            }
            if let Err(e) = self.runtime.replace_prepared(id, prepared) {
                // The old version is still registered: put it back to work.
                let back = if was_active {
                    match self.enable_with_grants(id) {
                        Ok(()) => String::new(),
                        Err(again) => {
                            format!("; the old version did not start again either: {again}")
                        }
                    }
                } else {
                    String::new()
                };
                return Some(failed(format!("{e}{back}")));
            }
        } else if let Err(e) = self.runtime.register_prepared(prepared) {
            return Some(failed(e.to_string()));
        }
        let stored = path.to_path_buf();
        let recorded = self.state.update_installed(|installed| {
            if let Some(entry) = installed.plugins.get_mut(id) {
                entry.file = stored;
                entry.hash = hash.to_string();
            }
        });
        if let Err(e) = recorded {
            return Some(failed(format!(
                "reloaded, but not recorded for later runs: {e}"
            )));
        }
        let waiting = match self.rebind_grants(id, hash) {
            Ok(waiting) => waiting,
            Err(e) => return Some(failed(e.to_string())),
        };
        if !waiting.is_empty() {
            self.held.insert(id.to_string());
            return Some(match self.runtime.hold(id, &waiting_reason(&waiting)) {
                Ok(()) => DirChange::Waiting {
                    id: id.to_string(),
                    permissions: waiting,
                },
                Err(e) => failed(e.to_string()),
            });
        }
        self.held.remove(id);
        if self.wants_enabled(id, installed) {
            if let Err(e) = self.enable_with_grants(id) {
                return Some(failed(format!("the new version did not start: {e}")));
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
    /// decided now (by the user, or granted in config) is let go, and
    /// enabled unless it is disabled.
    pub(super) fn release_if_decided(&mut self, id: &str) -> Result<(), LoadError> {
        if !self.held.contains(id) {
            return Ok(());
        }
        let status = self.manifest(id)?;
        let record = self.state.read_grants()?.remove(id).unwrap_or_default();
        let pre: BTreeSet<Permission> = self
            .prefs
            .get(id)
            .map(|p| p.grants.iter().copied().collect())
            .unwrap_or_default();
        let decided = requested(&status)
            .iter()
            .all(|p| record.asked.contains(p) || pre.contains(p));
        if decided {
            self.held.remove(id);
            let installed = self.state.read_installed()?;
            if self.wants_enabled(id, &installed) {
                self.enable_with_grants(id)?;
            }
        }
        Ok(())
    }

    /// A `.wasm` in a folder of no installed plugin: a new plugin,
    /// registered and recorded (not enabled); or, when it is a known
    /// plugin and newer than the file recorded for it, its new version.
    fn add_found(&mut self, path: &Path, installed: &super::Installed) -> Option<DirChange> {
        let failed = |reason: String| failed(path, reason);
        let file = match self.runtime.open_component(path) {
            Ok(file) => file,
            Err(e) => return Some(failed(e.to_string())),
        };
        let hash = file.hash.clone();
        let prepared = match self.runtime.prepare(file) {
            Ok(prepared) => prepared,
            Err(e) => return Some(failed(e.to_string())),
        };
        let id = prepared.id().to_string();
        if self.bundled_ids.contains(&id) {
            return Some(failed(format!(
                "it is the bundled plugin `{id}`; replace it with `amber plugin add {}`",
                path.display()
            )));
        }
        if let Some(recorded) = installed.plugins.get(&id) {
            // An older copy elsewhere is not a new version.
            if !newer_than(path, &recorded.file) && recorded.file.exists() {
                return None;
            }
            if self.runtime.status(&id).is_some_and(|s| s.hash == hash) {
                return None;
            }
            return self.swap_in(&id, path, &hash, prepared, installed);
        }
        if let Err(e) = self.runtime.register_prepared(prepared) {
            return Some(failed(e.to_string()));
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
            Err(e) => Some(failed(e.to_string())),
        }
    }
}
