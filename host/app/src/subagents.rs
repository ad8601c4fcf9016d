//! What a session gives its sub-agents (docs/agents.md): the custom
//! agents read from disk, a way to reach the model one names, and where
//! their sessions are recorded; and the native tools only the main agent
//! has, added after the ledger's: `task`, `todo_write`, `todo_read` and
//! `exit_plan`.

use std::sync::Arc;

use amber_config::{Config, SubagentMode};
use amber_core::engine::plan::PlanTool;
use amber_core::engine::task::{
    AgentProfile, ChildSessions, Execution, ModelResolver, SubAgentModel, TaskContext, TaskTool,
};
use amber_core::engine::todo::TodoList;
use amber_core::engine::AgentConfig;
use amber_core::ports::Tool;
use amber_core::Ledger;
use amber_wire::Preset;

use crate::presets::presets_from;

/// The sub-agent setup of one session.
#[derive(Clone)]
pub struct SubAgents {
    pub profiles: Vec<AgentProfile>,
    pub sessions: Option<ChildSessions>,
    /// Sub-agents started in the session so far (a resumed session's
    /// included), shared by every `task` tool it is given.
    pub started: Arc<std::sync::atomic::AtomicU32>,
}

/// Finds a custom agent's model: a provider preset by name, or a model
/// of the parent's provider.
struct PresetResolver {
    ledger: Arc<Ledger>,
    config: Config,
    parent: Preset,
}

impl ModelResolver for PresetResolver {
    fn resolve(&self, name: &str, presets: bool) -> Result<SubAgentModel, String> {
        let preset = match presets_from(&self.config)
            .ok()
            .filter(|_| presets)
            .and_then(|presets| presets.get(name).ok().cloned())
        {
            Some(preset) => preset,
            None => Preset {
                model: name.to_string(),
                ..self.parent.clone()
            },
        };
        let (client, flavor) = crate::clients::model_client(&self.ledger, &preset, &self.config)
            .map_err(|e| format!("{e:#}"))?;
        Ok(SubAgentModel {
            client,
            provider: preset.name.clone(),
            model: preset.model.clone(),
            flavor,
            context_window: preset.context_window,
            price: self.config.price_of(&preset.name, &preset.model),
            images: preset.images,
        })
    }
}

/// What the main agent's tools are made of, besides its settings.
pub struct MainTools<'a> {
    pub config: &'a Config,
    pub ledger: &'a Arc<Ledger>,
    pub preset: &'a Preset,
    pub subagents: &'a SubAgents,
    pub todos: &'a Arc<TodoList>,
    pub jobs: &'a Arc<crate::jobs::Jobs>,
}

/// `context.tools`, then `task` (whose sub-agents get those tools,
/// never `task` itself, and the parent's settings), the todo list's two
/// tools, `exit_plan` and the background process tools.
pub fn main_tools(main: MainTools<'_>, context: TaskContext) -> Vec<Arc<dyn Tool>> {
    let agent_config = &main.config.agent;
    let policy = context.policy.clone();
    let mut tools = context.tools.clone();
    let task = TaskTool::new(
        TaskContext {
            config: AgentConfig {
                system_prompt: String::new(),
                ..context.config
            },
            profiles: main.subagents.profiles.clone(),
            models: Some(Arc::new(PresetResolver {
                ledger: main.ledger.clone(),
                config: main.config.clone(),
                parent: main.preset.clone(),
            })),
            // The provider in force now (`/set provider` changes it).
            sessions: main.subagents.sessions.clone().map(|s| ChildSessions {
                provider: main.preset.name.clone(),
                ..s
            }),
            started: main.subagents.started.clone(),
            ..context
        },
        match agent_config.subagents {
            SubagentMode::Serial => Execution::Serial,
            SubagentMode::Parallel => Execution::Parallel(agent_config.subagent_max as usize),
        },
    );
    tools.push(Arc::new(task));
    tools.extend(main.todos.tools());
    tools.push(Arc::new(PlanTool::default()));
    tools.extend(crate::jobs::tools::tools(main.jobs, &policy));
    tools
}
