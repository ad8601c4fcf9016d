//! Writing one key of the user's config file (`/set … --save`, `amber
//! /set …`): through toml_edit, so the user's comments, order and layout
//! stay as they were, and atomically, so a crash never leaves half a file.
//! The new text is parsed and validated as amber reads it before it is
//! written: a value amber would refuse is refused whole, and the file is
//! untouched. Edits are locked, so concurrent ones all land (see [`edit`]).

use std::path::Path;

use amber_config::Config;
use amber_state::atomic::{self, FileLock};
use anyhow::{Context, Result};
use toml_edit::{DocumentMut, Item, Table, Value};

/// Sets `key` (dotted: `policy.mode`) to `value` in the file at `path`,
/// creating the file and its tables when missing, and returns the config
/// as amber now reads it.
pub fn set(path: &Path, key: &str, value: Value) -> Result<Config> {
    edit(path, |doc| {
        put(doc.as_table_mut(), key, value)
            .with_context(|| format!("cannot set `{key}` in {}", path.display()))
    })
}

/// Applies `change` to the file at `path` (made when missing), checks the
/// result as amber reads it, and writes it atomically.
///
/// Two amber processes editing at once both land: the edit holds a lock
/// beside the file and reads the file under it, so the second applies its
/// change to what the first wrote. The file keeps its mode and owner (a
/// `0600` config stays `0600`); one amber creates is `0600`, since it may
/// come to hold secrets (an MCP server's `env`). A symlinked config is
/// edited through its target, and the link stays.
pub fn edit(path: &Path, change: impl FnOnce(&mut DocumentMut) -> Result<()>) -> Result<Config> {
    let target = atomic::follow_links(path)
        .with_context(|| format!("cannot follow the link {}", path.display()))?;
    let _lock = FileLock::for_file(&target)
        .with_context(|| format!("cannot lock {} to edit it", target.display()))?;
    let text = match std::fs::read_to_string(&target) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
        Err(e) => return Err(e).with_context(|| format!("cannot read {}", path.display())),
    };
    let mut doc: DocumentMut = text
        .parse()
        .with_context(|| format!("cannot edit {}: it is not valid TOML", path.display()))?;
    change(&mut doc)?;
    let new_text = doc.to_string();
    let config = Config::parse(&new_text, path)?;
    let options = atomic::Options {
        durable: true,
        mode: atomic::NewMode::PrivateIfNew,
    };
    atomic::write_with(&target, new_text.as_bytes(), options).map_err(|e| {
        anyhow::anyhow!("cannot write {}: {}", path.display(), atomic::describe(&e))
    })?;
    Ok(config)
}

/// Walks `key`'s tables from `table`, making the missing ones, and sets
/// its last segment, keeping the comments around an existing value.
fn put(table: &mut Table, key: &str, value: Value) -> Result<()> {
    let mut segments: Vec<&str> = key.split('.').collect();
    let last = segments.pop().context("an empty key")?;
    let mut at = table;
    for segment in segments {
        let entry = at.entry(segment).or_insert_with(|| {
            let mut t = Table::new();
            // `[policy]` as a header of its own, not `policy = {}`.
            t.set_implicit(false);
            Item::Table(t)
        });
        at = entry
            .as_table_mut()
            .with_context(|| format!("`{segment}` is not a table"))?;
    }
    match at.get_mut(last).and_then(Item::as_value_mut) {
        Some(old) => {
            let decor = old.decor().clone();
            *old = value;
            *old.decor_mut() = decor;
        }
        None => {
            at.insert(last, Item::Value(value));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_value_is_set_and_the_users_comments_and_layout_stay() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("config.toml");
        let before = "# my amber\n[policy]\nmode = \"write\" # the default\n\n[agent]\n# keep going\nmax_tool_iterations = 50\n";
        std::fs::write(&path, before).unwrap();
        let config = set(&path, "policy.mode", "read".into()).unwrap();
        assert_eq!(config.policy.mode, amber_core::engine::Mode::Read);
        let after = std::fs::read_to_string(&path).unwrap();
        assert_eq!(after, before.replace("\"write\"", "\"read\""));
    }

    #[test]
    fn a_missing_file_and_table_are_made() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("sub/config.toml");
        set(&path, "agent.temperature", 0.5.into()).unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        assert_eq!(text.trim(), "[agent]\ntemperature = 0.5");
    }

    #[test]
    fn a_value_amber_would_refuse_leaves_the_file_untouched() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("config.toml");
        let before = "[agent]\nmax_tool_iterations = 50\n";
        std::fs::write(&path, before).unwrap();
        let err = set(&path, "agent.max_tool_iterations", 0.into()).unwrap_err();
        assert!(
            format!("{err:#}").contains("agent.max_tool_iterations"),
            "{err:#}"
        );
        assert_eq!(std::fs::read_to_string(&path).unwrap(), before);
    }
}
