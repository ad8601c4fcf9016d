//! Prompt blocks that misbehave, beside two that work: the engine must
//! omit the empty one, log and omit the failing and the trapping one, and
//! still place the good ones by position and priority. Never bundled.
use amber_sdk::prelude::*;
use amber_sdk::{BlockPosition, BlockSpec, RenderContext};

#[derive(Default)]
struct BadBlocks;

impl Plugin for BadBlocks {
    fn manifest() -> Manifest {
        Manifest::new(
            "bad-blocks",
            "0.1.0",
            "Prompt blocks that trap, fail or render nothing.",
        )
    }
}

fn block(name: &str, position: BlockPosition, priority: i32) -> BlockSpec {
    BlockSpec {
        name: name.into(),
        position,
        priority,
    }
}

impl PromptPlugin for BadBlocks {
    fn blocks(&self) -> Vec<BlockSpec> {
        vec![
            block("traps", BlockPosition::Head, 0),
            block("fails", BlockPosition::Head, 1),
            block("empty", BlockPosition::Head, 2),
            // After the bundled workspace block (priority 10).
            block("late-head", BlockPosition::Head, 20),
            block("tail", BlockPosition::Tail, 0),
        ]
    }

    fn render(&mut self, block: &str, _ctx: RenderContext) -> Result<String, String> {
        match block {
            "traps" => std::process::abort(),
            "fails" => Err("the block's data source is down".into()),
            "empty" => Ok("   ".into()),
            "late-head" => Ok("LATE HEAD BLOCK".into()),
            _ => Ok("TAIL BLOCK".into()),
        }
    }
}

amber_sdk::export!(BadBlocks: prompt);
