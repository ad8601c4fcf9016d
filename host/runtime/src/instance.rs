//! Instances of one plugin: the per-Store host state, and a small pool of
//! Stores that each serve one call at a time.
//!
//! A call that traps, runs past its deadline or hits the memory cap drops
//! its Store (a trapped Store cannot be entered again) and the next call
//! instantiates afresh from the `InstancePre`. Three such failures in a row
//! report the plugin as failing, and the lifecycle marks it Failed.

use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::sync::{Arc, Mutex};

use wasmtime::component::{InstancePre, ResourceTable};
use wasmtime::{Store, Trap};

use crate::api::exports::{ExportLoader, Exports};
use crate::api::ApiVersion;
use crate::bindings::types;
use crate::error::CallError;
use crate::limits::{DeadlineExceeded, GuestClock, GuestLimiter};
pub use crate::host_state::HostState;
pub use crate::plugin_context::{ArgumentTap, PluginContext};
use crate::sandbox::{self, WORKSPACE_MOUNT};

/// Failures in a row after which a plugin is marked Failed.
pub const TRAPS_BEFORE_FAILED: u32 = 3;
/// Idle instances kept per plugin; more concurrent calls instantiate extra
/// ones that are dropped afterwards.
const MAX_IDLE: usize = 4;

/// What `initialize` tells a plugin about its host and grants. The API
/// version is the one the host speaks to this plugin: its own, through an
/// adapter when older.
fn init_context(plugin: &PluginContext, api: ApiVersion) -> types::InitContext {
    types::InitContext {
        host_version: env!("CARGO_PKG_VERSION").to_string(),
        api_version: api.to_string(),
        workspace: plugin
            .grants
            .can_read_workspace()
            .then(|| WORKSPACE_MOUNT.to_string()),
        granted: plugin.grants.iter().map(Into::into).collect(),
        http_hosts: plugin.http_hosts.clone(),
    }
}

/// Export handles, resolved once per plugin from its `InstancePre`, for
/// the version of the contract it was built for (`crate::api`).
pub struct ExportIndices {
    /// The version the component speaks.
    pub api: ApiVersion,
    loader: Box<dyn ExportLoader>,
}

impl ExportIndices {
    /// For a component of `api` (read when it was registered, by
    /// `compat::read_exports`): absent interfaces are `None`; only
    /// `plugin` is required.
    pub fn resolve(pre: &InstancePre<HostState>, api: ApiVersion) -> wasmtime::Result<Self> {
        Ok(ExportIndices {
            api,
            loader: crate::api::loader(pre, api)?,
        })
    }
}

/// One live instance: a Store and the exports loaded from it, in the
/// latest version's types whichever version the component speaks.
pub struct Instance {
    pub store: Store<HostState>,
    pub exports: Exports,
}

/// Called once when a plugin has failed [`TRAPS_BEFORE_FAILED`] calls in a
/// row, with the last error.
pub type FailureSink = Arc<dyn Fn(&str, &CallError) + Send + Sync>;

/// The Stores of one plugin.
pub struct InstancePool {
    pre: InstancePre<HostState>,
    indices: ExportIndices,
    context: Arc<PluginContext>,
    idle: Mutex<Vec<Instance>>,
    active: AtomicBool,
    failures_in_a_row: AtomicU32,
    on_failing: FailureSink,
}

impl InstancePool {
    pub fn new(
        pre: InstancePre<HostState>,
        indices: ExportIndices,
        context: Arc<PluginContext>,
        on_failing: FailureSink,
    ) -> Self {
        InstancePool {
            pre,
            indices,
            context,
            idle: Mutex::new(Vec::new()),
            active: AtomicBool::new(true),
            failures_in_a_row: AtomicU32::new(0),
            on_failing,
        }
    }

    pub fn id(&self) -> &str {
        &self.context.id
    }

    pub fn context(&self) -> &Arc<PluginContext> {
        &self.context
    }

    pub fn indices(&self) -> &ExportIndices {
        &self.indices
    }

    /// Stops serving calls and drops the idle instances.
    pub fn deactivate(&self) {
        self.active.store(false, Ordering::SeqCst);
        self.idle.lock().unwrap_or_else(|e| e.into_inner()).clear();
    }

    fn new_store(&self) -> Result<Store<HostState>, CallError> {
        let context = Arc::clone(&self.context);
        let state = HostState {
            wasi: sandbox::wasi_ctx(&context)?,
            table: ResourceTable::new(),
            limiter: GuestLimiter::new(context.limits.memory_bytes),
            clock: GuestClock::new(context.limits.deadline),
            http_ctx: wasmtime_wasi_http::WasiHttpCtx::new(),
            http_hooks: crate::imports::http::HttpHooks(context.http.clone()),
            plugin: context,
            workspace_dir: None,
            open_walks: 0,
        };
        let mut store = Store::new(self.pre.engine(), state);
        store.limiter(|state| &mut state.limiter);
        store.epoch_deadline_callback(|ctx| ctx.data().clock.on_epoch_deadline());
        Ok(store)
    }

    /// Creates a Store and instantiates the component, nothing more: the
    /// floor under [`InstancePool::instantiate`], for the benchmarks.
    pub fn instantiate_bare(&self) -> Result<(), CallError> {
        let mut store = self.new_store()?;
        self.pre
            .instantiate(&mut store)
            .map(drop)
            .map_err(|e| CallError::Instantiate {
                plugin: self.context.id.clone(),
                reason: format!("{e:#}"),
            })
    }

    /// A new instance with its exports loaded, not yet initialised: what
    /// reading the manifest needs, since `manifest` comes before anything.
    pub fn instantiate_uninitialized(&self) -> Result<Instance, CallError> {
        off_the_async_runtime(|| self.instantiate_uninitialized_here())
    }

    fn instantiate_uninitialized_here(&self) -> Result<Instance, CallError> {
        let mut store = self.new_store()?;
        let ticks = store.data_mut().clock.start_call();
        store.set_epoch_deadline(ticks);
        let loaded = (|| -> wasmtime::Result<Instance> {
            let instance = self.pre.instantiate(&mut store)?;
            let exports = self.indices.loader.load(&mut store, &instance)?;
            Ok(Instance { store, exports })
        })();
        loaded.map_err(|e| CallError::Instantiate {
            plugin: self.context.id.clone(),
            reason: format!("{e:#}"),
        })
    }

    /// A new instance, initialised. `initialize` runs under the same limits
    /// as any call. This is what replacing a trapped Store costs.
    pub fn instantiate(&self) -> Result<Instance, CallError> {
        off_the_async_runtime(|| self.instantiate_here())
    }

    fn instantiate_here(&self) -> Result<Instance, CallError> {
        let mut instance = self.instantiate_uninitialized_here()?;
        let ticks = instance.store.data_mut().clock.start_call();
        instance.store.set_epoch_deadline(ticks);
        let ctx = init_context(&self.context, self.indices.api);
        let mark = self.context.log.mark();
        match instance.exports.plugin.initialize(&mut instance.store, &ctx) {
            Ok(Ok(())) => Ok(instance),
            Ok(Err(reason)) => Err(CallError::Instantiate {
                plugin: self.context.id.clone(),
                reason: format!("initialize failed: {reason}"),
            }),
            Err(e) => Err(self.classify(&mut instance.store, "initialize", e, mark)),
        }
    }

    /// Takes an instance out of the pool (or makes one). The caller owns it
    /// until [`InstancePool::checkin`]; a provider stream holds one this way
    /// for its whole duration.
    pub fn checkout(&self) -> Result<Instance, CallError> {
        if !self.active.load(Ordering::SeqCst) {
            return Err(CallError::NotActive {
                plugin: self.context.id.clone(),
                state: "not active".into(),
            });
        }
        let idle = self.idle.lock().unwrap_or_else(|e| e.into_inner()).pop();
        match idle {
            Some(instance) => Ok(instance),
            None => self.instantiate(),
        }
    }

    /// Returns a healthy instance to the pool.
    pub fn checkin(&self, instance: Instance) {
        if !self.active.load(Ordering::SeqCst) {
            return;
        }
        let mut idle = self.idle.lock().unwrap_or_else(|e| e.into_inner());
        if idle.len() < MAX_IDLE {
            idle.push(instance);
        }
    }

    /// Runs one call on an instance under the limits. On success the
    /// instance goes back to the pool; on a trap, deadline or memory error
    /// it is dropped.
    pub fn call<R: Send>(
        &self,
        call: &str,
        f: impl FnOnce(&mut Instance) -> wasmtime::Result<R> + Send,
    ) -> Result<R, CallError> {
        let mut instance = self.checkout()?;
        match self.call_on(&mut instance, call, f) {
            Ok(value) => {
                self.checkin(instance);
                Ok(value)
            }
            Err(e) => Err(e),
        }
    }

    /// Runs one call on an instance the caller holds. After an error the
    /// instance must not be used again.
    pub fn call_on<R: Send>(
        &self,
        instance: &mut Instance,
        call: &str,
        f: impl FnOnce(&mut Instance) -> wasmtime::Result<R> + Send,
    ) -> Result<R, CallError> {
        let ticks = instance.store.data_mut().clock.start_call();
        instance.store.set_epoch_deadline(ticks);
        instance.store.data_mut().limiter.exceeded = false;
        let mark = self.context.log.mark();
        match off_the_async_runtime(|| f(instance)) {
            Ok(value) => {
                self.failures_in_a_row.store(0, Ordering::SeqCst);
                Ok(value)
            }
            Err(e) => {
                let error = self.classify(&mut instance.store, call, e, mark);
                self.record_failure(&error);
                Err(error)
            }
        }
    }

    fn record_failure(&self, error: &CallError) {
        let n = self.failures_in_a_row.fetch_add(1, Ordering::SeqCst) + 1;
        if n == TRAPS_BEFORE_FAILED {
            (self.on_failing)(&self.context.id, error);
        }
    }

    /// Turns a wasmtime error into a CallError naming the plugin and cause.
    fn classify(
        &self,
        store: &mut Store<HostState>,
        call: &str,
        e: wasmtime::Error,
        mark: u64,
    ) -> CallError {
        let plugin = self.context.id.clone();
        let call = call.to_string();
        let limits = self.context.limits;
        if e.downcast_ref::<DeadlineExceeded>().is_some() {
            return CallError::Deadline {
                plugin,
                call,
                limit_ms: limits.deadline.as_millis(),
            };
        }
        if store.data().limiter.exceeded {
            return CallError::Memory {
                plugin,
                call,
                limit_mib: limits.memory_bytes >> 20,
            };
        }
        let mut reason = match e.downcast_ref::<Trap>() {
            // Rust guests keep their stack in linear memory below address
            // 0x100000, so overflowing it reads out of bounds.
            Some(Trap::MemoryOutOfBounds) => {
                format!(
                    "{}: the plugin overflowed its stack or used a bad pointer",
                    Trap::MemoryOutOfBounds
                )
            }
            Some(trap) => trap.to_string(),
            None => format!("{e}"),
        };
        // A Rust panic prints two lines (where, then the message) and a
        // note about RUST_BACKTRACE; quote the two that matter.
        let said = self.context.log.since(mark);
        let meaningful: Vec<&str> = said
            .iter()
            .map(|l| l.strip_prefix("[stderr] ").unwrap_or(l).trim())
            .filter(|l| !l.is_empty() && !l.starts_with("note: run with `RUST_BACKTRACE"))
            .collect();
        if !meaningful.is_empty() {
            let last = &meaningful[meaningful.len().saturating_sub(2)..];
            reason.push_str(&format!("; its last words: {}", last.join(" ")));
        }
        CallError::Trap {
            plugin,
            call,
            reason,
        }
    }

    /// Refuses a result larger than the output cap.
    pub fn check_output(&self, call: &str, size: usize) -> Result<(), CallError> {
        let cap = self.context.limits.output_bytes;
        if size > cap {
            return Err(CallError::OutputTooLarge {
                plugin: self.context.id.clone(),
                call: call.to_string(),
                size,
                cap,
            });
        }
        Ok(())
    }
}

/// Runs a synchronous guest call where it may block: never on a worker
/// thread of an async runtime. wasmtime-wasi's synchronous shims (a
/// guest's blocking write or flush of stderr, a poll) run their future
/// with `Handle::block_on` on the current tokio runtime, which panics on a
/// worker thread ("Cannot start a runtime from within a runtime"): a guest
/// that printed while the wire decoded a stream on the runtime took the
/// host down. On a multi-thread runtime the call leaves the worker with
/// `block_in_place` (cheap, no thread hop); on a current-thread runtime it
/// runs on a scoped thread of its own; outside any runtime it runs here.
fn off_the_async_runtime<R: Send>(f: impl FnOnce() -> R + Send) -> R {
    use tokio::runtime::{Handle, RuntimeFlavor};
    match Handle::try_current().map(|h| h.runtime_flavor()) {
        Err(_) => f(),
        Ok(RuntimeFlavor::MultiThread) => tokio::task::block_in_place(f),
        // The call's scope (whose call, under which policy) goes along:
        // the `exec` import asks the policy it names.
        Ok(_) => {
            let call = amber_core::policy::scope::current();
            std::thread::scope(|scope| {
                match scope
                    .spawn(move || amber_core::policy::scope::within(call, f))
                    .join()
                {
                    Ok(value) => value,
                    Err(panic) => std::panic::resume_unwind(panic),
                }
            })
        }
    }
}
