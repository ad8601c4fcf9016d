//! Plugins compile lazily: with the shared caches warm, a fresh home
//! registers and enables a plugin, with all its contributions installed,
//! without compiling or even loading it; the first call does that.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "a test fails by panicking, its helpers too"
)]

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

/// A copy of guest `name` at `path`, old enough (its ctime two seconds
/// behind) for its hash to be remembered.
fn settled_copy(name: &str, path: &Path) {
    std::fs::copy(guest(name), path).unwrap();
    std::thread::sleep(std::time::Duration::from_millis(2100));
}

/// A settled copy of echo-tool, registered and enabled once by another
/// home over the shared cache `cache`: its hash, declarations and code
/// are remembered. Returns the plugin file's folder and path.
fn warmed_echo(cache: &Path) -> (tempfile::TempDir, std::path::PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let plugin = dir.path().join("echo.wasm");
    settled_copy("echo-tool", &plugin);
    let first = Scratch::new();
    let warm = runtime_with_cache(&first, cache);
    assert!(warm.open_component(&plugin).unwrap().was_read());
    let (id, _) = warm.register_file(&plugin).unwrap();
    warm.enable(&id, Grants::none()).unwrap();
    (dir, plugin)
}

#[test]
fn an_unchanged_file_is_registered_and_called_without_being_read() {
    let cache = tempfile::tempdir().unwrap();
    let (_dir, plugin) = warmed_echo(cache.path());

    // Another run: the hash comes from the memo, the declarations and the
    // compiled code from the cache; the file is never read.
    let fresh = Scratch::new();
    let runtime = runtime_with_cache(&fresh, cache.path());
    let file = runtime.open_component(&plugin).unwrap();
    assert!(!file.was_read(), "an unchanged file is not read again");
    let (id, _) = runtime.register(file).unwrap();
    runtime.enable(&id, Grants::none()).unwrap();
    assert_eq!(
        call_tool(&runtime, "echo", json!({"memo": 1})).unwrap(),
        r#"{"memo":1}"#
    );

    // Any write is seen: the new bytes are read and hashed.
    std::fs::copy(guest("hello-tool"), &plugin).unwrap();
    let changed = runtime.open_component(&plugin).unwrap();
    assert!(changed.was_read());
    assert_ne!(changed.hash, runtime.status(&id).unwrap().hash);
}

#[test]
fn a_file_changed_before_its_first_compile_is_refused_not_run() {
    let cache = tempfile::tempdir().unwrap();
    let (dir, plugin) = warmed_echo(cache.path());
    // Declarations stay, compiled code goes: the first call must compile,
    // from the file, which is by then another component.
    std::fs::remove_dir_all(cache.path().join("compiled")).unwrap();
    let fresh = Scratch::new();
    let runtime = runtime_with_cache(&fresh, cache.path());
    let (id, _) = runtime.register_file(&plugin).unwrap();
    runtime.enable(&id, Grants::none()).unwrap();
    let tmp = dir.path().join("other.wasm");
    std::fs::copy(guest("hello-tool"), &tmp).unwrap();
    std::fs::rename(&tmp, &plugin).unwrap();
    let error = call_tool(&runtime, "echo", json!({}))
        .unwrap_err()
        .to_string();
    assert!(
        error.contains("echo.wasm") && error.contains("changed since amber registered it"),
        "{error}"
    );
}
