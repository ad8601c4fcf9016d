//! Sub-agents: the host-native `task` tool. Seed: "Sub-agent execution".
//! Each task runs an agent of its own (its own Context and system prompt,
//! `max_iterations` 20 by default, no confirm turn, no `task` tool of its
//! own) with the parent's model and tools, and its final reply goes back
//! to the parent as the tool result. Serial by default, so sequential
//! requests share the system-prompt prefix and the provider's prompt
//! cache stays warm; parallel on request, capped by `max`.
//!
//! A task may name a custom agent ([`AgentProfile`], docs/agents.md),
//! which narrows the tools, the mode, the model and the cap. Every
//! sub-agent runs under its own view of the policy, taken as it starts,
//! so nothing done to the parent's loosens it; records a session of its
//! own, linked both ways with its parent's; and reports its events to
//! the parent's run tagged with its id (`task-1`).

mod profile;

use std::path::PathBuf;
use std::sync::Arc;

use serde_json::{json, Value};
use tokio::sync::Semaphore;

use super::side_events::SideSender;
use super::{Agent, AgentConfig, AgentEvent, AgentPorts, Interrupt, Outcome};
use crate::context::ContextChain;
use crate::policy::Policy;
use crate::ports::{
    CompressionGate, ModelClient, PromptBlock, Tool, ToolError, ToolOutput, ToolSpec,
};
use crate::session::{ParentLink, SessionStore, SessionWriter};

pub use profile::{AgentProfile, ModelResolver, SubAgentModel};

pub const TASK_TOOL: &str = "task";
pub const DEFAULT_SUBAGENT_ITERATIONS: u32 = 20;
pub const MAX_PARALLEL: usize = 16;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Execution {
    Serial,
    /// At most this many at once (1–16).
    Parallel(usize),
}

/// Where sub-agents' sessions go, and the parent session they link to.
#[derive(Debug, Clone)]
pub struct ChildSessions {
    /// The sessions folder.
    pub dir: PathBuf,
    /// The parent session's id.
    pub parent: String,
    pub workspace: String,
    /// The parent's provider preset, for a sub-agent on its model.
    pub provider: String,
}

/// What every sub-agent shares with the parent.
pub struct TaskContext {
    /// The parent's settings; the task changes the prompt and the caps.
    pub config: AgentConfig,
    pub model: Arc<dyn ModelClient>,
    /// The parent's tools (the `task` tool is never among them).
    pub tools: Vec<Arc<dyn Tool>>,
    /// The ledger the parent follows, when it does: a sub-agent is also
    /// offered the ledger's tools that arrived after `tools` were taken
    /// (an MCP server that answered late), and follows it through its run.
    pub ledger: Option<Arc<crate::Ledger>>,
    /// The parent's tool search: a sub-agent defers the same tools.
    pub tool_search: Option<crate::engine::tool_search::DeferralSettings>,
    /// Where the parent counts its tools' use: a sub-agent's calls count
    /// there too.
    pub tool_uses: Option<crate::engine::tool_search::ToolUses>,
    pub blocks: Vec<Arc<dyn PromptBlock>>,
    /// The parent's policy: each sub-agent takes a view of it.
    pub policy: Arc<Policy>,
    pub gate: Arc<dyn CompressionGate>,
    pub max_iterations: u32,
    /// The parent's interrupt: interrupting the run cancels its
    /// sub-agents (each runs under a child of the run's token).
    pub interrupt: Interrupt,
    /// Read coverage: each sub-agent's reads are tracked apart, as
    /// `task-<n>`.
    pub reads: Option<Arc<dyn crate::ports::ReadTracker>>,
    /// The session's hooks: each sub-agent's tool calls pass them, and
    /// its end fires `subagent-stop`.
    pub hooks: Option<Arc<crate::hooks::HookRunner>>,
    /// The custom agents a task may name.
    pub profiles: Vec<AgentProfile>,
    /// Finds the model a custom agent names.
    pub models: Option<Arc<dyn ModelResolver>>,
    /// Where sub-agents' sessions are recorded; `None`: they are not.
    pub sessions: Option<ChildSessions>,
    /// Where a sub-agent's events go: the parent's run.
    pub events: SideSender,
    /// Sub-agents started in the session so far (a resumed one's
    /// included): the next one's number when no read tracker numbers
    /// them. Shared by every `task` tool the session makes.
    pub started: Arc<std::sync::atomic::AtomicU32>,
    /// What makes the images a sub-agent's tools return ready to send.
    pub image_prep: Option<Arc<dyn crate::ports::ImagePrep>>,
}

pub struct TaskTool {
    spec: ToolSpec,
    context: TaskContext,
    permits: Semaphore,
}

/// One task, as the model asked for it.
struct Request<'a> {
    prompt: &'a str,
    description: &'a str,
    profile: Option<&'a AgentProfile>,
    call_id: String,
}

fn spec(profiles: &[AgentProfile]) -> ToolSpec {
    let mut description = String::from(
        "Hand a self-contained piece of work to a sub-agent with a fresh context. \
        It has the same tools and permissions (or a custom agent's narrower ones), and \
        returns its final reply. Give it everything it needs in `prompt`; several tasks \
        in one turn may run in parallel.",
    );
    let mut properties = json!({
        "prompt": {"type": "string", "description": "The whole task, with the context it needs."},
        "description": {"type": "string", "description": "A few words naming the task."}
    });
    if !profiles.is_empty() {
        description.push_str("\n\nCustom agents (name one in `agent`):");
        for profile in profiles {
            description.push_str(&format!("\n- {}: {}", profile.name, profile.description));
        }
        let names: Vec<&str> = profiles.iter().map(|p| p.name.as_str()).collect();
        properties["agent"] = json!({
            "type": "string",
            "enum": names,
            "description": "The custom agent to run the task as; omit for a general sub-agent."
        });
    }
    ToolSpec {
        name: TASK_TOOL.into(),
        description,
        input_schema: json!({
            "type": "object",
            "properties": properties,
            "required": ["prompt"],
            "additionalProperties": false
        }),
        // Its own calls go through dispatch and the policy one by one.
        read_only: true,
        gated_by_exec: false,
        approval_group: None,
    }
}

fn outcome_name(outcome: &Outcome) -> &'static str {
    match outcome {
        Outcome::Done(_) => "done",
        Outcome::HardStop(_) => "hard_stop",
        Outcome::Interrupted => "interrupted",
        Outcome::ModelFailed(_) => "failed",
    }
}

impl TaskTool {
    pub fn new(context: TaskContext, execution: Execution) -> Self {
        let permits = match execution {
            Execution::Serial => 1,
            Execution::Parallel(max) => max.clamp(1, MAX_PARALLEL),
        };
        TaskTool {
            spec: spec(&context.profiles),
            context,
            permits: Semaphore::new(permits),
        }
    }

    fn system_prompt(&self, description: &str, profile: Option<&AgentProfile>) -> String {
        let workspace = self.context.config.workspace.as_deref().unwrap_or(".");
        let who = profile.map_or_else(String::new, |p| format!(" named `{}`", p.name));
        let preamble = format!(
            "You are a sub-agent{who} of amber, working in the project at {workspace} on one \
             task for the main agent{}. Use the tools; paths are relative to the project root. \
             Your final reply is returned to the main agent as the task's result: make it \
             complete and concise.",
            if description.is_empty() {
                String::new()
            } else {
                format!(" ({description})")
            }
        );
        match profile {
            Some(p) if !p.system_prompt.trim().is_empty() => {
                format!("{preamble}\n\n{}", p.system_prompt.trim())
            }
            _ => preamble,
        }
    }

    /// The model a task runs on: its custom agent's, or the parent's.
    fn model_for(
        &self,
        profile: Option<&AgentProfile>,
    ) -> Result<(Arc<dyn ModelClient>, AgentConfig, String), ToolError> {
        let ctx = &self.context;
        let provider = ctx
            .sessions
            .as_ref()
            .map(|s| s.provider.clone())
            .unwrap_or_default();
        let Some((profile, name)) = profile.and_then(|p| Some((p, p.model.as_deref()?))) else {
            return Ok((ctx.model.clone(), ctx.config.clone(), provider));
        };
        let resolver = ctx.models.as_ref().ok_or_else(|| {
            ToolError::Failed(format!(
                "agent `{}` names model `{name}`, and this host cannot switch models for a sub-agent",
                profile.name
            ))
        })?;
        // A workspace's file picks a model of the parent's provider at
        // most: another preset's endpoint and key are not its to choose.
        let found = resolver
            .resolve(name, !profile.from_workspace)
            .map_err(|e| {
                ToolError::Failed(format!(
                    "agent `{}` ({}): model `{name}`: {e}",
                    profile.name, profile.source
                ))
            })?;
        let config = AgentConfig {
            model: found.model,
            flavor: found.flavor,
            context_window: found.context_window,
            price: found.price,
            images: found.images,
            preset: found.provider.clone(),
            ..ctx.config.clone()
        };
        Ok((found.client, config, found.provider))
    }

    /// The tools a sub-agent starts with: the parent's, and the ledger's
    /// that arrived since they were taken.
    fn offered(&self) -> Vec<Arc<dyn Tool>> {
        let ctx = &self.context;
        let mut tools = ctx.tools.clone();
        if let Some(ledger) = &ctx.ledger {
            let known: std::collections::HashSet<String> =
                tools.iter().map(|t| t.spec().name.clone()).collect();
            tools.extend(
                ledger
                    .tools()
                    .into_iter()
                    .filter(|t| !known.contains(&t.spec().name)),
            );
        }
        tools
    }

    /// Runs one sub-agent under `token`, the token of the run that called
    /// the tool (taken when it was called: a call still waiting for its
    /// permit when the run is interrupted must not start under the next
    /// run's token).
    async fn run(
        &self,
        request: Request<'_>,
        token: tokio_util::sync::CancellationToken,
    ) -> Result<ToolOutput, ToolError> {
        let _permit = tokio::select! {
            permit = self.permits.acquire() => permit
                .map_err(|e| ToolError::Failed(format!("the task queue is closed: {e}")))?,
            _ = token.cancelled() => {
                return Err(ToolError::Failed("interrupted before the sub-agent started".into()))
            }
        };
        let ctx = &self.context;
        let profile = request.profile;
        let (model, base, provider) = self.model_for(profile)?;
        let cap = profile
            .and_then(|p| p.max_iterations)
            // A file may lower the sub-agent's cap, never raise it.
            .map_or(ctx.max_iterations, |n| {
                n.clamp(1, ctx.max_iterations.max(1))
            });
        let config = AgentConfig {
            max_tool_iterations: cap,
            confirm: None,
            // The parent's run keeps the budget, its sub-agents' calls
            // counted in it when they come back.
            max_budget_usd: None,
            system_prompt: self.system_prompt(request.description, profile),
            ..base
        };
        let n = ctx
            .started
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed)
            + 1;
        // Numbered by the read tracker when there is one: unique in the
        // session, whichever task tool started it.
        let id = ctx
            .reads
            .as_ref()
            .map_or_else(|| format!("task-{n}"), |r| r.sub_agent());
        // Its own view of the policy: its parent's mode or stricter, and
        // only the tools both its definition and any skill in force allow.
        let parent_mode = ctx.policy.mode();
        let mode = parent_mode.at_most(profile.and_then(|p| p.mode).unwrap_or(parent_mode));
        let policy = Arc::new(ctx.policy.view(&id, mode));
        // Its file's tools and commands narrow its view, as a skill's do:
        // dispatch and the `exec` import check them on every call.
        if let Some(p) = profile.filter(|p| p.tools.is_some() || p.commands.is_some()) {
            let allowed: Vec<String> = match &p.tools {
                Some(tools) => tools.clone(),
                // Its commands only: every tool it is offered, late ones too.
                None => self
                    .offered()
                    .iter()
                    .map(|t| t.spec().name.clone())
                    .collect(),
            };
            policy.narrow(
                &format!("agent {}", p.name),
                &allowed,
                p.commands.as_deref(),
            );
        }
        let narrowing = policy.narrowing();
        let tools: Vec<Arc<dyn Tool>> = self
            .offered()
            .into_iter()
            .filter(|t| {
                let name = &t.spec().name;
                profile.is_none_or(|p| p.allows(name))
                    && narrowing.as_ref().is_none_or(|n| n.allows(name))
            })
            .collect();
        let session = self.child_session(&request, &id, &provider, &config.model)?;
        let (session_id, path) = match &session {
            Some(writer) => (
                writer
                    .path()
                    .file_stem()
                    .map(|s| s.to_string_lossy().into_owned()),
                Some(writer.path().display().to_string()),
            ),
            None => (None, None),
        };
        ctx.events.send(AgentEvent::SubAgentStarted {
            agent: id.clone(),
            call_id: request.call_id.clone(),
            profile: profile.map(|p| p.name.clone()),
            description: request.description.to_string(),
            session_id: session_id.clone(),
            path,
            mode: mode.as_str().into(),
            model: config.model.clone(),
        });
        let ports = AgentPorts {
            model,
            tools,
            blocks: ctx.blocks.clone(),
            policy,
            gate: ctx.gate.clone(),
            compressor: None,
            learner: None,
        };
        let mut agent = Agent::new(config, ports, ContextChain::new(), session);
        if let Some(ledger) = &ctx.ledger {
            agent = agent.following(ledger.clone());
        }
        if let Some(settings) = &ctx.tool_search {
            agent = agent.with_tool_search(settings.clone());
        }
        if let Some(uses) = &ctx.tool_uses {
            agent = agent.with_tool_uses(uses.clone());
        }
        let mut agent = agent
            .with_cancel(token.child_token())
            .with_reads(ctx.reads.clone(), id.clone())
            .with_hooks(ctx.hooks.clone(), true)
            .with_image_prep(ctx.image_prep.clone());
        let events = ctx.events.clone();
        let tag = id.clone();
        let mut sink = move |event: AgentEvent| {
            events.send(AgentEvent::SubAgent {
                agent: tag.clone(),
                event: Box::new(event),
            })
        };
        let report = agent.run(request.prompt, &mut sink).await;
        drop(agent);
        let report = report.map_err(|e| ToolError::Failed(format!("the sub-agent failed: {e}")))?;
        let text = match &report.outcome {
            Outcome::Done(reply) => reply.clone(),
            Outcome::HardStop(reason) => reason.clone(),
            Outcome::Interrupted => "interrupted".into(),
            Outcome::ModelFailed(e) => e.to_string(),
        };
        ctx.events.send(AgentEvent::SubAgentFinished {
            agent: id.clone(),
            session_id: session_id.clone(),
            outcome: outcome_name(&report.outcome).into(),
            text,
            turns: report.turns,
            usage: report.usage,
            cost_usd: report.cost_usd,
        });
        let meta = json!({
            "agent": id,
            "session": session_id,
            "turns": report.turns,
            "usage": report.usage,
        });
        match report.outcome {
            Outcome::Done(reply) => Ok(ToolOutput {
                content: reply,
                meta: Some(meta),
                images: Vec::new(),
            }),
            Outcome::HardStop(reason) => Err(ToolError::Failed(format!(
                "the sub-agent stopped without finishing: {reason}"
            ))),
            Outcome::Interrupted => Err(ToolError::Failed("the sub-agent was interrupted".into())),
            Outcome::ModelFailed(e) => Err(ToolError::Failed(format!(
                "the sub-agent's model call failed: {e}"
            ))),
        }
    }

    /// A new session for sub-agent `id`, linked to its parent's, when
    /// the parent's is recorded.
    fn child_session(
        &self,
        request: &Request<'_>,
        id: &str,
        provider: &str,
        model: &str,
    ) -> Result<Option<SessionWriter>, ToolError> {
        let Some(sessions) = &self.context.sessions else {
            return Ok(None);
        };
        let link = ParentLink {
            session: sessions.parent.clone(),
            call_id: request.call_id.clone(),
            agent: id.to_string(),
            profile: request.profile.map(|p| p.name.clone()),
        };
        SessionStore::new(&sessions.dir)
            .create_child(&sessions.workspace, provider, model, link)
            .map(|(_, writer)| Some(writer))
            .map_err(|e| ToolError::Failed(format!("the sub-agent's session: {e}")))
    }

    /// The custom agent `args` names, if any.
    fn profile(&self, args: &Value) -> Result<Option<&AgentProfile>, ToolError> {
        let Some(name) = args["agent"].as_str().filter(|n| !n.is_empty()) else {
            return Ok(None);
        };
        let profiles = &self.context.profiles;
        match profiles.iter().find(|p| p.name == name) {
            Some(profile) => Ok(Some(profile)),
            None => {
                let names: Vec<&str> = profiles.iter().map(|p| p.name.as_str()).collect();
                Err(ToolError::InvalidArgs(format!(
                    "no agent `{name}` (agents: {})",
                    if names.is_empty() {
                        "none defined".to_string()
                    } else {
                        names.join(", ")
                    }
                )))
            }
        }
    }
}

impl Tool for TaskTool {
    fn spec(&self) -> &ToolSpec {
        &self.spec
    }

    /// Called on a blocking thread by dispatch; drives the sub-agent on
    /// the run's async runtime.
    fn call(&self, args: &Value) -> Result<ToolOutput, ToolError> {
        let prompt = args["prompt"]
            .as_str()
            .filter(|p| !p.trim().is_empty())
            .ok_or_else(|| ToolError::InvalidArgs("`prompt` must be a non-empty string".into()))?;
        let request = Request {
            prompt,
            description: args["description"].as_str().unwrap_or_default(),
            profile: self.profile(args)?,
            call_id: crate::policy::scope::current()
                .map(|scope| scope.call_id)
                .unwrap_or_default(),
        };
        let handle = tokio::runtime::Handle::try_current()
            .map_err(|_| ToolError::Failed("the task tool needs the agent's runtime".into()))?;
        let token = self.context.interrupt.current();
        handle.block_on(self.run(request, token))
    }
}

#[cfg(test)]
mod tests;
