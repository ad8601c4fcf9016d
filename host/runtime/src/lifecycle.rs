//! The plugin lifecycle. Seed: "Capability ledger".
//!
//! Registered → Active → Deactivated, or → Failed.
//! - `enable`: initialize(ctx), capabilities(), then for each capability in
//!   declaration order install into its registry and record (owner,
//!   Contribution) in the ledger.
//! - `disable`: shutdown(), then unwind in reverse install order.
//! - Failed: initialize or capabilities failed, a declared capability is
//!   not exported, an install was refused, or three calls in a row trapped.
//!   Everything the plugin installed is unwound and the reason kept.
//!
//! All of it works in a running process; nothing needs a restart.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard, Weak};

use amber_core::{Contribution, Ledger, Owner};
use serde::Serialize;
use wasmtime::component::{Component, InstancePre, Linker};
use wasmtime::Engine;

use crate::adapters;
use crate::bindings::types;
use crate::cache::{CacheOutcome, ComponentCache};
use crate::compat::{self, ExportSet};
use crate::dirs::AmberDirs;
use crate::engine::{shared_engine, RuntimeLimits};
use crate::error::{CallError, LoadError};
use crate::grants::{Grants, Permission};
use crate::imports::{self, exec::ExecPolicy};
use crate::instance::{ExportIndices, FailureSink, HostState, InstancePool, PluginContext};
use crate::log::PluginLog;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum PluginState {
    Registered,
    Active,
    Deactivated,
    Failed,
}

impl std::fmt::Display for PluginState {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let s = serde_json::to_value(self)
            .ok()
            .and_then(|v| v.as_str().map(String::from));
        f.write_str(&s.unwrap_or_default())
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PermissionRequest {
    pub permission: Permission,
    pub reason: String,
}

/// A plugin's manifest, as the host keeps it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PluginManifest {
    pub id: String,
    pub name: String,
    pub version: String,
    pub description: String,
    pub api_version: String,
    pub permissions: Vec<PermissionRequest>,
}

impl From<types::PluginManifest> for PluginManifest {
    fn from(m: types::PluginManifest) -> Self {
        PluginManifest {
            id: m.id,
            name: m.name,
            version: m.version,
            description: m.description,
            api_version: m.api_version,
            permissions: m
                .permissions
                .into_iter()
                .map(|p| PermissionRequest {
                    permission: p.permission.into(),
                    reason: p.reason,
                })
                .collect(),
        }
    }
}

/// What `plugin info` shows.
#[derive(Debug, Clone, Serialize)]
pub struct PluginStatus {
    pub id: String,
    pub state: PluginState,
    /// Why the plugin is Failed.
    pub reason: Option<String>,
    pub manifest: PluginManifest,
    /// Capability kinds the component exports.
    pub exports: Vec<String>,
    /// blake3 of the wasm file.
    pub hash: String,
    pub source: PathBuf,
    pub grants: Grants,
    pub contributions: Vec<Contribution>,
    pub log: Option<PathBuf>,
}

/// Whether registering changed anything.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Registration {
    New,
    Unchanged,
    Replaced,
}

/// A compiled, validated component and its manifest.
struct Loaded {
    pre: InstancePre<HostState>,
    exports: ExportSet,
    hash: String,
    source: PathBuf,
    manifest: PluginManifest,
}

struct Entry {
    loaded: Arc<Loaded>,
    state: PluginState,
    reason: Option<String>,
    grants: Grants,
    pool: Option<Arc<InstancePool>>,
    log: Arc<PluginLog>,
}

/// How the runtime is set up.
#[derive(Clone)]
pub struct RuntimeOptions {
    pub dirs: AmberDirs,
    /// Absolute path of the workspace root.
    pub workspace: PathBuf,
    pub limits: RuntimeLimits,
    pub exec: ExecPolicy,
    /// Plugin id → its settings from config.
    pub settings: BTreeMap<String, BTreeMap<String, String>>,
}

impl RuntimeOptions {
    pub fn new(dirs: AmberDirs, workspace: PathBuf) -> Self {
        RuntimeOptions {
            dirs,
            workspace,
            limits: RuntimeLimits::default(),
            exec: ExecPolicy::default(),
            settings: BTreeMap::new(),
        }
    }
}

struct Inner {
    engine: &'static Engine,
    linker: Linker<HostState>,
    cache: ComponentCache,
    ledger: Arc<Ledger>,
    options: RuntimeOptions,
    plugins: Mutex<BTreeMap<String, Entry>>,
    /// Serialises enable, disable and fail, so a plugin never runs two
    /// transitions at once.
    transitions: Mutex<()>,
}

/// Loads, enables and disables plugins, installing their capabilities
/// into a shared [`Ledger`].
#[derive(Clone)]
pub struct PluginRuntime {
    inner: Arc<Inner>,
}

fn valid_id(id: &str) -> bool {
    let ok_char = |c: char| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-' || c == '_';
    !id.is_empty() && id.len() <= 64 && id.chars().all(ok_char) && !id.starts_with('-')
}

impl PluginRuntime {
    pub fn new(options: RuntimeOptions, ledger: Arc<Ledger>) -> Result<Self, LoadError> {
        let engine = shared_engine()?;
        let linker = imports::linker(engine)
            .map_err(|e| LoadError::Engine(format!("cannot link imports: {e:#}")))?;
        let cache = ComponentCache::new(&options.dirs.compiled(), engine);
        let inner = Inner {
            engine,
            linker,
            cache,
            ledger,
            options,
            plugins: Mutex::new(BTreeMap::new()),
            transitions: Mutex::new(()),
        };
        Ok(PluginRuntime {
            inner: Arc::new(inner),
        })
    }

    pub fn ledger(&self) -> &Arc<Ledger> {
        &self.inner.ledger
    }

    pub fn options(&self) -> &RuntimeOptions {
        &self.inner.options
    }

    fn plugins(&self) -> MutexGuard<'_, BTreeMap<String, Entry>> {
        self.inner.plugins.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn transitions(&self) -> MutexGuard<'_, ()> {
        self.inner
            .transitions
            .lock()
            .unwrap_or_else(|e| e.into_inner())
    }

    /// Compiles (or loads from the cache) and validates a component, and
    /// reads its manifest in a sandbox with nothing granted.
    fn load(&self, wasm: &[u8], origin: &Path) -> Result<(Loaded, CacheOutcome), LoadError> {
        let engine = self.inner.engine;
        compat::check_is_component(wasm, origin)?;
        let (component, outcome): (Component, CacheOutcome) =
            self.inner.cache.load(engine, wasm, origin)?;
        let exports = compat::read_exports(engine, &component, origin)?;
        let link = |e: wasmtime::Error| LoadError::Link {
            path: origin.to_path_buf(),
            reason: format!("{e:#}"),
        };
        let pre = self
            .inner
            .linker
            .instantiate_pre(&component)
            .map_err(link)?;
        let indices = ExportIndices::resolve(&pre).map_err(link)?;
        let context = self.context("(loading)", Grants::none(), PluginLog::in_memory());
        let quiet: FailureSink = Arc::new(|_, _| {});
        let pool = InstancePool::new(pre.clone(), indices, context, quiet);
        let not_loaded = |e: CallError| LoadError::NotAComponent {
            path: origin.to_path_buf(),
            reason: e.to_string(),
        };
        // `manifest` comes before anything else, initialize included.
        let mut instance = pool.instantiate_uninitialized().map_err(not_loaded)?;
        let manifest = pool
            .call_on(&mut instance, "manifest", |i| {
                let plugin = i.plugin.clone();
                plugin.call_manifest(&mut i.store)
            })
            .map_err(not_loaded)?;
        let manifest = PluginManifest::from(manifest);
        if !valid_id(&manifest.id) {
            return Err(LoadError::NotAComponent {
                path: origin.to_path_buf(),
                reason: format!(
                    "manifest id `{}` is not valid: use 1-64 of [a-z0-9-_]",
                    manifest.id
                ),
            });
        }
        let hash = blake3::hash(wasm).to_hex().to_string();
        let source = origin.to_path_buf();
        Ok((
            Loaded {
                pre,
                exports,
                hash,
                source,
                manifest,
            },
            outcome,
        ))
    }

    fn context(&self, id: &str, grants: Grants, log: Arc<PluginLog>) -> Arc<PluginContext> {
        let options = &self.inner.options;
        Arc::new(PluginContext {
            id: id.to_string(),
            grants,
            workspace: options.workspace.clone(),
            settings: options.settings.get(id).cloned().unwrap_or_default(),
            log,
            exec: options.exec.clone(),
            limits: options.limits,
        })
    }

    /// Registers the component in `path`. The same bytes again change
    /// nothing; new bytes for a known id replace it (see [`Self::replace`]).
    pub fn register_file(&self, path: &Path) -> Result<(String, Registration), LoadError> {
        let wasm = std::fs::read(path).map_err(|e| LoadError::Read {
            path: path.to_path_buf(),
            reason: e.to_string(),
        })?;
        self.register_bytes(&wasm, path)
    }

    /// Like [`Self::register_file`], for bytes already in memory.
    pub fn register_bytes(
        &self,
        wasm: &[u8],
        origin: &Path,
    ) -> Result<(String, Registration), LoadError> {
        let (loaded, _) = self.load(wasm, origin)?;
        let id = loaded.manifest.id.clone();
        let known_hash = self.plugins().get(&id).map(|e| e.loaded.hash.clone());
        match known_hash {
            Some(hash) if hash == loaded.hash => Ok((id, Registration::Unchanged)),
            Some(_) => {
                self.swap(&id, loaded)?;
                Ok((id, Registration::Replaced))
            }
            None => {
                let log = PluginLog::at(&self.inner.options.dirs.plugin_data(&id).join("log"));
                let entry = Entry {
                    loaded: Arc::new(loaded),
                    state: PluginState::Registered,
                    reason: None,
                    grants: Grants::none(),
                    pool: None,
                    log,
                };
                self.plugins().insert(id.clone(), entry);
                Ok((id, Registration::New))
            }
        }
    }

    /// Replaces plugin `id` with the component in `path`, in the running
    /// process. An active plugin is disabled, swapped and enabled again with
    /// the same grants; if the new one fails to enable, the old one is put
    /// back and enabled, and the error says why.
    pub fn replace(&self, id: &str, path: &Path) -> Result<(), LoadError> {
        let wasm = std::fs::read(path).map_err(|e| LoadError::Read {
            path: path.to_path_buf(),
            reason: e.to_string(),
        })?;
        let (loaded, _) = self.load(&wasm, path)?;
        if loaded.manifest.id != id {
            return Err(LoadError::Plugin {
                id: id.to_string(),
                reason: format!(
                    "{} is plugin `{}`, not `{id}`",
                    path.display(),
                    loaded.manifest.id
                ),
            });
        }
        self.swap(id, loaded)
    }

    fn swap(&self, id: &str, loaded: Loaded) -> Result<(), LoadError> {
        let (was_active, grants) = {
            let plugins = self.plugins();
            let entry = plugins
                .get(id)
                .ok_or_else(|| LoadError::Unknown(id.to_string()))?;
            (entry.state == PluginState::Active, entry.grants.clone())
        };
        if was_active {
            self.disable(id)?;
        }
        let old = {
            let mut plugins = self.plugins();
            let entry = plugins
                .get_mut(id)
                .ok_or_else(|| LoadError::Unknown(id.to_string()))?;
            let old = std::mem::replace(&mut entry.loaded, Arc::new(loaded));
            entry.state = PluginState::Registered;
            entry.reason = None;
            old
        };
        if !was_active {
            return Ok(());
        }
        match self.enable(id, grants.clone()) {
            Ok(_) => Ok(()),
            Err(new_error) => {
                if let Some(entry) = self.plugins().get_mut(id) {
                    entry.loaded = old;
                }
                self.enable(id, grants).map_err(|old_error| LoadError::Plugin {
                    id: id.to_string(),
                    reason: format!("the replacement failed ({new_error}) and the old version failed too ({old_error})"),
                })?;
                Err(LoadError::Plugin {
                    id: id.to_string(),
                    reason: format!("the replacement failed, the old version is back: {new_error}"),
                })
            }
        }
    }

    /// Enables plugin `id` with `grants`: initialize, capabilities, then one
    /// install per capability in declaration order. On any failure the
    /// plugin is Failed, nothing of it stays installed, and the error says
    /// why.
    pub fn enable(&self, id: &str, grants: Grants) -> Result<Vec<Contribution>, LoadError> {
        let _transition = self.transitions();
        let (loaded, log) = {
            let plugins = self.plugins();
            let entry = plugins
                .get(id)
                .ok_or_else(|| LoadError::Unknown(id.to_string()))?;
            if entry.state == PluginState::Active {
                return Ok(self.inner.ledger.contributions(&owner(id)));
            }
            (Arc::clone(&entry.loaded), Arc::clone(&entry.log))
        };
        let context = self.context(id, grants.clone(), log);
        let weak: Weak<Inner> = Arc::downgrade(&self.inner);
        let on_failing: FailureSink = Arc::new(move |id: &str, error: &CallError| {
            if let Some(inner) = weak.upgrade() {
                PluginRuntime { inner }
                    .fail(id, &format!("3 calls in a row failed; the last: {error}"));
            }
        });
        let indices = ExportIndices::resolve(&loaded.pre).map_err(|e| LoadError::Plugin {
            id: id.to_string(),
            reason: format!("{e:#}"),
        })?;
        let pool = Arc::new(InstancePool::new(
            loaded.pre.clone(),
            indices,
            context,
            on_failing,
        ));
        let outcome = self.activate(id, &loaded, &pool);
        let mut plugins = self.plugins();
        let entry = plugins
            .get_mut(id)
            .ok_or_else(|| LoadError::Unknown(id.to_string()))?;
        entry.grants = grants;
        match outcome {
            Ok(contributions) => {
                entry.state = PluginState::Active;
                entry.reason = None;
                entry.pool = Some(pool);
                Ok(contributions)
            }
            Err(reason) => {
                pool.deactivate();
                self.inner.ledger.unwind(&owner(id));
                entry.state = PluginState::Failed;
                entry.reason = Some(reason.clone());
                entry.pool = None;
                Err(LoadError::Plugin {
                    id: id.to_string(),
                    reason,
                })
            }
        }
    }

    /// initialize + capabilities + installs; the reason on failure.
    fn activate(
        &self,
        id: &str,
        loaded: &Loaded,
        pool: &Arc<InstancePool>,
    ) -> Result<Vec<Contribution>, String> {
        // The plugin is named by the caller; keep just the cause.
        let mut instance = pool.checkout().map_err(|e| match e {
            CallError::Instantiate { reason, .. } => reason,
            other => other.to_string(),
        })?;
        let capabilities = pool
            .call_on(&mut instance, "capabilities", |i| {
                let plugin = i.plugin.clone();
                plugin.call_capabilities(&mut i.store)
            })
            .map_err(|e| e.to_string())?;
        pool.checkin(instance);
        for capability in &capabilities {
            let (kind, name) = adapters::describe(capability);
            if !loaded.exports.exports(kind) {
                return Err(format!(
                    "declares {kind} capability `{name}` but does not export {}",
                    compat::interface_name(kind)
                ));
            }
        }
        let owner = owner(id);
        let mut installed = Vec::new();
        for capability in &capabilities {
            let service = adapters::service_for(pool, capability)?;
            let contribution = self
                .inner
                .ledger
                .install(&owner, service)
                .map_err(|e| e.to_string())?;
            installed.push(contribution);
        }
        Ok(installed)
    }

    /// Disables plugin `id`: shutdown(), then unwind its contributions in
    /// reverse install order. Returns them in the order removed.
    pub fn disable(&self, id: &str) -> Result<Vec<Contribution>, LoadError> {
        let _transition = self.transitions();
        let pool = {
            let plugins = self.plugins();
            let entry = plugins
                .get(id)
                .ok_or_else(|| LoadError::Unknown(id.to_string()))?;
            if entry.state != PluginState::Active {
                return Ok(Vec::new());
            }
            entry.pool.clone()
        };
        if let Some(pool) = &pool {
            // A plugin that fails in shutdown is still disabled.
            let shut = pool.call("shutdown", |i| {
                let plugin = i.plugin.clone();
                plugin.call_shutdown(&mut i.store)
            });
            if let Err(e) = shut {
                pool.context()
                    .log
                    .line("warn", &format!("shutdown failed: {e}"));
            }
            pool.deactivate();
        }
        let removed = self.inner.ledger.unwind(&owner(id));
        if let Some(entry) = self.plugins().get_mut(id) {
            entry.state = PluginState::Deactivated;
            entry.pool = None;
        }
        Ok(removed)
    }

    /// Marks plugin `id` Failed with `reason` and unwinds it.
    pub fn fail(&self, id: &str, reason: &str) {
        let _transition = self.transitions();
        let pool = match self.plugins().get_mut(id) {
            Some(entry) if entry.state == PluginState::Active => {
                entry.state = PluginState::Failed;
                entry.reason = Some(reason.to_string());
                entry.log.line("error", &format!("failed: {reason}"));
                entry.pool.take()
            }
            _ => return,
        };
        if let Some(pool) = pool {
            pool.deactivate();
        }
        self.inner.ledger.unwind(&owner(id));
    }

    /// Forgets plugin `id`, disabling it first.
    pub fn remove(&self, id: &str) -> Result<(), LoadError> {
        self.disable(id)?;
        let _transition = self.transitions();
        self.plugins()
            .remove(id)
            .map(|_| ())
            .ok_or_else(|| LoadError::Unknown(id.to_string()))
    }

    pub fn state(&self, id: &str) -> Option<PluginState> {
        self.plugins().get(id).map(|e| e.state)
    }

    pub fn status(&self, id: &str) -> Option<PluginStatus> {
        let plugins = self.plugins();
        let entry = plugins.get(id)?;
        let loaded = &entry.loaded;
        Some(PluginStatus {
            id: id.to_string(),
            state: entry.state,
            reason: entry.reason.clone(),
            manifest: loaded.manifest.clone(),
            exports: loaded
                .exports
                .capabilities
                .iter()
                .map(|k| k.to_string())
                .collect(),
            hash: loaded.hash.clone(),
            source: loaded.source.clone(),
            grants: entry.grants.clone(),
            contributions: self.inner.ledger.contributions(&owner(id)),
            log: entry.log.path().map(Path::to_path_buf),
        })
    }

    /// Every registered plugin, by id.
    pub fn list(&self) -> Vec<PluginStatus> {
        let ids: Vec<String> = self.plugins().keys().cloned().collect();
        ids.iter().filter_map(|id| self.status(id)).collect()
    }

    /// The instance pool of an active plugin: for benchmarks and
    /// diagnostics that need to reach below the ports.
    pub fn pool(&self, id: &str) -> Option<Arc<InstancePool>> {
        self.plugins().get(id).and_then(|e| e.pool.clone())
    }

    /// The recent lines of a plugin's log.
    pub fn recent_log(&self, id: &str, n: usize) -> Option<Vec<String>> {
        self.plugins().get(id).map(|e| e.log.recent(n))
    }
}

fn owner(id: &str) -> Owner {
    Owner::Plugin(id.to_string())
}

#[cfg(test)]
mod tests {
    use super::valid_id;

    #[test]
    fn ids_are_short_lowercase_words() {
        assert!(valid_id("tools-fs"));
        assert!(valid_id("parser_rust2"));
        assert!(!valid_id(""));
        assert!(!valid_id("Bad"));
        assert!(!valid_id("../x"));
        assert!(!valid_id(&"a".repeat(65)));
    }
}
