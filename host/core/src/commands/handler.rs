//! What a command handler is given and what it gives back. Seed: "Command
//! dispatch" (`dispatch(action, arg)`; the tree decides the action, the
//! handler never names a command).

use std::sync::Arc;

use serde::Serialize;

use super::Node;

/// One call of a handler. The tree decided which handler runs; the path
/// says how the user got there, which is how one handler serves many nodes
/// (`set.value` reads the setting from `path[1]`, and a choice such as
/// `/set policy read` from the last element).
#[derive(Debug, Clone, Copy)]
pub struct Invocation<'a> {
    pub action: &'a str,
    /// The matched names from the root, e.g. `["set", "policy", "read"]`.
    pub path: &'a [String],
    /// The tokens after the match, joined by one space (quotes removed).
    pub arg: &'a str,
    /// The merged tree at the time of the call, so `/help` can render any
    /// node's page without the handler holding the command set.
    pub tree: &'a Node,
}

/// What a handler produced for the front end.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Reply {
    /// What a person reads.
    pub text: String,
    /// The same for `--json`; `Null` when there is nothing beyond the text.
    pub data: serde_json::Value,
    /// What the front end does after printing.
    pub effect: Effect,
}

impl Reply {
    pub fn text(text: impl Into<String>) -> Self {
        Reply {
            text: text.into(),
            ..Reply::default()
        }
    }

    pub fn with_data(mut self, data: serde_json::Value) -> Self {
        self.data = data;
        self
    }

    pub fn with_effect(mut self, effect: Effect) -> Self {
        self.effect = effect;
        self
    }
}

/// A change only the front end can make, asked for by a handler.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Effect {
    #[default]
    None,
    /// Start a new session: empty transcript, fresh context.
    Clear,
    /// Compress the session's history now (`/compact`): the front end
    /// runs it, since it is a model call whose events it draws.
    Compact {
        /// The words after `/compact`: what to keep in focus.
        focus: Option<String>,
    },
    /// Another session is open now (`/fork`): the front end shows it,
    /// its earlier turns included.
    Switched,
    /// Leave amber.
    Quit,
    /// Send a prompt a command made (a command file): the front end runs
    /// its commands first, then a turn on the text.
    Prompt(PromptEffect),
}

/// A prompt a command made, and what must happen before it is sent.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize)]
pub struct PromptEffect {
    /// The command, as typed: `/fix`.
    pub command: String,
    /// The prompt, its arguments put in; its `!` commands still in it.
    pub text: String,
    /// The commands to run first, whose output takes their place.
    pub commands: Vec<String>,
    /// Where it came from, for the person: a file's path.
    pub source: String,
    /// The fingerprint a person must have trusted first, when the source
    /// is a workspace's and runs commands.
    pub trust: Option<String>,
}

#[derive(Debug, thiserror::Error)]
pub enum CommandError {
    /// The command ran and failed; the text says what and what to do.
    #[error("{0}")]
    Failed(String),
    /// The words are not ones the command takes (a value outside its
    /// choices or range): a usage error, exit status 2 from the shell.
    #[error("{0}")]
    Invalid(String),
    /// The handler's target is gone (its plugin was disabled a moment
    /// ago): reported as an unknown command, never a call into a stale
    /// plugin.
    #[error("unknown command")]
    Gone,
}

impl CommandError {
    pub fn failed(message: impl Into<String>) -> Self {
        CommandError::Failed(message.into())
    }
}

/// A handler: one closure per action, shared by every node that names it.
pub type Handler<C> =
    Arc<dyn Fn(&mut C, &Invocation<'_>) -> Result<Reply, CommandError> + Send + Sync>;

/// Wraps a closure as a [`Handler`]. `Arc::new(|ctx, inv| …)` alone often
/// fails to infer that the closure accepts every lifetime of `Invocation`;
/// this signature tells the compiler.
pub fn handler<C, F>(f: F) -> Handler<C>
where
    F: Fn(&mut C, &Invocation<'_>) -> Result<Reply, CommandError> + Send + Sync + 'static,
{
    Arc::new(f)
}
