//! The file tools, with the names and arguments models already know:
//! `read_file`, `write_file`, `edit_file`, `list_dir` and `glob`. Every
//! path goes through the workspace preopen (read-only unless the plugin
//! holds `workspace-write`); the host has already refused any path outside
//! the workspace and made absolute ones relative. Errors name the path and
//! say what to do instead; files are opened through `amber_sdk::fs`, so a
//! missing grant is named as such, not as a missing file.

mod edit;
mod read;
mod walk;

use amber_sdk::prelude::*;

#[derive(Default)]
struct Files;

impl Plugin for Files {
    fn manifest() -> Manifest {
        Manifest::new(
            "fs",
            "0.1.0",
            "Reads, writes, edits and lists files in the workspace.",
        )
        .permission(Permission::WorkspaceRead, "to read and list files")
        .permission(Permission::WorkspaceWrite, "to write and edit files")
    }
}

fn path_schema() -> Value {
    json!({"type": "string", "description": "Relative to the workspace root (an absolute path inside it also works)."})
}

/// `args[key]` as a string, or an error the model can act on.
pub(crate) fn string<'a>(args: &'a Value, key: &str) -> Result<&'a str, ToolError> {
    args[key]
        .as_str()
        .ok_or_else(|| ToolError::InvalidArgs(format!("`{key}` must be a string")))
}

/// The path argument, with `.` for an empty one (the workspace root).
pub(crate) fn path_arg(args: &Value) -> Result<&str, ToolError> {
    let path = args["path"].as_str().unwrap_or(".");
    Ok(if path.is_empty() { "." } else { path })
}

/// Refuses what is not a regular file before it is opened: a FIFO or a
/// device would block the call (and the run) past any deadline, or never
/// end. A file or a directory passes, with its metadata.
pub(crate) fn refuse_special(path: &str) -> Result<std::fs::Metadata, ToolError> {
    let meta = amber_sdk::fs::metadata(path).map_err(|e| io_error(path, &e))?;
    if meta.is_dir() || meta.is_file() {
        return Ok(meta);
    }
    Err(ToolError::Failed(format!(
        "{path} is not a regular file (a FIFO, a device or a socket); only regular files are read or written"
    )))
}

/// An I/O error, named by path, in words (WASI's error numbers are not
/// the ones a person could look up), with advice where there is some. A
/// missing grant already says what to do.
pub(crate) fn io_error(path: &str, e: &std::io::Error) -> ToolError {
    use std::io::ErrorKind::*;
    let advice = match e.kind() {
        _ if amber_sdk::fs::is_not_granted(e) => "",
        NotFound => " (check the path with list_dir or glob)",
        PermissionDenied | ReadOnlyFilesystem => {
            " (writing needs the workspace-write permission and write mode)"
        }
        _ => "",
    };
    let words = amber_sdk::fs::describe(e);
    ToolError::Failed(format!("{path}: {words}{advice}"))
}

/// A failed write: the host's words already name the path ("no space left
/// on device (writing a.txt)"); a missing grant is named with the path, as
/// every other file error is.
pub(crate) fn write_error(path: &str, e: &std::io::Error) -> ToolError {
    if amber_sdk::fs::is_not_granted(e) {
        return io_error(path, e);
    }
    ToolError::Failed(amber_sdk::fs::describe(e))
}

impl ToolPlugin for Files {
    fn tools(&self) -> Vec<ToolSpec> {
        let edit = json!({
            "type": "object",
            "properties": {
                "old_string": {"type": "string"},
                "new_string": {"type": "string"},
                "replace_all": {"type": "boolean"}
            },
            "required": ["old_string", "new_string"],
            "additionalProperties": false
        });
        vec![
            ToolSpec::new("read_file", "Read a text file, with line numbers. Use offset (first line, 1-based) and limit (lines) for large files. An image (PNG, JPEG, GIF, WebP) comes back as an image to look at.")
                .schema(json!({"type": "object", "properties": {
                    "path": path_schema(),
                    "offset": {"type": "integer", "minimum": 1},
                    "limit": {"type": "integer", "minimum": 1}
                }, "required": ["path"], "additionalProperties": false}))
                .read_only(),
            ToolSpec::new("write_file", "Write a whole file, creating it and its folders if needed.")
                .schema(json!({"type": "object", "properties": {
                    "path": path_schema(),
                    "content": {"type": "string"}
                }, "required": ["path", "content"], "additionalProperties": false})),
            ToolSpec::new("edit_file", "Replace exact text in a file: old_string must occur exactly once unless replace_all. Several edits apply in order, all or nothing. Returns a unified diff.")
                .schema(json!({"type": "object", "properties": {
                    "path": path_schema(),
                    "old_string": {"type": "string"},
                    "new_string": {"type": "string"},
                    "replace_all": {"type": "boolean"},
                    "edits": {"type": "array", "items": edit, "minItems": 1}
                }, "required": ["path"], "additionalProperties": false})),
            ToolSpec::new("list_dir", "List a folder: subfolders end with /, files show their size.")
                .schema(json!({"type": "object", "properties": {"path": path_schema()}, "additionalProperties": false}))
                .read_only(),
            ToolSpec::new("glob", "Find files whose path matches a glob such as **/*.rs, under path (default: the root). Skips .git and target.")
                .schema(json!({"type": "object", "properties": {
                    "pattern": {"type": "string"},
                    "path": path_schema()
                }, "required": ["pattern"], "additionalProperties": false}))
                .read_only(),
        ]
    }

    fn call(&mut self, tool: &str, args: Value) -> Result<ToolOutput, ToolError> {
        match tool {
            "read_file" => read::read_file(&args),
            "write_file" => write_file(&args),
            "edit_file" => edit::edit_file(&args),
            "list_dir" => walk::list_dir(&args),
            "glob" => walk::glob(&args),
            other => Err(ToolError::Failed(format!("no tool `{other}`"))),
        }
    }
}

fn write_file(args: &Value) -> Result<ToolOutput, ToolError> {
    let path = string(args, "path")?;
    let content = string(args, "content")?;
    let target = std::path::Path::new(path);
    if target.exists() {
        refuse_special(path)?;
    }
    if target.is_dir() {
        return Err(ToolError::Failed(format!(
            "{path} is a directory; give a file path"
        )));
    }
    let existed = target.exists();
    if let Some(parent) = target.parent().filter(|p| !p.as_os_str().is_empty()) {
        amber_sdk::fs::create_dir_all(parent).map_err(|e| io_error(path, &e))?;
    }
    amber_sdk::fs::write(target, content).map_err(|e| write_error(path, &e))?;
    let verb = if existed { "overwrote" } else { "created" };
    Ok(
        ToolOutput::text(format!("{verb} {path} ({} bytes)", content.len()))
            .with_meta(json!({"path": path, "bytes": content.len(), "created": !existed})),
    )
}

amber_sdk::export!(Files: tool);
