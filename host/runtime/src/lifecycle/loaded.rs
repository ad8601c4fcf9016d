//! A registered component: its bytes, what it declares, and its compiled
//! form once something needed it. Registration compiles only when the
//! declaration cache has never seen these bytes.

use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering;
use std::sync::{Arc, OnceLock};

use wasmtime::component::InstancePre;

use super::{Inner, PluginManifest};
use crate::compat::{self, ExportSet};
use crate::declarations::Declared;
use crate::error::{CallError, LoadError};
use crate::grants::Grants;
use crate::instance::{ExportIndices, FailureSink, HostState, InstancePool, PluginContext};
use crate::log::PluginLog;

pub(super) struct Loaded {
    wasm: Arc<Vec<u8>>,
    compiled: OnceLock<InstancePre<HostState>>,
    pub declared: Declared,
    pub hash: String,
    pub source: PathBuf,
}

pub(super) fn valid_id(id: &str) -> bool {
    let ok_char = |c: char| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-' || c == '_';
    !id.is_empty() && id.len() <= 64 && id.chars().all(ok_char) && !id.starts_with('-')
}

impl Loaded {
    /// Validates `wasm` and reads what it declares: from the declaration
    /// cache when these bytes were seen before, else by compiling it and
    /// calling `manifest` in a sandbox with nothing granted.
    pub fn load(inner: &Inner, wasm: Vec<u8>, origin: &Path) -> Result<Loaded, LoadError> {
        compat::check_is_component(&wasm, origin)?;
        let hash = blake3::hash(&wasm).to_hex().to_string();
        let loaded = Loaded {
            wasm: Arc::new(wasm),
            compiled: OnceLock::new(),
            declared: Declared {
                manifest: placeholder(),
                exports: Default::default(),
            },
            hash,
            source: origin.to_path_buf(),
        };
        if let Some(declared) = inner.declarations.declared(&loaded.hash) {
            return Ok(Loaded { declared, ..loaded });
        }
        let (pre, exports) = loaded.compile(inner)?;
        let declared = read_declared(inner, &pre, exports, origin)?;
        inner.declarations.store_declared(&loaded.hash, &declared);
        let _ = loaded.compiled.set(pre);
        Ok(Loaded { declared, ..loaded })
    }

    pub fn manifest(&self) -> &PluginManifest {
        &self.declared.manifest
    }

    pub fn wasm(&self) -> &[u8] {
        &self.wasm
    }

    pub fn is_compiled(&self) -> bool {
        self.compiled.get().is_some()
    }

    /// Compiles (or loads from the AOT cache), checks the API version and
    /// links.
    fn compile(&self, inner: &Inner) -> Result<(InstancePre<HostState>, ExportSet), LoadError> {
        let (component, _) = inner.cache.load(inner.engine, &self.wasm, &self.source)?;
        let exports = compat::read_exports(inner.engine, &component, &self.source)?;
        inner.components_loaded.fetch_add(1, Ordering::Relaxed);
        let link = |e: wasmtime::Error| LoadError::Link {
            path: self.source.clone(),
            reason: format!("{e:#}"),
        };
        let pre = inner.linker.instantiate_pre(&component).map_err(link)?;
        Ok((pre, exports))
    }

    /// The compiled component, compiling (or loading from the AOT cache)
    /// on first use.
    pub fn pre(&self, inner: &Inner) -> Result<InstancePre<HostState>, LoadError> {
        if let Some(pre) = self.compiled.get() {
            return Ok(pre.clone());
        }
        let (pre, _) = self.compile(inner)?;
        let _ = self.compiled.set(pre.clone());
        Ok(pre)
    }

    /// A new instance pool for `context`.
    pub fn pool(
        &self,
        inner: &Inner,
        context: Arc<PluginContext>,
        sink: FailureSink,
    ) -> Result<Arc<InstancePool>, CallError> {
        let instantiate = |reason: String| CallError::Instantiate {
            plugin: context.id.clone(),
            reason,
        };
        let pre = self.pre(inner).map_err(|e| instantiate(e.to_string()))?;
        let indices = ExportIndices::resolve(&pre).map_err(|e| instantiate(format!("{e:#}")))?;
        Ok(Arc::new(InstancePool::new(pre, indices, context, sink)))
    }
}

/// Stands in until the real manifest is read; never escapes `load`.
fn placeholder() -> PluginManifest {
    PluginManifest {
        id: String::new(),
        name: String::new(),
        version: String::new(),
        description: String::new(),
        api_version: String::new(),
        permissions: Vec::new(),
    }
}

fn read_declared(
    inner: &Inner,
    pre: &InstancePre<HostState>,
    exports: ExportSet,
    origin: &Path,
) -> Result<Declared, LoadError> {
    let not_loaded = |reason: String| LoadError::NotAComponent {
        path: origin.to_path_buf(),
        reason,
    };
    let indices = ExportIndices::resolve(pre).map_err(|e| not_loaded(format!("{e:#}")))?;
    // Nothing granted and no settings: reading a manifest needs neither.
    let context = inner.context("(loading)", Grants::none(), PluginLog::in_memory());
    let quiet: FailureSink = Arc::new(|_, _| {});
    let pool = InstancePool::new(pre.clone(), indices, context, quiet);
    // `manifest` comes before anything else, initialize included.
    let mut instance = pool
        .instantiate_uninitialized()
        .map_err(|e| not_loaded(e.to_string()))?;
    let manifest = pool
        .call_on(&mut instance, "manifest", |i| {
            let plugin = i.plugin.clone();
            plugin.call_manifest(&mut i.store)
        })
        .map_err(|e| not_loaded(e.to_string()))?;
    let manifest = PluginManifest::from(manifest);
    if !valid_id(&manifest.id) {
        return Err(not_loaded(format!(
            "manifest id `{}` is not valid: use 1-64 of [a-z0-9-_]",
            manifest.id
        )));
    }
    Ok(Declared { manifest, exports })
}

#[cfg(test)]
mod tests {
    use super::valid_id;

    #[test]
    fn ids_are_short_lowercase_words() {
        assert!(valid_id("tools-fs"));
        assert!(valid_id("parser_rust2"));
        assert!(!valid_id(""));
        assert!(!valid_id("Bad"));
        assert!(!valid_id("../x"));
        assert!(!valid_id(&"a".repeat(65)));
    }
}
