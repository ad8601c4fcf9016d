//! The hook events and what one hook did with one: an event of a run
//! and a record of the session.

use std::fmt;

use serde::{Deserialize, Serialize};

/// The events a hook can handle.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum HookEvent {
    SessionStart,
    UserPromptSubmit,
    PreTool,
    PostTool,
    PermissionRequest,
    PreCompact,
    PostCompact,
    Stop,
    SubagentStop,
    SessionEnd,
    Notification,
}

impl HookEvent {
    pub const ALL: [HookEvent; 11] = [
        HookEvent::SessionStart,
        HookEvent::UserPromptSubmit,
        HookEvent::PreTool,
        HookEvent::PostTool,
        HookEvent::PermissionRequest,
        HookEvent::PreCompact,
        HookEvent::PostCompact,
        HookEvent::Stop,
        HookEvent::SubagentStop,
        HookEvent::SessionEnd,
        HookEvent::Notification,
    ];

    /// amber's name, as in wit/hook.wit and the config.
    pub fn as_str(self) -> &'static str {
        match self {
            HookEvent::SessionStart => "session-start",
            HookEvent::UserPromptSubmit => "user-prompt-submit",
            HookEvent::PreTool => "pre-tool",
            HookEvent::PostTool => "post-tool",
            HookEvent::PermissionRequest => "permission-request",
            HookEvent::PreCompact => "pre-compact",
            HookEvent::PostCompact => "post-compact",
            HookEvent::Stop => "stop",
            HookEvent::SubagentStop => "subagent-stop",
            HookEvent::SessionEnd => "session-end",
            HookEvent::Notification => "notification",
        }
    }

    /// Claude Code's name (`PreToolUse`).
    pub fn claude_name(self) -> &'static str {
        match self {
            HookEvent::SessionStart => "SessionStart",
            HookEvent::UserPromptSubmit => "UserPromptSubmit",
            HookEvent::PreTool => "PreToolUse",
            HookEvent::PostTool => "PostToolUse",
            HookEvent::PermissionRequest => "PermissionRequest",
            HookEvent::PreCompact => "PreCompact",
            HookEvent::PostCompact => "PostCompact",
            HookEvent::Stop => "Stop",
            HookEvent::SubagentStop => "SubagentStop",
            HookEvent::SessionEnd => "SessionEnd",
            HookEvent::Notification => "Notification",
        }
    }

    /// amber's name or Claude Code's (`PreToolUse`).
    pub fn parse(name: &str) -> Option<HookEvent> {
        HookEvent::ALL
            .into_iter()
            .find(|e| e.as_str() == name || e.claude_name() == name)
    }

    /// A failing hook denies the action on these events (fails closed);
    /// on the others it is a warning (fails open).
    pub fn fails_closed(self) -> bool {
        matches!(
            self,
            HookEvent::PreTool | HookEvent::PermissionRequest | HookEvent::UserPromptSubmit
        )
    }

    /// Whether a matcher narrows this event (to tool names).
    pub fn takes_matcher(self) -> bool {
        matches!(
            self,
            HookEvent::PreTool | HookEvent::PostTool | HookEvent::PermissionRequest
        )
    }
}

impl fmt::Display for HookEvent {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// What one hook did with one event: an event of `exec --json` and a
/// record of the session.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct HookOutcome {
    pub event: HookEvent,
    pub hook: String,
    /// The tool, for the events that have one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool: Option<String>,
    /// The decision (`pass`, `deny`, `rewrite`, …) or `failed`.
    pub outcome: String,
    /// The reason, context, rewritten arguments or failure, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
    /// True when a failure denied the action (the hook failed closed).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub denied: bool,
    pub micros: u64,
}
