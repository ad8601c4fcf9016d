//! A registered component: its bytes, what it declares, and its compiled
//! form once something needed it. Registration compiles only when the
//! declaration cache has never seen these bytes.

use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

use wasmtime::component::{InstancePre, Linker};
use wasmtime::Engine;

use crate::cache::ComponentCache;
use crate::declarations::DeclarationCache;

use super::PluginManifest;
use crate::compat::{self, ExportSet};
use crate::declarations::Declared;
use crate::error::{CallError, LoadError};
use crate::grants::Grants;
use crate::instance::{ExportIndices, FailureSink, HostState, InstancePool, PluginContext};
use crate::log::PluginLog;

/// What loading a component needs of the runtime; the runtime's shared
/// state serves it (`lifecycle/mod.rs`), so this file does not import it.
pub(super) trait Loader {
    fn engine(&self) -> &'static Engine;
    fn linker(&self) -> &Linker<HostState>;
    fn cache(&self) -> &ComponentCache;
    fn declarations(&self) -> &DeclarationCache;
    /// The most bytes a plugin file may have (`[limits] plugin_file_mib`).
    fn plugin_file_bytes(&self) -> u64;
    /// Counts one more component compiled or loaded from the cache.
    fn count_loaded(&self);
    /// What every instance of plugin `id` shares.
    fn context(&self, id: &str, grants: Grants, log: Arc<PluginLog>) -> Arc<PluginContext>;
}

pub(super) struct Loaded {
    /// The bytes, when they were handed over in memory. A component
    /// registered from a file keeps none: its compiled code comes from
    /// the cache by hash, and the file is read again only to compile it.
    held: Option<Arc<Vec<u8>>>,
    compiled: OnceLock<InstancePre<HostState>>,
    pub declared: Declared,
    pub hash: String,
    pub source: PathBuf,
}

/// A component about to be registered: where it is, its content hash,
/// and its bytes when they were read to learn the hash.
#[derive(Clone)]
pub struct ComponentFile {
    pub path: PathBuf,
    pub hash: String,
    /// Its size in bytes.
    pub len: u64,
    bytes: Option<Arc<Vec<u8>>>,
    /// The bytes are the only copy (not a file's): keep them.
    in_memory: bool,
}

impl ComponentFile {
    /// A file whose hash was read from the memo: no bytes in hand.
    pub(super) fn remembered(path: &Path, hash: String, len: u64) -> Self {
        ComponentFile {
            path: path.to_path_buf(),
            hash,
            len,
            bytes: None,
            in_memory: false,
        }
    }

    /// A file just read.
    pub(super) fn read(path: &Path, bytes: Vec<u8>) -> Self {
        ComponentFile {
            in_memory: false,
            ..Self::in_memory(bytes, path)
        }
    }

    /// Whether the bytes were read to learn the hash (no memo served it).
    pub fn was_read(&self) -> bool {
        self.bytes.is_some()
    }

    /// Bytes in memory; `origin` only names them in messages.
    pub(super) fn in_memory(bytes: Vec<u8>, origin: &Path) -> Self {
        ComponentFile {
            path: origin.to_path_buf(),
            hash: crate::cache::ComponentCache::key(&bytes),
            len: bytes.len() as u64,
            bytes: Some(Arc::new(bytes)),
            in_memory: true,
        }
    }
}

pub(super) fn valid_id(id: &str) -> bool {
    let ok_char = |c: char| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-' || c == '_';
    !id.is_empty() && id.len() <= 64 && id.chars().all(ok_char) && !id.starts_with('-')
}

impl Loaded {
    /// Validates the component and reads what it declares: from the
    /// declaration cache when these bytes were seen before (then a file
    /// whose hash was remembered is not read at all), else by compiling
    /// it and calling `manifest` in a sandbox with nothing granted.
    pub fn load(inner: &dyn Loader, file: ComponentFile) -> Result<Loaded, LoadError> {
        let cached = inner.declarations().declared(&file.hash);
        if let Some(bytes) = &file.bytes {
            compat::check_is_component(bytes, &file.path)?;
        }
        let loaded = Loaded {
            held: file.bytes.clone().filter(|_| file.in_memory),
            compiled: OnceLock::new(),
            declared: Declared {
                manifest: placeholder(),
                exports: Default::default(),
            },
            hash: file.hash,
            source: file.path,
        };
        if let Some(declared) = cached {
            return Ok(Loaded { declared, ..loaded });
        }
        // Never seen: compile from the bytes in hand (read now when the
        // memo named a hash whose declarations are gone from the cache).
        let bytes = match file.bytes {
            Some(bytes) => bytes,
            None => {
                let bytes = loaded.bytes(inner)?;
                compat::check_is_component(&bytes, &loaded.source)?;
                bytes
            }
        };
        let (pre, exports) = loaded.compile(inner, Some(bytes))?;
        let declared = read_declared(inner, &pre, exports, &loaded.source)?;
        inner.declarations().store_declared(&loaded.hash, &declared);
        let _ = loaded.compiled.set(pre);
        Ok(Loaded { declared, ..loaded })
    }

    pub fn manifest(&self) -> &PluginManifest {
        &self.declared.manifest
    }

    pub fn is_compiled(&self) -> bool {
        self.compiled.get().is_some()
    }

    /// The component's bytes: held, or read from its file and checked
    /// against the hash it was registered with, so code compiled now is
    /// the code that was declared.
    fn bytes(&self, inner: &dyn Loader) -> Result<Arc<Vec<u8>>, LoadError> {
        if let Some(bytes) = &self.held {
            return Ok(bytes.clone());
        }
        let bytes = read_component(&self.source, inner.plugin_file_bytes())?;
        if crate::cache::ComponentCache::key(&bytes) != self.hash {
            return Err(LoadError::Read {
                path: self.source.clone(),
                reason: "changed since amber registered it; run amber again (or re-add the plugin) to load the new version".into(),
            });
        }
        Ok(Arc::new(bytes))
    }

    /// Compiles (or loads from the AOT cache, which needs no bytes),
    /// checks the API version and links.
    fn compile(
        &self,
        inner: &dyn Loader,
        in_hand: Option<Arc<Vec<u8>>>,
    ) -> Result<(InstancePre<HostState>, ExportSet), LoadError> {
        let bytes = || match &in_hand {
            Some(bytes) => Ok(bytes.clone()),
            None => self.bytes(inner),
        };
        let (component, _) =
            inner
                .cache()
                .load(inner.engine(), &self.hash, &bytes, &self.source)?;
        let exports = compat::read_exports(inner.engine(), &component, &self.source)?;
        inner.count_loaded();
        let link = |e: wasmtime::Error| LoadError::Link {
            path: self.source.clone(),
            reason: format!("{e:#}"),
        };
        let pre = inner.linker().instantiate_pre(&component).map_err(link)?;
        Ok((pre, exports))
    }

    /// The compiled component, compiling (or loading from the AOT cache)
    /// on first use.
    pub fn pre(&self, inner: &dyn Loader) -> Result<InstancePre<HostState>, LoadError> {
        if let Some(pre) = self.compiled.get() {
            return Ok(pre.clone());
        }
        let (pre, _) = self.compile(inner, None)?;
        let _ = self.compiled.set(pre.clone());
        Ok(pre)
    }

    /// A new instance pool for `context`.
    pub fn pool(
        &self,
        inner: &dyn Loader,
        context: Arc<PluginContext>,
        sink: FailureSink,
    ) -> Result<Arc<InstancePool>, CallError> {
        let instantiate = |reason: String| CallError::Instantiate {
            plugin: context.id.clone(),
            reason,
        };
        let pre = self.pre(inner).map_err(|e| instantiate(e.to_string()))?;
        let indices = ExportIndices::resolve(&pre, self.declared.exports.api)
            .map_err(|e| instantiate(format!("{e:#}")))?;
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
    inner: &dyn Loader,
    pre: &InstancePre<HostState>,
    exports: ExportSet,
    origin: &Path,
) -> Result<Declared, LoadError> {
    let not_loaded = |reason: String| LoadError::NotAComponent {
        path: origin.to_path_buf(),
        reason,
    };
    let indices =
        ExportIndices::resolve(pre, exports.api).map_err(|e| not_loaded(format!("{e:#}")))?;
    // Nothing granted and no settings: reading a manifest needs neither.
    let context = inner.context("(loading)", Grants::none(), PluginLog::in_memory());
    let quiet: FailureSink = Arc::new(|_, _| {});
    let pool = InstancePool::new(pre.clone(), indices, context, quiet);
    // `manifest` comes before anything else, initialize included.
    let mut instance = pool
        .instantiate_uninitialized()
        .map_err(|e| not_loaded(e.to_string()))?;
    let manifest = pool
        .call_on(&mut instance, "manifest", |i| i.exports.plugin.manifest(&mut i.store))
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

/// Reads a component file: only a regular file (a FIFO would hang amber,
/// `/dev/zero` would fill its memory), and at most `cap` bytes. Opened
/// non-blocking, so a FIFO put in its place after the check cannot hang
/// the read either.
pub fn read_component(path: &Path, cap: u64) -> Result<Vec<u8>, LoadError> {
    use std::io::Read;
    use std::os::unix::fs::{FileTypeExt, OpenOptionsExt};
    let refuse = |reason: String| LoadError::Read {
        path: path.to_path_buf(),
        reason,
    };
    let meta = std::fs::metadata(path).map_err(|e| refuse(e.to_string()))?;
    let kind = meta.file_type();
    if !kind.is_file() {
        let what = if kind.is_dir() {
            "a directory"
        } else if kind.is_fifo() {
            "a FIFO"
        } else if kind.is_char_device() || kind.is_block_device() {
            "a device"
        } else if kind.is_socket() {
            "a socket"
        } else {
            "not a regular file"
        };
        return Err(refuse(format!(
            "is {what}; a plugin is read only from a regular .wasm file"
        )));
    }
    let too_big = |size: u64| {
        refuse(format!(
            "is {} MiB, more than the {} MiB a plugin may be (`[limits] plugin_file_mib`)",
            size.div_ceil(1 << 20),
            cap >> 20
        ))
    };
    if meta.len() > cap {
        return Err(too_big(meta.len()));
    }
    let file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(path)
        .map_err(|e| refuse(e.to_string()))?;
    if !file
        .metadata()
        .map_err(|e| refuse(e.to_string()))?
        .is_file()
    {
        return Err(refuse(
            "changed into something other than a regular file while being read".into(),
        ));
    }
    let mut bytes = Vec::new();
    file.take(cap + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| refuse(e.to_string()))?;
    if bytes.len() as u64 > cap {
        return Err(too_big(bytes.len() as u64));
    }
    Ok(bytes)
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
