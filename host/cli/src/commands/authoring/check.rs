//! A built component loaded as amber would load it, in a scratch home
//! with the user's compile cache: registered (a valid component of our
//! API version), enabled with what it requests (its manifest,
//! `initialize`, and each declared capability against its exports), and
//! its contributions in a ledger of its own.

use std::path::Path;
use std::sync::Arc;

use amber_core::CapabilityKind;
use amber_runtime::imports::http::fixtures::HttpFixtures;
use amber_runtime::manager::PluginManager;
use amber_runtime::{AmberDirs, Grants, PluginStatus};
use anyhow::{bail, Context, Result};

use super::{Descriptor, Kind, Lang};
use amber_app::host::{self, Host};

/// Above this a component is said to be big: it takes seconds to compile
/// on first use (a Python plugin is about 18 MB).
pub const BIG_BYTES: u64 = 32 << 20;

pub struct Loaded {
    pub manager: PluginManager,
    pub status: PluginStatus,
    pub size: u64,
    /// The plugin's log in the scratch home: what a failed example shows.
    pub log: std::path::PathBuf,
    /// The scratch home; gone with this value.
    _scratch: tempfile::TempDir,
}

/// Loads `wasm` and checks it against `descriptor`. With `fixtures`, its
/// `http` requests are answered from them and never sent.
pub fn load(
    host: &Host,
    wasm: &Path,
    descriptor: &Descriptor,
    fixtures: Option<Arc<HttpFixtures>>,
) -> Result<Loaded> {
    let size = std::fs::metadata(wasm)
        .with_context(|| format!("no component at {}: build it first", wasm.display()))?
        .len();
    let scratch = tempfile::Builder::new()
        .prefix("amber-plugin-check-")
        .tempdir()?;
    let ws = scratch.path().join("workspace");
    std::fs::create_dir_all(&ws)?;
    let dirs_data = scratch.path().join("data");
    let dirs = AmberDirs {
        config: scratch.path().to_path_buf(),
        data: dirs_data.clone(),
        cache: host.dirs.cache.clone(),
    };
    let config = amber_config::Config::default();
    let manager = host::manager_in(host, dirs, &ws, &config, None, |mut o| {
        o.http_fixtures = fixtures;
        o
    })?;
    let runtime = manager.runtime();
    let (id, _) = runtime
        .register_file(wasm)
        .with_context(|| format!("{} is not a plugin amber can load", wasm.display()))?;
    let requested = runtime
        .status(&id)
        .map(|s| {
            s.manifest
                .permissions
                .iter()
                .map(|p| p.permission)
                .collect::<Vec<_>>()
        })
        .unwrap_or_default();
    let asks_http = requested.contains(&amber_runtime::Permission::Http);
    let enabled = runtime.enable(&id, Grants::of(requested));
    let status = runtime
        .status(&id)
        .with_context(|| format!("plugin `{id}` vanished"))?;
    if let Err(e) = enabled {
        bail!("plugin `{id}` fails when enabled: {e}");
    }
    let want = &descriptor.plugin;
    if status.manifest.id != want.id {
        bail!(
            "the component's manifest says id `{}`, but {} says `{}`: make them the same",
            status.manifest.id,
            super::DESCRIPTOR,
            want.id
        );
    }
    if asks_http && !want.http && matches!(want.lang, Lang::Python | Lang::Js) {
        bail!(
            "plugin `{id}` asks for `http`, but {} does not say `http = true` under [plugin]: \
             its build left out wasi:http, so every request would fail. Add the line and build again",
            super::DESCRIPTOR
        );
    }
    let kind = capability_kind(want.kind);
    if !status.contributions.iter().any(|c| c.kind == kind) {
        bail!(
            "plugin `{id}` is a {} plugin ({}) but contributes no {}: its capabilities() lists none",
            want.kind.name(),
            super::DESCRIPTOR,
            want.kind.name()
        );
    }
    let log = dirs_data.join("plugins").join(&id).join("log");
    Ok(Loaded {
        manager,
        status,
        size,
        log,
        _scratch: scratch,
    })
}

fn capability_kind(kind: Kind) -> CapabilityKind {
    match kind {
        Kind::Tool => CapabilityKind::Tool,
        Kind::Command => CapabilityKind::Command,
        Kind::Prompt => CapabilityKind::Prompt,
        Kind::Hook => CapabilityKind::Hook,
        Kind::Provider => CapabilityKind::Provider,
        Kind::Parser => CapabilityKind::Parser,
    }
}
