//! The SDK example: one read-only tool that greets. Test-only, never bundled.
use amber_sdk::prelude::*;

#[derive(Default)]
struct Hello;

impl Plugin for Hello {
    fn manifest() -> Manifest {
        Manifest::new("hello", "0.1.0", "Greets whoever you name.")
    }
}

impl ToolPlugin for Hello {
    fn tools(&self) -> Vec<ToolSpec> {
        let schema = json!({"type": "object", "properties": {"name": {"type": "string"}}});
        vec![ToolSpec::new("hello", "Say hello to someone.")
            .schema(schema)
            .read_only()]
    }

    fn call(&mut self, _tool: &str, args: Value) -> Result<ToolOutput, ToolError> {
        let name = args["name"].as_str().unwrap_or("world");
        Ok(ToolOutput::text(format!("Hello, {name}!")))
    }
}

amber_sdk::export!(Hello: tool);
