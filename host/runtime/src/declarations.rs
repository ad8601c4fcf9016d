//! What a component declares, cached by content so a plugin can be
//! registered and enabled without compiling it; it compiles lazily, on its
//! first call. Entries sit beside the compiled code (and are shared the
//! same way through `AMBER_CACHE_DIR`):
//! - `<hash>.json`: the manifest and the exports, read once by compiling;
//! - `<hash>-<context>.caps.json`: what `capabilities()` answered for one
//!   context (grants and settings), since a plugin may declare differently
//!   with different grants.

use std::collections::BTreeMap;
use std::path::PathBuf;

use amber_state::{CacheDir, Durability};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

use crate::bindings::types::Capability;
use crate::compat::ExportSet;
use crate::grants::Grants;
use crate::lifecycle::status::PluginManifest;

/// The manifest and exports of one component.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Declared {
    pub manifest: PluginManifest,
    pub exports: ExportSet,
}

/// The folders, as `amber-state` keeps every layered cache: an install's
/// precompiled cache read before the own one, never written.
pub struct DeclarationCache(CacheDir);

/// A digest of what `initialize` and `capabilities` may depend on.
pub fn context_key(grants: &Grants, settings: &BTreeMap<String, String>) -> String {
    let text = serde_json::json!({ "grants": grants, "settings": settings }).to_string();
    blake3::hash(text.as_bytes()).to_hex()[..16].to_string()
}

impl DeclarationCache {
    pub fn new(dir: PathBuf) -> Self {
        DeclarationCache(CacheDir::new(dir))
    }

    /// Also reads entries from `dirs`, before the own dir.
    pub fn with_read_only(self, dirs: Vec<PathBuf>) -> Self {
        DeclarationCache(self.0.with_read_only(dirs))
    }

    /// The first layer's entry `name` that parses (a broken one in a
    /// layer is passed over, as a miss).
    fn read<T: DeserializeOwned>(&self, name: &str) -> Option<T> {
        self.0.layers().find_map(|dir| {
            let bytes = std::fs::read(dir.join(name)).ok()?;
            serde_json::from_slice(&bytes).ok()
        })
    }

    fn write<T: Serialize>(&self, name: &str, value: &T) {
        // A cache that cannot be written only costs a compile next time.
        if let Ok(bytes) = serde_json::to_vec(value) {
            let _ = self.0.write(name, &bytes, Durability::Whole);
        }
    }

    pub fn declared(&self, hash: &str) -> Option<Declared> {
        self.read(&format!("{hash}.json"))
    }

    pub fn store_declared(&self, hash: &str, declared: &Declared) {
        self.write(&format!("{hash}.json"), declared);
    }

    pub fn capabilities(&self, hash: &str, context: &str) -> Option<Vec<Capability>> {
        self.read(&format!("{hash}-{context}.caps.json"))
    }

    pub fn store_capabilities(&self, hash: &str, context: &str, capabilities: &[Capability]) {
        self.write(&format!("{hash}-{context}.caps.json"), &capabilities);
    }
}
