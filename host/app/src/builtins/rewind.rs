//! `/rewind`: the session's turns; `/rewind TURN [code|conversation]
//! [--force]` puts the workspace's files and the conversation back to the
//! end of that turn (docs/checkpoints.md).

use amber_core::commands::{Effect, Invocation, Reply};
use serde_json::json;

use super::{failed, invalid, Handled};
use crate::checkpoints::rewind::{listing, turns, What};
use crate::checkpoints::session_rewind::{self, Writer};
use crate::App;

pub fn rewind(app: &mut App, inv: &Invocation<'_>) -> Handled {
    let Some(id) = app.live().map(|l| l.info.id.clone()) else {
        return Ok(Reply::text(
            "no session is open; from the shell: amber sessions rewind ID --to TURN",
        ));
    };
    let Ok(path) = crate::session::store(&app.dirs).path(&id) else {
        return Ok(Reply::text("no turns yet: nothing to rewind"));
    };
    let mut words: Vec<&str> = inv.arg.split_whitespace().collect();
    let force = words.contains(&"--force");
    words.retain(|w| *w != "--force");
    let all = turns(&path).map_err(|e| failed(e.to_string()))?;
    let (turn, what) = match words.as_slice() {
        [] => {
            return Ok(Reply::text(listing(&all)).with_data(json!({ "turns": all })));
        }
        [turn] => (*turn, What::Both),
        [turn, "code"] => (*turn, What::Code),
        [turn, "conversation"] => (*turn, What::Conversation),
        _ => {
            return Err(invalid(
                "usage: /rewind [TURN [code|conversation]] [--force]",
            ))
        }
    };
    let turn: usize = turn
        .parse()
        .ok()
        .filter(|t| *t >= 1 && *t <= all.len())
        .ok_or_else(|| {
            invalid(format!(
                "`{turn}` is not a turn of this session (1 to {})",
                all.len()
            ))
        })?;
    let root = app.project.root.clone();
    let dirs = app.dirs.clone();
    let Some(live) = app.live_mut() else {
        return Ok(Reply::text("no session is open"));
    };
    // The files are the session's own workspace's, never another's.
    let own = live.info.workspace.is_empty() || std::path::Path::new(&live.info.workspace) == root;
    if what.code() && !own {
        return Err(failed(format!(
            "this session belongs to the workspace {}; rewind its files from there, or rewind the conversation only: /rewind {turn} conversation",
            live.info.workspace
        )));
    }
    let done = session_rewind::rewind(
        &dirs,
        &root,
        &path,
        turn,
        what,
        force,
        &mut Writer::Live(&mut live.agent),
    )
    .map_err(|e| failed(format!("{e:#}")))?;
    Ok(
        Reply::text(format!("rewound to turn {turn}\n{}", done.describe()))
            .with_data(json!(done))
            .with_effect(if what.conversation() {
                Effect::Switched
            } else {
                Effect::None
            }),
    )
}
