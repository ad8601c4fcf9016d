//! {{id}}: an amber prompt block in Rust.
use amber_sdk::prelude::*;
use amber_sdk::{BlockPosition, BlockSpec, RenderContext};

#[derive(Default)]
struct {{Camel}};

impl Plugin for {{Camel}} {
    fn manifest() -> Manifest {
        amber_sdk::manifest!(id: "{{id}}")
    }
}

impl PromptPlugin for {{Camel}} {
    fn blocks(&self) -> Vec<BlockSpec> {
        vec![BlockSpec {
            name: "{{snake}}".into(),
            position: BlockPosition::Head,
            priority: 50,
        }]
    }

    fn render(&mut self, _block: &str, ctx: RenderContext) -> Result<String, String> {
        if ctx.request.is_empty() {
            return Ok(String::new()); // an empty block is left out
        }
        let words = ctx.request.split_whitespace().count();
        Ok(format!("Keep answers short: the user asked {words} words."))
    }
}

amber_sdk::export!({{Camel}}: prompt);
