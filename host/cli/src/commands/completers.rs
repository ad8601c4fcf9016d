//! The dynamic values a shell completes (`amber completions`): plugin
//! ids, tool names, MCP servers, session ids, presets and models, hook
//! fingerprints and memory ids, each read from this amber's state when
//! the shell asks. clap_complete's engine calls them (`ArgValueCandidates`
//! on the args they fill); they run in the `amber complete` process, so
//! they read the dirs and the workspace from the environment, and a
//! failure is no candidates, never an error on the person's prompt line.

use amber_app::host::{FrontEnd, Host};
use amber_core::project::ProjectRoot;
use clap_complete::engine::CompletionCandidate;

/// The host and workspace the shell's `amber` would run in.
fn context() -> Option<(Host, ProjectRoot)> {
    let host = Host::new(amber_runtime::AmberDirs::from_env(), FrontEnd::headless());
    let project = crate::workspace::resolve(None).ok()?;
    Some((host, project))
}

/// The plugins loaded as the shell's `amber` would load them.
fn loaded() -> Option<(Host, ProjectRoot, amber_runtime::manager::PluginManager)> {
    let (host, project) = context()?;
    let manager = amber_app::host::loaded(&host, &project.root).ok()?;
    Some((host, project, manager))
}

fn candidate(value: impl Into<String>, help: impl Into<String>) -> CompletionCandidate {
    let help: String = help.into();
    let candidate = CompletionCandidate::new(value.into());
    if help.is_empty() {
        candidate
    } else {
        candidate.help(Some(help.into()))
    }
}

/// Every plugin id, with its version and state.
pub fn plugin_ids() -> Vec<CompletionCandidate> {
    let Some((_, _, manager)) = loaded() else {
        return Vec::new();
    };
    manager
        .list()
        .unwrap_or_default()
        .into_iter()
        .map(|p| {
            let state = if p.enabled { "enabled" } else { "disabled" };
            candidate(p.id, format!("{} {state}", p.version))
        })
        .collect()
}

/// The tools the enabled plugins offer.
pub fn tool_names() -> Vec<CompletionCandidate> {
    let Some((_, _, manager)) = loaded() else {
        return Vec::new();
    };
    manager
        .runtime()
        .ledger()
        .tools()
        .iter()
        .map(|t| {
            let spec = t.spec();
            candidate(
                spec.name.clone(),
                amber_core::text::one_line(&spec.description, 60),
            )
        })
        .collect()
}

/// The configured MCP servers.
pub fn mcp_servers() -> Vec<CompletionCandidate> {
    let Some((host, _)) = context() else {
        return Vec::new();
    };
    let Ok(config) = host.config() else {
        return Vec::new();
    };
    config
        .mcp
        .servers
        .iter()
        .map(|s| candidate(s.name.clone(), s.target()))
        .collect()
}

/// The recorded sessions, newest first, each with its first prompt; a
/// sub-agent's session is its parent's part, not offered.
pub fn session_ids() -> Vec<CompletionCandidate> {
    let Some((host, _)) = context() else {
        return Vec::new();
    };
    amber_app::session::store(&host.dirs)
        .list()
        .unwrap_or_default()
        .into_iter()
        .filter(|s| s.turns > 0 && s.parent.is_none())
        .take(50)
        .map(|s| candidate(s.id, s.title))
        .collect()
}

/// The provider presets, shipped and configured.
pub fn presets() -> Vec<CompletionCandidate> {
    presets_or_models(false)
}

/// The presets' models.
pub fn models() -> Vec<CompletionCandidate> {
    presets_or_models(true)
}

fn presets_or_models(models: bool) -> Vec<CompletionCandidate> {
    let Some((host, _)) = context() else {
        return Vec::new();
    };
    let Ok(config) = host.config() else {
        return Vec::new();
    };
    let Ok(presets) = amber_app::presets::presets_from(&config) else {
        return Vec::new();
    };
    let mut seen = std::collections::BTreeSet::new();
    presets
        .all()
        .filter(|p| seen.insert(if models { p.model.clone() } else { p.name.clone() }))
        .map(|p| {
            if models {
                candidate(p.model.clone(), format!("the model of {}", p.name))
            } else {
                candidate(p.name.clone(), format!("{} ({})", p.flavor, p.model))
            }
        })
        .collect()
}

/// The fingerprints of the workspace's command hooks.
pub fn hook_fingerprints() -> Vec<CompletionCandidate> {
    let Some((host, project, manager)) = loaded() else {
        return Vec::new();
    };
    let Ok(config) = host.config() else {
        return Vec::new();
    };
    let (listed, _) = amber_app::hooks::list(
        manager.runtime().ledger(),
        &config,
        &host.dirs,
        &project.root,
    );
    listed
        .into_iter()
        .filter_map(|h| {
            let fingerprint = h.fingerprint?;
            Some(candidate(
                fingerprint,
                format!("{} {} ({})", h.event, h.command.unwrap_or_default(), h.trust),
            ))
        })
        .collect()
}

/// The memory records of this workspace's namespace.
pub fn memory_ids() -> Vec<CompletionCandidate> {
    let Some((host, project)) = context() else {
        return Vec::new();
    };
    let Ok(store) = amber_memory::Store::open_in(&host.dirs.data) else {
        return Vec::new();
    };
    let namespace = amber_memory::namespace::for_workspace(&project.root);
    let filter = amber_memory::ListFilter {
        limit: Some(100),
        ..Default::default()
    };
    store
        .list(&namespace, &filter)
        .unwrap_or_default()
        .into_iter()
        .map(|r| candidate(r.id.to_string(), r.draft.title))
        .collect()
}

/// Every skill of the workspace, with its description.
pub fn skill_names() -> Vec<CompletionCandidate> {
    let Some((host, project)) = context() else {
        return Vec::new();
    };
    let config = host.config().unwrap_or_default();
    amber_app::skills::catalog(&host.dirs, &project.root, &config.skills)
        .skills
        .into_iter()
        .map(|s| candidate(s.name, amber_core::text::one_line(&s.description, 60)))
        .collect()
}

/// Every custom agent of the workspace, with its description.
pub fn agent_names() -> Vec<CompletionCandidate> {
    let Some((host, project)) = context() else {
        return Vec::new();
    };
    amber_app::agents::catalog(&host.dirs, &project.root)
        .agents
        .into_iter()
        .map(|a| candidate(a.name, amber_core::text::one_line(&a.description, 60)))
        .collect()
}
