//! The built-in slash commands' handlers. completions.json (in
//! amber-core) documents every command and names its action; this module
//! registers one handler per action. A test holds the two in step: a
//! handler without a documented node, or a documented action without a
//! handler, fails it.

pub(crate) mod agents;
pub(crate) mod cost;
pub(crate) mod file_commands;
pub(crate) mod jobs;
pub(crate) mod mcp;
pub(crate) mod memory;
pub(crate) mod permissions;
pub(crate) mod planning;
pub(crate) mod plugins;
pub(crate) mod rewind;
pub(crate) mod session;
pub(crate) mod settings;
pub(crate) mod skills;

use std::sync::Arc;

use amber_core::commands::{help_handler, CommandError, CommandSet, Handler, Invocation, Reply};

use crate::App;

/// A handler's result.
pub(crate) type Handled = Result<Reply, CommandError>;

/// A built-in handler: a plain function of the App and the invocation.
pub(crate) type Builtin = fn(&mut App, &Invocation<'_>) -> Handled;

/// Every built-in action, with its handler.
const HANDLERS: &[(&str, Builtin)] = &[
    ("set.value", settings::set_value),
    ("get.all", settings::get_all),
    ("get.value", settings::get_value),
    ("model", settings::model),
    ("plugins.list", plugins::list),
    ("plugins.enable", plugins::enable),
    ("plugins.disable", plugins::disable),
    ("plugins.info", plugins::info),
    ("hooks", plugins::hooks),
    ("mcp.list", mcp::list),
    ("mcp.connect", mcp::connect),
    ("mcp.disconnect", mcp::disconnect),
    ("mcp.prompt", mcp::prompt),
    ("mcp.approve", mcp::approve),
    ("sessions.list", session::sessions),
    ("sessions.show", session::show),
    ("get.rules", settings::get_rules),
    ("status", session::status),
    ("tools", session::tools),
    ("cost", cost::cost),
    ("jobs", jobs::jobs),
    ("rewind", rewind::rewind),
    ("diff", session::diff),
    ("permissions", permissions::permissions),
    ("memory", memory::memory),
    ("commands.list", file_commands::list),
    ("skills", skills::skills),
    ("agents", agents::agents),
    ("plan", planning::plan),
    ("todos", planning::todos),
    ("compact", session::compact),
    ("clear", session::clear),
    ("fork", session::fork),
    ("quit", session::quit),
];

/// `/help` is core's: it renders any page of the tree it runs from.
const HELP: &str = "help";

/// Registers every built-in handler under its action.
pub fn register(set: &mut CommandSet<App>) {
    set.register(HELP, help_handler());
    for (action, f) in HANDLERS {
        set.register(*action, handler(*f));
    }
}

/// The actions amber has built-in handlers for.
pub fn actions() -> impl Iterator<Item = &'static str> {
    std::iter::once(HELP).chain(HANDLERS.iter().map(|(action, _)| *action))
}

pub(crate) fn handler(f: Builtin) -> Handler<App> {
    Arc::new(move |app: &mut App, inv: &Invocation<'_>| f(app, inv))
}

/// A failure, as the status line shows it after "command error: ".
pub(crate) fn failed(message: impl Into<String>) -> CommandError {
    CommandError::Failed(message.into())
}

/// Words the command does not take: a usage error.
pub(crate) fn invalid(message: impl Into<String>) -> CommandError {
    CommandError::Invalid(message.into())
}

/// The argument's words, and whether `--save` was among them.
pub(crate) fn words_and_save(arg: &str) -> (Vec<&str>, bool) {
    let mut save = false;
    let words = arg
        .split_whitespace()
        .filter(|w| {
            let is_save = *w == "--save";
            save |= is_save;
            !is_save
        })
        .collect();
    (words, save)
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;

    use amber_core::commands::builtin_tree;

    use super::*;

    /// The tree and the handlers are one list seen twice: neither may
    /// name an action the other lacks.
    #[test]
    fn every_documented_action_has_a_handler_and_every_handler_a_node() {
        let set: CommandSet<()> = CommandSet::new(builtin_tree());
        let documented: BTreeSet<String> = set.actions_in_tree();
        let handled: BTreeSet<String> = actions().map(String::from).collect();
        let undocumented: Vec<_> = handled.difference(&documented).collect();
        let unhandled: Vec<_> = documented.difference(&handled).collect();
        assert!(
            undocumented.is_empty(),
            "handlers without a documented node in completions.json: {undocumented:?}"
        );
        assert!(
            unhandled.is_empty(),
            "documented actions without a handler: {unhandled:?}"
        );
    }

    #[test]
    fn save_is_taken_out_of_the_words() {
        assert_eq!(words_and_save("read --save"), (vec!["read"], true));
        assert_eq!(words_and_save(" 0.5 "), (vec!["0.5"], false));
    }
}
