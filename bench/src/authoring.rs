//! Plugins in other languages (issue 32), reported rather than held to a
//! goal:
//! - `amber plugin new` to `amber plugin test` passing, per language
//!   (Rust, Python, JavaScript): cold (no toolchain installed, empty
//!   compile caches, a fresh cargo target dir) against warm (toolchains
//!   and caches kept, a fresh scaffold each time), with the installed
//!   amber as a user runs it;
//! - a warm call of the Python and of the JavaScript scaffold's tool
//!   against the Rust hello tool, in one runtime, in the same run;
//! - a stream of 10k chat events decoded by the Python and by the
//!   JavaScript provider scaffold against the Rust one (the same
//!   dialect), in one runtime, in the same run: what a provider written in
//!   another language costs on every reply.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;
use std::time::Instant;

use amber_core::Ledger;
use amber_runtime::{AmberDirs, Grants, PluginRuntime, RuntimeOptions};
use anyhow::{ensure, Context, Result};
use serde_json::json;

use amber_core::ports::dialect::SseEvent;

use crate::measure::{guest, pair_row, per_call_us, Figure, Rows};
use crate::wire::{chat_events, decode_component, Shape};

const LANGS: [&str; 3] = ["rust", "python", "js"];
const WARM_ROUNDS: usize = 3;

/// `amber plugin new ID --lang LANG --kind KIND` then `amber plugin test`, with the
/// toolchains and compiled code in `cache` and cargo's in `target`;
/// returns the seconds it took and the built component.
fn new_to_test(
    amber: &Path,
    scratch: &Path,
    id: &str,
    lang: &str,
    kind: &str,
    cache: &Path,
    target: &Path,
) -> Result<(f64, PathBuf)> {
    let home = scratch.join(format!("home-{id}"));
    std::fs::create_dir_all(&home)?;
    let run = |args: &[&str], dir: &Path| -> Result<()> {
        let out = Command::new(amber)
            .args(args)
            .current_dir(dir)
            .env("AMBER_HOME", &home)
            .env("AMBER_CACHE_DIR", cache)
            .env("CARGO_TARGET_DIR", target)
            .output()
            .with_context(|| format!("cannot run {}", amber.display()))?;
        ensure!(
            out.status.success(),
            "amber {}: {}\n{}",
            args.join(" "),
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        Ok(())
    };
    let start = Instant::now();
    run(
        &["plugin", "new", id, "--lang", lang, "--kind", kind],
        scratch,
    )?;
    let dir = scratch.join(id);
    run(&["plugin", "test"], &dir)?;
    let seconds = start.elapsed().as_secs_f64();
    Ok((seconds, dir.join("dist").join(format!("{id}.wasm"))))
}

pub fn run(rows: &mut Rows) -> Result<()> {
    let Some(amber) = std::env::var_os("AMBER_BENCH_INSTALLED").map(PathBuf::from) else {
        eprintln!("bench: authoring skipped: AMBER_BENCH_INSTALLED is set by `cargo xtask bench authoring`");
        return Ok(());
    };
    let scratch = tempfile::tempdir()?;
    let warm_cache = scratch.path().join("warm-cache");
    let warm_target = scratch.path().join("warm-target");
    let mut built = Vec::new();
    for lang in LANGS {
        let cold_cache = scratch.path().join(format!("cold-cache-{lang}"));
        let cold_target = scratch.path().join(format!("cold-target-{lang}"));
        let (cold, _) = new_to_test(
            &amber,
            scratch.path(),
            &format!("cold-{lang}"),
            lang,
            "tool",
            &cold_cache,
            &cold_target,
        )?;
        // The warm cache's first round installs and compiles; not timed.
        let (_, first) = new_to_test(
            &amber,
            scratch.path(),
            &format!("warmup-{lang}"),
            lang,
            "tool",
            &warm_cache,
            &warm_target,
        )?;
        built.push((lang, first));
        let mut warm = Vec::new();
        for round in 0..WARM_ROUNDS {
            let (seconds, _) = new_to_test(
                &amber,
                scratch.path(),
                &format!("warm{round}-{lang}"),
                lang,
                "tool",
                &warm_cache,
                &warm_target,
            )?;
            warm.push(seconds);
        }
        let name = format!("plugin_new_to_test_{lang}_cold");
        let baseline = format!("plugin_new_to_test_{lang}_warm");
        rows.push(pair_row((&name, &[cold]), (&baseline, &warm), "s", None))?;
    }

    // The provider scaffolds, built untimed with the warm caches.
    let mut providers = Vec::new();
    for lang in LANGS {
        let (_, wasm) = new_to_test(
            &amber,
            scratch.path(),
            &format!("provider-{lang}"),
            lang,
            "provider",
            &warm_cache,
            &warm_target,
        )?;
        providers.push((lang, wasm));
    }

    // Warm calls, one runtime: the scaffolds' word counters and hello.
    let home = scratch.path().join("calls");
    let mut dirs = AmberDirs::under(&home);
    dirs.cache = warm_cache.clone();
    let runtime = PluginRuntime::new(
        RuntimeOptions::new(dirs, home.clone()),
        Arc::new(Ledger::new()),
    )?;
    for path in [guest("hello-tool")?]
        .into_iter()
        .chain(built.iter().map(|(_, p)| p.clone()))
        .chain(providers.iter().map(|(_, p)| p.clone()))
    {
        let (id, _) = runtime.register_file(&path)?;
        runtime.enable(&id, Grants::none())?;
    }
    let call = |name: &str, args: serde_json::Value| -> f64 {
        per_call_us(15, 200, || {
            let tool = runtime.ledger().tool(name).expect("the tool is installed");
            std::hint::black_box(tool.call(&args).expect("the tool answers"));
        })
    };
    let hello = call("hello", json!({"name": "bench"}));
    for (lang, _) in &built {
        if *lang == "rust" {
            continue;
        }
        let tool = format!("warmup_{lang}");
        let us = call(&tool, json!({"text": "one two three"}));
        rows.push(
            Figure {
                name: &format!("plugin_tool_call_warm_{lang}"),
                unit: "us",
                value: us,
                baseline: Some(("rust_hello_tool_call_warm", hello)),
                goal_value: None,
                goal_ratio: None,
            }
            .row(),
        )?;
    }
    provider_decodes(rows, &runtime)
}

/// The same 10k-event chat stream through each provider scaffold; each
/// must decode it to the same text. A figure is the median of a few
/// whole streams, in ms.
fn provider_decodes(rows: &mut Rows, runtime: &PluginRuntime) -> Result<()> {
    let events: Vec<SseEvent> = chat_events(Shape::Minimal)
        .into_iter()
        .map(|(event, data)| SseEvent { event, data })
        .collect();
    let mut medians = Vec::new();
    let mut reference = None;
    for lang in LANGS {
        let flavor = format!("provider-{lang}");
        let dialect = runtime
            .ledger()
            .provider(&flavor)
            .with_context(|| format!("{flavor} is installed"))?;
        let decoded = decode_component(&*dialect, &events)?;
        let reference = reference.get_or_insert_with(|| decoded.text.clone());
        ensure!(
            &decoded.text == reference,
            "{flavor} decodes the stream to the Rust scaffold's text"
        );
        let us = per_call_us(5, 1, || {
            std::hint::black_box(decode_component(&*dialect, &events).expect("the stream decodes"));
        });
        medians.push((lang, us / 1000.0));
    }
    let rust = medians[0].1;
    for (lang, ms) in &medians[1..] {
        rows.push(
            Figure {
                name: &format!("plugin_provider_decode_10k_events_{lang}"),
                unit: "ms",
                value: *ms,
                baseline: Some(("plugin_provider_decode_10k_events_rust", rust)),
                goal_value: None,
                goal_ratio: None,
            }
            .row(),
        )?;
    }
    Ok(())
}
