//! The Tool port. Seed: "Tool dispatch".

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// What the model sees of a tool.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ToolSpec {
    pub name: String,
    pub description: String,
    /// JSON Schema of the arguments.
    pub input_schema: serde_json::Value,
    /// Read mode allows only read-only tools.
    pub read_only: bool,
    /// Its only way to change anything is the `exec` import, which
    /// classifies and approves each command; dispatch then leaves approval
    /// to exec, so nobody is asked twice. The runtime sets it for plugins
    /// granted `exec` but not `workspace-write`.
    #[serde(default)]
    pub gated_by_exec: bool,
    /// Tools approved together as well as one by one: `mcp:<server>` for
    /// an MCP server's tools, so a session grant or a stored rule can
    /// cover the whole server. Such a tool runs outside amber's plugins:
    /// its path arguments are confined to the workspace like any tool's,
    /// but passed as given, not made relative to a mount it does not have.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub approval_group: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ToolOutput {
    /// What the model reads.
    pub content: String,
    /// Structured extras for front ends (a diff, counts).
    pub meta: Option<serde_json::Value>,
    /// Images the model sees with `content` (a screenshot, a chart), as
    /// the tool gave them: the agent prepares them, or tells a model
    /// without images what they were (docs/images.md).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub images: Vec<super::image::Image>,
}

impl ToolOutput {
    /// Text for the model and nothing else.
    pub fn text(content: impl Into<String>) -> Self {
        ToolOutput {
            content: content.into(),
            meta: None,
            images: Vec::new(),
        }
    }

    /// Text for the model and extras for front ends.
    pub fn with_meta(content: impl Into<String>, meta: serde_json::Value) -> Self {
        ToolOutput {
            content: content.into(),
            meta: Some(meta),
            images: Vec::new(),
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ToolError {
    /// The arguments were wrong; the model should retry differently.
    #[error("invalid arguments: {0}")]
    InvalidArgs(String),
    /// The tool ran and failed.
    #[error("{0}")]
    Failed(String),
    /// The thing serving the tool broke: a trap, a deadline, a limit, or the
    /// plugin is gone. The message names the plugin and the cause.
    #[error("{0}")]
    Crashed(String),
}

/// A tool, served by a component or natively by the host.
///
/// `call` is synchronous: tools are CPU- or process-bound, and the engine runs
/// parallel calls on blocking threads, each on its own instance.
pub trait Tool: Send + Sync {
    fn spec(&self) -> &ToolSpec;
    fn call(&self, args: &serde_json::Value) -> Result<ToolOutput, ToolError>;

    /// Folders outside the workspace this tool's path arguments may name
    /// besides the workspace: an MCP server's `roots`, which the user
    /// listed for it in config. None for every other tool: a path out of
    /// the workspace is refused, in every mode.
    fn roots(&self) -> &[std::path::PathBuf] {
        &[]
    }
}

/// Up to five ways `value` fails `validator`, each with where it fails:
/// what a model is told of arguments or a reply that do not fit.
pub fn schema_problems(validator: &jsonschema::Validator, value: &Value) -> Vec<String> {
    validator
        .iter_errors(value)
        .take(5)
        .map(|e| {
            let at = e.instance_path().to_string();
            if at.is_empty() {
                e.to_string()
            } else {
                format!("{at}: {e}")
            }
        })
        .collect()
}
