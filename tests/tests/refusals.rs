//! Components the host refuses before running any capability, each with a
//! one-line reason naming the file: wrong API version, a capability
//! declared without its interface, a core module, garbage.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "a test fails by panicking, its helpers too"
)]

use std::path::Path;

use amber_runtime::{Grants, PluginState};
use amber_tests::{guest, Scratch};

#[test]
fn a_component_built_for_another_api_version_is_refused_as_incompatible() {
    let scratch = Scratch::new();
    let runtime = scratch.runtime();
    let path = guest("wrong-api");
    let err = runtime.register_file(&path).unwrap_err().to_string();
    let expected = format!(
        "{}: incompatible: built for amber:plugin@9.0.0; this host speaks @0.3.0, and @0.2.0, @0.1.0 through adapters; upgrade amber to load it, or rebuild the plugin with the SDK for 0.3",
        path.display()
    );
    assert_eq!(err, expected);
    assert!(runtime.list().is_empty());
}

#[test]
fn a_capability_declared_without_its_exported_interface_is_refused_by_name() {
    let scratch = Scratch::new();
    let runtime = scratch.runtime();
    let (id, _) = runtime.register_file(&guest("undeclared-export")).unwrap();
    let err = runtime.enable(&id, Grants::none()).unwrap_err().to_string();
    assert!(
        err.contains(
            "declares parser capability `klingon` but does not export amber:plugin/parser@0.3.0"
        ),
        "{err}"
    );
    assert_eq!(runtime.state(&id), Some(PluginState::Failed));
    assert!(
        runtime.ledger().tool("liar-tool").is_none(),
        "its honest tool is not installed either"
    );
}

#[test]
fn a_core_module_is_refused_with_what_to_do() {
    let scratch = Scratch::new();
    let runtime = scratch.runtime();
    // The smallest valid core module: magic and version 1, no sections.
    let core = b"\0asm\x01\0\0\0";
    let err = runtime
        .register_bytes(core, Path::new("core.wasm"))
        .unwrap_err()
        .to_string();
    assert!(
        err.starts_with("core.wasm: a core wasm module, not a component"),
        "{err}"
    );
}

#[test]
fn a_file_that_is_not_wasm_is_refused_naming_it() {
    let scratch = Scratch::new();
    let runtime = scratch.runtime();
    let path = scratch.workspace.join("notes.wasm");
    std::fs::write(&path, "just text").unwrap();
    let err = runtime.register_file(&path).unwrap_err().to_string();
    assert!(
        err.contains("notes.wasm") && err.contains("not a WebAssembly file"),
        "{err}"
    );
    let missing = scratch.workspace.join("missing.wasm");
    let err = runtime.register_file(&missing).unwrap_err().to_string();
    assert!(
        err.starts_with(&format!("cannot read {}", missing.display())),
        "{err}"
    );
}

#[test]
fn a_truncated_component_is_refused_without_changing_anything() {
    let scratch = Scratch::new();
    let runtime = scratch.runtime();
    let bytes = std::fs::read(guest("hello-tool")).unwrap();
    let cut = &bytes[..bytes.len() / 2];
    let err = runtime
        .register_bytes(cut, Path::new("cut.wasm"))
        .unwrap_err()
        .to_string();
    assert!(err.starts_with("cut.wasm: cannot compile"), "{err}");
    assert!(runtime.list().is_empty());
}

#[test]
fn a_component_of_a_foreign_world_is_refused_as_not_a_plugin() {
    let scratch = Scratch::new();
    let runtime = scratch.runtime();
    // The smallest valid component: no imports, no exports.
    let empty = b"\0asm\x0d\0\x01\0";
    let err = runtime
        .register_bytes(empty, Path::new("other.wasm"))
        .unwrap_err()
        .to_string();
    assert_eq!(
        err,
        "other.wasm: not an amber plugin: it exports no amber:plugin/plugin interface"
    );
}

#[test]
fn a_component_with_gc_subtypes_is_refused_at_compile_time() {
    // A component holding one core module whose only type is a non-final
    // function subtype (`(type (sub (func)))`): valid under the GC
    // proposal. Under a build without wasmtime's `gc` feature, code that
    // checks such a type at run time aborts the host (GHSA-rc4p-x33f-vpr2),
    // so the engine turns the proposal off and the file is refused.
    let module: &[u8] = b"\0asm\x01\0\0\0\x01\x06\x01\x50\x00\x60\x00\x00";
    let mut component = b"\0asm\x0d\0\x01\0".to_vec();
    component.extend_from_slice(&[0x01, module.len() as u8]);
    component.extend_from_slice(module);
    let scratch = Scratch::new();
    let runtime = scratch.runtime();
    let err = runtime
        .register_bytes(&component, Path::new("gc-types.wasm"))
        .unwrap_err()
        .to_string();
    assert!(err.starts_with("gc-types.wasm: cannot compile"), "{err}");
    assert!(err.to_lowercase().contains("gc"), "{err}");
    assert!(runtime.list().is_empty());
}
