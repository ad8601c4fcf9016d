//! The one Rust toolchain amber builds with, installed when missing.
//!
//! The pin is `rust-version` in the root Cargo.toml's `[workspace.package]`:
//! one number, read by cargo (a plain `cargo build` with an older rustc
//! stops before compiling anything) and by this module. There is no
//! `rust-toolchain.toml` on purpose: rustup resolves that file before any
//! of our code runs, and with auto-install off (`RUSTUP_AUTO_INSTALL=0`, as
//! on our CI machines, and rustup 1.28's default) `cargo xtask` itself would
//! fail with "toolchain … is not installed" on a fresh machine. The xtask
//! instead builds with whatever toolchain is present (it needs nothing
//! new), installs the pinned one with rustup, and runs every other build
//! with it through `RUSTUP_TOOLCHAIN`.

use std::process::Command;
use std::sync::OnceLock;

use anyhow::{bail, Context, Result};

use crate::{root, run};

/// The components and target every build of the repository needs:
/// clippy and rustfmt for the lints, wasm32-wasip2 for the guests.
const COMPONENTS: &[&str] = &["clippy", "rustfmt"];
pub const WASM_TARGET: &str = "wasm32-wasip2";

/// How the xtask runs the pinned toolchain's tools.
#[derive(Debug, Clone)]
pub enum Toolchain {
    /// Through rustup's proxies, with `RUSTUP_TOOLCHAIN` set to the pin.
    Rustup { version: String },
    /// No rustup: the `cargo` on the PATH, already new enough.
    Path,
}

impl Toolchain {
    /// `cargo` of the pinned toolchain.
    pub fn cargo(&self) -> Command {
        let mut cmd = Command::new("cargo");
        self.apply(&mut cmd);
        cmd
    }

    /// What `cargo +NAME` takes, or `cargo` without rustup.
    pub fn name(&self) -> String {
        match self {
            Toolchain::Rustup { version } => version.clone(),
            Toolchain::Path => "the rustc on the PATH".into(),
        }
    }

    fn apply(&self, cmd: &mut Command) {
        if let Toolchain::Rustup { version } = self {
            // The outer `cargo xtask` ran on the default toolchain and
            // points CARGO and RUSTC at its binaries; the inner build must
            // take every tool from the pinned one.
            cmd.env("RUSTUP_TOOLCHAIN", version)
                .env_remove("CARGO")
                .env_remove("RUSTC")
                .env_remove("RUSTDOC");
        }
    }
}

/// The pinned toolchain, installed (with its components and the wasm
/// target) on first use in this process.
pub fn pinned() -> Result<&'static Toolchain> {
    static PINNED: OnceLock<Toolchain> = OnceLock::new();
    if let Some(toolchain) = PINNED.get() {
        return Ok(toolchain);
    }
    let version = pinned_version()?;
    let toolchain = ensure(&version)?;
    Ok(PINNED.get_or_init(|| toolchain))
}

/// `rust-version` of the root Cargo.toml's `[workspace.package]`.
pub fn pinned_version() -> Result<String> {
    let path = root().join("Cargo.toml");
    let text = std::fs::read_to_string(&path)
        .with_context(|| format!("cannot read {}", path.display()))?;
    rust_version_of(&text).with_context(|| {
        format!(
            "{} has no `rust-version` under [workspace.package]; it pins amber's Rust",
            path.display()
        )
    })
}

/// Finds `rust-version = "X"` in the `[workspace.package]` table.
fn rust_version_of(manifest: &str) -> Option<String> {
    let mut in_table = false;
    for line in manifest.lines().map(str::trim) {
        if line.starts_with('[') {
            in_table = line == "[workspace.package]";
            continue;
        }
        if !in_table {
            continue;
        }
        let Some((key, value)) = line.split_once('=') else {
            continue;
        };
        if key.trim() == "rust-version" {
            let value = value.trim().trim_matches('"');
            if !value.is_empty() {
                return Some(value.to_string());
            }
        }
    }
    None
}

fn has_rustup() -> bool {
    Command::new("rustup")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
}

fn ensure(version: &str) -> Result<Toolchain> {
    if !has_rustup() {
        return ensure_path_toolchain(version);
    }
    if !toolchain_installed(version)? {
        eprintln!(
            "xtask: installing Rust {version} (pinned by rust-version in Cargo.toml), \
             with {} and the {WASM_TARGET} target",
            COMPONENTS.join(", ")
        );
        run(Command::new("rustup")
            .args(["toolchain", "install", version, "--profile", "minimal"])
            .args(["-c", &COMPONENTS.join(",")])
            .args(["-t", WASM_TARGET])
            // The install itself must not pick a toolchain from the
            // environment of the outer cargo.
            .env_remove("RUSTUP_TOOLCHAIN"))
        .with_context(|| format!("cannot install Rust {version} with rustup"))?;
    }
    ensure_installed_list(version, "component", COMPONENTS)?;
    ensure_installed_list(version, "target", &[WASM_TARGET])?;
    Ok(Toolchain::Rustup {
        version: version.to_string(),
    })
}

/// Whether `rustup toolchain list` has `version` (as `1.99.1-<host>`).
pub(crate) fn toolchain_installed(version: &str) -> Result<bool> {
    let out = Command::new("rustup")
        .args(["toolchain", "list"])
        .output()
        .context("cannot run `rustup toolchain list`")?;
    let prefix = format!("{version}-");
    Ok(String::from_utf8_lossy(&out.stdout).lines().any(|line| {
        let name = line.split_whitespace().next().unwrap_or("");
        name == version || name.starts_with(&prefix)
    }))
}

/// Adds what `rustup <kind> list --installed` lacks of `wanted` (a
/// toolchain installed earlier by hand may miss a component or target).
fn ensure_installed_list(version: &str, kind: &str, wanted: &[&str]) -> Result<()> {
    let rustup = |args: &[&str]| {
        let mut cmd = Command::new("rustup");
        cmd.args(args).args(["--toolchain", version]);
        cmd
    };
    let out = rustup(&[kind, "list", "--installed"])
        .output()
        .with_context(|| format!("cannot run `rustup {kind} list`"))?;
    let installed = String::from_utf8_lossy(&out.stdout);
    // Components list as `clippy-x86_64-unknown-linux-gnu`, targets bare.
    let missing: Vec<&str> = wanted
        .iter()
        .copied()
        .filter(|w| {
            !installed
                .lines()
                .map(str::trim)
                .any(|l| l == *w || l.strip_prefix(*w).is_some_and(|rest| rest.starts_with('-')))
        })
        .collect();
    if missing.is_empty() {
        return Ok(());
    }
    eprintln!(
        "xtask: adding {kind}s to the pinned Rust: {}",
        missing.join(" ")
    );
    run(rustup(&[kind, "add"]).args(&missing))
}

/// Without rustup, the compiler on the PATH must already be new enough.
fn ensure_path_toolchain(version: &str) -> Result<Toolchain> {
    let out = Command::new("rustc").arg("--version").output().context(
        "neither rustup nor rustc is on the PATH; install rustup from https://rustup.rs",
    )?;
    let found = String::from_utf8_lossy(&out.stdout).to_string();
    let have = found.split_whitespace().nth(1).unwrap_or("");
    if !at_least(have, version) {
        bail!(
            "amber builds with Rust {version} or newer, and the rustc on the PATH is `{}`; \
             install rustup (https://rustup.rs) and the xtask installs Rust {version} itself",
            found.trim()
        );
    }
    Ok(Toolchain::Path)
}

/// `have >= want` for dotted versions (`1.99.1`, `1.100.0-nightly`).
pub(crate) fn at_least(have: &str, want: &str) -> bool {
    let parse = |v: &str| -> Vec<u64> {
        v.split(['-', '+'])
            .next()
            .unwrap_or("")
            .split('.')
            .map(|p| p.parse().unwrap_or(0))
            .collect()
    };
    let (have, want) = (parse(have), parse(want));
    for i in 0..want.len().max(have.len()) {
        let (h, w) = (
            have.get(i).copied().unwrap_or(0),
            want.get(i).copied().unwrap_or(0),
        );
        if h != w {
            return h > w;
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_pin_is_read_from_the_workspace_package_table_only() {
        let manifest = "[package]\nrust-version = \"1.2\"\n\n[workspace.package]\nedition = \"2021\"\nrust-version = \"1.99.1\"\n[workspace.dependencies]\nrust-version = \"9\"\n";
        assert_eq!(rust_version_of(manifest).as_deref(), Some("1.99.1"));
        assert_eq!(rust_version_of("[workspace]\nmembers = []\n"), None);
    }

    #[test]
    fn the_root_manifest_pins_a_version() {
        let version = pinned_version().expect("the root Cargo.toml pins Rust");
        assert!(
            at_least(&version, "1.97"),
            "wasmtime 50 needs 1.97, pin is {version}"
        );
    }

    #[test]
    fn versions_compare_by_number_not_by_text() {
        assert!(at_least("1.100.0", "1.99.1"));
        assert!(at_least("1.99.1", "1.99.1"));
        assert!(at_least("1.99.2-nightly", "1.99.1"));
        assert!(!at_least("1.95.0", "1.99.1"));
        assert!(!at_least("1.99", "1.99.1"));
    }
}
