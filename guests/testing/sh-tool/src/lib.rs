//! One tool that runs a shell command through the host's `exec` import,
//! and nothing else: it is granted `exec` only, so every command it runs
//! is classified and approved by the host, on the exact command line.
//! Test-only, never bundled (issue 7 builds the real shell tool).
use amber_sdk::prelude::*;

#[derive(Default)]
struct Sh;

impl Plugin for Sh {
    fn manifest() -> Manifest {
        Manifest::new("sh", "0.1.0", "Runs shell commands in the workspace.")
            .permission(Permission::Exec, "to run the commands it is asked to")
    }
}

impl ToolPlugin for Sh {
    fn tools(&self) -> Vec<ToolSpec> {
        vec![
            ToolSpec::new("sh", "Run a shell command in the workspace.").schema(json!({
                "type": "object",
                "properties": {"command": {"type": "string"}, "cwd": {"type": "string"}},
                "required": ["command"],
                "additionalProperties": false
            })),
        ]
    }

    fn call(&mut self, _tool: &str, args: Value) -> Result<ToolOutput, ToolError> {
        let command = args["command"].as_str().unwrap_or_default();
        let cwd = args["cwd"].as_str();
        let out = amber_sdk::exec::run(command, cwd, None).map_err(ToolError::Failed)?;
        let text = format!("{}{}", out.stdout, out.stderr);
        match out.exit_code {
            Some(0) => Ok(ToolOutput::text(text)),
            code => Err(ToolError::Failed(format!("exit {code:?}: {text}"))),
        }
    }
}

amber_sdk::export!(Sh: tool);
