//! The first start in a workspace whose `.claude/settings.json` defines
//! hooks, while `hooks.claude_settings` is off: amber offers to use them
//! (each is still asked about before it runs, trust.rs) instead of
//! silently ignoring them. Asked once per workspace at a terminal; a run
//! without one says how to turn them on, once. What was asked is kept in
//! `<data>/claude-hooks-offered.json`.

use std::collections::BTreeSet;
use std::io::{BufRead, Write};
use std::path::Path;

use amber_config::Config;
use amber_runtime::AmberDirs;

const OFFERED_FILE: &str = "claude-hooks-offered.json";

/// Whether `workspace`'s Claude Code settings define any hook.
fn has_claude_hooks(workspace: &Path) -> bool {
    let Ok(text) = std::fs::read_to_string(workspace.join(".claude/settings.json")) else {
        return false;
    };
    serde_json::from_str::<serde_json::Value>(&text)
        .ok()
        .and_then(|v| v.get("hooks").cloned())
        .and_then(|h| h.as_object().map(|o| !o.is_empty()))
        .unwrap_or(false)
}

/// Offers the workspace's Claude Code hooks when it has some, the config
/// does not read them, and this workspace was not asked before. Returns
/// the config to install hooks from (with them on when accepted), and
/// what to tell the person.
pub fn offer(config: &Config, dirs: &AmberDirs, workspace: &Path) -> (Config, Vec<String>) {
    if config.hooks.claude_settings || !has_claude_hooks(workspace) {
        return (config.clone(), Vec::new());
    }
    let path = dirs.data.join(OFFERED_FILE);
    let mut offered: BTreeSet<String> = std::fs::read_to_string(&path)
        .ok()
        .and_then(|t| serde_json::from_str(&t).ok())
        .unwrap_or_default();
    let key = workspace.display().to_string();
    if offered.contains(&key) {
        return (config.clone(), Vec::new());
    }
    offered.insert(key);
    let save = |offered: &BTreeSet<String>| -> Vec<String> {
        let text = serde_json::to_string_pretty(offered).unwrap_or_default();
        match amber_state::atomic::write_private(&path, text.as_bytes()) {
            Ok(()) => Vec::new(),
            Err(e) => vec![format!("cannot remember that the Claude Code hooks were offered: {e}")],
        }
    };
    if !super::trust::can_ask() {
        let mut notes = save(&offered);
        notes.push(
            "this workspace's .claude/settings.json defines hooks, which amber does not run; add `[hooks] claude_settings = true` to the config to use them (each is asked about before it runs)".into(),
        );
        return (config.clone(), notes);
    }
    let mut notes = save(&offered);
    if !ask_on_tty() {
        notes.push("the workspace's Claude Code hooks stay off (turn them on with `[hooks] claude_settings = true` in the config)".into());
        return (config.clone(), notes);
    }
    let config_path = crate::host::config_path(dirs);
    match crate::config_file::set(&config_path, "hooks.claude_settings", true.into()) {
        Ok(config) => {
            notes.push(format!(
                "hooks.claude_settings = true (saved in {}): Claude Code hooks are read; each is asked about before it runs",
                config_path.display()
            ));
            (config, notes)
        }
        Err(e) => {
            notes.push(format!("{e:#}; the Claude Code hooks stay off"));
            (config.clone(), notes)
        }
    }
}

fn ask_on_tty() -> bool {
    let Ok(tty) = std::fs::File::open("/dev/tty") else {
        return false;
    };
    let mut err = std::io::stderr();
    let _ = write!(
        err,
        "\namber: this workspace's .claude/settings.json defines hooks (Claude Code's).\n  Read Claude Code hooks from now on? This sets `hooks.claude_settings = true` in your config: every workspace's .claude/settings.json hooks are then asked about one by one before any runs, and your own ~/.claude/settings.json hooks run as yours. [y/N] "
    );
    let _ = err.flush();
    let mut line = String::new();
    let _ = std::io::BufReader::new(tty).read_line(&mut line);
    matches!(line.trim(), "y" | "Y" | "yes")
}
