//! The one wasmtime Engine of the process, and the limits every call runs
//! under.
//!
//! One Engine means one pooling allocator and one epoch ticker for all
//! plugins. Epoch interruption is what enforces deadlines: a ticker thread
//! bumps the epoch every [`EPOCH_TICK`], and each Store's deadline callback
//! decides whether the guest has used up its time (see [`crate::limits`]).

use std::sync::OnceLock;
use std::time::Duration;

use wasmtime::{Config, Engine, InstanceAllocationStrategy, OptLevel, PoolingAllocationConfig};

use crate::error::LoadError;

/// How often the epoch advances; deadlines are precise to about this.
pub const EPOCH_TICK: Duration = Duration::from_millis(5);

/// Component instances alive at once, across all plugins: the pooling
/// allocator's capacity (an instantiation past it fails, naming the
/// limit).
pub const MAX_INSTANCES: u32 = 256;

/// Limits applied to every call into a plugin.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RuntimeLimits {
    /// Linear memory per instance.
    pub memory_bytes: usize,
    /// Guest execution time per call; time inside host imports is excluded.
    pub deadline: Duration,
    /// Largest string or list a plugin may return from one call.
    pub output_bytes: usize,
    /// Largest component file read from disk (`plugin add`, a reload).
    pub plugin_file_bytes: u64,
}

impl Default for RuntimeLimits {
    fn default() -> Self {
        RuntimeLimits {
            memory_bytes: 256 << 20,
            deadline: Duration::from_secs(10),
            output_bytes: 16 << 20,
            plugin_file_bytes: 256 << 20,
        }
    }
}

fn build_engine() -> Result<Engine, LoadError> {
    let mut pool = PoolingAllocationConfig::default();
    // Sized for what runs. A plugin keeps at most four idle instances and
    // makes extra ones only for calls that overlap; a component instance
    // has one or two memories and a few core instances. 256 instances is
    // far beyond a session's dozen plugins. Each slot is reserved address
    // space until used, but setting slots up is work at every start,
    // before the first request: the default 1,000 fiber stacks, each with
    // a guard page protected by its own mprotect, were about 13% of a
    // headless run's CPU time (docs/performance.md). A stack serves one
    // call in flight at a time.
    pool.total_stacks(MAX_INSTANCES);
    pool.total_component_instances(MAX_INSTANCES);
    pool.total_core_instances(MAX_INSTANCES * 4);
    pool.total_memories(MAX_INSTANCES * 2);
    pool.total_tables(MAX_INSTANCES * 4);

    let mut config = Config::new();
    config
        .wasm_component_model(true)
        .epoch_interruption(true)
        // Our build has no `gc` feature, yet the GC proposal's subtypes
        // validate by default, and compiled code that checks a non-final
        // subtype (`call_indirect`, `ref.test`) calls a runtime function
        // that aborts the process in such builds (GHSA-rc4p-x33f-vpr2,
        // fixed in 50.0.2, which this registry lacks). No plugin needs GC
        // types, so a component that has them is refused at compile time
        // instead of being able to abort amber (docs/runtime.md).
        .wasm_gc(false)
        .cranelift_opt_level(OptLevel::Speed)
        .parallel_compilation(true)
        .memory_init_cow(true)
        .allocation_strategy(InstanceAllocationStrategy::Pooling(pool));
    // `AMBER_PERFMAP=1` writes /tmp/perf-<pid>.map so `perf report` can
    // name the functions of components (for profiling plugins).
    if std::env::var_os("AMBER_PERFMAP").is_some_and(|v| !v.is_empty()) {
        config.profiler(wasmtime::ProfilingStrategy::PerfMap);
    }
    Engine::new(&config).map_err(|e| LoadError::Engine(format!("{e:#}")))
}

/// The process-wide engine, created on first use with its epoch ticker.
pub fn shared_engine() -> Result<&'static Engine, LoadError> {
    static ENGINE: OnceLock<Result<Engine, LoadError>> = OnceLock::new();
    let engine = ENGINE.get_or_init(|| {
        let engine = build_engine()?;
        let ticking = engine.weak();
        std::thread::Builder::new()
            .name("amber-epoch".into())
            .spawn(move || {
                while let Some(engine) = ticking.upgrade() {
                    engine.increment_epoch();
                    drop(engine);
                    std::thread::sleep(EPOCH_TICK);
                }
            })
            .map_err(|e| LoadError::Engine(format!("cannot start the epoch ticker: {e}")))?;
        Ok(engine)
    });
    engine.as_ref().map_err(Clone::clone)
}

/// The number of epoch ticks covering `d`, at least one.
pub fn ticks(d: Duration) -> u64 {
    (d.as_nanos() / EPOCH_TICK.as_nanos()).max(1) as u64
}
