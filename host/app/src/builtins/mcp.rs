//! `/mcp list|connect|disconnect|prompt`: the MCP servers from inside a
//! session (or from the shell, against a hub made for the command). A
//! connect or disconnect changes the ledger, so the session declares the
//! new tools from its next turn.

use std::sync::Arc;

use amber_core::commands::{Invocation, Reply};
use amber_mcp::McpHub;
use serde_json::{json, Value};

use super::{failed, Handled};
use crate::App;

fn hub(app: &mut App) -> Result<Arc<McpHub>, super::CommandError> {
    match app.mcp() {
        Ok(Some(hub)) => Ok(hub),
        Ok(None) => Err(failed(
            "no MCP servers configured (amber mcp add NAME -- COMMAND ARGS…, or [[mcp.servers]] in config)",
        )),
        Err(e) => Err(failed(format!("{e:#}"))),
    }
}

/// The server name: the leaf a feed generated, or the first word.
fn server<'a>(inv: &'a Invocation<'_>, verb: &str) -> Result<&'a str, super::CommandError> {
    let name = match inv.path.get(2) {
        Some(name) => name.as_str(),
        None => inv.arg.split_whitespace().next().unwrap_or_default(),
    };
    if name.is_empty() {
        return Err(failed(format!("usage: /mcp {verb} NAME (see /mcp)")));
    }
    Ok(name)
}

/// `/mcp`, `/mcp list`.
pub fn list(app: &mut App, _inv: &Invocation<'_>) -> Handled {
    let statuses = match app.mcp().map_err(|e| failed(format!("{e:#}")))? {
        Some(hub) => hub.statuses(),
        None => Vec::new(),
    };
    let text = crate::mcp::render(&statuses);
    Ok(Reply::text(text.trim_end()).with_data(json!({ "servers": statuses })))
}

/// `/mcp connect NAME`.
pub fn connect(app: &mut App, inv: &Invocation<'_>) -> Handled {
    let name = server(inv, "connect")?;
    let hub = hub(app)?;
    let status = hub.connect(name).map_err(|e| failed(e.to_string()))?;
    let mut text = crate::mcp::render(std::slice::from_ref(&status));
    for note in hub.take_notes() {
        text.push_str(&format!("warning: {note}\n"));
    }
    app.sync_tools();
    Ok(Reply::text(text.trim_end()).with_data(json!({ "server": status })))
}

/// `/mcp disconnect NAME`.
pub fn disconnect(app: &mut App, inv: &Invocation<'_>) -> Handled {
    let name = server(inv, "disconnect")?;
    let hub = hub(app)?;
    hub.disconnect(name).map_err(|e| failed(e.to_string()))?;
    app.sync_tools();
    Ok(Reply::text(format!(
        "MCP server `{name}` disconnected; its tools are gone from the next turn"
    ))
    .with_data(json!({ "server": name, "connected": false })))
}

/// `/mcp prompt SERVER NAME [KEY=VALUE…]`.
pub fn prompt(app: &mut App, inv: &Invocation<'_>) -> Handled {
    let words: Vec<&str> = inv
        .path
        .get(2..)
        .unwrap_or_default()
        .iter()
        .map(String::as_str)
        .chain(inv.arg.split_whitespace())
        .collect();
    let usage = || failed("usage: /mcp prompt SERVER NAME [KEY=VALUE…]");
    let (Some(server), Some(name)) = (words.first(), words.get(1)) else {
        return Err(usage());
    };
    let mut arguments = serde_json::Map::new();
    for pair in &words[2..] {
        let Some((key, value)) = pair.split_once('=') else {
            return Err(failed(format!(
                "`{pair}` is not KEY=VALUE; usage: /mcp prompt SERVER NAME [KEY=VALUE…]"
            )));
        };
        arguments.insert(key.to_string(), Value::String(value.to_string()));
    }
    let hub = hub(app)?;
    let text = hub
        .get_prompt(server, name, arguments)
        .map_err(|e| failed(e.to_string()))?;
    Ok(Reply::text(text.clone())
        .with_data(json!({ "server": server, "prompt": name, "text": text })))
}

/// `/mcp approve SERVER TOOL`.
pub fn approve(app: &mut App, inv: &Invocation<'_>) -> Handled {
    let words: Vec<&str> = inv.arg.split_whitespace().collect();
    let [server, tool] = words[..] else {
        return Err(failed(
            "usage: /mcp approve SERVER TOOL (/mcp lists the tools held back)",
        ));
    };
    let hub = hub(app)?;
    let diff = hub
        .approve(server, tool)
        .map_err(|e| failed(e.to_string()))?;
    app.sync_tools();
    let text = format!("{diff}approved the new `{tool}` of MCP server `{server}`; it is offered from the next turn");
    Ok(Reply::text(text).with_data(json!({ "server": server, "tool": tool, "diff": diff })))
}
