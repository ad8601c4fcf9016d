//! What a run reports as it goes: the `--json` stream of `amber exec`
//! (one JSON object per line, documented in docs/exec-json.md) and what
//! the terminal front end prints.

use serde::{Deserialize, Serialize};

use crate::{
    CompressionStats, HookOutcome, ModelError, ProtectedChange, Status, StopReason, Todo, Usage,
};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DeltaKind {
    Text,
    Reasoning,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FailureKind {
    /// The model call or the session failed.
    Error,
    /// The loop stopped itself, e.g. at max_tool_iterations.
    HardStop,
    /// Ctrl-C or a cancel token.
    Interrupted,
}

/// What started a compression.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CompactionTrigger {
    /// The gate: the context passed the threshold.
    Auto,
    /// `/compact`.
    Manual,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type")]
pub enum AgentEvent {
    #[serde(rename = "session.started")]
    SessionStarted {
        session_id: String,
        path: String,
        workspace: String,
        provider: String,
        flavor: String,
        model: String,
        mode: String,
        resumed: bool,
        /// The nearest project instructions file read into the system
        /// prompt (the last of `instruction_files`).
        instructions: Option<String>,
        /// Every instructions file read, from the root down to the folder
        /// amber was started in.
        instruction_files: Vec<String>,
        /// Call ids given an "interrupted" result on resume.
        interrupted: Vec<String>,
        warnings: Vec<String>,
    },
    #[serde(rename = "turn.started")]
    TurnStarted {
        turn: u32,
        /// The silent "are you finished?" turn.
        confirm: bool,
    },
    #[serde(rename = "message.delta")]
    MessageDelta {
        turn: u32,
        kind: DeltaKind,
        text: String,
    },
    #[serde(rename = "tool.call")]
    ToolCall {
        turn: u32,
        id: String,
        name: String,
        /// JSON text, exactly as the model produced it.
        arguments: String,
    },
    #[serde(rename = "tool.result")]
    ToolResult {
        turn: u32,
        id: String,
        name: String,
        status: Status,
        output: String,
        meta: Option<serde_json::Value>,
    },
    #[serde(rename = "turn.completed")]
    TurnCompleted {
        turn: u32,
        usage: Usage,
        stop_reason: Option<StopReason>,
        tool_calls: usize,
        /// The call's cost in US dollars, when its model has a price
        /// (docs/cost.md).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        cost_usd: Option<f64>,
    },
    /// The stream broke off after the reply began and the model is asked
    /// again: the deltas of this turn so far belong to no reply (they are
    /// not in the history or the session); the turn starts over.
    #[serde(rename = "stream.retry")]
    StreamRetry {
        turn: u32,
        /// The attempt about to start (2 for the first retry).
        attempt: u32,
        reason: String,
    },
    /// The turn's commands touched paths other programs run things from
    /// (docs/sandbox.md): repository hooks and settings amber undid, and
    /// created, changed or removed `.claude/settings*.json`, `.mcp.json`,
    /// `.amber/` and `.codex/`, which it only reports.
    #[serde(rename = "workspace.protected_changed")]
    ProtectedChanged {
        turn: u32,
        changes: Vec<ProtectedChange>,
    },
    /// Error recovery pushed a steering message to the history.
    #[serde(rename = "steer")]
    Steer { turn: u32, message: String },
    #[serde(rename = "warning")]
    Warning { message: String },
    /// What one hook did with one event (docs/hooks.md): its decision,
    /// or `failed` with the cause; also kept in the session record.
    #[serde(rename = "hook")]
    Hook(HookOutcome),
    /// A compression cycle begins (the hooks' pre-compact point); a
    /// `compaction.completed` or `compaction.failed` follows.
    #[serde(rename = "compaction.started")]
    CompactionStarted {
        trigger: CompactionTrigger,
        /// The context's tokens as the gate counts them.
        tokens: u64,
        /// The model's window (0: unknown).
        window: u64,
        /// `/compact`'s focus words.
        focus: Option<String>,
    },
    /// The context was rebuilt (the hooks' post-compact point). Tokens
    /// are the compressor's estimate, before and after.
    #[serde(rename = "compaction.completed")]
    CompactionCompleted {
        /// `tokens_before`, `tokens_after`, `kept`, `collapsed`, `pruned`.
        #[serde(flatten)]
        stats: CompressionStats,
        /// Memories the learner wrote.
        memories: usize,
        /// Skills the learner wrote or deprecated.
        skills: usize,
    },
    /// The compression failed; the context is unchanged and the run goes
    /// on.
    #[serde(rename = "compaction.failed")]
    CompactionFailed { reason: String },
    /// A sub-agent began (the `task` tool): its own session, linked to
    /// this one, whose events follow tagged with `agent`.
    #[serde(rename = "subagent.started")]
    SubAgentStarted {
        /// `task-1`, `task-2`, …: unique in the session.
        agent: String,
        /// The `task` call that started it.
        call_id: String,
        /// The custom agent it runs as (docs/agents.md), if any.
        profile: Option<String>,
        description: String,
        /// Its own session, and that session's file.
        session_id: Option<String>,
        path: Option<String>,
        /// Its policy mode: its parent's, or stricter.
        mode: String,
        model: String,
    },
    /// One event of a running sub-agent, as its own run reports it.
    #[serde(rename = "subagent")]
    SubAgent {
        agent: String,
        event: Box<AgentEvent>,
    },
    /// A sub-agent ended; its reply (or why it did not finish) is the
    /// `task` call's result.
    #[serde(rename = "subagent.finished")]
    SubAgentFinished {
        agent: String,
        session_id: Option<String>,
        /// `done`, `hard_stop`, `interrupted` or `failed`.
        outcome: String,
        /// The reply, or why it stopped.
        text: String,
        turns: u32,
        usage: Usage,
        /// Its calls' cost, when every one had a price.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        cost_usd: Option<f64>,
    },
    /// Plan mode: the model proposed a plan (`exit_plan`) and the run
    /// ended for the person to accept it (docs/plan-mode.md).
    #[serde(rename = "plan.proposed")]
    PlanProposed { plan: String },
    /// The session's todo list, whole, after `todo_write` replaced it.
    #[serde(rename = "todo.updated")]
    TodoUpdated { todos: Vec<Todo> },
    #[serde(rename = "session.completed")]
    SessionCompleted {
        session_id: String,
        reply: String,
        turns: u32,
        usage: Usage,
        /// The run ended right after an action it asked for was denied
        /// (by the policy, a rule, a hook or the person): why. `amber
        /// exec` then exits with status 4.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        denied: Option<String>,
        /// The run's cost (its sub-agents' and compression's calls
        /// included), and the session's so far, when every call had a
        /// price.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        cost_usd: Option<f64>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        session_cost_usd: Option<f64>,
    },
    #[serde(rename = "session.failed")]
    SessionFailed {
        session_id: String,
        kind: FailureKind,
        error: String,
        /// The typed cause when a model call failed, for scripts.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        model_error: Option<ModelError>,
        turns: u32,
        usage: Usage,
    },
}

impl AgentEvent {
    /// The event's `type`, as `exec --json` writes it.
    pub fn kind(&self) -> &'static str {
        match self {
            AgentEvent::SessionStarted { .. } => "session.started",
            AgentEvent::TurnStarted { .. } => "turn.started",
            AgentEvent::MessageDelta { .. } => "message.delta",
            AgentEvent::ToolCall { .. } => "tool.call",
            AgentEvent::ToolResult { .. } => "tool.result",
            AgentEvent::TurnCompleted { .. } => "turn.completed",
            AgentEvent::StreamRetry { .. } => "stream.retry",
            AgentEvent::ProtectedChanged { .. } => "workspace.protected_changed",
            AgentEvent::Steer { .. } => "steer",
            AgentEvent::Warning { .. } => "warning",
            AgentEvent::Hook(_) => "hook",
            AgentEvent::CompactionStarted { .. } => "compaction.started",
            AgentEvent::CompactionCompleted { .. } => "compaction.completed",
            AgentEvent::CompactionFailed { .. } => "compaction.failed",
            AgentEvent::SubAgentStarted { .. } => "subagent.started",
            AgentEvent::SubAgent { .. } => "subagent",
            AgentEvent::SubAgentFinished { .. } => "subagent.finished",
            AgentEvent::PlanProposed { .. } => "plan.proposed",
            AgentEvent::TodoUpdated { .. } => "todo.updated",
            AgentEvent::SessionCompleted { .. } => "session.completed",
            AgentEvent::SessionFailed { .. } => "session.failed",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn compaction_events_serialise_with_their_dotted_names() {
        let started = AgentEvent::CompactionStarted {
            trigger: CompactionTrigger::Manual,
            tokens: 900,
            window: 1000,
            focus: None,
        };
        assert_eq!(
            serde_json::to_value(&started).unwrap(),
            json!({"type": "compaction.started", "trigger": "manual", "tokens": 900, "window": 1000, "focus": null})
        );
        let completed = AgentEvent::CompactionCompleted {
            stats: CompressionStats {
                tokens_before: 900,
                tokens_after: 400,
                kept: 3,
                collapsed: 2,
                pruned: 1,
            },
            memories: 1,
            skills: 0,
        };
        assert_eq!(
            serde_json::to_value(&completed).unwrap(),
            json!({"type": "compaction.completed", "tokens_before": 900, "tokens_after": 400,
                   "kept": 3, "collapsed": 2, "pruned": 1, "memories": 1, "skills": 0})
        );
        let failed = AgentEvent::CompactionFailed {
            reason: "why".into(),
        };
        assert_eq!(
            serde_json::to_value(&failed).unwrap(),
            json!({"type": "compaction.failed", "reason": "why"})
        );
    }
}
