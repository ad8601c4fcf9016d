//! Sub-agents: the host-native `task` tool. Seed: "Sub-agent execution".
//! Each task runs an agent of its own (its own Context and system prompt,
//! `max_iterations` 20 by default, no confirm turn, no `task` tool of its
//! own) with the parent's model, tools and policy, and its final reply
//! goes back to the parent as the tool result. Serial by default, so
//! sequential requests share the system-prompt prefix and the provider's
//! prompt cache stays warm; parallel on request, capped by `max`.

use std::sync::Arc;

use serde_json::{json, Value};
use tokio::sync::Semaphore;

use super::{Agent, AgentConfig, AgentPorts, Interrupt, Outcome};
use crate::context::ContextChain;
use crate::policy::Policy;
use crate::ports::{
    CompressionGate, ModelClient, PromptBlock, Tool, ToolError, ToolOutput, ToolSpec,
};

pub const TASK_TOOL: &str = "task";
pub const DEFAULT_SUBAGENT_ITERATIONS: u32 = 20;
pub const MAX_PARALLEL: usize = 16;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Execution {
    Serial,
    /// At most this many at once (1–16).
    Parallel(usize),
}

/// What every sub-agent shares with the parent.
pub struct TaskContext {
    /// The parent's settings; the task changes the prompt and the caps.
    pub config: AgentConfig,
    pub model: Arc<dyn ModelClient>,
    /// The parent's tools (the `task` tool is never among them).
    pub tools: Vec<Arc<dyn Tool>>,
    pub blocks: Vec<Arc<dyn PromptBlock>>,
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
}

pub struct TaskTool {
    spec: ToolSpec,
    context: TaskContext,
    permits: Semaphore,
    /// Sub-agents started so far: the next one's number.
    started: std::sync::atomic::AtomicU32,
}

impl TaskTool {
    pub fn new(context: TaskContext, execution: Execution) -> Self {
        let permits = match execution {
            Execution::Serial => 1,
            Execution::Parallel(max) => max.clamp(1, MAX_PARALLEL),
        };
        let spec = ToolSpec {
            name: TASK_TOOL.into(),
            description:
                "Hand a self-contained piece of work to a sub-agent with a fresh context. \
                It has the same tools and permissions, and returns its final reply. Give it \
                everything it needs in `prompt`; several tasks in one turn may run in parallel."
                    .into(),
            input_schema: json!({
                "type": "object",
                "properties": {
                    "prompt": {"type": "string", "description": "The whole task, with the context it needs."},
                    "description": {"type": "string", "description": "A few words naming the task."}
                },
                "required": ["prompt"],
                "additionalProperties": false
            }),
            // Its own calls go through dispatch and the policy one by one.
            read_only: true,
            gated_by_exec: false,
            approval_group: None,
        };
        TaskTool {
            spec,
            context,
            permits: Semaphore::new(permits),
            started: std::sync::atomic::AtomicU32::new(0),
        }
    }

    fn system_prompt(&self, description: &str) -> String {
        let workspace = self.context.config.workspace.as_deref().unwrap_or(".");
        format!(
            "You are a sub-agent of amber, working in the project at {workspace} on one task \
             for the main agent{}. Use the tools; paths are relative to the project root. \
             Your final reply is returned to the main agent as the task's result: make it \
             complete and concise.",
            if description.is_empty() {
                String::new()
            } else {
                format!(" ({description})")
            }
        )
    }

    /// Runs one sub-agent under `token`, the token of the run that called
    /// the tool (taken when it was called: a call still waiting for its
    /// permit when the run is interrupted must not start under the next
    /// run's token).
    async fn run(
        &self,
        prompt: &str,
        description: &str,
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
        let config = AgentConfig {
            max_tool_iterations: ctx.max_iterations,
            confirm: None,
            system_prompt: self.system_prompt(description),
            ..ctx.config.clone()
        };
        let ports = AgentPorts {
            model: ctx.model.clone(),
            tools: ctx.tools.clone(),
            blocks: ctx.blocks.clone(),
            policy: ctx.policy.clone(),
            gate: ctx.gate.clone(),
            compressor: None,
            learner: None,
        };
        let n = self
            .started
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed)
            + 1;
        // Numbered by the read tracker when there is one: unique in the
        // session, whichever task tool started it.
        let id = ctx
            .reads
            .as_ref()
            .map_or_else(|| format!("task-{n}"), |r| r.sub_agent());
        let mut agent = Agent::new(config, ports, ContextChain::new(), None)
            .with_cancel(token.child_token())
            .with_reads(ctx.reads.clone(), id)
            .with_hooks(ctx.hooks.clone(), true);
        let report = agent
            .run(prompt, &mut |_| {})
            .await
            .map_err(|e| ToolError::Failed(format!("the sub-agent failed: {e}")))?;
        let meta = json!({"turns": report.turns, "usage": report.usage});
        match report.outcome {
            Outcome::Done(reply) => Ok(ToolOutput {
                content: reply,
                meta: Some(meta),
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
        let description = args["description"].as_str().unwrap_or_default();
        let handle = tokio::runtime::Handle::try_current()
            .map_err(|_| ToolError::Failed("the task tool needs the agent's runtime".into()))?;
        let token = self.context.interrupt.current();
        handle.block_on(self.run(prompt, description, token))
    }
}
