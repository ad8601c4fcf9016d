//! Typed views of the parts of a provider request or stream the fake
//! server checks: the declared tools, the tool results after the last
//! assistant turn, and the tool-call ids of a recorded stream. Each reads
//! only the fields it names and defaults the rest, so a request the real
//! APIs accept is never refused for a field the checks do not look at.

use serde::Deserialize;
use serde_json::Value;

/// The fields of a request body the checks read, in any of the three
/// formats (each uses some of them).
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct Request {
    pub tools: Vec<Tool>,
    /// Chat completions and Anthropic messages.
    pub messages: Vec<Item>,
    /// The Responses API.
    pub input: Vec<Item>,
}

impl Request {
    /// The body's parts, or an empty request for a body that is not an
    /// object of these shapes (its other problems are the dialect tests').
    pub fn read(body: &Value) -> Request {
        Request::deserialize(body).unwrap_or_default()
    }
}

/// A declared tool, as any of the formats writes one.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct Tool {
    /// Responses: `function`, `namespace`, or a hosted tool's type.
    #[serde(rename = "type")]
    pub kind: Option<String>,
    /// Responses and Anthropic.
    pub name: Option<String>,
    /// Responses.
    pub parameters: Value,
    /// Anthropic.
    pub input_schema: Value,
    /// Chat completions: `{"function": {"name", "parameters"}}`.
    pub function: Option<Function>,
    /// A Responses `namespace` groups functions.
    pub tools: Vec<Tool>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct Function {
    pub name: Option<String>,
    pub parameters: Value,
}

/// A message (chat, Anthropic) or an input item (Responses).
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct Item {
    #[serde(rename = "type")]
    pub kind: Option<String>,
    pub role: Option<String>,
    /// Chat: a tool message's call.
    pub tool_call_id: Option<String>,
    /// Responses: a function call's or its output's call.
    pub call_id: Option<String>,
    /// Anthropic: the content blocks (a string content reads as none).
    #[serde(deserialize_with = "blocks")]
    pub content: Vec<Block>,
}

impl Item {
    pub fn is(&self, kind: &str) -> bool {
        self.kind.as_deref() == Some(kind)
    }

    pub fn from(&self, role: &str) -> bool {
        self.role.as_deref() == Some(role)
    }
}

/// An Anthropic content block.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct Block {
    #[serde(rename = "type")]
    pub kind: Option<String>,
    pub tool_use_id: Option<String>,
    pub id: Option<String>,
}

impl Block {
    pub fn is(&self, kind: &str) -> bool {
        self.kind.as_deref() == Some(kind)
    }
}

/// Content that is a list of blocks, or anything else (a string) as none.
fn blocks<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Vec<Block>, D::Error> {
    Ok(match Value::deserialize(d)? {
        Value::Array(items) => items
            .into_iter()
            .map(|b| Block::deserialize(b).unwrap_or_default())
            .collect(),
        _ => Vec::new(),
    })
}

/// The `data:` of one streamed event, in any of the three formats.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct StreamData {
    #[serde(rename = "type")]
    pub kind: Option<String>,
    /// Chat completions.
    pub choices: Vec<Choice>,
    /// Responses: `response.output_item.added` carries the call.
    pub item: Option<Item>,
    /// Anthropic: `content_block_start` carries the `tool_use`.
    pub content_block: Option<Block>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct Choice {
    pub delta: Delta,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct Delta {
    pub tool_calls: Vec<CallDelta>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct CallDelta {
    pub id: Option<String>,
}
