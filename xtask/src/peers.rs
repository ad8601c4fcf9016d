//! The peer agent the bench runs beside amber (`cargo xtask bench
//! peers`): Codex CLI, the npm package `@openai/codex` at a pinned
//! version, whose platform package carries the native binary.

use std::path::PathBuf;

use anyhow::{bail, Result};

/// Pinned: a new release changes what the baseline measures.
const CODEX: (&str, &str) = ("@openai/codex", "0.171.0");

/// The native `codex` binary, installing the package first if missing.
pub fn ensure_codex() -> Result<PathBuf> {
    let (platform, triple) = match std::env::consts::ARCH {
        "x86_64" => ("linux-x64", "x86_64-unknown-linux-musl"),
        "aarch64" => ("linux-arm64", "aarch64-unknown-linux-musl"),
        other => bail!("no Codex build for {other}: the peer bench runs on Linux x86_64 or arm64"),
    };
    if !cfg!(target_os = "linux") {
        bail!("the peer bench runs Codex's Linux build: run it on Linux");
    }
    let modules = crate::npm::ensure("npm-peers", &[CODEX], "Codex CLI (the peer agent)")?;
    let binary = modules
        .join(format!("@openai/codex-{platform}"))
        .join("vendor")
        .join(triple)
        .join("bin/codex");
    if !binary.is_file() {
        bail!(
            "{} is missing after installing {}@{}: npm skipped the optional platform package",
            binary.display(),
            CODEX.0,
            CODEX.1
        );
    }
    Ok(binary)
}
