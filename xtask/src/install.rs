//! `cargo xtask install [--root DIR]`: a working `amber` on the PATH.
//!
//! Lays out a prefix as `cargo install` does, plus amber's share folder:
//! - `DIR/bin/amber`, built in release with the pinned toolchain;
//! - `DIR/share/amber/plugins/*.wasm`, the bundled plugins
//!   (`guests/bundled.txt`), where the binary looks first;
//! - `DIR/share/amber/plugins/precompiled/`, their compiled code and
//!   declarations, written by the installed binary itself (so its engine's
//!   compatibility hash is the one in the names), read-only at run time: a
//!   fresh home compiles nothing.
//! - `DIR/share/amber/sdk/`, the SDKs (`rust/`, `python/`, `js/`) and the
//!   WIT (`wit/`), which `amber plugin new|build` point a plugin at, so a
//!   plugin folder anywhere builds without a checkout.
//!
//! The default DIR is cargo's: `$CARGO_INSTALL_ROOT`, else `$CARGO_HOME`,
//! else `~/.cargo`. Every file is written beside its place and renamed in,
//! so a running amber never sees a half-written binary or component.

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{bail, Context, Result};

use crate::{cargo, guests, root, run, target_dir, tempdir_path};

const USAGE: &str = "\
cargo xtask install [--root DIR]

Builds amber in release and the bundled plugins, then installs
  DIR/bin/amber
  DIR/share/amber/plugins/*.wasm           the bundled plugins
  DIR/share/amber/plugins/precompiled/     their compiled code (read-only)
  DIR/share/amber/sdk/{wit,rust,python,js} the SDKs and the WIT, for plugins
DIR defaults to $CARGO_INSTALL_ROOT, else $CARGO_HOME, else ~/.cargo, as
`cargo install` does. `amber doctor` then says what amber found.
";

/// The prefix: `--root DIR`, else cargo's default install root.
fn prefix(args: &[String]) -> Result<Option<PathBuf>> {
    let mut it = args.iter();
    let mut root_dir = None;
    while let Some(arg) = it.next() {
        match arg.as_str() {
            "--root" => {
                let dir = it.next().context("--root needs a folder")?;
                root_dir = Some(PathBuf::from(dir));
            }
            "-h" | "--help" => return Ok(None),
            other => bail!("unknown argument `{other}`\n\n{USAGE}"),
        }
    }
    let var = |k: &str| {
        std::env::var_os(k)
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
    };
    let chosen = root_dir
        .or_else(|| var("CARGO_INSTALL_ROOT"))
        .or_else(|| var("CARGO_HOME"))
        .or_else(|| var("HOME").map(|h| h.join(".cargo")))
        .context("no install root: pass --root DIR")?;
    let absolute = if chosen.is_absolute() {
        chosen
    } else {
        std::env::current_dir()?.join(chosen)
    };
    Ok(Some(absolute))
}

/// The bundled guests' names, from the one list the runtime reads too.
pub fn bundled_names() -> Result<Vec<String>> {
    let list = root().join("guests/bundled.txt");
    let text = std::fs::read_to_string(&list)
        .with_context(|| format!("cannot read {}", list.display()))?;
    Ok(text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(String::from)
        .collect())
}

/// Copies `from` to `to` through a temporary file beside it.
fn copy_into_place(from: &Path, to: &Path) -> Result<()> {
    let dir = to.parent().context("a target without a folder")?;
    std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let name = to
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let temporary = dir.join(format!(".{name}.installing"));
    std::fs::copy(from, &temporary)
        .with_context(|| format!("cannot copy {} to {}", from.display(), temporary.display()))?;
    std::fs::rename(&temporary, to)
        .with_context(|| format!("cannot move {} into place", to.display()))?;
    Ok(())
}

/// Installs into `prefix` what `guests` and `amber` (already built) are.
pub fn install_into(prefix: &Path, amber: &Path, guests: &Path) -> Result<PathBuf> {
    let bin = prefix.join("bin/amber");
    let plugins = prefix.join("share/amber/plugins");
    for name in bundled_names()? {
        let file = format!("{name}.wasm");
        copy_into_place(&guests.join(&file), &plugins.join(&file))?;
    }
    copy_into_place(amber, &bin)?;
    install_sdk(&prefix.join("share/amber/sdk"))?;
    // Old entries would only take room: the cache is made anew.
    let precompiled = plugins.join("precompiled");
    if precompiled.exists() {
        std::fs::remove_dir_all(&precompiled)
            .with_context(|| format!("cannot clear {}", precompiled.display()))?;
    }
    precompile(&bin, &precompiled)?;
    Ok(bin)
}

/// The SDKs and the WIT, as files (the Rust SDK's `wit` link becomes a
/// copy): `wit/`, `rust/` (its sources and Cargo.toml), `python/amber_sdk`,
/// and `js/` (the SDK module and the WIT's TypeScript declarations).
fn install_sdk(into: &Path) -> Result<()> {
    let sdk = root().join("sdk");
    let wit = root().join("wit");
    for (from, to) in [
        (wit.clone(), into.join("wit")),
        (wit, into.join("rust/wit")),
        (sdk.join("rust/src"), into.join("rust/src")),
        (sdk.join("python/amber_sdk"), into.join("python/amber_sdk")),
    ] {
        copy_files(&from, &to)?;
    }
    copy_into_place(&sdk.join("rust/Cargo.toml"), &into.join("rust/Cargo.toml"))?;
    for js in ["amber-sdk.js", "amber-plugin.d.ts"] {
        copy_into_place(&sdk.join("js").join(js), &into.join("js").join(js))?;
    }
    Ok(())
}

/// Every file under `from` into `to`, recursively (links followed).
fn copy_files(from: &Path, to: &Path) -> Result<()> {
    for entry in
        std::fs::read_dir(from).with_context(|| format!("cannot read {}", from.display()))?
    {
        let path = entry?.path();
        let Some(name) = path.file_name() else {
            continue;
        };
        if name == "__pycache__" {
            continue;
        }
        if path.is_dir() {
            copy_files(&path, &to.join(name))?;
        } else {
            copy_into_place(&path, &to.join(name))?;
        }
    }
    Ok(())
}

/// Runs the installed binary's `plugin precompile --into DIR` in a fresh
/// home, so only the bundle, with its default grants, goes in.
pub fn precompile(amber: &Path, into: &Path) -> Result<()> {
    let scratch = tempdir_path("amber-precompile")?;
    let status = Command::new(amber)
        .args(["plugin", "precompile", "--into"])
        .arg(into)
        .current_dir(&scratch)
        .env("AMBER_HOME", scratch.join("home"))
        .env_remove("AMBER_CACHE_DIR")
        .env_remove("AMBER_BUNDLE_DIR")
        .env_remove("AMBER_WORKSPACE")
        .status()
        .with_context(|| format!("cannot run {}", amber.display()))?;
    let _ = std::fs::remove_dir_all(&scratch);
    if !status.success() {
        bail!("{} plugin precompile failed ({status})", amber.display());
    }
    Ok(())
}

/// Builds the release binary; returns its path.
pub fn build_release() -> Result<PathBuf> {
    // cargo's own progress shows: a release build takes minutes.
    eprintln!("xtask: building amber in release (some minutes the first time)");
    run(cargo()?.current_dir(root()).args([
        "build",
        "--release",
        "-p",
        "amber-cli",
        "--bin",
        "amber",
    ]))?;
    Ok(target_dir().join("release/amber"))
}

pub fn run_install(args: &[String]) -> Result<()> {
    let Some(prefix) = prefix(args)? else {
        print!("{USAGE}");
        return Ok(());
    };
    crate::ensure_sandbox()?;
    let guests = guests::build_all()?;
    let amber = build_release()?;
    let bin = install_into(&prefix, &amber, &guests)?;
    println!("installed {}", bin.display());
    println!(
        "  bundled plugins in {}",
        prefix.join("share/amber/plugins").display()
    );
    let bin_dir = prefix.join("bin");
    let on_path =
        std::env::var_os("PATH").is_some_and(|p| std::env::split_paths(&p).any(|d| d == bin_dir));
    if !on_path {
        println!(
            "  {} is not on your PATH: add `export PATH=\"{}:$PATH\"` to your shell's profile",
            bin_dir.display(),
            bin_dir.display()
        );
    }
    println!("  check it with `amber doctor`");
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_sdk_is_laid_out_as_files_beside_the_wit() {
        let prefix = tempdir_path("amber-install-sdk").unwrap();
        let sdk = prefix.join("share/amber/sdk");
        install_sdk(&sdk).unwrap();
        for file in [
            "wit/worlds.wit",
            "wit/tool.wit",
            "rust/Cargo.toml",
            "rust/src/lib.rs",
            "rust/wit/worlds.wit",
            "python/amber_sdk/__init__.py",
            "python/amber_sdk/tool.py",
            "js/amber-sdk.js",
            "js/amber-plugin.d.ts",
        ] {
            let path = sdk.join(file);
            let meta = std::fs::symlink_metadata(&path)
                .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            // A copy, not the checkout's link: the prefix stands alone.
            assert!(meta.is_file(), "{} is not a file", path.display());
        }
        let _ = std::fs::remove_dir_all(&prefix);
    }
}
