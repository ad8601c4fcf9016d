//! Notes in the workspace: a read-only tool, a writing tool and a slow
//! one, for the engine's end-to-end tests (dispatch, modes, parallel calls,
//! Ctrl-C and kill -9 mid-call). Test-only, never bundled.
use amber_sdk::prelude::*;

#[derive(Default)]
struct Notes;

impl Plugin for Notes {
    fn manifest() -> Manifest {
        Manifest::new("notes", "0.1.0", "Reads and writes notes in the workspace.")
            .permission(Permission::WorkspaceRead, "read notes")
            .permission(Permission::WorkspaceWrite, "write notes")
    }
}

fn path_arg(args: &Value) -> Result<&str, ToolError> {
    let path = args["path"]
        .as_str()
        .ok_or_else(|| ToolError::InvalidArgs("`path` must be a string".into()))?;
    if path.starts_with('/') || path.split('/').any(|c| c == "..") {
        return Err(ToolError::InvalidArgs(format!(
            "`{path}` is outside the workspace; give a relative path"
        )));
    }
    Ok(path)
}

impl ToolPlugin for Notes {
    fn tools(&self) -> Vec<ToolSpec> {
        let path = json!({"type": "string", "description": "A path relative to the workspace root."});
        vec![
            ToolSpec::new("read_note", "Read a note (a text file) from the workspace.")
                .schema(json!({"type": "object", "properties": {"path": path}, "required": ["path"], "additionalProperties": false}))
                .read_only(),
            ToolSpec::new("write_note", "Write a note (a text file) into the workspace.")
                .schema(json!({"type": "object", "properties": {"path": path, "text": {"type": "string"}},
                               "required": ["path", "text"], "additionalProperties": false})),
            ToolSpec::new("wait", "Wait for some milliseconds, then say so.")
                .schema(json!({"type": "object", "properties": {"ms": {"type": "integer", "minimum": 0, "maximum": 600000}},
                               "required": ["ms"], "additionalProperties": false}))
                .read_only(),
        ]
    }

    fn call(&mut self, tool: &str, args: Value) -> Result<ToolOutput, ToolError> {
        match tool {
            "read_note" => {
                let path = path_arg(&args)?;
                std::fs::read_to_string(path)
                    .map(ToolOutput::text)
                    .map_err(|e| ToolError::Failed(format!("cannot read {path}: {e}")))
            }
            "write_note" => {
                let path = path_arg(&args)?;
                let text = args["text"].as_str().unwrap_or_default();
                std::fs::write(path, text)
                    .map_err(|e| ToolError::Failed(format!("cannot write {path}: {e}")))?;
                Ok(ToolOutput::text(format!("wrote {} bytes to {path}", text.len()))
                    .with_meta(json!({"path": path, "bytes": text.len()})))
            }
            "wait" => {
                let ms = args["ms"].as_u64().unwrap_or(0);
                std::thread::sleep(std::time::Duration::from_millis(ms));
                Ok(ToolOutput::text(format!("waited {ms} ms")))
            }
            other => Err(ToolError::Failed(format!("no tool `{other}`"))),
        }
    }
}

amber_sdk::export!(Notes: tool);
