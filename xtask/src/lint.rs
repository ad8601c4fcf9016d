//! `cargo xtask lint`: clippy over the host workspace, the guests and the
//! SDK, every warning an error. The lints that matter most are set in the
//! manifests (`[workspace.lints]`, the SDK's `[lints]`): no `unwrap` or
//! `expect` outside tests (`clippy.toml` lets tests panic), and no
//! printing from a library crate (each `lib.rs` denies it). An allowed
//! exception says why where it is allowed (`#[allow(…, reason = "…")]`).
//!
//! Not run by `cargo xtask test`: a clean clone pays about four minutes of
//! checking for it (host 3 min 14 s, guests 46 s, SDK 9 s measured here),
//! over the three a change may add to the suite; on a warm target it takes
//! seconds, so it runs before each stop instead.

use std::path::Path;

use anyhow::Result;

use crate::{cargo, root, run, setup};

/// `cargo clippy ARGS --all-targets -- -D warnings` in `dir`.
fn clippy(dir: &Path, args: &[&str]) -> Result<()> {
    run(cargo()?.current_dir(dir).arg("clippy").args(args).args([
        "--all-targets",
        "--",
        "-D",
        "warnings",
    ]))
}

pub fn run_all() -> Result<()> {
    println!("xtask: clippy on the host");
    clippy(&root(), &["--workspace"])?;
    println!("xtask: clippy on the guests (wasm32-wasip2)");
    // The parser guests' grammars are C, checked as they build.
    setup::ensure_debian_packages(&["clang", "llvm", "wasi-libc"])?;
    clippy(&root().join("guests"), &["--workspace"])?;
    println!("xtask: clippy on the Rust SDK (wasm32-wasip2)");
    clippy(
        &root(),
        &[
            "--manifest-path",
            "sdk/rust/Cargo.toml",
            "--target",
            "wasm32-wasip2",
        ],
    )?;
    println!("xtask: clippy finds nothing");
    Ok(())
}
