//! What a wasm file is, before any of its code runs: a component or a core
//! module, which `amber:plugin` version it was built for (`crate::api`),
//! and which capability interfaces it exports.

use std::collections::BTreeSet;
use std::path::Path;

use wasmtime::component::Component;
use wasmtime::Engine;

use crate::api::{self, ApiVersion, PACKAGE};
use crate::error::LoadError;
use amber_core::CapabilityKind;

/// Refuses bytes that are not a component, with a reason a user can act on.
pub fn check_is_component(wasm: &[u8], origin: &Path) -> Result<(), LoadError> {
    let not = |reason: &str| LoadError::NotAComponent {
        path: origin.to_path_buf(),
        reason: reason.to_string(),
    };
    if wasm.len() < 8 || &wasm[..4] != b"\0asm" {
        return Err(not("not a WebAssembly file (bad magic number)"));
    }
    // Bytes 4..8 are the version and layer: layer 0 is a core module, 1 a
    // component.
    match wasm[6..8] {
        [1, 0] => Ok(()),
        [0, 0] => Err(not(
            "a core wasm module, not a component; build it for wasm32-wasip2 (or run `wasm-tools component new`)",
        )),
        _ => Err(not("an unknown WebAssembly encoding")),
    }
}

/// The exports of a component that belong to `amber:plugin`.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct ExportSet {
    /// The version of `amber:plugin` its interface names carry.
    pub api: ApiVersion,
    pub capabilities: BTreeSet<CapabilityKind>,
    /// Every exported interface name, for `plugin info`.
    pub names: Vec<String>,
}

/// Stands in until the real exports are read, as the manifest's
/// placeholder does.
impl Default for ExportSet {
    fn default() -> Self {
        ExportSet {
            api: api::LATEST,
            capabilities: BTreeSet::new(),
            names: Vec::new(),
        }
    }
}

impl ExportSet {
    pub fn exports(&self, kind: CapabilityKind) -> bool {
        self.capabilities.contains(&kind)
    }
}

/// The interface name serving a capability kind, at a version.
pub fn interface_name(kind: CapabilityKind, api: ApiVersion) -> String {
    format!("{PACKAGE}{kind}@{api}")
}

/// Reads the export list and checks the API version.
pub fn read_exports(
    engine: &Engine,
    component: &Component,
    origin: &Path,
) -> Result<ExportSet, LoadError> {
    let mut set = ExportSet {
        api: api::version_of(engine, component, origin)?,
        capabilities: BTreeSet::new(),
        names: Vec::new(),
    };
    let mut has_plugin = false;
    for (name, _) in component.component_type().exports(engine) {
        set.names.push(name.to_string());
        let Some(rest) = name.strip_prefix(PACKAGE) else {
            continue;
        };
        let interface = rest.split_once('@').map_or(rest, |(interface, _)| interface);
        match interface {
            "plugin" => has_plugin = true,
            "tool" => _ = set.capabilities.insert(CapabilityKind::Tool),
            "provider" => _ = set.capabilities.insert(CapabilityKind::Provider),
            "command" => _ = set.capabilities.insert(CapabilityKind::Command),
            "prompt" => _ = set.capabilities.insert(CapabilityKind::Prompt),
            "parser" => _ = set.capabilities.insert(CapabilityKind::Parser),
            "hook" => _ = set.capabilities.insert(CapabilityKind::Hook),
            _ => {}
        }
    }
    if !has_plugin {
        return Err(LoadError::NotAPlugin {
            path: origin.to_path_buf(),
        });
    }
    Ok(set)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn core_modules_and_garbage_are_refused_with_a_reason() {
        let origin = Path::new("x.wasm");
        let core = b"\0asm\x01\0\0\0";
        let err = check_is_component(core, origin).unwrap_err().to_string();
        assert!(err.contains("core wasm module"), "{err}");
        let err = check_is_component(b"hello world", origin)
            .unwrap_err()
            .to_string();
        assert!(err.contains("bad magic"), "{err}");
        assert!(check_is_component(b"\0asm\x0d\0\x01\0", origin).is_ok());
    }
}
