//! `edit_file`: exact string replacement. Each `old_string` must occur
//! exactly once unless `replace_all`; several edits apply in order to the
//! text as the earlier ones left it, and the file is written only if every
//! one applies. The result is a unified diff.

use amber_sdk::prelude::*;
use similar::TextDiff;

use crate::{io_error, string, write_error};

struct Edit<'a> {
    old: &'a str,
    new: &'a str,
    all: bool,
}

fn edits(args: &Value) -> Result<Vec<Edit<'_>>, ToolError> {
    if let Some(list) = args["edits"].as_array() {
        if args.get("old_string").is_some() {
            return Err(ToolError::InvalidArgs(
                "give either old_string/new_string or edits, not both".into(),
            ));
        }
        return list
            .iter()
            .map(|e| {
                Ok(Edit {
                    old: string(e, "old_string")?,
                    new: string(e, "new_string")?,
                    all: e["replace_all"].as_bool().unwrap_or(false),
                })
            })
            .collect();
    }
    Ok(vec![Edit {
        old: string(args, "old_string")?,
        new: string(args, "new_string")?,
        all: args["replace_all"].as_bool().unwrap_or(false),
    }])
}

pub fn edit_file(args: &Value) -> Result<ToolOutput, ToolError> {
    let path = string(args, "path")?;
    let edits = edits(args)?;
    crate::refuse_special(path)?;
    if std::path::Path::new(path).is_dir() {
        return Err(ToolError::Failed(format!(
            "{path} is a directory; give a file path"
        )));
    }
    let before = amber_sdk::fs::read_to_string(path).map_err(|e| io_error(path, &e))?;
    let mut text = before.clone();
    let mut replaced = 0;
    for (i, edit) in edits.iter().enumerate() {
        let which = if edits.len() > 1 {
            format!("edit {}: ", i + 1)
        } else {
            String::new()
        };
        if edit.old.is_empty() {
            return Err(ToolError::InvalidArgs(format!(
                "{which}old_string is empty; use write_file to create a file"
            )));
        }
        if edit.old == edit.new {
            return Err(ToolError::InvalidArgs(format!(
                "{which}old_string and new_string are the same"
            )));
        }
        let count = text.matches(edit.old).count();
        match (count, edit.all) {
            (0, _) => {
                return Err(ToolError::Failed(format!(
                    "{which}old_string was not found in {path}; read the file again and copy the text exactly (whitespace included). Nothing was changed."
                )))
            }
            (n, false) if n > 1 => {
                return Err(ToolError::Failed(format!(
                    "{which}old_string occurs {n} times in {path}; add surrounding lines to make it unique, or set replace_all. Nothing was changed."
                )))
            }
            (n, _) => {
                text = text.replace(edit.old, edit.new);
                replaced += n;
            }
        }
    }
    amber_sdk::fs::write(path, &text).map_err(|e| write_error(path, &e))?;
    let diff = TextDiff::from_lines(&before, &text)
        .unified_diff()
        .context_radius(3)
        .header(&format!("a/{path}"), &format!("b/{path}"))
        .to_string();
    Ok(ToolOutput::text(format!(
        "edited {path}: {}\n{diff}",
        amber_sdk::count(replaced, "replacement")
    ))
    .with_meta(json!({"path": path, "replacements": replaced, "diff": diff})))
}
