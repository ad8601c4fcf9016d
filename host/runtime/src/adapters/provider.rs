//! A component's wire dialect behind the core's Dialect port. A decoder
//! holds one instance for its whole stream, so the component may keep
//! decoding state between batches.

use std::sync::Arc;

use amber_core::ports::dialect::{
    AuthScheme, ChatRequest, ErrorClass, FlavorSpec, HttpRequest, Part, Reasoning, Role, SseEvent,
    StopReason, StreamChunk, Usage,
};
use amber_core::ports::{Dialect, PortError, StreamDecoder};
use wasmtime::component::ResourceAny;

use super::{missing, port_error};
use crate::bindings::{provider as wit, types};
use crate::instance::Instance;
use crate::pool_cell::PoolCell;

pub struct ComponentDialect {
    pool: Arc<PoolCell>,
    flavor: FlavorSpec,
    label: String,
}

impl ComponentDialect {
    pub fn new(pool: Arc<PoolCell>, flavor: &types::FlavorSpec) -> Self {
        let auth = match flavor.auth {
            types::AuthScheme::Bearer => AuthScheme::Bearer,
            types::AuthScheme::XApiKey => AuthScheme::XApiKey,
            types::AuthScheme::None => AuthScheme::None,
        };
        let flavor = FlavorSpec {
            name: flavor.name.clone(),
            auth,
        };
        let label = format!("provider `{}`", flavor.name);
        ComponentDialect {
            pool,
            flavor,
            label,
        }
    }
}

fn to_wit_reasoning(r: &Reasoning) -> wit::Reasoning {
    wit::Reasoning {
        id: r.id.clone(),
        text: r.text.clone(),
        signature: r.signature.clone(),
        encrypted: r.encrypted.clone(),
    }
}

fn from_wit_reasoning(r: wit::Reasoning) -> Reasoning {
    Reasoning {
        id: r.id,
        text: r.text,
        signature: r.signature,
        encrypted: r.encrypted,
        flavor: None,
    }
}

/// A message's parts as the contract has them: an image after a tool
/// result in the same message is that result's (the agent puts a tool's
/// images there); one whose bytes are gone is said in words instead.
fn to_wit_parts(parts: &[Part]) -> Vec<wit::Part> {
    let mut out: Vec<wit::Part> = Vec::with_capacity(parts.len());
    for part in parts {
        let converted = match part {
            Part::Text { text } => wit::Part::Text(text.clone()),
            Part::Reasoning(r) => wit::Part::Reasoning(to_wit_reasoning(r)),
            Part::ToolCall(c) => wit::Part::ToolCall(wit::ToolCall {
                id: c.id.clone(),
                name: c.name.clone(),
                arguments: c.arguments.clone(),
            }),
            Part::ToolResult(r) => wit::Part::ToolResult(wit::ToolResult {
                call_id: r.call_id.clone(),
                content: r.content.clone(),
                is_error: r.is_error,
                images: Vec::new(),
            }),
            Part::Image(image) => {
                let sent = image.data().map(|data| types::Image {
                    media_type: image.media_type.clone(),
                    data: data.to_vec(),
                });
                match (out.last_mut(), sent) {
                    (Some(wit::Part::ToolResult(result)), Some(sent)) => {
                        result.images.push(sent);
                        continue;
                    }
                    (Some(wit::Part::ToolResult(result)), None) => {
                        result.content.push_str(&format!("\n{}", missing_image(image)));
                        continue;
                    }
                    (_, Some(sent)) => wit::Part::Image(sent),
                    (_, None) => wit::Part::Text(missing_image(image)),
                }
            }
        };
        out.push(converted);
    }
    out
}

/// What a model is told of an image whose stored bytes could not be read.
fn missing_image(image: &amber_core::ports::Image) -> String {
    format!(
        "[an image ({}) was here; its stored copy is missing, so it is not shown]",
        image.describe()
    )
}

fn to_wit_request(req: &ChatRequest) -> wit::ChatRequest {
    let messages = req
        .messages
        .iter()
        .map(|m| wit::Message {
            role: match m.role {
                Role::System => wit::Role::System,
                Role::User => wit::Role::User,
                Role::Assistant => wit::Role::Assistant,
                Role::Tool => wit::Role::Tool,
            },
            parts: to_wit_parts(&m.parts),
        })
        .collect();
    let tools = req
        .tools
        .iter()
        .map(|t| wit::ToolDecl {
            name: t.name.clone(),
            description: t.description.clone(),
            input_schema: t.input_schema.to_string(),
        })
        .collect();
    wit::ChatRequest {
        flavor: req.flavor.clone(),
        model: req.model.clone(),
        messages,
        tools,
        max_tokens: req.max_tokens,
        temperature: req.temperature,
        cache_breakpoint: req.cache_breakpoint,
    }
}

fn from_wit_chunk(c: wit::StreamChunk) -> StreamChunk {
    match c {
        wit::StreamChunk::TextDelta(t) => StreamChunk::TextDelta(t),
        wit::StreamChunk::ReasoningDelta(r) => StreamChunk::ReasoningDelta(from_wit_reasoning(r)),
        wit::StreamChunk::ToolCallStart(s) => StreamChunk::ToolCallStart {
            index: s.index,
            id: s.id,
            name: s.name,
        },
        wit::StreamChunk::ToolCallDelta(d) => StreamChunk::ToolCallDelta {
            index: d.index,
            arguments: d.arguments,
        },
        wit::StreamChunk::ToolCallEnd(i) => StreamChunk::ToolCallEnd(i),
        wit::StreamChunk::Usage(u) => StreamChunk::Usage(Usage {
            input_tokens: u.input_tokens,
            output_tokens: u.output_tokens,
            cached_input_tokens: u.cached_input_tokens,
            cache_write_tokens: u.cache_write_tokens,
            reasoning_tokens: u.reasoning_tokens,
        }),
        wit::StreamChunk::Stop(s) => StreamChunk::Stop(match s {
            wit::StopReason::EndTurn => StopReason::EndTurn,
            wit::StopReason::ToolUse => StopReason::ToolUse,
            wit::StopReason::MaxTokens => StopReason::MaxTokens,
            wit::StopReason::ContentFilter => StopReason::ContentFilter,
            wit::StopReason::Refusal => StopReason::Refusal,
            wit::StopReason::Other => StopReason::Other,
        }),
        wit::StreamChunk::Error(e) => StreamChunk::Error {
            kind: e.kind,
            message: e.message,
            retryable: e.retryable,
        },
    }
}

/// Packs events into one buffer with byte ranges (see `sse-batch`).
fn pack(events: &[SseEvent]) -> wit::SseBatch {
    let total: usize = events
        .iter()
        .map(|e| e.data.len() + e.event.as_ref().map_or(0, String::len))
        .sum();
    let mut text = String::with_capacity(total);
    let mut spans = Vec::with_capacity(events.len() * 4);
    let mut push = |s: &str, text: &mut String| {
        spans.extend([text.len() as u32, s.len() as u32]);
        text.push_str(s);
    };
    for e in events {
        push(e.event.as_deref().unwrap_or(""), &mut text);
        push(&e.data, &mut text);
    }
    wit::SseBatch { text, spans }
}

fn chunks_size(chunks: &[wit::StreamChunk]) -> usize {
    chunks
        .iter()
        .map(|c| match c {
            wit::StreamChunk::TextDelta(t) => t.len(),
            wit::StreamChunk::ReasoningDelta(r) => {
                r.text.len()
                    + r.signature.as_ref().map_or(0, String::len)
                    + r.encrypted.as_ref().map_or(0, String::len)
            }
            wit::StreamChunk::ToolCallStart(s) => s.id.len() + s.name.len(),
            wit::StreamChunk::ToolCallDelta(d) => d.arguments.len(),
            wit::StreamChunk::Error(e) => e.kind.len() + e.message.len(),
            _ => 16,
        })
        .sum()
}

impl Dialect for ComponentDialect {
    fn flavor(&self) -> &FlavorSpec {
        &self.flavor
    }

    fn build_request(&self, req: &ChatRequest) -> Result<HttpRequest, PortError> {
        let req = to_wit_request(req);
        self.pool.context().tap("build-request", &req);
        let out = self
            .pool
            .call(&self.label, |inst| match &inst.exports.provider {
                Some(p) => p.build_request(&mut inst.store, &req),
                None => Err(missing("provider")),
            })
            .map_err(port_error)?
            .map_err(|e| PortError(format!("{} cannot build the request: {e}", self.label)))?;
        let size = out.body.len()
            + out.path.len()
            + out
                .headers
                .iter()
                .map(|(k, v)| k.len() + v.len())
                .sum::<usize>();
        self.pool
            .check_output(&self.label, size)
            .map_err(port_error)?;
        Ok(HttpRequest {
            method: out.method,
            path: out.path,
            headers: out.headers,
            body: out.body,
        })
    }

    fn decoder(&self) -> Result<Box<dyn StreamDecoder>, PortError> {
        let mut instance = self.pool.checkout().map_err(port_error)?;
        let flavor = self.flavor.name.clone();
        self.pool.context().tap("decoder", &flavor);
        let handle = self
            .pool
            .call_on(&mut instance, &self.label, |inst| match &inst.exports.provider {
                Some(p) => p.new_decoder(&mut inst.store, &flavor),
                None => Err(missing("provider")),
            })
            .map_err(port_error)?;
        Ok(Box::new(ComponentDecoder {
            pool: Arc::clone(&self.pool),
            label: self.label.clone(),
            held: Some((instance, handle)),
        }))
    }

    fn classify_error(&self, status: u16, body: &str) -> Result<ErrorClass, PortError> {
        self.pool.context().tap("classify-error", &(status, body));
        let class = self
            .pool
            .call(&self.label, |inst| match &inst.exports.provider {
                Some(p) => p.classify_error(&mut inst.store, &self.flavor.name, status, body),
                None => Err(missing("provider")),
            })
            .map_err(port_error)?;
        Ok(ErrorClass {
            retryable: class.retryable,
            message: class.message,
        })
    }
}

/// One stream's decoder: an instance held for the stream and the guest's
/// decoder resource on it.
pub struct ComponentDecoder {
    pool: Arc<PoolCell>,
    label: String,
    held: Option<(Instance, ResourceAny)>,
}

impl ComponentDecoder {
    fn run(&mut self, finish: bool, events: &[SseEvent]) -> Result<Vec<StreamChunk>, PortError> {
        let Some((instance, handle)) = self.held.as_mut() else {
            return Err(PortError(format!(
                "{}: the decoder failed earlier in this stream",
                self.label
            )));
        };
        let handle = *handle;
        let batch = pack(events);
        self.pool.context().tap("decode", &batch);
        let result = self
            .pool
            .call_on(instance, &self.label, |inst| match &inst.exports.provider {
                Some(p) if finish => p.finish(&mut inst.store, handle),
                Some(p) => p.decode(&mut inst.store, handle, &batch),
                None => Err(missing("provider")),
            });
        let chunks = match result {
            Ok(chunks) => chunks,
            Err(e) => {
                // The instance is unusable after a trap: forget it.
                self.held = None;
                return Err(port_error(e));
            }
        };
        self.pool
            .check_output(&self.label, chunks_size(&chunks))
            .map_err(port_error)?;
        Ok(chunks.into_iter().map(from_wit_chunk).collect())
    }
}

impl StreamDecoder for ComponentDecoder {
    fn decode(&mut self, events: &[SseEvent]) -> Result<Vec<StreamChunk>, PortError> {
        self.run(false, events)
    }

    fn finish(&mut self) -> Result<Vec<StreamChunk>, PortError> {
        self.run(true, &[])
    }
}

impl Drop for ComponentDecoder {
    fn drop(&mut self) {
        if let Some((mut instance, handle)) = self.held.take() {
            if handle.resource_drop(&mut instance.store).is_ok() {
                self.pool.checkin(instance);
            }
        }
    }
}
