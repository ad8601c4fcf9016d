//! Plugins as text: the list, one plugin's status, a state change.

use std::fmt::Write;

use amber_core::CapabilityKind;
use amber_runtime::manager::ListedPlugin;
use amber_runtime::PluginStatus;

/// The table of `amber plugin list` and `/plugins list`.
pub fn list(plugins: &[ListedPlugin]) -> String {
    if plugins.is_empty() {
        return "no plugins (add one with `amber plugin add FILE.wasm`)\n".into();
    }
    let mut out = format!(
        "{:<20} {:<8} {:<11} {:<7} CONTRIBUTES\n",
        "PLUGIN", "VERSION", "STATE", "ORIGIN"
    );
    for p in plugins {
        let origin = if p.bundled { "bundled" } else { "added" };
        let caps = p.status.contributions.len();
        let _ = writeln!(
            out,
            "{:<20} {:<8} {:<11} {:<7} {}",
            p.id,
            p.version,
            p.status.state.to_string(),
            origin,
            amber_core::text::count(caps, "contribution")
        );
        if let Some(reason) = &p.status.reason {
            let _ = writeln!(out, "  failed: {reason}");
        }
    }
    out
}

/// What a plugin provides, counted by kind and named: "  provides 2 tools
/// (read, write)"; empty when it provides nothing.
pub fn contributions(s: &PluginStatus) -> String {
    let count = |k: CapabilityKind| s.contributions.iter().filter(|c| c.kind == k).count();
    let kinds = [
        CapabilityKind::Tool,
        CapabilityKind::Provider,
        CapabilityKind::Command,
        CapabilityKind::Prompt,
        CapabilityKind::Parser,
        CapabilityKind::Hook,
    ];
    let declared: Vec<String> = kinds
        .into_iter()
        .filter(|k| count(*k) > 0)
        .map(|k| amber_core::text::count(count(k), &k.to_string()))
        .collect();
    if declared.is_empty() {
        return String::new();
    }
    let names: Vec<&str> = s.contributions.iter().map(|c| c.name.as_str()).collect();
    format!(
        "  provides {} ({})\n",
        declared.join(", "),
        names.join(", ")
    )
}

/// What follows a plugin's API version: how the host speaks to one built
/// for an older version, and what its manifest claims when that is not
/// what its interfaces say.
pub fn api_note(s: &PluginStatus) -> String {
    let mut out = String::new();
    if s.adapter {
        out.push_str(&format!(" (through the {} adapter)", s.api.line()));
    }
    let says = &s.manifest.api_version;
    if !says.is_empty() && *says != s.api.to_string() {
        out.push_str(&format!(" (its manifest says {says})"));
    }
    out
}

/// One plugin in full: manifest, state, file, hash, exports, permissions
/// and contributions (`amber plugin info`, `/plugins info`).
pub fn status(s: &PluginStatus) -> String {
    let m = &s.manifest;
    let mut out = format!(
        "{} {} ({}), amber:plugin@{}{}\n  {}\n  state    {}\n",
        m.name,
        m.version,
        m.id,
        s.api,
        api_note(s),
        m.description,
        s.state
    );
    if let Some(reason) = &s.reason {
        let _ = writeln!(out, "  failed   {reason}");
    }
    let _ = writeln!(out, "  file     {}", s.source.display());
    let _ = writeln!(out, "  blake3   {}", s.hash);
    let _ = writeln!(out, "  exports  {}", s.exports.join(", "));
    for p in &m.permissions {
        let granted = if s.grants.has(p.permission) {
            "granted"
        } else {
            "not granted"
        };
        let _ = writeln!(
            out,
            "  requests {:<16} {granted:<11}  {}",
            p.permission.as_str(),
            p.reason
        );
        if !p.hosts.is_empty() {
            let _ = writeln!(out, "           hosts: {}", p.hosts.join(", "));
        }
        if !s.grants.has(p.permission) {
            let _ = writeln!(
                out,
                "           grant it: amber plugin grant {} {}",
                m.id,
                p.permission.as_str()
            );
        }
    }
    out.push_str(&contributions(s));
    out
}

/// The outcome of enable, disable, grant or revoke: "tools-fs is active".
pub fn state_change(status: &PluginStatus) -> String {
    let mut out = format!("{} is {}\n", status.id, status.state);
    if let Some(reason) = &status.reason {
        let _ = writeln!(out, "  failed: {reason}");
    }
    out
}
