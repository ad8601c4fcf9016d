//! `/skills`: the skills found, each with where it comes from; `/skills
//! show NAME` one in full; `/skills enable|disable NAME` turns one on or
//! off in the config (`[skills] disabled`), for this session at once.

use amber_core::commands::{Invocation, Reply};

use super::{failed, invalid, Handled};
use crate::config_file;
use crate::render::skills::{data, listing, shown};
use crate::skills::Catalog;
use crate::App;

/// The catalog: the session's, found again; from the shell, found now.
fn catalog(app: &App) -> std::sync::Arc<Catalog> {
    match app.live.as_ref().and_then(|live| live.skills.as_ref()) {
        Some(set) => set.refresh(None),
        None => std::sync::Arc::new(crate::skills::catalog(
            &app.dirs,
            &app.project.root,
            &app.config.skills,
        )),
    }
}

pub fn skills(app: &mut App, inv: &Invocation<'_>) -> Handled {
    let arg = inv.arg.trim();
    let (verb, name) = arg.split_once(char::is_whitespace).unwrap_or((arg, ""));
    act(app, verb, name.trim())
}

/// `/skills VERB NAME`: the typed command's, and a completed name's
/// (the skills feed).
pub fn act(app: &mut App, verb: &str, name: &str) -> Handled {
    let catalog = catalog(app);
    let known = |name: &str| {
        catalog
            .get(name)
            .ok_or_else(|| invalid(format!("no skill `{name}` (see /skills)")))
    };
    match verb {
        "" | "list" => Ok(Reply::text(listing(&catalog)).with_data(data(&catalog))),
        "show" if !name.is_empty() => Ok(Reply::text(shown(known(name)?))),
        "enable" | "disable" if !name.is_empty() => {
            known(name)?;
            let disabled = set_disabled(app, name, verb == "disable")?;
            if let Some(set) = app.live.as_ref().and_then(|live| live.skills.as_ref()) {
                set.refresh(Some(disabled));
            }
            Ok(Reply::text(format!("skill `{name}` {verb}d")))
        }
        _ => Err(invalid(
            "usage: /skills [list] | show NAME | enable NAME | disable NAME",
        )),
    }
}

/// Adds `name` to `[skills] disabled` or takes it out, under the config
/// file's lock; returns the list now in force.
fn set_disabled(
    app: &mut App,
    name: &str,
    disable: bool,
) -> Result<Vec<String>, super::CommandError> {
    let path = app.config_path();
    let edited = config_file::edit(&path, |doc| {
        let on_disk = amber_config::Config::parse(&doc.to_string(), &path)?;
        let mut names = on_disk.skills.disabled;
        names.retain(|n| n != name);
        if disable {
            names.push(name.to_string());
        }
        let array: toml_edit::Array = names.iter().map(String::as_str).collect();
        doc.as_table_mut()
            .entry("skills")
            .or_insert_with(|| toml_edit::Item::Table(toml_edit::Table::new()))
            .as_table_mut()
            .ok_or_else(|| anyhow::anyhow!("`skills` in {} is not a table", path.display()))?
            .insert("disabled", toml_edit::value(array));
        Ok(())
    })
    .map_err(|e| failed(format!("{e:#}")))?;
    let disabled = edited.skills.disabled.clone();
    app.set_config(edited);
    Ok(disabled)
}
