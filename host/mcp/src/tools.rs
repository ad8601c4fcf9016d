//! The three adapters onto the Tool port the seed draws: each of a
//! server's tools as `<server>__<tool>`, its resources as one
//! `<server>__read_resource`, its prompts as one `<server>__get_prompt`.
//! They hold the hub weakly: the hub holds the ledger that holds them.

use std::sync::Weak;

use amber_core::ports::{Image, Tool, ToolError, ToolOutput, ToolSpec};
use serde_json::{json, Value};

/// What an adapter asks of the hub. `McpHub` serves it; the adapters
/// know the trait, not the hub that builds them, so the two files do not
/// import each other.
pub trait Servers: Send + Sync {
    /// The tool's text and the images it returned.
    fn call_tool(
        &self,
        server: &str,
        tool: &str,
        args: &Value,
    ) -> Result<(String, Vec<Image>), ToolError>;
    fn read_resource(&self, server: &str, uri: &str) -> Result<String, ToolError>;
    fn get_prompt(
        &self,
        server: &str,
        name: &str,
        arguments: serde_json::Map<String, Value>,
    ) -> Result<String, ToolError>;
}

/// What an adapter asks of its server.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Target {
    /// A tool, by the server's own name for it.
    Tool(String),
    ReadResource,
    GetPrompt,
}

pub struct McpTool {
    spec: ToolSpec,
    server: String,
    target: Target,
    hub: Weak<dyn Servers>,
    roots: Vec<std::path::PathBuf>,
}

impl McpTool {
    pub fn new(spec: ToolSpec, server: &str, target: Target, hub: Weak<dyn Servers>) -> McpTool {
        McpTool {
            spec,
            server: server.to_string(),
            target,
            hub,
            roots: Vec::new(),
        }
    }

    /// The server's `roots`, where its paths may lead outside the
    /// workspace (docs/mcp.md).
    pub fn with_roots(mut self, roots: Vec<std::path::PathBuf>) -> McpTool {
        self.roots = roots;
        self
    }
}

impl Tool for McpTool {
    fn spec(&self) -> &ToolSpec {
        &self.spec
    }

    fn roots(&self) -> &[std::path::PathBuf] {
        &self.roots
    }

    fn call(&self, args: &Value) -> Result<ToolOutput, ToolError> {
        let Some(hub) = self.hub.upgrade() else {
            return Err(ToolError::Crashed(format!(
                "MCP server `{}` is shut down",
                self.server
            )));
        };
        let (content, images) = match &self.target {
            Target::Tool(tool) => hub.call_tool(&self.server, tool, args)?,
            Target::ReadResource => {
                let uri = args.get("uri").and_then(Value::as_str).ok_or_else(|| {
                    ToolError::InvalidArgs("`uri` must be one of the resources listed".into())
                })?;
                (hub.read_resource(&self.server, uri)?, Vec::new())
            }
            Target::GetPrompt => {
                let name = args.get("name").and_then(Value::as_str).ok_or_else(|| {
                    ToolError::InvalidArgs("`name` must be one of the prompts listed".into())
                })?;
                let arguments = match args.get("arguments") {
                    Some(Value::Object(map)) => map.clone(),
                    None | Some(Value::Null) => Default::default(),
                    Some(_) => {
                        return Err(ToolError::InvalidArgs(
                            "`arguments` must be an object of strings".into(),
                        ))
                    }
                };
                (hub.get_prompt(&self.server, name, arguments)?, Vec::new())
            }
        };
        Ok(ToolOutput {
            content,
            meta: Some(json!({"mcp_server": self.server})),
            images,
        })
    }
}

/// The schema of `<server>__read_resource`.
pub fn read_resource_schema() -> Value {
    json!({
        "type": "object",
        "properties": {"uri": {"type": "string", "description": "The URI of a listed resource"}},
        "required": ["uri"],
        "additionalProperties": false
    })
}

/// The schema of `<server>__get_prompt`.
pub fn get_prompt_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "name": {"type": "string", "description": "The name of a listed prompt"},
            "arguments": {
                "type": "object",
                "description": "The prompt's arguments, by name",
                "additionalProperties": {"type": "string"}
            }
        },
        "required": ["name"],
        "additionalProperties": false
    })
}
