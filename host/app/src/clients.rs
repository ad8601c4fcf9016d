//! The model client a preset names: a dialect for its flavor from the
//! ledger, its key from the environment, the wire options from config.
//! One place for the session, `/model` and a custom agent's model.

use std::sync::Arc;

use amber_config::Config;
use amber_core::ports::ModelClient;
use amber_core::Ledger;
use amber_wire::{make_dialect, Preset, WireClient};
use anyhow::Result;

use crate::host;

/// The model client for `preset` over the dialect the ledger has for its
/// flavor, with the flavor's name.
pub fn model_client(
    ledger: &Ledger,
    preset: &Preset,
    config: &Config,
) -> Result<(Arc<dyn ModelClient>, String)> {
    let dialect = make_dialect(ledger, preset).map_err(|e| host::with_bundle_hint(e.into()))?;
    let key = WireClient::key_from_env(preset)?;
    let flavor = dialect.flavor().name.clone();
    let client = WireClient::new(preset.clone(), dialect, key, host::wire_options(config))?;
    Ok((Arc::new(client), flavor))
}

