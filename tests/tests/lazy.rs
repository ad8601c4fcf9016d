//! Plugins compile lazily: with the shared caches warm, a fresh home
//! registers and enables a plugin, with all its contributions installed,
//! without compiling or even loading it; the first call does that.

use std::path::Path;

use amber_runtime::{Grants, PluginRuntime};
use amber_tests::{call_tool, guest, Scratch};
use serde_json::json;

fn runtime_with_cache(scratch: &Scratch, cache: &Path) -> PluginRuntime {
    let mut options = scratch.options();
    options.dirs.cache = cache.to_path_buf();
    scratch.runtime_with(options)
}

#[test]
fn a_fresh_home_with_a_warm_cache_compiles_nothing_until_first_use() {
    let cache = tempfile::tempdir().unwrap();
    let first = Scratch::new();
    let warm = runtime_with_cache(&first, cache.path());
    let (id, _) = warm.register_file(&guest("echo-tool")).unwrap();
    warm.enable(&id, Grants::none()).unwrap();
    assert_eq!(warm.components_loaded(), 1, "a cold cache compiles once");

    let fresh = Scratch::new();
    let runtime = runtime_with_cache(&fresh, cache.path());
    let (id, _) = runtime.register_file(&guest("echo-tool")).unwrap();
    runtime.enable(&id, Grants::none()).unwrap();
    assert_eq!(runtime.components_loaded(), 0);
    assert!(!runtime.is_loaded(&id));
    let names: Vec<String> = runtime
        .ledger()
        .tools()
        .iter()
        .map(|t| t.spec().name.clone())
        .collect();
    assert_eq!(
        names,
        ["echo", "count"],
        "installed from the cached declarations"
    );

    assert_eq!(
        call_tool(&runtime, "echo", json!({"lazy": true})).unwrap(),
        r#"{"lazy":true}"#
    );
    assert_eq!(runtime.components_loaded(), 1);
    assert_eq!(
        call_tool(&runtime, "count", json!({})).unwrap(),
        "2",
        "one instance served both calls"
    );
}

#[test]
fn cached_declarations_depend_on_the_grants() {
    let cache = tempfile::tempdir().unwrap();
    let first = Scratch::new();
    let warm = runtime_with_cache(&first, cache.path());
    let (id, _) = warm.register_file(&guest("echo-tool")).unwrap();
    warm.enable(&id, Grants::none()).unwrap();

    let fresh = Scratch::new();
    let runtime = runtime_with_cache(&fresh, cache.path());
    let (id, _) = runtime.register_file(&guest("echo-tool")).unwrap();
    runtime
        .enable(&id, Grants::of([amber_runtime::Permission::WorkspaceRead]))
        .unwrap();
    assert_eq!(runtime.components_loaded(), 1, "other grants: asked afresh");
}

#[test]
fn a_lazily_enabled_plugin_still_disables_and_unwinds() {
    let cache = tempfile::tempdir().unwrap();
    let first = Scratch::new();
    let warm = runtime_with_cache(&first, cache.path());
    let (id, _) = warm.register_file(&guest("hello-tool")).unwrap();
    warm.enable(&id, Grants::none()).unwrap();

    let fresh = Scratch::new();
    let runtime = runtime_with_cache(&fresh, cache.path());
    let (id, _) = runtime.register_file(&guest("hello-tool")).unwrap();
    runtime.enable(&id, Grants::none()).unwrap();
    let held = runtime.ledger().tool("hello").unwrap();
    assert_eq!(runtime.disable(&id).unwrap().len(), 1);
    assert_eq!(
        runtime.components_loaded(),
        0,
        "never started, nothing to shut down"
    );
    let err = held.call(&json!({})).unwrap_err().to_string();
    assert!(err.contains("not active"), "{err}");
}
