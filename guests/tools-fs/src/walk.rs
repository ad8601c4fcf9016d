//! `list_dir` and `glob`: folders as the model needs to see them, with
//! caps that say what was left out.

use amber_sdk::prelude::*;

use crate::{io_error, path_arg, string};

const MAX_ENTRIES: usize = 1000;
/// Folders `glob` does not descend into.
const SKIPPED: [&str; 3] = [".git", "target", "node_modules"];

pub fn list_dir(args: &Value) -> Result<ToolOutput, ToolError> {
    let path = path_arg(args)?;
    let meta = amber_sdk::fs::metadata(path).map_err(|e| io_error(path, &e))?;
    if !meta.is_dir() {
        return Err(ToolError::Failed(format!(
            "{path} is a file, not a folder; use read_file"
        )));
    }
    let mut rows: Vec<(String, String)> = amber_sdk::fs::read_dir(path)
        .map_err(|e| io_error(path, &e))?
        .flatten()
        .map(|entry| {
            let name = entry.file_name().to_string_lossy().into_owned();
            match entry.metadata() {
                Ok(m) if m.is_dir() => (format!("{name}/"), String::new()),
                Ok(m) => (name, format!("{} bytes", m.len())),
                Err(_) => (name, "unreadable".into()),
            }
        })
        .collect();
    rows.sort();
    let total = rows.len();
    let mut out: String = rows
        .iter()
        .take(MAX_ENTRIES)
        .map(|(name, size)| {
            if size.is_empty() {
                format!("{name}\n")
            } else {
                format!("{name}  ({size})\n")
            }
        })
        .collect();
    if total == 0 {
        out.push_str("(empty folder)\n");
    }
    if total > MAX_ENTRIES {
        out.push_str(&format!(
            "[{} more entries not shown]\n",
            total - MAX_ENTRIES
        ));
    }
    Ok(ToolOutput::text(out).with_meta(json!({"path": path, "entries": total})))
}

pub fn glob(args: &Value) -> Result<ToolOutput, ToolError> {
    let pattern = string(args, "pattern")?;
    let root = path_arg(args)?;
    let matcher = globset::GlobBuilder::new(pattern)
        .literal_separator(true)
        .build()
        .map_err(|e| ToolError::InvalidArgs(format!("bad glob `{pattern}`: {e}")))?
        .compile_matcher();
    match amber_sdk::fs::metadata(root) {
        Ok(meta) if meta.is_dir() => {}
        Err(e) if amber_sdk::fs::is_not_granted(&e) => return Err(io_error(root, &e)),
        _ => {
            return Err(ToolError::Failed(format!(
                "{root} is not a folder (or does not exist)"
            )))
        }
    }
    let mut found = Vec::new();
    let mut stack = vec![std::path::PathBuf::from(root)];
    while let Some(dir) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            let name = entry.file_name();
            let is_dir = entry.file_type().map(|t| t.is_dir()).unwrap_or(false);
            if is_dir {
                if !SKIPPED.iter().any(|s| name == *s) {
                    stack.push(path);
                }
                continue;
            }
            let relative = path.strip_prefix(root).unwrap_or(&path);
            let shown = path.strip_prefix("./").unwrap_or(&path);
            if matcher.is_match(relative) || matcher.is_match(shown) {
                found.push(shown.to_string_lossy().into_owned());
            }
        }
    }
    found.sort();
    let total = found.len();
    let mut out: String = found
        .iter()
        .take(MAX_ENTRIES)
        .map(|f| format!("{f}\n"))
        .collect();
    if total == 0 {
        out = format!("no files match `{pattern}` under {root}\n");
    } else if total > MAX_ENTRIES {
        out.push_str(&format!(
            "[{} more matches not shown]\n",
            total - MAX_ENTRIES
        ));
    }
    Ok(ToolOutput::text(out).with_meta(json!({"pattern": pattern, "matches": total})))
}
