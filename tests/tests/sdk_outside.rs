//! The SDK as a plugin author gets it: a crate in a temporary folder,
//! outside this repository, that depends on `sdk/rust` by absolute path,
//! built for wasm32-wasip2 with cargo and loaded by the real runtime; and
//! the mistakes the SDK's macros turn into compile errors: `export!`
//! without capability kinds, `manifest!()` without a description.
//!
//! Each crate is built into the repository's one target dir, with the
//! guests' lockfile, release profile and flags, so the SDK and its
//! dependencies are the artifacts `cargo xtask guests` already built and
//! only the crate itself compiles.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "a test fails by panicking, its helpers too"
)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use amber_runtime::Grants;
use amber_tests::{call_tool, repo_root, Scratch};
use serde_json::json;

/// The guests' release profile (guests/Cargo.toml), so the dependencies'
/// artifacts match theirs.
const PROFILE: &str = r#"
[profile.release]
opt-level = 3
lto = true
codegen-units = 1
strip = true
panic = "abort"
"#;

/// A crate `name` in a fresh temporary folder with `lib` as its
/// `src/lib.rs`, depending on the SDK by absolute path.
fn plugin_crate(name: &str, description: &str, lib: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let sdk = repo_root().join("sdk/rust");
    let manifest = format!(
        r#"[package]
name = "{name}"
version = "0.3.1"
edition = "2021"
description = "{description}"
publish = false

# Its own workspace, whatever folder the temp dir is in.
[workspace]

[lib]
crate-type = ["cdylib"]

[dependencies]
amber-sdk = {{ path = "{sdk}" }}
serde = {{ version = "1", features = ["derive"] }}
schemars = "1"
{PROFILE}"#,
        sdk = sdk.display()
    );
    std::fs::write(dir.path().join("Cargo.toml"), manifest).unwrap();
    // The versions the guests were built with, so nothing is resolved
    // (or fetched) anew; cargo drops the entries this crate does not use.
    std::fs::copy(
        repo_root().join("guests/Cargo.lock"),
        dir.path().join("Cargo.lock"),
    )
    .unwrap();
    std::fs::create_dir(dir.path().join("src")).unwrap();
    std::fs::write(dir.path().join("src/lib.rs"), lib).unwrap();
    dir
}

/// The repository's one target dir, as the xtask picks it.
fn target_dir() -> PathBuf {
    std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .filter(|d| d.is_absolute())
        .unwrap_or_else(|| repo_root().join("target"))
}

/// `cargo build --release` of the crate in `dir` for wasm32-wasip2. The
/// toolchain is the one running the tests (rustup passes it down in
/// `RUSTUP_TOOLCHAIN`), the flags those of guests/.cargo/config.toml.
fn build(dir: &Path) -> Output {
    Command::new("cargo")
        .current_dir(dir)
        .args([
            "build",
            "--release",
            "--offline",
            "--target",
            "wasm32-wasip2",
        ])
        .args([
            "--config",
            r#"target.wasm32-wasip2.rustflags = ["-C", "target-feature=+simd128"]"#,
        ])
        .env("CARGO_TARGET_DIR", target_dir())
        .env_remove("RUSTFLAGS")
        .env_remove("CARGO_ENCODED_RUSTFLAGS")
        .output()
        .expect("cannot run cargo")
}

const SHOUT: &str = r#"
use amber_sdk::prelude::*;
use schemars::JsonSchema;
use serde::Deserialize;

#[derive(Default)]
struct Shout;

#[derive(Deserialize, JsonSchema)]
struct ShoutArgs {
    /// What to shout.
    text: String,
}

impl Plugin for Shout {
    fn manifest() -> Manifest {
        amber_sdk::manifest!()
    }
}

impl ToolPlugin for Shout {
    fn tools(&self) -> Vec<ToolSpec> {
        vec![ToolSpec::new("shout", "Upper-case the text.").args::<ShoutArgs>().read_only()]
    }

    fn call(&mut self, _tool: &str, args: Value) -> Result<ToolOutput, ToolError> {
        let args: ShoutArgs = parse_args(args)?;
        Ok(ToolOutput::text(args.text.to_uppercase()))
    }
}

amber_sdk::export!(Shout: tool);
"#;

#[test]
fn a_plugin_crate_outside_the_repository_builds_against_the_sdk_and_loads() {
    let name = "amber-outside-plugin";
    let dir = plugin_crate(name, "Shouts, from outside the repository.", SHOUT);
    let out = build(dir.path());
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let wasm = target_dir().join("wasm32-wasip2/release/amber_outside_plugin.wasm");

    let scratch = Scratch::new();
    let runtime = scratch.runtime();
    let (id, _) = runtime.register_file(&wasm).unwrap();
    runtime.enable(&id, Grants::none()).unwrap();
    let manifest = runtime.status(&id).unwrap().manifest;
    assert_eq!(
        (
            manifest.id.as_str(),
            manifest.version.as_str(),
            manifest.description.as_str()
        ),
        (name, "0.3.1", "Shouts, from outside the repository.")
    );
    assert_eq!(
        call_tool(&runtime, "shout", json!({"text": "hi"})).unwrap(),
        "HI"
    );
    let shout = runtime.ledger().tool("shout").unwrap();
    assert_eq!(shout.spec().input_schema["required"], json!(["text"]));
}

#[test]
fn export_without_capability_kinds_is_a_compile_error_that_says_what_to_write() {
    let lib = SHOUT.replace(
        "amber_sdk::export!(Shout: tool);",
        "amber_sdk::export!(Shout);",
    );
    let dir = plugin_crate("amber-kindless-plugin", "Exports no kinds.", &lib);
    let out = build(dir.path());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "it compiled: {stderr}");
    assert!(
        stderr.contains(
            "amber_sdk::export!(Shout) lists no capability kinds, so the plugin would offer nothing: \
             write `amber_sdk::export!(Shout: tool)`"
        ),
        "{stderr}"
    );
}

#[test]
fn manifest_macro_without_a_description_in_cargo_toml_is_a_compile_error() {
    let dir = plugin_crate("amber-undescribed-plugin", "", SHOUT);
    let out = build(dir.path());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "it compiled: {stderr}");
    assert!(
        stderr.contains("amber_sdk::manifest!: Cargo.toml's [package] has no `description`"),
        "{stderr}"
    );
}
