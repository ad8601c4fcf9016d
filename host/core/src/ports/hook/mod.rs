//! The hook port: the events, their payloads and decisions, what one hook
//! is ([`Hook`], [`HookSpec`], its [`Matcher`]) and what it did
//! ([`HookOutcome`]). Below the policy, the session and the engine, which
//! all speak of hooks; `crate::hooks` runs them ([`crate::hooks::HookRunner`])
//! and hands these names on.

mod matcher;
pub mod names;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::policy::Mode;
use crate::ports::PortError;

pub use amber_protocol::{HookEvent, HookOutcome};
pub use matcher::{Matcher, MatcherError};

/// What a failing hook does, overriding the event's default.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum OnError {
    Allow,
    Deny,
}

/// One installed hook: who, on which event, for which tools, in which order.
#[derive(Debug, Clone)]
pub struct HookSpec {
    /// The hook's name: a plugin id, or `command:<n>` for a command hook.
    pub id: String,
    pub event: HookEvent,
    pub matcher: Matcher,
    /// Ascending: lower priorities rewrite and add context first; ties
    /// keep install order.
    pub priority: i32,
    /// `None`: the event's default ([`HookEvent::fails_closed`]).
    pub on_error: Option<OnError>,
    /// The ledger key, `<event>:<id>`: one contribution per event.
    key: String,
}

impl HookSpec {
    pub fn new(id: impl Into<String>, event: HookEvent, matcher: Matcher) -> Self {
        let id = id.into();
        let key = format!("{event}:{id}");
        HookSpec {
            id,
            event,
            matcher,
            priority: 0,
            on_error: None,
            key,
        }
    }

    pub fn with_priority(mut self, priority: i32) -> Self {
        self.priority = priority;
        self
    }

    pub fn with_on_error(mut self, on_error: Option<OnError>) -> Self {
        self.on_error = on_error;
        self
    }

    /// The ledger key: unique per hook and event.
    pub fn key(&self) -> &str {
        &self.key
    }

    /// Whether a failure of this hook denies the action.
    pub fn fails_closed(&self) -> bool {
        match self.on_error {
            Some(OnError::Deny) => true,
            Some(OnError::Allow) => false,
            None => self.event.fails_closed(),
        }
    }
}

/// Where a session-start comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum StartSource {
    Startup,
    Resume,
    Compact,
}

/// What started a compaction, as hooks see it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum CompactTrigger {
    Automatic,
    Manual,
}

/// What every event carries.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct HookContext {
    pub session_id: String,
    /// `main`, or a sub-agent's id.
    pub agent: String,
    pub mode: Mode,
    /// The workspace root on the host. Components are given their sandbox
    /// mount instead, when granted.
    pub workspace: Option<String>,
}

/// An event with its typed payload.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "event", rename_all = "kebab-case")]
pub enum Payload {
    SessionStart {
        source: StartSource,
    },
    UserPromptSubmit {
        prompt: String,
    },
    PreTool {
        tool: String,
        args: Value,
    },
    PostTool {
        tool: String,
        args: Value,
        ok: bool,
        output: String,
    },
    PermissionRequest {
        requester: String,
        action: String,
        detail: String,
        class: Option<String>,
    },
    PreCompact {
        trigger: CompactTrigger,
        focus: String,
    },
    PostCompact {
        trigger: CompactTrigger,
        tokens_before: u64,
        tokens_after: u64,
    },
    Stop {
        reply: String,
        continued: u32,
    },
    SubagentStop {
        reply: String,
        continued: u32,
    },
    SessionEnd {
        reason: String,
    },
    Notification {
        message: String,
    },
}

impl Payload {
    pub fn event(&self) -> HookEvent {
        match self {
            Payload::SessionStart { .. } => HookEvent::SessionStart,
            Payload::UserPromptSubmit { .. } => HookEvent::UserPromptSubmit,
            Payload::PreTool { .. } => HookEvent::PreTool,
            Payload::PostTool { .. } => HookEvent::PostTool,
            Payload::PermissionRequest { .. } => HookEvent::PermissionRequest,
            Payload::PreCompact { .. } => HookEvent::PreCompact,
            Payload::PostCompact { .. } => HookEvent::PostCompact,
            Payload::Stop { .. } => HookEvent::Stop,
            Payload::SubagentStop { .. } => HookEvent::SubagentStop,
            Payload::SessionEnd { .. } => HookEvent::SessionEnd,
            Payload::Notification { .. } => HookEvent::Notification,
        }
    }

    /// The tool a matcher is tested against, for the events that have one.
    pub fn tool(&self) -> Option<&str> {
        match self {
            Payload::PreTool { tool, .. } | Payload::PostTool { tool, .. } => Some(tool),
            // A command's kind is `exec:<program>:<class>`; matchers
            // name it as the tool that runs commands.
            Payload::PermissionRequest { action, .. }
                if action == "exec" || action.starts_with("exec:") =>
            {
                Some("shell")
            }
            Payload::PermissionRequest { action, .. } => Some(action),
            _ => None,
        }
    }
}

/// What one hook decided. Which decisions an event takes is fixed
/// ([`Decision::fits`]); anything else from a hook is garbage, and fails.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "decision", content = "detail", rename_all = "snake_case")]
pub enum Decision {
    /// No objection, nothing to add: allow, abstain, proceed, stop.
    Pass,
    /// Context for the model (session-start, user-prompt-submit,
    /// post-tool, post-compact).
    Context(String),
    /// pre-tool: deny the call; user-prompt-submit: block the prompt;
    /// permission-request: deny on the user's behalf.
    Deny(String),
    /// pre-tool: put the call to the user, in every mode.
    Ask(String),
    /// permission-request: approve on the user's behalf.
    Approve,
    /// pre-tool: run with these arguments instead.
    Rewrite(Value),
    /// post-tool: mark the result.
    Flag(String),
    /// pre-compact: add these focus words.
    Focus(String),
    /// pre-compact: skip an automatic compaction.
    Skip(String),
    /// stop: go on working, for this reason.
    Continue(String),
}

impl Decision {
    /// Whether `event` takes this decision.
    pub fn fits(&self, event: HookEvent) -> bool {
        use HookEvent as E;
        match self {
            Decision::Pass => true,
            Decision::Context(_) => matches!(
                event,
                E::SessionStart | E::UserPromptSubmit | E::PostTool | E::PostCompact
            ),
            Decision::Deny(_) => matches!(
                event,
                E::PreTool | E::UserPromptSubmit | E::PermissionRequest
            ),
            Decision::Ask(_) | Decision::Rewrite(_) => event == E::PreTool,
            Decision::Approve => event == E::PermissionRequest,
            Decision::Flag(_) => event == E::PostTool,
            Decision::Focus(_) | Decision::Skip(_) => event == E::PreCompact,
            Decision::Continue(_) => event == E::Stop,
        }
    }

    /// In a few words, for the outcome events.
    pub fn label(&self) -> &'static str {
        match self {
            Decision::Pass => "pass",
            Decision::Context(_) => "context",
            Decision::Deny(_) => "deny",
            Decision::Ask(_) => "ask",
            Decision::Approve => "approve",
            Decision::Rewrite(_) => "rewrite",
            Decision::Flag(_) => "flag",
            Decision::Focus(_) => "focus",
            Decision::Skip(_) => "skip",
            Decision::Continue(_) => "continue",
        }
    }
}

/// A hook, served by a component or by a trusted command.
///
/// `handle` is synchronous and may block (a command runs, a component may
/// call `exec`); the runner calls many at once on threads of their own.
/// `Err` is the hook failing (a trap, its deadline, an error it returned,
/// an answer that is not one); the message names the cause.
pub trait Hook: Send + Sync {
    fn spec(&self) -> &HookSpec;
    fn handle(&self, ctx: &HookContext, payload: &Payload) -> Result<Decision, PortError>;
}
