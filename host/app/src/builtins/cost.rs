//! `/cost`: what the open session spent, turn by turn, and in all
//! (docs/cost.md): read from its recorded heads, so a resumed session's
//! earlier turns count, its sub-agents' and compression's calls with
//! them.

use amber_core::commands::{Invocation, Reply};

use super::{failed, Handled};
use crate::render::cost::{data, table};
use crate::App;

pub fn cost(app: &mut App, _inv: &Invocation<'_>) -> Handled {
    let Some(live) = app.live() else {
        return Ok(Reply::text(
            "no session is open; from the shell, amber sessions show ID prints a session's costs",
        ));
    };
    let id = live.info.id.clone();
    let model = format!("{}/{}", live.preset.name, live.preset.model);
    let priced = app
        .config()
        .price_of(&live.preset.name, &live.preset.model)
        .is_some();
    let Ok(path) = crate::session::store(&app.dirs).path(&id) else {
        return Ok(Reply::text("no turns yet: nothing is spent"));
    };
    let resumed = amber_core::session::resume(&path).map_err(|e| failed(e.to_string()))?;
    let unpriced = (!priced).then_some(model.as_str());
    Ok(Reply::text(table(&resumed.heads, unpriced)).with_data(data(&resumed.heads)))
}
