//! The content-addressed cache of compiled components.
//!
//! The key is `blake3(wasm)` plus a digest of the engine's compatibility
//! hash, so a wasmtime upgrade or a config change never loads stale code.
//! Several `AMBER_HOME`s can share one dir (`AMBER_CACHE_DIR`): entries are
//! written to a temporary file and renamed into place, so concurrent
//! writers never expose a half-written file.

use std::hash::{Hash, Hasher};
use std::path::{Path, PathBuf};

use wasmtime::component::Component;
use wasmtime::Engine;

use crate::error::LoadError;

/// Whether a load compiled or reused compiled code.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CacheOutcome {
    Hit,
    Compiled,
}

pub struct ComponentCache {
    dir: PathBuf,
    engine_tag: String,
}

/// Feeds `Hash` output into blake3, for a digest that is stable across runs.
struct Blake3Hasher(blake3::Hasher);

impl Hasher for Blake3Hasher {
    fn finish(&self) -> u64 {
        let bytes = self.0.finalize();
        let mut first = [0u8; 8];
        first.copy_from_slice(&bytes.as_bytes()[..8]);
        u64::from_le_bytes(first)
    }

    fn write(&mut self, bytes: &[u8]) {
        self.0.update(bytes);
    }
}

impl ComponentCache {
    pub fn new(dir: &Path, engine: &Engine) -> Self {
        let mut hasher = Blake3Hasher(blake3::Hasher::new());
        engine.precompile_compatibility_hash().hash(&mut hasher);
        let engine_tag = hasher.0.finalize().to_hex()[..16].to_string();
        ComponentCache {
            dir: dir.to_path_buf(),
            engine_tag,
        }
    }

    /// Where the compiled form of `wasm` lives.
    pub fn entry(&self, wasm: &[u8]) -> PathBuf {
        let content = blake3::hash(wasm).to_hex();
        self.dir
            .join(format!("{content}-{}.cwasm", self.engine_tag))
    }

    /// Loads `wasm` (read from `origin`, named in errors) compiled,
    /// compiling and storing it on a miss. A corrupt entry is recompiled.
    pub fn load(
        &self,
        engine: &Engine,
        wasm: &[u8],
        origin: &Path,
    ) -> Result<(Component, CacheOutcome), LoadError> {
        let entry = self.entry(wasm);
        if entry.exists() {
            // SAFETY: entries are only ever written by `store` below from
            // `Component::serialize` of this same engine configuration (the
            // engine tag is part of the name), and renamed into place whole.
            if let Ok(component) = unsafe { Component::deserialize_file(engine, &entry) } {
                return Ok((component, CacheOutcome::Hit));
            }
        }
        let component = Component::new(engine, wasm).map_err(|e| LoadError::Compile {
            path: origin.to_path_buf(),
            reason: format!("{e:#}"),
        })?;
        // A cache that cannot be written only costs a recompile next time.
        if let Ok(bytes) = component.serialize() {
            let _ = self.store(&entry, &bytes);
        }
        Ok((component, CacheOutcome::Compiled))
    }

    fn store(&self, entry: &Path, bytes: &[u8]) -> std::io::Result<()> {
        crate::atomic::write_atomic(entry, bytes)
    }
}
