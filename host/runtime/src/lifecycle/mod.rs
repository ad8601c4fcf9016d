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
//! A plugin whose declarations are cached (same bytes, same grants and
//! settings) is enabled without compiling: its contributions are installed
//! from the cache, and it compiles and initialises on its first call.
//! All of it works in a running process; nothing needs a restart.

mod activate;
mod loaded;
pub(crate) mod status;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

use amber_core::{Contribution, Ledger, Owner};
use wasmtime::component::Linker;
use wasmtime::Engine;

use crate::cache::{CompileProgress, ComponentCache};
use crate::declarations::DeclarationCache;
use crate::engine::{shared_engine, RuntimeLimits};
use crate::error::LoadError;
use crate::grants::Grants;
use crate::imports::{self, exec::ExecPolicy};
use crate::instance::{HostState, InstancePool, PluginContext};
use crate::log::PluginLog;
use crate::pool_cell::PoolCell;
use amber_state::AmberDirs;
use amber_state::FileHashes;
pub use loaded::{read_component, ComponentFile};
use loaded::{Loaded, Loader};
pub use status::{PermissionRequest, PluginManifest, PluginState, PluginStatus, Registration};

/// A component loaded and checked (compiled, its manifest read), not
/// registered: see [`PluginRuntime::prepare`].
pub struct Prepared(Loaded);

impl Prepared {
    /// The plugin id its manifest declares.
    pub fn id(&self) -> &str {
        &self.0.manifest().id
    }
}

struct Entry {
    loaded: Arc<Loaded>,
    state: PluginState,
    reason: Option<String>,
    grants: Grants,
    pool: Option<Arc<PoolCell>>,
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
    /// Plugin id → what config says of its `http` grant.
    pub http: BTreeMap<String, crate::imports::http::HttpGrantConfig>,
    /// What bounds every plugin's `http` requests.
    pub http_limits: crate::imports::http::HttpLimits,
    /// `amber plugin test`: requests answered from recorded responses.
    pub http_fixtures: Option<Arc<crate::imports::http::fixtures::HttpFixtures>>,
    /// Sees every argument passed into a component (see `PluginContext`).
    pub tap: Option<crate::instance::ArgumentTap>,
    /// Classifies and approves each command before `exec` runs it. Without
    /// one, the `exec` grant alone decides and the command runs in the
    /// sandbox's write-mode default (the runtime's own tests); the CLI
    /// always installs the policy.
    pub gate: Option<Arc<dyn amber_core::ports::CommandGate>>,
    /// Read-only caches laid out as `dirs.cache` is (`compiled/`,
    /// `declarations/`), read first: the precompiled cache an install puts
    /// beside the bundled plugins.
    pub prebuilt_caches: Vec<PathBuf>,
    /// Told of every compile, so a front end can show progress.
    pub compile_progress: Option<Arc<dyn CompileProgress>>,
}

impl RuntimeOptions {
    pub fn new(dirs: AmberDirs, workspace: PathBuf) -> Self {
        // No command sees amber's own state: sessions, grants, logs.
        let exec = ExecPolicy {
            hidden: vec![dirs.config.clone(), dirs.data.clone(), dirs.cache.clone()],
            ..ExecPolicy::default()
        };
        RuntimeOptions {
            dirs,
            workspace,
            limits: RuntimeLimits::default(),
            exec,
            settings: BTreeMap::new(),
            http: BTreeMap::new(),
            http_limits: Default::default(),
            http_fixtures: None,
            tap: None,
            gate: None,
            prebuilt_caches: Vec::new(),
            compile_progress: None,
        }
    }
}

struct Inner {
    engine: &'static Engine,
    linker: Linker<HostState>,
    cache: ComponentCache,
    declarations: DeclarationCache,
    file_hashes: FileHashes,
    ledger: Arc<Ledger>,
    options: RuntimeOptions,
    plugins: Mutex<BTreeMap<String, Entry>>,
    /// Serialises enable, disable and fail, so a plugin never runs two
    /// transitions at once.
    transitions: Mutex<()>,
    /// Components compiled or loaded from the AOT cache so far.
    components_loaded: AtomicUsize,
}

impl Inner {
    /// What every instance of plugin `id` shares, under these options.
    fn context(&self, id: &str, grants: Grants, log: Arc<PluginLog>) -> Arc<PluginContext> {
        let options = &self.options;
        Arc::new(PluginContext {
            id: id.to_string(),
            http_hosts: Vec::new(),
            http: Arc::new(crate::imports::http::PluginHttp::none(id)),
            grants,
            workspace: options.workspace.clone(),
            settings: options.settings.get(id).cloned().unwrap_or_default(),
            log,
            exec: options.exec.clone(),
            limits: options.limits,
            tap: options.tap.clone(),
            gate: options.gate.clone(),
        })
    }
}

/// What loading a component needs of the runtime (`loaded.rs`).
impl Loader for Inner {
    fn engine(&self) -> &'static Engine {
        self.engine
    }

    fn linker(&self) -> &Linker<HostState> {
        &self.linker
    }

    fn cache(&self) -> &ComponentCache {
        &self.cache
    }

    fn declarations(&self) -> &DeclarationCache {
        &self.declarations
    }

    fn plugin_file_bytes(&self) -> u64 {
        self.options.limits.plugin_file_bytes
    }

    fn count_loaded(&self) {
        self.components_loaded.fetch_add(1, Ordering::Relaxed);
    }

    fn context(&self, id: &str, grants: Grants, log: Arc<PluginLog>) -> Arc<PluginContext> {
        Inner::context(self, id, grants, log)
    }
}

/// Loads, enables and disables plugins, installing their capabilities
/// into a shared [`Ledger`].
#[derive(Clone)]
pub struct PluginRuntime {
    inner: Arc<Inner>,
}

fn owner(id: &str) -> Owner {
    Owner::Plugin(id.to_string())
}

impl PluginRuntime {
    pub fn new(options: RuntimeOptions, ledger: Arc<Ledger>) -> Result<Self, LoadError> {
        let engine = shared_engine()?;
        let linker = imports::linker(engine)
            .map_err(|e| LoadError::Engine(format!("cannot link imports: {e:#}")))?;
        let prebuilt = &options.prebuilt_caches;
        let cache = ComponentCache::new(&options.dirs.compiled(), engine)
            .with_read_only(prebuilt.iter().map(|c| c.join("compiled")).collect())
            .with_progress(options.compile_progress.clone());
        // Per API version: what a component declares is read through the
        // host's WIT, so another host version must ask afresh.
        let declarations_in = |cache: &Path| cache.join("declarations").join(crate::API_VERSION);
        let declarations = DeclarationCache::new(declarations_in(&options.dirs.cache))
            .with_read_only(prebuilt.iter().map(|c| declarations_in(c)).collect());
        let file_hashes = FileHashes::at(options.dirs.cache.join("file-hashes.json"));
        let inner = Inner {
            engine,
            linker,
            cache,
            declarations,
            file_hashes,
            ledger,
            options,
            plugins: Mutex::new(BTreeMap::new()),
            transitions: Mutex::new(()),
            components_loaded: AtomicUsize::new(0),
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

    /// How many components this runtime has compiled or loaded from the AOT
    /// cache: plugins served from cached declarations add nothing here
    /// until their first call.
    pub fn components_loaded(&self) -> usize {
        self.inner.components_loaded.load(Ordering::Relaxed)
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

    fn context(&self, id: &str, grants: Grants, log: Arc<PluginLog>) -> Arc<PluginContext> {
        self.inner.context(id, grants, log)
    }

    /// Registers the component in `path`. The same bytes again change
    /// nothing; new bytes for a known id replace it (see [`Self::replace`]).
    pub fn register_file(&self, path: &Path) -> Result<(String, Registration), LoadError> {
        self.register(self.open_component(path)?)
    }

    /// The component in `path`, by its content hash: remembered for a file
    /// unchanged since it was last hashed (see `file_hashes`), else read
    /// (within the size cap) and hashed. Lets a start register every
    /// plugin without reading any.
    pub fn open_component(&self, path: &Path) -> Result<ComponentFile, LoadError> {
        let cap = self.inner.options.limits.plugin_file_bytes;
        let memo = &self.inner.file_hashes;
        // Taken once, before any read: a write during the read moves the
        // ctime, so what is remembered never outlives the bytes hashed.
        let meta = std::fs::metadata(path).ok();
        if let Some(meta) = meta.as_ref().filter(|m| m.is_file() && m.len() <= cap) {
            if let Some(hash) = memo.lookup(path, meta) {
                return Ok(ComponentFile::remembered(path, hash, meta.len()));
            }
        }
        let file = ComponentFile::read(path, read_component(path, cap)?);
        if let Some(meta) = meta {
            memo.remember(path, &meta, &file.hash);
        }
        Ok(file)
    }

    /// Whether registering `file` compiles it: nothing in any cache knows
    /// its content. Lets a front end say "compiling N components" first.
    pub fn compiles_on_register(&self, file: &ComponentFile) -> bool {
        self.inner.declarations.declared(&file.hash).is_none() && !self.inner.cache.has(&file.hash)
    }

    /// Tells the compile observer, if any, that `n` compiles of `bytes`
    /// of wasm in all are coming.
    pub fn expect_compiles(&self, n: usize, bytes: u64) {
        if let (Some(progress), true) = (self.inner.cache.progress(), n > 0) {
            progress.expect(n, bytes);
        }
    }

    /// Compiles plugin `id` now (or loads it from a cache), so its compiled
    /// code is in the cache: `amber plugin precompile`.
    pub fn compile_now(&self, id: &str) -> Result<(), LoadError> {
        let loaded = self
            .plugins()
            .get(id)
            .map(|e| Arc::clone(&e.loaded))
            .ok_or_else(|| LoadError::Unknown(id.to_string()))?;
        loaded.pre(&*self.inner).map(|_| ())
    }

    /// Whether plugin `id`'s compiled code is in a cache layer.
    pub fn is_in_cache(&self, id: &str) -> bool {
        self.plugins()
            .get(id)
            .is_some_and(|e| self.inner.cache.has(&e.loaded.hash))
    }

    /// A component file, read within this runtime's size cap.
    pub fn read_file(&self, path: &Path) -> Result<Vec<u8>, LoadError> {
        read_component(path, self.inner.options.limits.plugin_file_bytes)
    }

    /// Like [`Self::register_file`], for bytes already in memory.
    pub fn register_bytes(
        &self,
        wasm: &[u8],
        origin: &Path,
    ) -> Result<(String, Registration), LoadError> {
        self.register(ComponentFile::in_memory(wasm.to_vec(), origin))
    }

    /// Loads and checks a component without registering it: what live
    /// reload holds while it decides, so the new version is compiled (and
    /// its manifest read) once, before the old one is touched.
    pub fn prepare(&self, file: ComponentFile) -> Result<Prepared, LoadError> {
        Loaded::load(&*self.inner, file).map(Prepared)
    }

    /// Registers a component opened by [`Self::open_component`].
    pub fn register(&self, file: ComponentFile) -> Result<(String, Registration), LoadError> {
        self.register_prepared(self.prepare(file)?)
    }

    /// Registers a component [`Self::prepare`]d.
    pub fn register_prepared(
        &self,
        prepared: Prepared,
    ) -> Result<(String, Registration), LoadError> {
        let loaded = prepared.0;
        let id = loaded.manifest().id.clone();
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
        self.replace_with(id, self.open_component(path)?)
    }

    /// Like [`Self::replace`], for a component already opened.
    pub fn replace_with(&self, id: &str, file: ComponentFile) -> Result<(), LoadError> {
        self.replace_prepared(id, self.prepare(file)?)
    }

    /// Like [`Self::replace`], for a component [`Self::prepare`]d.
    pub fn replace_prepared(&self, id: &str, prepared: Prepared) -> Result<(), LoadError> {
        let loaded = prepared.0;
        if loaded.manifest().id != id {
            let reason = format!(
                "{} is plugin `{}`, not `{id}`",
                loaded.source.display(),
                loaded.manifest().id
            );
            return Err(LoadError::Plugin {
                id: id.to_string(),
                reason,
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

    /// Disables plugin `id`: shutdown(), then unwind its contributions in
    /// reverse install order. Returns them in the order removed.
    pub fn disable(&self, id: &str) -> Result<Vec<Contribution>, LoadError> {
        let _transition = self.transitions();
        let cell = {
            let plugins = self.plugins();
            let entry = plugins
                .get(id)
                .ok_or_else(|| LoadError::Unknown(id.to_string()))?;
            if entry.state != PluginState::Active {
                return Ok(Vec::new());
            }
            entry.pool.clone()
        };
        if let Some(cell) = &cell {
            // Only a plugin that ever started has anything to shut down. A
            // plugin that fails in shutdown is still disabled.
            if let Some(pool) = cell.materialized() {
                let shut = pool.call("shutdown", |i| i.exports.plugin.shutdown(&mut i.store));
                if let Err(e) = shut {
                    pool.context()
                        .log
                        .line("warn", &format!("shutdown failed: {e}"));
                }
            }
            cell.close();
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
        let cell = match self.plugins().get_mut(id) {
            Some(entry) if entry.state == PluginState::Active => {
                entry.state = PluginState::Failed;
                entry.reason = Some(reason.to_string());
                entry.log.line("error", &format!("failed: {reason}"));
                entry.pool.take()
            }
            _ => return,
        };
        if let Some(cell) = cell {
            cell.close();
        }
        self.inner.ledger.unwind(&owner(id));
    }

    /// Keeps plugin `id` Deactivated, saying why (`reason`): a new version
    /// that asks for permissions the user has not decided on waits so.
    /// An active plugin is disabled first.
    pub fn hold(&self, id: &str, reason: &str) -> Result<(), LoadError> {
        self.disable(id)?;
        let _transition = self.transitions();
        let mut plugins = self.plugins();
        let entry = plugins
            .get_mut(id)
            .ok_or_else(|| LoadError::Unknown(id.to_string()))?;
        entry.state = PluginState::Deactivated;
        entry.reason = Some(reason.to_string());
        Ok(())
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
            manifest: loaded.manifest().clone(),
            api: loaded.declared.exports.api,
            adapter: loaded.declared.exports.api.route() == Some(crate::api::Route::Adapter),
            exports: loaded
                .declared
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

    /// The instance pool of an active plugin, made now if it was not yet:
    /// for benchmarks and diagnostics that need to reach below the ports.
    pub fn pool(&self, id: &str) -> Option<Arc<InstancePool>> {
        let cell = self.plugins().get(id).and_then(|e| e.pool.clone())?;
        cell.get().ok().cloned()
    }

    /// Whether plugin `id` has been compiled or loaded in this process.
    pub fn is_loaded(&self, id: &str) -> bool {
        self.plugins()
            .get(id)
            .is_some_and(|e| e.loaded.is_compiled())
    }

    /// The plugins whose component has been compiled or loaded in this
    /// process, by id: what a run actually paid to load (a plugin served
    /// from its cached declarations is not among them until its first
    /// call).
    pub fn loaded_plugins(&self) -> Vec<String> {
        self.plugins()
            .iter()
            .filter(|(_, e)| e.loaded.is_compiled())
            .map(|(id, _)| id.clone())
            .collect()
    }

    /// The recent lines of a plugin's log.
    pub fn recent_log(&self, id: &str, n: usize) -> Option<Vec<String>> {
        self.plugins().get(id).map(|e| e.log.recent(n))
    }
}
