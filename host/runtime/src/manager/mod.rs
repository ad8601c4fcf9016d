//! Plugin management: what is installed, what the user granted, and the
//! bundled first-party plugins, kept on disk and applied to a
//! [`PluginRuntime`](crate::PluginRuntime).
//!
//! Permissions have two keys: the manifest requests, the user grants.
//! Grants are stored per plugin id together with the wasm hash they were
//! given for; a new wasm for the same id keeps what it still requests and
//! asks again only for what is new.

pub mod bundle;
mod grants;
mod installed;
mod reload;
mod state_file;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::error::LoadError;
use crate::grants::{Grants, Permission};
use crate::lifecycle::{
    ComponentFile, PermissionRequest, PluginManifest, PluginRuntime, PluginStatus, Registration,
};
use amber_state::AmberDirs;

pub use bundle::{bundled_names, find_bundle, precompiled, BundlePlace, BundleSearch};
pub use grants::GrantRecord;
pub use installed::{Installed, InstalledPlugin};
pub use reload::DirChange;
use state_file::StateDir;

/// Asks the user whether to grant one permission.
pub trait GrantAsker {
    fn ask(&mut self, plugin: &PluginManifest, request: &PermissionRequest) -> bool;
}

/// Never grants: what a run without a TTY gets.
pub struct NoTty;

impl GrantAsker for NoTty {
    fn ask(&mut self, _plugin: &PluginManifest, _request: &PermissionRequest) -> bool {
        false
    }
}

/// What config says about one plugin.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PluginPrefs {
    /// Some(false) keeps it disabled whatever the state file says.
    pub enabled: Option<bool>,
    /// Pre-grants for headless runs.
    pub grants: Vec<Permission>,
}

/// How a user asked to grant during `add`.
#[derive(Debug, Clone, Default)]
pub struct GrantChoice {
    /// `--grant P`, repeatable.
    pub explicit: Vec<Permission>,
    /// `--yes`: grant everything requested.
    pub all: bool,
}

/// What `plugin add` did.
#[derive(Debug, Clone, Serialize)]
pub struct AddReport {
    pub id: String,
    pub version: String,
    pub registration: Registration,
    pub granted: Vec<Permission>,
    pub not_granted: Vec<Permission>,
    /// Set when the plugin was added but failed to enable.
    pub enable_error: Option<String>,
    pub status: Option<PluginStatus>,
}

/// One line of `plugin list`.
#[derive(Debug, Clone, Serialize)]
pub struct ListedPlugin {
    pub id: String,
    pub version: String,
    pub bundled: bool,
    pub enabled: bool,
    #[serde(flatten)]
    pub status: PluginStatus,
}

/// The permissions a plugin's manifest requests.
fn requested(status: &PluginStatus) -> BTreeSet<Permission> {
    status
        .manifest
        .permissions
        .iter()
        .map(|p| p.permission)
        .collect()
}

/// Only what a plugin requests can be granted (two keys).
fn not_requested(id: &str, permission: Permission) -> LoadError {
    let reason = format!("it does not request {permission}, so it cannot be granted");
    LoadError::Plugin {
        id: id.to_string(),
        reason,
    }
}

/// Loads, adds and removes plugins, and keeps their state on disk.
pub struct PluginManager {
    runtime: PluginRuntime,
    state: StateDir,
    prefs: BTreeMap<String, PluginPrefs>,
    bundle_dir: Option<PathBuf>,
    /// Problems met while loading; reported, never fatal.
    problems: Vec<String>,
    bundled_ids: BTreeSet<String>,
    /// Plugins reloaded into a version that asks for permissions not yet
    /// decided: Deactivated until they are (see `reload`).
    held: BTreeSet<String>,
}

impl PluginManager {
    pub fn new(
        runtime: PluginRuntime,
        dirs: &AmberDirs,
        prefs: BTreeMap<String, PluginPrefs>,
        bundle_dir: Option<PathBuf>,
    ) -> Self {
        PluginManager {
            runtime,
            state: StateDir::new(dirs.data.join("plugins")),
            prefs,
            bundle_dir,
            problems: Vec::new(),
            bundled_ids: BTreeSet::new(),
            held: BTreeSet::new(),
        }
    }

    pub fn runtime(&self) -> &PluginRuntime {
        &self.runtime
    }

    /// Problems met while loading (a missing file, a plugin that failed).
    pub fn problems(&self) -> &[String] {
        &self.problems
    }

    /// Registers the bundled and installed plugins and enables those that
    /// should be, with their grants. A plugin that fails is reported in
    /// [`Self::problems`] and the rest still load.
    pub fn load_all(&mut self) -> Result<(), LoadError> {
        let installed = self.state.read_installed()?;
        let mut grants = self.state.read_grants()?;
        // Read every file first, so a front end can say how many must
        // compile before the first one starts.
        let mut files: Vec<(ComponentFile, Option<String>)> = Vec::new();
        if let Some(dir) = self.bundle_dir.clone() {
            for path in bundle::files(&dir) {
                match self.runtime.open_component(&path) {
                    Ok(file) => files.push((file, None)),
                    Err(e) => self.problems.push(format!("bundled plugin: {e}")),
                }
            }
        }
        for (id, plugin) in &installed.plugins {
            if plugin.bundled {
                continue;
            }
            match self.runtime.open_component(&plugin.file) {
                Ok(file) => files.push((file, Some(id.clone()))),
                Err(e) => self.problems.push(format!("plugin `{id}`: {e}")),
            }
        }
        let compiles: Vec<u64> = files
            .iter()
            .filter(|(file, _)| self.runtime.compiles_on_register(file))
            .map(|(file, _)| file.len)
            .collect();
        self.runtime
            .expect_compiles(compiles.len(), compiles.iter().sum());
        for (file, added) in files {
            match (self.runtime.register(file), added) {
                (Ok((id, _)), None) => {
                    if installed.removed_bundled.contains(&id)
                        || installed.plugins.get(&id).is_some_and(|p| !p.bundled)
                    {
                        // Removed or replaced by the user.
                        let _ = self.runtime.remove(&id);
                        continue;
                    }
                    self.bundled_ids.insert(id);
                }
                (Ok(_), Some(_)) => {}
                (Err(e), None) => self.problems.push(format!("bundled plugin: {e}")),
                (Err(e), Some(id)) => self.problems.push(format!("plugin `{id}`: {e}")),
            }
        }
        let ids: Vec<String> = self.runtime.list().into_iter().map(|s| s.id).collect();
        for id in ids {
            let enabled = installed.plugins.get(&id).is_none_or(|p| p.enabled);
            if !self
                .prefs
                .get(&id)
                .and_then(|p| p.enabled)
                .unwrap_or(enabled)
            {
                continue;
            }
            let effective = self.effective_grants(&id, &mut grants);
            if let Err(e) = self.runtime.enable(&id, effective) {
                self.problems.push(e.to_string());
            }
        }
        Ok(())
    }

    fn manifest(&self, id: &str) -> Result<PluginStatus, LoadError> {
        self.runtime
            .status(id)
            .ok_or_else(|| LoadError::Unknown(id.to_string()))
    }

    /// What plugin `id` may use: what it requests ∩ (what the user granted
    /// for this wasm ∪ config pre-grants); bundled plugins are granted what
    /// they request unless the user revoked it, except `http`: the network
    /// is granted by a person (or config) even to amber's own plugins,
    /// `web_fetch` included (docs/web.md).
    fn effective_grants(&self, id: &str, grants: &mut BTreeMap<String, GrantRecord>) -> Grants {
        let Some(status) = self.runtime.status(id) else {
            return Grants::none();
        };
        let requested = requested(&status);
        let record = grants.entry(id.to_string()).or_default();
        if self.bundled_ids.contains(id) && record.hash != status.hash {
            // Bundled plugins get what they request, except what the user
            // revoked (decided on and not granted).
            let revoked: BTreeSet<Permission> =
                record.asked.difference(&record.granted).copied().collect();
            let http_granted = record.granted.contains(&Permission::Http);
            let http_asked = record.asked.contains(&Permission::Http);
            let auto: BTreeSet<Permission> = requested
                .iter()
                .copied()
                .filter(|p| *p != Permission::Http)
                .collect();
            let granted: BTreeSet<Permission> = auto.difference(&revoked).copied().collect();
            *record = GrantRecord::all(&status.hash, &auto);
            record.granted = granted;
            // A person's decision on `http` carries over to the new wasm.
            if http_asked && requested.contains(&Permission::Http) {
                record.asked.insert(Permission::Http);
                if http_granted {
                    record.granted.insert(Permission::Http);
                }
            }
        }
        record.rebind(&status.hash, &requested);
        let pre: BTreeSet<Permission> = self
            .prefs
            .get(id)
            .map(|p| p.grants.iter().copied().collect())
            .unwrap_or_default();
        Grants::of(
            requested
                .iter()
                .copied()
                .filter(|p| record.granted.contains(p) || pre.contains(p)),
        )
    }

    /// Adds the component in `file`: validates it, keeps a copy, asks for
    /// what it requests, and enables it. The same file again changes
    /// nothing.
    pub fn add(
        &mut self,
        file: &Path,
        choice: &GrantChoice,
        asker: &mut dyn GrantAsker,
    ) -> Result<AddReport, LoadError> {
        // Read once: what is validated is what is kept.
        let bytes = self.runtime.read_file(file)?;
        let (id, registration) = self.runtime.register_bytes(&bytes, file)?;
        let status = self.manifest(&id)?;
        let requested: Vec<PermissionRequest> = status.manifest.permissions.clone();
        for p in &choice.explicit {
            if !requested.iter().any(|r| r.permission == *p) {
                return Err(not_requested(&id, *p));
            }
        }
        let stored = self.state.store_wasm(&id, &status.hash, &bytes)?;
        self.state.update_installed(|installed| {
            installed.removed_bundled.remove(&id);
            let entry = InstalledPlugin {
                file: stored.clone(),
                hash: status.hash.clone(),
                enabled: true,
                bundled: false,
            };
            installed.plugins.insert(id.clone(), entry);
        })?;
        // Decide what to ask outside the lock: the user may take a while.
        let record = self.state.read_grants()?.remove(&id).unwrap_or_default();
        let mut record = record;
        let requested_set = self::requested(&status);
        record.rebind(&status.hash, &requested_set);
        let pre: Vec<Permission> = self
            .prefs
            .get(&id)
            .map(|p| p.grants.clone())
            .unwrap_or_default();
        for request in &requested {
            let p = request.permission;
            if record.asked.contains(&p) {
                continue;
            }
            let decided = choice.all
                || choice.explicit.contains(&p)
                || pre.contains(&p)
                || asker.ask(&status.manifest, request);
            if decided {
                record.asked.insert(p);
                record.granted.insert(p);
            }
        }
        let saved = record.clone();
        self.state.update_grants(|all| {
            all.insert(id.clone(), saved);
        })?;
        let granted: Vec<Permission> = requested_set
            .iter()
            .copied()
            .filter(|p| record.granted.contains(p))
            .collect();
        let not_granted: Vec<Permission> = requested_set
            .iter()
            .copied()
            .filter(|p| !record.granted.contains(p))
            .collect();
        let enable_error = if registration == Registration::Unchanged
            && self.runtime.state(&id) == Some(crate::PluginState::Active)
        {
            None
        } else {
            self.runtime.disable(&id).ok();
            self.runtime
                .enable(&id, Grants::of(granted.iter().copied()))
                .err()
                .map(|e| e.to_string())
        };
        Ok(AddReport {
            id: id.clone(),
            version: status.manifest.version.clone(),
            registration,
            granted,
            not_granted,
            enable_error,
            status: self.runtime.status(&id),
        })
    }

    /// Forgets plugin `id`; a bundled one stays removed until added again.
    pub fn remove(&mut self, id: &str) -> Result<(), LoadError> {
        self.held.remove(id);
        let bundled = self.bundled_ids.contains(id);
        let known = self.state.read_installed()?.plugins.contains_key(id) || bundled;
        if !known && self.runtime.status(id).is_none() {
            return Err(LoadError::Unknown(id.to_string()));
        }
        let _ = self.runtime.remove(id);
        self.state.update_installed(|installed| {
            installed.plugins.remove(id);
            if bundled {
                installed.removed_bundled.insert(id.to_string());
            }
        })?;
        self.state.update_grants(|all| {
            all.remove(id);
        })?;
        self.state.remove_wasm(id);
        Ok(())
    }

    /// Enables or disables `id` now and in every later run.
    pub fn set_enabled(&mut self, id: &str, enabled: bool) -> Result<PluginStatus, LoadError> {
        let status = self.manifest(id)?;
        let bundled = self.bundled_ids.contains(id);
        self.state.update_installed(|installed| {
            let entry =
                installed
                    .plugins
                    .entry(id.to_string())
                    .or_insert_with(|| InstalledPlugin {
                        file: status.source.clone(),
                        hash: status.hash.clone(),
                        enabled,
                        bundled,
                    });
            entry.enabled = enabled;
        })?;
        if enabled {
            // Enabled by hand: with what is granted, decided or not.
            self.held.remove(id);
            let mut grants = self.state.read_grants()?;
            let effective = self.effective_grants(id, &mut grants);
            self.runtime.enable(id, effective)?;
        } else {
            self.runtime.disable(id)?;
        }
        self.manifest(id)
    }

    /// Grants or revokes one requested permission; an active plugin is
    /// re-enabled so the change takes effect at once.
    pub fn set_grant(
        &mut self,
        id: &str,
        permission: Permission,
        granted: bool,
    ) -> Result<PluginStatus, LoadError> {
        let status = self.manifest(id)?;
        let requested = requested(&status);
        if granted && !requested.contains(&permission) {
            return Err(not_requested(id, permission));
        }
        let mut grants = self.state.read_grants()?;
        let _ = self.effective_grants(id, &mut grants);
        let mut record = grants.remove(id).unwrap_or_default();
        record.asked.insert(permission);
        if granted {
            record.granted.insert(permission);
        } else {
            record.granted.remove(&permission);
        }
        let saved = record.clone();
        self.state.update_grants(|all| {
            all.insert(id.to_string(), saved);
        })?;
        if self.runtime.state(id) == Some(crate::PluginState::Active) {
            self.runtime.disable(id)?;
            let mut grants = self.state.read_grants()?;
            let effective = self.effective_grants(id, &mut grants);
            self.runtime.enable(id, effective)?;
        }
        self.release_if_decided(id)?;
        self.manifest(id)
    }

    /// The ids of the bundled plugins found at load.
    pub fn bundled_ids(&self) -> &BTreeSet<String> {
        &self.bundled_ids
    }

    /// Every plugin with its state.
    pub fn list(&self) -> Result<Vec<ListedPlugin>, LoadError> {
        let installed = self.state.read_installed()?;
        Ok(self
            .runtime
            .list()
            .into_iter()
            .map(|status| ListedPlugin {
                id: status.id.clone(),
                version: status.manifest.version.clone(),
                bundled: self.bundled_ids.contains(&status.id),
                enabled: installed.plugins.get(&status.id).is_none_or(|p| p.enabled),
                status,
            })
            .collect())
    }

    /// The plugin's log file.
    pub fn log_path(&self, id: &str) -> Result<PathBuf, LoadError> {
        self.manifest(id)?.log.ok_or_else(|| LoadError::Plugin {
            id: id.to_string(),
            reason: "it has no log file".into(),
        })
    }
}
