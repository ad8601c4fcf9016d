//! Hooks in the host (docs/hooks.md): the command hooks of the config and
//! of Claude Code's settings, trusted or skipped, installed in the ledger
//! beside the components' hooks; and what `amber hooks` and `/hooks` show.

pub mod claude;
mod command;
pub mod sources;
pub mod offer;
pub mod trust;

use std::path::Path;
use std::sync::Arc;

use amber_config::Config;
use amber_core::hooks::HookEvent;
use amber_core::{Ledger, Owner, Service};
use amber_runtime::imports::exec::ExecPolicy;
use amber_runtime::AmberDirs;
use serde::Serialize;

pub use sources::{HookDef, Source};

/// How untrusted workspace hooks are treated at start.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Trusting {
    /// Ask at the terminal when there is one; skip otherwise.
    Ask,
    /// `--trust-hooks`: trust (and pin) every hook found.
    All,
}

/// Installs the command hooks of `config` and the settings files into
/// `ledger` (as the host's). Untrusted workspace hooks are asked about or
/// skipped; the warnings say which were skipped and why.
pub fn install(
    ledger: &Ledger,
    config: &Config,
    dirs: &AmberDirs,
    workspace: &Path,
    exec: &ExecPolicy,
    trusting: Trusting,
) -> Vec<String> {
    let home = std::env::var_os("HOME").map(std::path::PathBuf::from);
    // A workspace's Claude Code hooks are offered once, never ignored
    // without a word.
    let (config, offered) = offer::offer(config, dirs, workspace);
    let (defs, mut warnings) = sources::gather(&config, workspace, home.as_deref());
    warnings.extend(offered);
    if defs.is_empty() {
        return warnings;
    }
    let mut store = match trust::TrustStore::load(&dirs.data) {
        Ok(store) => Some(store),
        Err(e) => {
            warnings.push(format!("{e:#}; workspace hooks are skipped"));
            None
        }
    };
    // Where no OS sandbox exists, a command hook would run unsandboxed:
    // never without being asked (once per fingerprint), as
    // `exec:unsandboxed` commands are.
    let backend = exec.spawner.backend();
    let no_sandbox = (!backend.is_available()).then(|| backend.describe());
    let mut unsandboxed = no_sandbox.as_ref().and_then(|_| {
        trust::TrustStore::load_unsandboxed(&dirs.data)
            .map_err(|e| warnings.push(format!("{e:#}; no hook runs unsandboxed")))
            .ok()
    });
    let (mut changed, mut allowed) = (false, false);
    for def in &defs {
        let fingerprint = def.fingerprint(workspace);
        if def.in_workspace() {
            let Some(store) = store.as_mut() else {
                continue;
            };
            if !store.is_trusted(&fingerprint) {
                let yes = match trusting {
                    Trusting::All => true,
                    Trusting::Ask => trust::can_ask() && trust::ask_on_tty(def, workspace),
                };
                if !yes {
                    warnings.push(format!(
                        "the workspace hook {} ({} `{}`) is not trusted, so it does not run; `amber hooks trust {fingerprint}` or --trust-hooks trusts it",
                        def.id, def.event, def.command
                    ));
                    continue;
                }
                store.trust(def, workspace);
                changed = true;
            }
        }
        if let Some(why) = &no_sandbox {
            let Some(store) = unsandboxed.as_mut() else {
                continue;
            };
            if !store.is_trusted(&fingerprint) {
                if !(trust::can_ask() && trust::ask_unsandboxed_on_tty(def, workspace, why)) {
                    warnings.push(format!(
                        "the hook {} ({} `{}`) is skipped: with no OS sandbox here ({why}) it would run unsandboxed; amber asks at a terminal, or `amber hooks trust --unsandboxed {fingerprint}` allows it",
                        def.id, def.event, def.command
                    ));
                    continue;
                }
                store.trust(def, workspace);
                allowed = true;
            }
        }
        let hook = command::CommandHook::new(def, workspace.to_path_buf(), exec.clone());
        if let Err(e) = ledger.install(&Owner::Host, Service::Hook(Arc::new(hook))) {
            warnings.push(e.to_string());
        }
    }
    for (store, dirty) in [(store, changed), (unsandboxed, allowed)] {
        if let Some(Err(e)) = store.filter(|_| dirty).map(|s| s.save()) {
            warnings.push(format!("{e:#}; the answer given now is not remembered"));
        }
    }
    warnings
}

/// One hook as `amber hooks list` and `/hooks` show it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Listed {
    /// A plugin id, or a command hook's name (`config#1`).
    pub hook: String,
    /// `plugin`, `config`, or the settings file.
    pub source: String,
    pub event: HookEvent,
    pub matcher: Option<String>,
    /// The command, for command hooks.
    pub command: Option<String>,
    /// `trusted`, `untrusted` (a workspace hook that does not run), or
    /// `own` (the user's own: no trust needed).
    pub trust: String,
    /// What `amber hooks trust` takes, for command hooks (a workspace
    /// hook's trust; any hook's `--unsandboxed`).
    pub fingerprint: Option<String>,
    pub priority: i32,
}

/// Every hook: the components' in `ledger`, and every command hook found,
/// trusted or not.
pub fn list(
    ledger: &Ledger,
    config: &Config,
    dirs: &AmberDirs,
    workspace: &Path,
) -> (Vec<Listed>, Vec<String>) {
    let mut listed: Vec<Listed> = ledger
        .owned_hooks()
        .into_iter()
        .filter_map(|(owner, hook)| {
            let Owner::Plugin(id) = owner else {
                return None;
            };
            let spec = hook.spec();
            let priority = config.plugins.get(&id).map_or(0, |p| p.hook_priority);
            Some(Listed {
                hook: id,
                source: "plugin".into(),
                event: spec.event,
                matcher: spec.matcher.as_str().map(str::to_string),
                command: None,
                trust: "own".into(),
                fingerprint: None,
                priority,
            })
        })
        .collect();
    let home = std::env::var_os("HOME").map(std::path::PathBuf::from);
    let (defs, mut warnings) = sources::gather(config, workspace, home.as_deref());
    let store = trust::TrustStore::load(&dirs.data)
        .map_err(|e| warnings.push(format!("{e:#}")))
        .ok();
    for def in defs {
        let fingerprint = def.fingerprint(workspace);
        let trust = if !def.in_workspace() {
            "own"
        } else if store.as_ref().is_some_and(|s| s.is_trusted(&fingerprint)) {
            "trusted"
        } else {
            "untrusted"
        };
        listed.push(Listed {
            hook: def.id.clone(),
            source: def.source.describe(),
            event: def.event,
            matcher: def.matcher.as_str().map(str::to_string),
            command: Some(def.command.clone()),
            trust: trust.into(),
            fingerprint: Some(fingerprint),
            priority: def.priority,
        });
    }
    (listed, warnings)
}

/// The priority and failure rule `[plugins.<id>]` gives each plugin's
/// hooks, for the runner.
pub fn plugin_overrides(config: &Config) -> amber_core::hooks::Overrides {
    config
        .plugins
        .iter()
        .filter(|(_, p)| p.hook_priority != 0 || p.hook_on_error.is_some())
        .map(|(id, p)| (id.clone(), (p.hook_priority, p.hook_on_error)))
        .collect()
}

/// One line for a person about a hook's outcome, or none when there is
/// nothing to tell (it passed). Both front ends print this.
pub fn describe(outcome: &amber_core::hooks::HookOutcome) -> Option<String> {
    let what = match outcome.outcome.as_str() {
        "pass" | "approve" if outcome.event != HookEvent::PermissionRequest => return None,
        "pass" => return None,
        "failed" if outcome.denied => "failed, so the action is denied".to_string(),
        "failed" => "failed; going on".to_string(),
        "deny" => "denied".to_string(),
        "approve" => "approved on your behalf".to_string(),
        other => other.to_string(),
    };
    let on = match &outcome.tool {
        Some(tool) => format!("{} `{tool}`", outcome.event),
        None => outcome.event.to_string(),
    };
    let detail = outcome
        .detail
        .as_deref()
        .map(|d| format!(": {}", amber_core::text::one_line(d, 200)))
        .unwrap_or_default();
    Some(format!("hook `{}` on {on}: {what}{detail}", outcome.hook))
}

/// The hooks as a table for people: `amber hooks list` and `/hooks`.
pub fn render(listed: &[Listed]) -> String {
    if listed.is_empty() {
        return "no hooks (docs/hooks.md says how to add one)".into();
    }
    let mut out = String::new();
    for h in listed {
        let matcher = amber_core::printable::printable(h.matcher.as_deref().unwrap_or("*"));
        let what = amber_core::printable::printable(h.command.as_deref().unwrap_or("(component)"));
        let trust = match (h.trust.as_str(), &h.fingerprint) {
            ("own", Some(fp)) => format!("  [{fp}]"),
            ("own", None) => String::new(),
            (trust, Some(fp)) => format!("  [{trust} {fp}]"),
            (trust, None) => format!("  [{trust}]"),
        };
        out.push_str(&format!(
            "{:<28} {:<19} {:<12} {:<24} {what}{trust}\n",
            h.hook,
            h.event.as_str(),
            matcher,
            h.source
        ));
    }
    out
}
