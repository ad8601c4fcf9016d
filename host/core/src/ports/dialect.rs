//! The Dialect and ModelClient ports. Seed: "Provider wire path".
//!
//! A dialect shapes requests and decodes streams; it never sees the key or
//! the network. A model client owns the transport and drives a dialect.

use std::future::Future;
use std::pin::Pin;

use serde::{Deserialize, Serialize};

use super::PortError;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum AuthScheme {
    Bearer,
    XApiKey,
    None,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FlavorSpec {
    pub name: String,
    pub auth: AuthScheme,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    System,
    User,
    Assistant,
    Tool,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ToolCall {
    pub id: String,
    pub name: String,
    /// JSON text, exactly as the model produced it.
    pub arguments: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ToolResult {
    pub call_id: String,
    pub content: String,
    pub is_error: bool,
}

/// Vendor reasoning that must be sent back on the next turn.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Reasoning {
    pub id: Option<String>,
    pub text: String,
    pub signature: Option<String>,
    pub encrypted: Option<String>,
    /// The flavor whose model produced it, as the agent records it: a
    /// request to another flavor leaves it out (a Responses item sent to
    /// Anthropic as `redacted_thinking` would be refused). Never sent to
    /// a dialect; `None` in sessions written before it was kept.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub flavor: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Part {
    Text { text: String },
    Reasoning(Reasoning),
    ToolCall(ToolCall),
    ToolResult(ToolResult),
    /// An image: in a user message, one the person attached; in a tool
    /// message, one the tool returned, after its result (docs/images.md).
    Image(super::image::Image),
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Message {
    pub role: Role,
    pub parts: Vec<Part>,
}

impl Message {
    /// A message of one text part: a prompt, a note, a summary.
    pub fn text(role: Role, text: impl Into<String>) -> Message {
        Message {
            role,
            parts: vec![Part::Text { text: text.into() }],
        }
    }

    /// The text parts, in order.
    pub fn texts(&self) -> impl Iterator<Item = &str> {
        self.parts.iter().filter_map(|p| match p {
            Part::Text { text } => Some(text.as_str()),
            _ => None,
        })
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolDecl {
    pub name: String,
    pub description: String,
    pub input_schema: serde_json::Value,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ChatRequest {
    pub flavor: String,
    pub model: String,
    pub messages: Vec<Message>,
    pub tools: Vec<ToolDecl>,
    pub max_tokens: Option<u32>,
    pub temperature: Option<f32>,
    /// The index in `messages` of the last message of a prefix another
    /// request shares byte for byte (the compression cycle's classify and
    /// extract requests). A dialect with prompt caching marks the end of
    /// that message (Anthropic: `cache_control` on its last block); one
    /// with automatic prefix caching (OpenAI) ignores it. `None`: no mark.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache_breakpoint: Option<u32>,
}

/// A request without base URL or auth; the client adds both.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HttpRequest {
    pub method: String,
    pub path: String,
    pub headers: Vec<(String, String)>,
    pub body: String,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SseEvent {
    pub event: Option<String>,
    pub data: String,
}

pub use amber_protocol::{StopReason, Usage};

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StreamChunk {
    TextDelta(String),
    ReasoningDelta(Reasoning),
    ToolCallStart {
        index: u32,
        id: String,
        name: String,
    },
    ToolCallDelta {
        index: u32,
        arguments: String,
    },
    ToolCallEnd(u32),
    Usage(Usage),
    Stop(StopReason),
    Error {
        kind: String,
        message: String,
        retryable: bool,
    },
    /// Never from a dialect: the model client threw away a partial reply
    /// (the stream broke off, stalled, or ended early after the first
    /// tokens) and asks again. Whatever came before this belongs to no
    /// reply; front ends retract what they showed of it.
    Restart {
        /// The attempt about to start (2 for the first retry).
        attempt: u32,
        reason: String,
    },
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ErrorClass {
    pub retryable: bool,
    pub message: String,
}

/// Decoding state for one stream.
pub trait StreamDecoder: Send {
    fn decode(&mut self, events: &[SseEvent]) -> Result<Vec<StreamChunk>, PortError>;
    fn finish(&mut self) -> Result<Vec<StreamChunk>, PortError>;
}

/// A wire dialect for one flavor.
pub trait Dialect: Send + Sync {
    fn flavor(&self) -> &FlavorSpec;
    fn build_request(&self, req: &ChatRequest) -> Result<HttpRequest, PortError>;
    fn decoder(&self) -> Result<Box<dyn StreamDecoder>, PortError>;
    fn classify_error(&self, status: u16, body: &str) -> Result<ErrorClass, PortError>;
}

/// The assembled reply of one model call.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ModelReply {
    pub text: String,
    pub reasoning: Vec<Reasoning>,
    pub tool_calls: Vec<ToolCall>,
    pub usage: Usage,
    pub stop: Option<StopReason>,
}

pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// A streamed model call: the engine's view of the wire.
pub trait ModelClient: Send + Sync {
    /// Streams one reply, handing each chunk to `on_chunk` as it arrives.
    fn stream<'a>(
        &'a self,
        request: ChatRequest,
        on_chunk: &'a mut (dyn FnMut(&StreamChunk) + Send),
    ) -> BoxFuture<'a, Result<ModelReply, super::ModelError>>;
}
