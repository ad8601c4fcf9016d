//! The SDK example: one read-only tool that greets, its manifest taken from
//! Cargo.toml and its arguments a struct whose schema is derived.
//! Test-only, never bundled.
use amber_sdk::prelude::*;
use schemars::JsonSchema;
use serde::Deserialize;

#[derive(Default)]
struct Hello;

/// What `hello` takes. The schema the model sees is derived from it.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct HelloArgs {
    /// Who to greet; "world" when left out.
    name: Option<String>,
}

impl Plugin for Hello {
    fn manifest() -> Manifest {
        // Version and description from Cargo.toml; the id is not the
        // package name (`hello-tool`), so it is given.
        amber_sdk::manifest!(id: "hello")
    }
}

impl ToolPlugin for Hello {
    fn tools(&self) -> Vec<ToolSpec> {
        vec![ToolSpec::new("hello", "Say hello to someone.")
            .args::<HelloArgs>()
            .read_only()]
    }

    fn call(&mut self, _tool: &str, args: Value) -> Result<ToolOutput, ToolError> {
        let args: HelloArgs = parse_args(args)?;
        let name = args.name.as_deref().unwrap_or("world");
        Ok(ToolOutput::text(format!("Hello, {name}!")))
    }
}

amber_sdk::export!(Hello: tool);
