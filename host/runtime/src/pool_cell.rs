//! An instance pool made on first use. A plugin whose declarations are
//! cached is installed without compiling; the first call through any of its
//! contributions compiles (or loads from the AOT cache) and instantiates it.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

use crate::error::CallError;
use crate::instance::{Instance, InstancePool, PluginContext};

pub type PoolMaker = Box<dyn Fn() -> Result<Arc<InstancePool>, CallError> + Send + Sync>;

pub struct PoolCell {
    id: String,
    context: Arc<PluginContext>,
    pool: OnceLock<Arc<InstancePool>>,
    make: Mutex<Option<PoolMaker>>,
    closed: AtomicBool,
}

impl PoolCell {
    /// A cell holding a pool that already exists.
    pub fn ready(pool: Arc<InstancePool>) -> Arc<Self> {
        let cell = PoolCell {
            id: pool.id().to_string(),
            context: Arc::clone(pool.context()),
            pool: OnceLock::new(),
            make: Mutex::new(None),
            closed: AtomicBool::new(false),
        };
        let _ = cell.pool.set(pool);
        Arc::new(cell)
    }

    /// A cell that makes its pool on the first [`PoolCell::get`].
    pub fn lazy(context: Arc<PluginContext>, make: PoolMaker) -> Arc<Self> {
        Arc::new(PoolCell {
            id: context.id.clone(),
            context,
            pool: OnceLock::new(),
            make: Mutex::new(Some(make)),
            closed: AtomicBool::new(false),
        })
    }

    fn not_active(&self) -> CallError {
        CallError::NotActive {
            plugin: self.id.clone(),
            state: "not active".into(),
        }
    }

    /// The pool, made now if this is the first use.
    pub fn get(&self) -> Result<&Arc<InstancePool>, CallError> {
        if self.closed.load(Ordering::SeqCst) {
            return Err(self.not_active());
        }
        if let Some(pool) = self.pool.get() {
            return Ok(pool);
        }
        let make = self.make.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(pool) = self.pool.get() {
            return Ok(pool);
        }
        let maker = make.as_ref().ok_or_else(|| self.not_active())?;
        let pool = maker()?;
        let _ = self.pool.set(pool);
        self.pool.get().ok_or_else(|| self.not_active())
    }

    /// The pool if it was ever made.
    pub fn materialized(&self) -> Option<&Arc<InstancePool>> {
        self.pool.get()
    }

    /// Stops serving: later calls answer "not active".
    pub fn close(&self) {
        self.closed.store(true, Ordering::SeqCst);
        if let Some(pool) = self.pool.get() {
            pool.deactivate();
        }
    }

    pub fn context(&self) -> &Arc<PluginContext> {
        &self.context
    }

    // The pool's calls, through the cell, so adapters need not care whether
    // the pool exists yet.

    pub fn call<R: Send>(
        &self,
        call: &str,
        f: impl FnOnce(&mut Instance) -> wasmtime::Result<R> + Send,
    ) -> Result<R, CallError> {
        self.get()?.call(call, f)
    }

    pub fn call_on<R: Send>(
        &self,
        instance: &mut Instance,
        call: &str,
        f: impl FnOnce(&mut Instance) -> wasmtime::Result<R> + Send,
    ) -> Result<R, CallError> {
        self.get()?.call_on(instance, call, f)
    }

    pub fn checkout(&self) -> Result<Instance, CallError> {
        self.get()?.checkout()
    }

    pub fn checkin(&self, instance: Instance) {
        if let Some(pool) = self.pool.get() {
            pool.checkin(instance);
        }
    }

    pub fn check_output(&self, call: &str, size: usize) -> Result<(), CallError> {
        self.get()?.check_output(call, size)
    }
}
