//! The workspace root: `-C DIR`, then `$AMBER_WORKSPACE`, then the current
//! directory, resolved once per process by `amber_core::confine`, so
//! everything that confines paths (dispatch, shell_classify, exec) uses
//! this one root.

use std::path::{Path, PathBuf};

pub fn resolve(flag: Option<&Path>) -> anyhow::Result<PathBuf> {
    amber_core::confine::workspace_root(flag).map_err(anyhow::Error::msg)
}
