//! `installed.json`: the plugins a user added, and their enablement.

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct Installed {
    pub plugins: BTreeMap<String, InstalledPlugin>,
    /// Bundled plugins the user removed; they stay out until added again.
    pub removed_bundled: BTreeSet<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct InstalledPlugin {
    /// The kept copy, `data/plugins/<id>/<hash>.wasm`.
    pub file: PathBuf,
    pub hash: String,
    pub enabled: bool,
    /// An entry for a bundled plugin only records its enablement.
    #[serde(default)]
    pub bundled: bool,
}
