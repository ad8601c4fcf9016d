//! `/plan` and `/todos`: plan mode on or off (docs/plan-mode.md), and the
//! session's todo list.

use amber_core::commands::{Invocation, Reply};
use amber_core::engine::todo::describe;
use amber_core::engine::Mode;

use super::{failed, invalid, Handled};
use crate::App;

/// `/plan` switches to plan mode; `/plan off` back to the mode it was
/// entered from (write mode when that is not known).
pub fn plan(app: &mut App, inv: &Invocation<'_>) -> Handled {
    let (mode, said) = match inv.arg.trim() {
        "" | "on" => (
            Mode::Plan,
            "plan mode: the model reads and proposes a plan before anything changes (/plan off leaves it)",
        ),
        "off" => (app.mode_before_plan(), "plan mode is off"),
        other => return Err(invalid(format!("usage: /plan [off] (not `{other}`)"))),
    };
    app.switch_mode(mode)
        .map_err(|e| failed(format!("{e:#}")))?;
    Ok(Reply::text(if mode == Mode::Plan {
        said.to_string()
    } else {
        format!("{said}: {} mode", mode.as_str())
    }))
}

/// `/todos`: the list as the model sees it.
pub fn todos(app: &mut App, _inv: &Invocation<'_>) -> Handled {
    let items = app
        .live()
        .and_then(|live| live.agent.todos())
        .map(|t| t.items())
        .unwrap_or_default();
    let text = describe(&items).unwrap_or_else(|| "The todo list is empty.".into());
    Ok(Reply::text(text).with_data(serde_json::json!({ "todos": items })))
}
