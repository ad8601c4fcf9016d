//! Which tools may wait behind `tool_search` (docs/mcp.md, "Deferral"):
//! an MCP server's, and a plugin's the user added; never amber's own,
//! the bundle's, or the most used. How often each tool was used is kept
//! across sessions in `<data>/tool-usage.json`, counted when a session
//! ends.

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;
use std::sync::Arc;

use amber_core::engine::tool_search::{DeferralSettings, MayDefer};
use amber_core::{CapabilityKind, Ledger, Owner};
use amber_runtime::AmberDirs;
use amber_state::atomic::{write_atomic, FileLock};
use anyhow::{Context, Result};

/// Successful calls per tool name, over every session.
pub type Uses = BTreeMap<String, u64>;

fn usage_file(dirs: &AmberDirs) -> PathBuf {
    dirs.data.join("tool-usage.json")
}

/// The counts so far; none when the file is missing or unreadable (they
/// only order what stays declared, so a session never fails for them).
pub fn uses(dirs: &AmberDirs) -> Uses {
    read_uses(&usage_file(dirs)).unwrap_or_default()
}

/// The file's counts; none when it is missing, an error when it cannot
/// be read or parsed (then it is left as it is, never overwritten).
fn read_uses(path: &std::path::Path) -> Result<Uses> {
    match std::fs::read(path) {
        Ok(bytes) => serde_json::from_slice(&bytes)
            .with_context(|| format!("{} is not a map of counts", path.display())),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Uses::new()),
        Err(e) => Err(e).with_context(|| format!("cannot read {}", path.display())),
    }
}

/// Adds a session's counts, under the file's lock: two sessions ending
/// at once both count. A file that cannot be read is left as it is.
pub fn record(dirs: &AmberDirs, session: &Uses) -> Result<()> {
    if session.is_empty() {
        return Ok(());
    }
    let path = usage_file(dirs);
    let _lock =
        FileLock::for_file(&path).with_context(|| format!("cannot lock {}", path.display()))?;
    let mut all = read_uses(&path)?;
    for (name, n) in session {
        *all.entry(name.clone()).or_default() += n;
    }
    let bytes = serde_json::to_vec_pretty(&all)?;
    write_atomic(&path, &bytes).with_context(|| format!("cannot write {}", path.display()))
}

/// The deferral of a session over `ledger`: its tools are asked of the
/// ledger at each request, so a server's late tools are deferrable too.
/// `bundled`: the bundle's plugin ids, whose tools are amber's own.
pub fn settings(
    dirs: &AmberDirs,
    config: &amber_config::ToolsConfig,
    ledger: Arc<Ledger>,
    bundled: BTreeSet<String>,
) -> DeferralSettings {
    let mut counted: Vec<(String, u64)> = uses(dirs).into_iter().collect();
    counted.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    let keep = config.keep_most_used;
    let may_defer: MayDefer = Arc::new(move |names: &[&str]| {
        let owners: std::collections::HashMap<String, Owner> = ledger
            .records()
            .into_iter()
            .filter(|(_, c)| c.kind == CapabilityKind::Tool)
            .map(|(owner, c)| (c.name, owner))
            .collect();
        let deferrable = |tool: &str| match owners.get(tool) {
            Some(Owner::Mcp(_)) => true,
            Some(Owner::Plugin(id)) => !bundled.contains(id),
            _ => false,
        };
        // The most used of the deferrable ones stay declared.
        let kept: BTreeSet<&str> = counted
            .iter()
            .map(|(tool, _)| tool.as_str())
            .filter(|tool| deferrable(tool))
            .take(keep)
            .collect();
        names
            .iter()
            .filter(|name| deferrable(name) && !kept.contains(*name))
            .map(|name| name.to_string())
            .collect()
    });
    DeferralSettings {
        defer_over: config.defer_over,
        may_defer,
    }
}
