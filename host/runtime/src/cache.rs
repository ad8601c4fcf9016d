//! The content-addressed cache of compiled components.
//!
//! The key is `blake3(wasm)` (so a hit needs no bytes, only the hash)
//! plus a digest of the engine's compatibility
//! hash, so a wasmtime upgrade or a config change never loads stale code.
//! Several `AMBER_HOME`s can share one dir (`AMBER_CACHE_DIR`): entries are
//! written to a temporary file and renamed into place, so concurrent
//! writers never expose a half-written file.
//!
//! Read-only layers come first: the precompiled cache an install lays
//! beside the bundled plugins, so a fresh home compiles nothing. Entries
//! are only ever written to the user's own dir.

use std::hash::{Hash, Hasher};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use amber_state::{CacheDir, Durability};
use wasmtime::component::Component;
use wasmtime::Engine;

use crate::error::LoadError;

/// Whether a load compiled or reused compiled code.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CacheOutcome {
    Hit,
    Compiled,
}

/// Told when a component must be compiled (a miss in every layer), so a
/// front end can show it: compiling takes from a tenth of a second to
/// seconds per component.
pub trait CompileProgress: Send + Sync {
    /// `n` more components, `bytes` of wasm in all, are known to need
    /// compiling soon.
    fn expect(&self, n: usize, bytes: u64);
    /// Compiling `origin` (a component file) has started.
    fn started(&self, origin: &Path);
    /// Compiling `origin` has ended, well or not.
    fn finished(&self, origin: &Path);
}

pub struct ComponentCache {
    /// The folders, as `amber-state` keeps every layered cache.
    dir: CacheDir,
    engine_tag: String,
    progress: Option<Arc<dyn CompileProgress>>,
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
            dir: CacheDir::new(dir),
            engine_tag,
            progress: None,
        }
    }

    /// Also reads compiled code from `dirs` (each a `compiled/` folder),
    /// before the own dir, and never writes there.
    pub fn with_read_only(mut self, dirs: Vec<PathBuf>) -> Self {
        self.dir = self.dir.with_read_only(dirs);
        self
    }

    /// Reports every compile to `progress`.
    pub fn with_progress(mut self, progress: Option<Arc<dyn CompileProgress>>) -> Self {
        self.progress = progress;
        self
    }

    pub fn progress(&self) -> Option<&Arc<dyn CompileProgress>> {
        self.progress.as_ref()
    }

    /// The key of `wasm`: its blake3, as the rest of amber names a
    /// component's content.
    pub fn key(wasm: &[u8]) -> String {
        blake3::hash(wasm).to_hex().to_string()
    }

    fn file_name(&self, key: &str) -> String {
        format!("{key}-{}.cwasm", self.engine_tag)
    }

    /// Where the compiled form of the component keyed `key` lives (or
    /// would be written).
    pub fn entry(&self, key: &str) -> PathBuf {
        self.dir.entry(&self.file_name(key))
    }

    /// Whether some layer holds compiled code for the component keyed
    /// `key`.
    pub fn has(&self, key: &str) -> bool {
        self.dir.find(&self.file_name(key)).is_some()
    }

    /// Loads the component keyed `key` (from `origin`, named in errors)
    /// compiled. On a miss `wasm` gives its bytes, which are compiled and
    /// stored; a hit never asks for them. A corrupt entry is recompiled.
    pub fn load(
        &self,
        engine: &Engine,
        key: &str,
        wasm: &dyn Fn() -> Result<Arc<Vec<u8>>, LoadError>,
        origin: &Path,
    ) -> Result<(Component, CacheOutcome), LoadError> {
        let name = self.file_name(key);
        for layer in self.dir.layers() {
            let entry = layer.join(&name);
            if !entry.exists() {
                continue;
            }
            // SAFETY: entries are only ever written from
            // `Component::serialize` of this same engine configuration (the
            // engine tag is part of the name): by `store` below, or by
            // `amber plugin precompile` into a read-only layer, and renamed
            // into place whole.
            if let Ok(component) = unsafe { Component::deserialize_file(engine, &entry) } {
                return Ok((component, CacheOutcome::Hit));
            }
        }
        let wasm = wasm()?;
        if let Some(progress) = &self.progress {
            progress.started(origin);
        }
        let compiled = Component::new(engine, wasm.as_slice());
        if let Some(progress) = &self.progress {
            progress.finished(origin);
        }
        let component = compiled.map_err(|e| LoadError::Compile {
            path: origin.to_path_buf(),
            reason: format!("{e:#}"),
        })?;
        // A cache that cannot be written only costs a recompile next time;
        // compiling costs seconds, so the entry is synced.
        if let Ok(bytes) = component.serialize() {
            let _ = self.dir.write(&name, &bytes, Durability::Synced);
        }
        Ok((component, CacheOutcome::Compiled))
    }
}
