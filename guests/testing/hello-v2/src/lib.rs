//! Version 0.2.0 of the `hello` plugin: same id, a different greeting and
//! a second tool, so a test can tell which version is running.
use amber_sdk::prelude::*;

#[derive(Default)]
struct Hello;

impl Plugin for Hello {
    fn manifest() -> Manifest {
        Manifest::new("hello", "0.2.0", "Greets whoever you name, more warmly.").permission(
            Permission::WorkspaceRead,
            "to greet the files in the workspace too",
        )
    }
}

impl ToolPlugin for Hello {
    fn tools(&self) -> Vec<ToolSpec> {
        vec![
            ToolSpec::new("hello", "Say hello to someone.").read_only(),
            ToolSpec::new("wave", "Wave.").read_only(),
        ]
    }

    fn call(&mut self, tool: &str, args: Value) -> Result<ToolOutput, ToolError> {
        let name = args["name"].as_str().unwrap_or("world");
        match tool {
            "wave" => Ok(ToolOutput::text("o/")),
            _ => Ok(ToolOutput::text(format!("Hi there, {name}!"))),
        }
    }
}

amber_sdk::export!(Hello: tool);
