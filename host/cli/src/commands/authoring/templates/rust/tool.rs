//! {{id}}: an amber tool plugin in Rust (docs/plugin-authoring.md).
use amber_sdk::prelude::*;
use schemars::JsonSchema;
use serde::Deserialize;

#[derive(Default)]
struct {{Camel}};

/// What the tool takes; the model sees the schema derived from it.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct Args {
    /// The text to count.
    text: String,
}

impl Plugin for {{Camel}} {
    fn manifest() -> Manifest {
        amber_sdk::manifest!(id: "{{id}}")
    }
}

impl ToolPlugin for {{Camel}} {
    fn tools(&self) -> Vec<ToolSpec> {
        vec![ToolSpec::new("{{snake}}", "Count the words of a text.")
            .args::<Args>()
            .read_only()]
    }

    fn call(&mut self, _tool: &str, args: Value) -> Result<ToolOutput, ToolError> {
        let args: Args = parse_args(args)?;
        let words = args.text.split_whitespace().count();
        Ok(ToolOutput::text(format!("{words} words")))
    }
}

amber_sdk::export!({{Camel}}: tool);
