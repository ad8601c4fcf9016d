//! Builds every guest in `guests/` for wasm32-wasip2 in release and copies
//! each component to `target/guests/<name>.wasm`.

use std::path::PathBuf;

use anyhow::{Context, Result};

use crate::{cargo, root, run, setup, target_dir};

/// Guests with C code (tree-sitter grammars) need clang, llvm and wasi-libc.
const GUESTS_WITH_C: &[&str] = &[
    "parser-rust",
    "parser-python",
    "parser-typescript",
    "parser-markdown",
];

/// Guests whose final crate is built with far more inlining. Decoding is
/// call-heavy serde code, and under epoch interruption every function entry
/// is a deadline check: this made the provider's decoding ~15% faster
/// (docs/dialects.md). The flags reach the final crate only, yet cover the
/// whole program, because fat LTO runs the inliner again over all of it
/// there; the dependencies stay the same artifacts the other guests use.
/// Not for every guest: it doubled the size of the parsers and grep, whose
/// time is spent in C or in host calls, for no gain.
const INLINED: &[&str] = &["provider-openai", "provider-anthropic"];
/// The inlining of the providers, also given to the bench binary so the
/// decoder's native baseline is built the same way.
pub const INLINE_THRESHOLD: &str = "llvm-args=-inline-threshold=10000";
const INLINE_FLAGS: &[&str] = &["-C", INLINE_THRESHOLD, "-C", "target-feature=+tail-call"];

/// The cdylib members of the guests workspace, by package name.
fn members() -> Result<Vec<String>> {
    let out = cargo()?
        .args([
            "metadata",
            "--format-version",
            "1",
            "--no-deps",
            "--manifest-path",
        ])
        .arg(root().join("guests/Cargo.toml"))
        .output()
        .context("cannot run cargo metadata on guests/")?;
    let meta: serde_json::Value =
        serde_json::from_slice(&out.stdout).context("cargo metadata printed no JSON")?;
    let packages = meta["packages"].as_array().cloned().unwrap_or_default();
    Ok(packages
        .iter()
        .filter(|p| {
            let targets = p["targets"].as_array().cloned().unwrap_or_default();
            targets.iter().any(|t| {
                t["crate_types"]
                    .as_array()
                    .is_some_and(|c| c.iter().any(|k| k == "cdylib"))
            })
        })
        .filter_map(|p| p["name"].as_str().map(String::from))
        .collect())
}

/// Builds all guests; returns the directory holding the components.
pub fn build_all() -> Result<PathBuf> {
    // cargo() installs the pinned toolchain, which carries the
    // wasm32-wasip2 target.
    let names = members()?;
    if names.iter().any(|n| GUESTS_WITH_C.contains(&n.as_str())) {
        setup::ensure_debian_packages(&["clang", "llvm", "wasi-libc"])?;
    }
    eprintln!("xtask: building {} guests", names.len());
    let mut build = cargo()?;
    build
        .current_dir(root().join("guests"))
        .args(["build", "--release", "--workspace"]);
    for name in INLINED {
        build.args(["--exclude", name]);
    }
    run(&mut build)?;
    for name in INLINED.iter().filter(|n| names.iter().any(|m| m == *n)) {
        run(cargo()?
            .current_dir(root().join("guests"))
            .args(["rustc", "--release", "--lib", "-p", name, "--"])
            .args(INLINE_FLAGS))?;
    }
    let built = target_dir().join("wasm32-wasip2/release");
    let out = target_dir().join("guests");
    std::fs::create_dir_all(&out).with_context(|| format!("cannot create {}", out.display()))?;
    for name in &names {
        let from = built.join(format!("{}.wasm", name.replace('-', "_")));
        let to = out.join(format!("{name}.wasm"));
        std::fs::copy(&from, &to)
            .with_context(|| format!("cannot copy {} to {}", from.display(), to.display()))?;
    }
    Ok(out)
}
