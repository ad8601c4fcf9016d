//! Spine I: the runtime's own costs.
//! - a warm tool call through the ledger and the runtime vs a bare typed
//!   call of the same component on the same kind of Store;
//! - a fresh instance from the InstancePre vs the InstancePre's own
//!   instantiate on the same product Store and limiter, without export
//!   handles (`instantiate_pre_product_store`);
//! - enabling 10 plugins from the AOT cache vs their first compile;
//! - enabling them again from their cached declarations, which loads no
//!   code at all: no baseline does that work, so the row has none;
//! - a warm tool call of a plugin built for an older API version, through
//!   its adapter, vs the same plugin built for the latest
//!   (`fixtures/wit-compat/`): what keeping old plugins costs them.

use std::sync::Arc;
use std::time::Instant;

use amber_core::Ledger;
use amber_runtime::{AmberDirs, Grants, PluginRuntime, RuntimeOptions};
use anyhow::{Context, Result};
use serde_json::json;

use crate::measure::{guest, median, per_call_us, Figure, Rows};

fn runtime_in(home: &std::path::Path, cache: &std::path::Path) -> Result<PluginRuntime> {
    let mut dirs = AmberDirs::under(home);
    dirs.cache = cache.to_path_buf();
    let options = RuntimeOptions::new(dirs, home.to_path_buf());
    Ok(PluginRuntime::new(options, Arc::new(Ledger::new()))?)
}

pub fn run(rows: &mut Rows) -> Result<()> {
    let scratch = tempfile::tempdir()?;
    let cache = scratch.path().join("cache");
    let runtime = runtime_in(scratch.path(), &cache)?;
    let (id, _) = runtime.register_file(&guest("echo-tool")?)?;
    runtime.enable(&id, Grants::none())?;
    let pool = runtime.pool(&id).context("echo is active")?;

    // Warm call through registry dispatch and the runtime.
    let args = json!({"x": 1});
    let through_runtime = per_call_us(31, 2000, || {
        let tool = runtime.ledger().tool("echo").expect("echo is installed");
        let out = tool.call(&args).expect("echo answers");
        std::hint::black_box(out);
    });
    // The same component, a bare typed call on a warm instance.
    let mut instance = pool.checkout()?;
    let args_text = args.to_string();
    let bare = per_call_us(31, 2000, || {
        let tool = instance.exports.tool.as_ref().expect("echo exports tool");
        let out = tool
            .call(&mut instance.store, "echo", &args_text)
            .expect("no trap");
        std::hint::black_box(out).ok();
    });
    pool.checkin(instance);
    rows.push(
        Figure {
            name: "tool_call_warm",
            unit: "us",
            value: through_runtime,
            baseline: Some(("bare_wasmtime_call", bare)),
            goal_value: Some(3.0),
            goal_ratio: Some(5.0),
        }
        .row(),
    )?;

    // A fresh instance from the InstancePre: Store, sandbox, instantiate,
    // export handles. Then the same plus the guest's `initialize`, which is
    // the guest's first call (wasi-libc and allocator start-up included):
    // what replacing a trapped Store costs in all.
    let fresh = per_call_us(21, 100, || {
        std::hint::black_box(pool.instantiate_uninitialized().expect("instantiates"));
    });
    let ready = per_call_us(21, 100, || {
        std::hint::black_box(pool.instantiate().expect("instantiates"));
    });
    let bare_instantiate = per_call_us(21, 100, || pool.instantiate_bare().expect("instantiates"));
    let baseline = Some(("instantiate_pre_product_store", bare_instantiate));
    rows.push(
        Figure {
            name: "instance_fresh",
            unit: "us",
            value: fresh,
            baseline,
            goal_value: Some(25.0),
            goal_ratio: None,
        }
        .row(),
    )?;
    rows.push(
        Figure {
            name: "instance_fresh_initialized",
            unit: "us",
            value: ready,
            baseline,
            goal_value: None,
            goal_ratio: None,
        }
        .row(),
    )?;

    adapted_call(rows, scratch.path())?;
    enable_ten(rows, scratch.path())
}

/// The compatibility probe's `echo` through the ledger, built for 0.1
/// (through the adapter) and for 0.2 (native), each in its own runtime
/// since they share an id.
fn adapted_call(rows: &mut Rows, root: &std::path::Path) -> Result<()> {
    let fixtures = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures/wit-compat");
    let args = json!({"op": "echo", "text": "a b c"});
    let warm_call = |version: &str| -> Result<f64> {
        let home = root.join(format!("compat-{version}"));
        let runtime = runtime_in(&home, &root.join("cache"))?;
        let probe = fixtures.join(version).join("compat-rust.wasm");
        let (id, _) = runtime.register_file(&probe)?;
        runtime.enable(&id, Grants::none())?;
        let tool = runtime.ledger().tool("compat_probe").context("the probe's tool")?;
        Ok(per_call_us(31, 2000, || {
            std::hint::black_box(tool.call(&args).expect("echo answers"));
        }))
    };
    let native = warm_call(amber_runtime::API_VERSION)?;
    let adapted = warm_call("0.1.0")?;
    rows.push(
        Figure {
            name: "tool_call_through_0_1_adapter",
            unit: "us",
            value: adapted,
            baseline: Some(("same_plugin_built_for_0_2", native)),
            goal_value: None,
            goal_ratio: Some(1.2),
        }
        .row(),
    )
}

/// Ten distinct components: echo with a distinct custom section appended,
/// so each has its own hash and its own cache entry.
fn ten_components() -> Result<Vec<Vec<u8>>> {
    let echo = std::fs::read(guest("echo-tool")?)?;
    Ok((0..10u8)
        .map(|i| {
            let name = b"amber-bench";
            let payload = [i; 4];
            let mut wasm = echo.clone();
            let size = 1 + name.len() + payload.len();
            wasm.extend_from_slice(&[0, size as u8, name.len() as u8]);
            wasm.extend_from_slice(name);
            wasm.extend_from_slice(&payload);
            wasm
        })
        .collect())
}

/// Registers and enables each component in its own runtime (they share an
/// id), returning the total milliseconds.
fn enable_all(
    components: &[Vec<u8>],
    home: &std::path::Path,
    cache: &std::path::Path,
) -> Result<f64> {
    let start = Instant::now();
    for wasm in components {
        let runtime = runtime_in(home, cache)?;
        let (id, _) = runtime.register_bytes(wasm, std::path::Path::new("echo-variant.wasm"))?;
        runtime.enable(&id, Grants::none())?;
    }
    Ok(start.elapsed().as_secs_f64() * 1e3)
}

fn enable_ten(rows: &mut Rows, root: &std::path::Path) -> Result<()> {
    let components = ten_components()?;
    let (mut compiling, mut from_aot, mut lazy) = (Vec::new(), Vec::new(), Vec::new());
    for round in 0..3 {
        let cache = root.join(format!("cache-round-{round}"));
        compiling.push(enable_all(&components, root, &cache)?);
        // The compiled code is cached; forget the declarations, so each
        // enable deserializes, instantiates, initialises and asks.
        std::fs::remove_dir_all(cache.join("declarations"))?;
        from_aot.push(enable_all(&components, root, &cache)?);
        // Both caches warm: installed from declarations, nothing loaded.
        lazy.push(enable_all(&components, root, &cache)?);
    }
    let baseline = Some(("enable_10_plugins_compiling", median(compiling)));
    rows.push(
        Figure {
            name: "enable_10_plugins_from_aot_cache",
            unit: "ms",
            value: median(from_aot),
            baseline,
            goal_value: Some(10.0),
            goal_ratio: None,
        }
        .row(),
    )?;
    rows.push(
        Figure {
            name: "enable_10_plugins_from_declarations",
            unit: "ms",
            value: median(lazy),
            baseline: None,
            goal_value: None,
            goal_ratio: None,
        }
        .row(),
    )
}
