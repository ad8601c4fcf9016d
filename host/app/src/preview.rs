//! What an edit or a write would change, as a unified diff, from the
//! call's arguments and the file as it is now: the approval dialog shows
//! it before the call runs, and the tool card of a write (whose result
//! carries no diff, unlike an edit's) keeps it. Read-only: nothing here
//! writes, and a preview that cannot be made is simply not shown. Both
//! front ends show it: the TUI's dialog and cards, and `amber exec`'s
//! terminal dialog.

use std::path::Path;

use serde_json::Value;
use similar::TextDiff;

/// Bytes of a file a preview reads at most.
const MAX_FILE: u64 = 1 << 20;

/// The diff `tool` would make with `arguments` in `workspace`, when it
/// is an edit or a write whose result can be worked out.
pub fn diff(workspace: &Path, tool: &str, arguments: &str) -> Option<String> {
    let args: Value = serde_json::from_str(arguments).ok()?;
    let path = args.get("path")?.as_str()?;
    let file = workspace.join(path);
    let before = read(&file);
    let after = match tool {
        "write_file" => args.get("content")?.as_str()?.to_string(),
        "edit_file" => edited(before.as_deref()?, &args)?,
        _ => return None,
    };
    let before = before.unwrap_or_default();
    if before == after {
        return None;
    }
    Some(
        TextDiff::from_lines(&before, &after)
            .unified_diff()
            .context_radius(3)
            .header(path, path)
            .to_string(),
    )
}

fn read(file: &Path) -> Option<String> {
    let meta = std::fs::metadata(file).ok()?;
    if !meta.is_file() || meta.len() > MAX_FILE {
        return None;
    }
    std::fs::read_to_string(file).ok()
}

/// The text after the edit's replacements, as `edit_file` applies them:
/// each `old_string` once (every time with `replace_all`), in order.
fn edited(before: &str, args: &Value) -> Option<String> {
    let edits: Vec<&Value> = match args.get("edits").and_then(Value::as_array) {
        Some(list) => list.iter().collect(),
        None => vec![args],
    };
    let mut text = before.to_string();
    for edit in edits {
        let old = edit.get("old_string")?.as_str()?;
        let new = edit.get("new_string")?.as_str()?;
        let all = edit
            .get("replace_all")
            .and_then(Value::as_bool)
            .unwrap_or(false);
        if old.is_empty() || !text.contains(old) {
            return None;
        }
        text = if all {
            text.replace(old, new)
        } else {
            text.replacen(old, new, 1)
        };
    }
    Some(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_edit_and_a_write_preview_as_unified_diffs() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("a.txt"), "one\ntwo\nthree\n").unwrap();
        let edit = r#"{"path":"a.txt","old_string":"two","new_string":"TWO"}"#;
        let diff = diff(dir.path(), "edit_file", edit).unwrap();
        assert!(diff.contains("-two\n+TWO\n"), "{diff}");
        let write = r#"{"path":"new.txt","content":"hello\n"}"#;
        let diff = super::diff(dir.path(), "write_file", write).unwrap();
        assert!(diff.contains("+hello"), "{diff}");
        // An edit whose text is not there, or another tool: no preview.
        let missing = r#"{"path":"a.txt","old_string":"four","new_string":"4"}"#;
        assert_eq!(super::diff(dir.path(), "edit_file", missing), None);
        assert_eq!(super::diff(dir.path(), "read_file", edit), None);
    }
}
