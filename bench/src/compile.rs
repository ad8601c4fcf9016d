//! How long a first compile of a component takes, on the runtime's own
//! Engine (its Config: Cranelift at `Speed`, epoch interruption, parallel
//! compilation), for a small plugin and for big ones. This is what a user
//! waits for once per plugin version, before the AOT cache holds it; the
//! rows exist to compare runtimes and compiler settings, so they carry no
//! baseline from the same run.

use amber_runtime::shared_engine;
use anyhow::{Context, Result};
use wasmtime::component::Component;

use crate::measure::{guest, time_ms, Figure, Rows};

pub fn run(rows: &mut Rows) -> Result<()> {
    let engine = shared_engine()?;
    let mut components = vec![
        ("compile_component_170kb_echo", guest("echo-tool")?, 9),
        (
            "compile_component_4mb_typescript_parser",
            guest("parser-typescript")?,
            5,
        ),
    ];
    // The xtask builds the ~18 MB Python component (componentize-py).
    if let Some(big) = std::env::var_os("AMBER_BENCH_BIG_COMPONENT") {
        components.push(("compile_component_18mb_python", big.into(), 3));
    } else {
        eprintln!("bench: AMBER_BENCH_BIG_COMPONENT is unset; the 18 MB compile row is skipped");
    }
    for (name, path, rounds) in components {
        let wasm =
            std::fs::read(&path).with_context(|| format!("cannot read {}", path.display()))?;
        let ms = time_ms(rounds, || {
            let component = Component::new(engine, &wasm)
                .map_err(|e| anyhow::anyhow!("cannot compile {}: {e:#}", path.display()))?;
            std::hint::black_box(component);
            Ok(())
        })?;
        rows.push(
            Figure {
                name,
                unit: "ms",
                value: ms,
                baseline: None,
                goal_value: None,
                goal_ratio: None,
            }
            .row(),
        )?;
    }
    Ok(())
}
