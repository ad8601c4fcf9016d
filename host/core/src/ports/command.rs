//! The command port. Seed: "Command binding".

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CommandRoot {
    pub root: String,
    pub help: String,
}

/// A node of a subtree, flat in pre-order; `parent` indexes the same list.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CommandNode {
    pub name: String,
    pub help: String,
    pub man: Option<String>,
    pub parent: Option<u32>,
    /// Leaves without a handler are documented, not executable.
    pub handler: bool,
}

pub trait CommandTree: Send + Sync {
    fn root(&self) -> &CommandRoot;
    fn spec(&self) -> Result<Vec<CommandNode>, super::PortError>;
    fn run(&self, path: &[String], arg: &str) -> Result<String, super::PortError>;
}
