//! `/plugins list|enable|disable|info`: the same views as `amber plugin`,
//! and enable/disable take effect in the running process: the command
//! tree is rebuilt as soon as the command returns.

use amber_core::commands::{Invocation, Reply};
use serde_json::json;

use super::{failed, Handled};
use crate::render::plugins as render;
use crate::App;

/// `/plugins`, `/plugins list`.
pub fn list(app: &mut App, _inv: &Invocation<'_>) -> Handled {
    let plugins = app.manager().list().map_err(|e| failed(e.to_string()))?;
    Ok(Reply::text(render::list(&plugins).trim_end()).with_data(json!({ "plugins": plugins })))
}

/// `/hooks`: every hook with its source, events, matcher and trust.
pub fn hooks(app: &mut App, _inv: &Invocation<'_>) -> Handled {
    let (listed, warnings) = crate::hooks::list(
        app.manager().runtime().ledger(),
        app.config(),
        &app.dirs,
        &app.project.root,
    );
    let mut text = crate::hooks::render(&listed).trim_end().to_string();
    for warning in &warnings {
        text.push_str(&format!("\nwarning: {warning}"));
    }
    Ok(Reply::text(text).with_data(json!({ "hooks": listed, "warnings": warnings })))
}

/// The plugin id: the leaf a feed generated, or the argument.
fn id<'a>(inv: &'a Invocation<'_>, verb: &str) -> Result<&'a str, super::CommandError> {
    let id = match inv.path.get(2) {
        Some(id) => id.as_str(),
        None => inv.arg.trim(),
    };
    if id.is_empty() {
        return Err(failed(format!(
            "usage: /plugins {verb} ID (see /plugins list)"
        )));
    }
    Ok(id)
}

pub fn enable(app: &mut App, inv: &Invocation<'_>) -> Handled {
    switch(app, id(inv, "enable")?, true)
}

pub fn disable(app: &mut App, inv: &Invocation<'_>) -> Handled {
    switch(app, id(inv, "disable")?, false)
}

/// Enables or disables `id` and asks for the tree to be rebuilt.
pub fn switch(app: &mut App, id: &str, enabled: bool) -> Handled {
    // The tree follows once the command returns, even after a failed
    // enable (it may have changed what is installed).
    let result = app.manager_mut().set_enabled(id, enabled);
    let status = result.map_err(|e| failed(e.to_string()))?;
    Ok(
        Reply::text(render::state_change(&status).trim_end())
            .with_data(json!({ "plugin": status })),
    )
}

/// `/plugins info ID`.
pub fn info(app: &mut App, inv: &Invocation<'_>) -> Handled {
    let id = id(inv, "info")?;
    info_of(app, id)
}

/// One plugin's status in full.
pub fn info_of(app: &mut App, id: &str) -> Handled {
    let status = app
        .manager()
        .runtime()
        .status(id)
        .ok_or_else(|| failed(format!("no plugin `{id}` (see /plugins list)")))?;
    Ok(Reply::text(render::status(&status).trim_end()).with_data(json!({ "plugin": status })))
}
