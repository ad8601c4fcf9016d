//! amber's slash commands: one tree, documented in completions.json and
//! extended at runtime by feeds, read by the drawer, completion and
//! dispatch alike. Seeds: "Command tree structure" (the node schema and
//! the [`SettingRegistry`]), "Command dispatch" ([`CommandSet::dispatch`]),
//! "Command feeds" ([`merge_completions_json`], [`Feed`]) and "Command
//! binding" ([`plugin_subtree`]; enable/disable is [`CommandSet::set_feed`],
//! which rebuilds the tree with no restart).
//!
//! The tree decides which action a line runs; handlers are closures
//! registered by action name, so a handler never names a command and a
//! command is never hardcoded outside completions.json.

mod builtin;
mod complete;
mod dispatch;
mod handler;
mod man;
mod merge;
mod node;
mod outcome;
mod plugin;
mod rebuild;
mod registry;
mod resolve;
mod set;
mod suggest;
mod tokenize;

pub use builtin::{builtin_roots, builtin_tree, is_builtin_root, COMPLETIONS_JSON};
pub use complete::Candidate;
pub use handler::{handler, CommandError, Effect, Handler, Invocation, PromptEffect, Reply};
pub use man::{help_handler, man_page};
pub use merge::merge_completions_json;
pub use node::{Node, Walk};
pub use outcome::Outcome;
pub use plugin::{plugin_action, plugin_subtree, MAX_PLUGIN_DEPTH};
pub use registry::{Entry, SettingRegistry};
pub use resolve::Resolution;
pub use set::{CommandSet, Feed};
pub use tokenize::{tokenize, TokenizeError};
