//! The workspace root: `-C DIR`, then `$AMBER_WORKSPACE`, then the current
//! directory. Everything that confines paths uses this one root.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result};

pub fn resolve(flag: Option<&Path>) -> Result<PathBuf> {
    let chosen = match flag {
        Some(dir) => dir.to_path_buf(),
        None => match std::env::var_os("AMBER_WORKSPACE").filter(|v| !v.is_empty()) {
            Some(dir) => PathBuf::from(dir),
            None => std::env::current_dir().context("cannot read the current directory")?,
        },
    };
    std::fs::canonicalize(&chosen)
        .with_context(|| format!("workspace {} does not exist", chosen.display()))
}
