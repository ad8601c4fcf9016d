//! What the lifecycle reports: states, manifests, statuses.

use std::path::PathBuf;

use amber_core::Contribution;
use serde::{Deserialize, Serialize};

use crate::api::ApiVersion;
use crate::bindings::types;
use crate::grants::{Grants, Permission};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum PluginState {
    Registered,
    Active,
    Deactivated,
    Failed,
}

impl std::fmt::Display for PluginState {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let s = serde_json::to_value(self)
            .ok()
            .and_then(|v| v.as_str().map(String::from));
        f.write_str(&s.unwrap_or_default())
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PermissionRequest {
    pub permission: Permission,
    pub reason: String,
    /// For `http`: the hosts it asks for (docs/permissions.md).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub hosts: Vec<String>,
}

/// A plugin's manifest, as the host keeps it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PluginManifest {
    pub id: String,
    pub name: String,
    pub version: String,
    pub description: String,
    pub api_version: String,
    pub permissions: Vec<PermissionRequest>,
}

impl From<types::PluginManifest> for PluginManifest {
    fn from(m: types::PluginManifest) -> Self {
        PluginManifest {
            id: m.id,
            name: m.name,
            version: m.version,
            description: m.description,
            api_version: m.api_version,
            permissions: m
                .permissions
                .into_iter()
                .map(|p| PermissionRequest {
                    permission: p.permission.into(),
                    reason: p.reason,
                    hosts: p.hosts,
                })
                .collect(),
        }
    }
}

/// What `plugin info` shows.
#[derive(Debug, Clone, Serialize)]
pub struct PluginStatus {
    pub id: String,
    pub state: PluginState,
    /// Why the plugin is Failed, or what a Deactivated one waits for.
    pub reason: Option<String>,
    pub manifest: PluginManifest,
    /// The version of `amber:plugin` the component was built for, read
    /// from its interface names (the manifest's `api_version` is only
    /// what the plugin says).
    pub api: ApiVersion,
    /// True when the host speaks to it through an older version's adapter.
    pub adapter: bool,
    /// Capability kinds the component exports.
    pub exports: Vec<String>,
    /// blake3 of the wasm file.
    pub hash: String,
    pub source: PathBuf,
    pub grants: Grants,
    pub contributions: Vec<Contribution>,
    pub log: Option<PathBuf>,
}

/// Whether registering changed anything.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Registration {
    New,
    Unchanged,
    Replaced,
}
