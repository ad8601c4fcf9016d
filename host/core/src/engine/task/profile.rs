//! Custom agents (docs/agents.md): a named sub-agent with its own system
//! prompt, and tools, mode, model and iteration cap that can only narrow
//! what its parent has. The files are read by the host's front ends; the
//! core gets them as [`AgentProfile`]s.

use std::sync::Arc;

use crate::policy::Mode;
use crate::ports::ModelClient;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AgentProfile {
    pub name: String,
    pub description: String,
    /// The tools it may call, by amber name; `None`: all its parent's.
    /// A name its parent does not have is not added.
    pub tools: Option<Vec<String>>,
    /// The commands `shell` may run (Claude Code's `Bash(git diff:*)`
    /// patterns); `None`: any the mode allows.
    pub commands: Option<Vec<String>>,
    /// A provider preset or a model name; `None`: its parent's model.
    pub model: Option<String>,
    /// Its mode; the parent's when stricter.
    pub mode: Option<Mode>,
    /// Model calls per run; never more than `subagent_max_iterations`.
    pub max_iterations: Option<u32>,
    /// Read from the workspace (untrusted, like AGENTS.md): its `model`
    /// may only name a model of the parent's provider, never another
    /// preset, whose endpoint and key the workspace does not choose.
    pub from_workspace: bool,
    /// Its instructions, after amber's sub-agent preamble.
    pub system_prompt: String,
    /// The file it came from, for messages.
    pub source: String,
}

impl AgentProfile {
    /// Whether it may call `tool`.
    pub fn allows(&self, tool: &str) -> bool {
        self.tools
            .as_ref()
            .is_none_or(|tools| tools.iter().any(|t| t == tool))
    }
}

/// A model a sub-agent runs on: its client and what the request names.
pub struct SubAgentModel {
    pub client: Arc<dyn ModelClient>,
    /// The provider preset it comes from, for the sub-agent's session.
    pub provider: String,
    pub model: String,
    pub flavor: String,
    pub context_window: u64,
    /// Its price, when config has one.
    pub price: Option<crate::engine::Price>,
    /// Whether it takes images, as its preset says.
    pub images: bool,
}

/// Finds the model a custom agent names: the host knows the presets and
/// keys; the core only asks.
pub trait ModelResolver: Send + Sync {
    /// `name` is a preset's or a model's; with `presets` false only a
    /// model of the parent's provider. `Err` says why, naming the model.
    fn resolve(&self, name: &str, presets: bool) -> Result<SubAgentModel, String>;
}
