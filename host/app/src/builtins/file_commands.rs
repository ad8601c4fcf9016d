//! `/commands`: the command files found, each with where it comes from
//! and whether it runs commands, and the files skipped with the reason.

use amber_core::commands::{Invocation, Reply};
use serde_json::json;

use super::Handled;
use crate::file_commands::discover;
use crate::App;

pub fn list(app: &mut App, _inv: &Invocation<'_>) -> Handled {
    let (commands, skipped) = discover(&app.command_folders());
    let mut lines = Vec::new();
    if commands.is_empty() {
        lines.push("no command files (see /help commands for where they go)".to_string());
    }
    for c in &commands {
        let runs = if c.commands().is_empty() {
            String::new()
        } else {
            format!(" · runs {}", c.commands().join("; "))
        };
        lines.push(format!(
            "/{:<20} {} ({}){runs}\n  {}",
            c.name,
            c.description,
            c.origin.describe(),
            c.path.display()
        ));
    }
    for s in &skipped {
        lines.push(format!("skipped {}: {}", s.path.display(), s.reason));
    }
    let data = json!({
        "commands": commands.iter().map(|c| json!({
            "name": c.name,
            "description": c.description,
            "source": c.origin.describe(),
            "path": c.path.display().to_string(),
            "runs": c.commands(),
            "needs_trust": c.needs_trust(),
        })).collect::<Vec<_>>(),
        "skipped": skipped.iter().map(|s| json!({
            "path": s.path.display().to_string(),
            "reason": s.reason,
        })).collect::<Vec<_>>(),
    });
    Ok(Reply::text(lines.join("\n")).with_data(data))
}
