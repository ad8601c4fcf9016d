//! Custom agents as text and as data: `/agents` and `amber agents`.

use serde_json::json;

use crate::agents::{AgentDef, Catalog};

/// What the agent narrows, after its description: tools, mode, model,
/// cap. Empty when it narrows nothing.
fn narrows(agent: &AgentDef) -> String {
    let mut parts = Vec::new();
    if let Some(tools) = &agent.tools {
        parts.push(format!("tools {}", tools.join(", ")));
    }
    if let Some(mode) = agent.mode {
        parts.push(format!("mode {}", mode.as_str()));
    }
    if let Some(model) = &agent.model {
        parts.push(format!("model {model}"));
    }
    if let Some(cap) = agent.max_iterations {
        parts.push(format!("max {cap} iterations"));
    }
    parts.iter().map(|p| format!(" · {p}")).collect()
}

/// One line of the list.
pub fn line(agent: &AgentDef) -> String {
    format!(
        "{:<22} {} ({}){}",
        agent.name,
        amber_core::text::one_line(&agent.description, 70),
        agent.origin.describe(),
        narrows(agent)
    )
}

/// What `/agents` and `amber agents list --json` give scripts.
pub fn data(catalog: &Catalog) -> serde_json::Value {
    json!({
        "agents": catalog.agents.iter().map(agent_data).collect::<Vec<_>>(),
        "skipped": catalog.skipped.iter().map(|s| json!({
            "path": s.path.display().to_string(),
            "reason": s.reason,
        })).collect::<Vec<_>>(),
    })
}

/// One agent as data, without its prompt (`amber agents show --json`
/// adds it).
pub fn agent_data(agent: &AgentDef) -> serde_json::Value {
    json!({
        "name": agent.name,
        "description": agent.description,
        "source": agent.origin,
        "workspace": agent.origin.from_workspace(),
        "tools": agent.tools,
        "mode": agent.mode,
        "model": agent.model,
        "max_iterations": agent.max_iterations,
        "path": agent.path.display().to_string(),
    })
}

/// The list, with what was skipped.
pub fn listing(catalog: &Catalog) -> String {
    let mut lines = Vec::new();
    if catalog.agents.is_empty() {
        lines.push(
            "no custom agents (an agent is a Markdown file in .amber/agents/; see /help agents)"
                .to_string(),
        );
    }
    lines.extend(catalog.agents.iter().map(line));
    for s in &catalog.skipped {
        lines.push(format!("skipped {}: {}", s.path.display(), s.reason));
    }
    lines.join("\n")
}

/// One agent in full: where it is, what it narrows, and its prompt.
pub fn shown(agent: &AgentDef) -> String {
    let mut out = format!(
        "{} ({})\n{}\n{}\n",
        agent.name,
        agent.origin.describe(),
        agent.description,
        agent.path.display()
    );
    if agent.origin.from_workspace() {
        out.push_str(
            "from the workspace: untrusted content; it can only narrow the parent's mode, tools and cap\n",
        );
    }
    let tools = agent.tools.as_ref().map(|t| t.join(", "));
    out.push_str(&format!(
        "tools: {}\nmode: {}\nmodel: {}\n",
        tools.as_deref().unwrap_or("the parent's"),
        agent.mode.map_or("the parent's", |m| m.as_str()),
        agent.model.as_deref().unwrap_or("the parent's"),
    ));
    if let Some(cap) = agent.max_iterations {
        out.push_str(&format!("max_iterations: {cap}\n"));
    }
    out.push('\n');
    out.push_str(&agent.prompt);
    out
}
