//! The PromptBlock port. Seed: "Prompt assembly".

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum BlockPosition {
    Head,
    Tail,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct BlockSpec {
    pub name: String,
    pub position: BlockPosition,
    pub priority: i32,
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RenderContext {
    /// The workspace root on the host, for host-native blocks. Component
    /// blocks are given their sandbox mount instead, when granted.
    pub workspace: Option<String>,
    pub request: String,
    pub model: String,
}

pub trait PromptBlock: Send + Sync {
    fn spec(&self) -> &BlockSpec;
    /// An empty string omits the block; an error is logged and omitted.
    fn render(&self, ctx: &RenderContext) -> Result<String, super::PortError>;
}
