//! Bundled first-party plugins: an explicit list, laid beside the binary.
//!
//! `cargo xtask guests` builds them into `target/guests/`, which is
//! `<exe dir>/../guests` for a binary in `target/<profile>/`; an installed
//! amber finds them in `<exe dir>/plugins/`, and `AMBER_BUNDLE_DIR`
//! overrides both. Only names on [`BUNDLED`] are loaded from there, so test
//! guests built beside them are never picked up.

use std::path::{Path, PathBuf};

/// The bundle, by guest name.
pub const BUNDLED: &[&str] = &[
    "prompt-workspace",
    "provider-openai",
    "provider-anthropic",
    "tools-fs",
    "tool-shell",
    "tool-grep",
    "parser-rust",
    "parser-python",
    "parser-typescript",
    "parser-markdown",
];

/// Where the bundled components are, if anywhere.
pub fn bundle_dir() -> Option<PathBuf> {
    if let Some(dir) = std::env::var_os("AMBER_BUNDLE_DIR").filter(|d| !d.is_empty()) {
        return Some(PathBuf::from(dir));
    }
    let exe = std::env::current_exe().ok()?;
    let exe_dir = exe.parent()?;
    [exe_dir.join("plugins"), exe_dir.join("../guests")]
        .into_iter()
        .find(|d| {
            BUNDLED
                .iter()
                .any(|name| d.join(format!("{name}.wasm")).exists())
        })
}

/// The bundled components present in `dir`.
pub fn files(dir: &Path) -> Vec<PathBuf> {
    BUNDLED
        .iter()
        .map(|name| dir.join(format!("{name}.wasm")))
        .filter(|p| p.exists())
        .collect()
}
