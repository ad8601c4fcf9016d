//! Hooks: code that sees the agent's events and may change what happens
//! next (docs/hooks.md). A hook is a port like any other: a component
//! (sandboxed, granted, microseconds a call) or a command in Claude Code's
//! format (trusted instead of approved). Each declares one event and an
//! optional tool-name matcher; the ledger installs it as one contribution,
//! so disabling its plugin unwinds it.
//!
//! The core knows the events, their payloads and decisions, and how the
//! decisions of many hooks combine ([`HookRunner`]); the adapters know how
//! to ask a component or a command.

mod runner;

pub use crate::ports::hook::{
    names, CompactTrigger, Decision, Hook, HookContext, HookEvent, HookOutcome, HookSpec, Matcher,
    MatcherError, OnError, Payload, StartSource,
};
pub use runner::{
    in_hook, Fired, HookRunner, Overrides, PermissionAnswer, PreTool, MAX_STOP_CONTINUES,
};
