//! Notes in the workspace: a read-only tool, a writing tool, a slow one
//! and a rendezvous of two calls, for the engine's end-to-end tests (dispatch, modes, parallel calls,
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
        let path =
            json!({"type": "string", "description": "A path relative to the workspace root."});
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
            ToolSpec::new("rendezvous", "Leave a flag file, then wait until another call leaves its own.")
                .schema(json!({"type": "object", "properties": {"mine": path, "theirs": path, "timeout_ms": {"type": "integer"}},
                               "required": ["mine", "theirs"], "additionalProperties": false})),
        ]
    }

    fn call(&mut self, tool: &str, args: Value) -> Result<ToolOutput, ToolError> {
        match tool {
            "read_note" => {
                let path = path_arg(&args)?;
                amber_sdk::fs::read_to_string(path)
                    .map(ToolOutput::text)
                    .map_err(|e| ToolError::Failed(format!("cannot read {path}: {e}")))
            }
            "write_note" => {
                let path = path_arg(&args)?;
                let text = args["text"].as_str().unwrap_or_default();
                amber_sdk::fs::write(path, text)
                    .map_err(|e| ToolError::Failed(format!("cannot write {path}: {e}")))?;
                Ok(
                    ToolOutput::text(format!("wrote {} bytes to {path}", text.len()))
                        .with_meta(json!({"path": path, "bytes": text.len()})),
                )
            }
            "wait" => {
                let ms = args["ms"].as_u64().unwrap_or(0);
                std::thread::sleep(std::time::Duration::from_millis(ms));
                Ok(ToolOutput::text(format!("waited {ms} ms")))
            }
            // Two calls that meet can only have run at the same time: a
            // deterministic test of parallel dispatch, with no clock in it.
            "rendezvous" => {
                let mine = path_arg(&json!({"path": args["mine"]}))?.to_string();
                let theirs = path_arg(&json!({"path": args["theirs"]}))?.to_string();
                let timeout = args["timeout_ms"].as_u64().unwrap_or(10_000);
                std::fs::write(&mine, "here")
                    .map_err(|e| ToolError::Failed(format!("cannot write {mine}: {e}")))?;
                let mut waited = 0;
                while !std::path::Path::new(&theirs).exists() {
                    if waited >= timeout {
                        return Err(ToolError::Failed(format!(
                            "{theirs} never appeared: the calls did not run together"
                        )));
                    }
                    std::thread::sleep(std::time::Duration::from_millis(5));
                    waited += 5;
                }
                Ok(ToolOutput::text(format!("{mine} met {theirs}")))
            }
            other => Err(ToolError::Failed(format!("no tool `{other}`"))),
        }
    }
}

amber_sdk::export!(Notes: tool);
