//! `/agents`: the custom agents found, each with where it comes from and
//! what it narrows; `/agents show NAME` one in full, with its file and
//! its prompt (docs/agents.md). Read from disk each time it runs, so a
//! file added mid-session is listed at once.

use amber_core::commands::{Invocation, Reply};

use super::{invalid, Handled};
use crate::render::agents::{agent_data, data, listing, shown};
use crate::App;

pub fn agents(app: &mut App, inv: &Invocation<'_>) -> Handled {
    let arg = inv.arg.trim();
    let (verb, name) = arg.split_once(char::is_whitespace).unwrap_or((arg, ""));
    act(app, verb, name.trim())
}

/// `/agents VERB NAME`: the typed command's, and a completed name's (the
/// agents feed).
pub fn act(app: &mut App, verb: &str, name: &str) -> Handled {
    let catalog = crate::agents::catalog(&app.dirs, &app.project.root);
    match verb {
        "" | "list" => Ok(Reply::text(listing(&catalog)).with_data(data(&catalog))),
        "show" if !name.is_empty() => {
            let agent = catalog
                .get(name)
                .ok_or_else(|| invalid(format!("no agent `{name}` (see /agents)")))?;
            let mut value = agent_data(agent);
            value["prompt"] = agent.prompt.clone().into();
            Ok(Reply::text(shown(agent)).with_data(value))
        }
        _ => Err(invalid("usage: /agents [list] | show NAME")),
    }
}
