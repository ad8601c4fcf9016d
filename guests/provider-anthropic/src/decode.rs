//! Decodes a Messages API event stream into amber's normalised chunks (seed:
//! "Provider wire path", the stream half).
//!
//! Anthropic streams content blocks by position: a block starts, receives
//! deltas and stops. Amber numbers tool calls by their order among tool
//! calls instead, and wants a thinking block's signature after its text, so
//! the decoder remembers each open block until it stops. Nothing here trusts
//! the stream: a bad event becomes an error chunk and decoding goes on.

use std::collections::BTreeMap;

use amber_sdk::bindings::exports::amber::plugin::provider::{
    Reasoning, StopReason, ToolCallDelta, ToolCallStart, Usage,
};
use amber_sdk::{push_text, Decoder, SseEvent, StreamChunk, Value};

use crate::vendor_error;

/// Why an event could not be used, completing "the `x` event …".
type Malformed = String;

/// An open content block.
enum Block {
    /// Visible text streams straight through; nothing waits for the stop.
    Text,
    /// The signature is sent after the thinking text, once the block stops.
    Thinking { signature: String },
    /// `call` is the tool call's ordinal in this response. `given` is an
    /// input that came whole in the start event, used if no delta arrives.
    ToolUse {
        call: u32,
        given: Option<String>,
        streamed: bool,
    },
    /// Redacted thinking (sent whole at its start), server tools and block
    /// types newer than this code.
    Other,
}

/// Token counts as last reported; `message_delta` may repeat or correct
/// what `message_start` said.
#[derive(Default)]
struct Tally {
    input: Option<u64>,
    cache_read: Option<u64>,
    cache_write: Option<u64>,
    output: Option<u64>,
    thinking: Option<u64>,
}

impl Tally {
    fn absorb(&mut self, usage: &Value) {
        let fields = [
            (&mut self.input, &usage["input_tokens"]),
            (&mut self.cache_read, &usage["cache_read_input_tokens"]),
            (&mut self.cache_write, &usage["cache_creation_input_tokens"]),
            (&mut self.output, &usage["output_tokens"]),
            (
                &mut self.thinking,
                &usage["output_tokens_details"]["thinking_tokens"],
            ),
        ];
        for (slot, value) in fields {
            if let Some(n) = value.as_u64() {
                *slot = Some(n);
            }
        }
    }

    fn is_empty(&self) -> bool {
        [
            self.input,
            self.cache_read,
            self.cache_write,
            self.output,
            self.thinking,
        ]
        .iter()
        .all(Option::is_none)
    }

    /// Anthropic's `input_tokens` counts only the uncached part of the
    /// prompt; amber's counts the whole prompt.
    fn usage(&self) -> Usage {
        let cache_read = self.cache_read.unwrap_or(0);
        let cache_write = self.cache_write.unwrap_or(0);
        Usage {
            input_tokens: self
                .input
                .unwrap_or(0)
                .saturating_add(cache_read)
                .saturating_add(cache_write),
            output_tokens: self.output.unwrap_or(0),
            cached_input_tokens: cache_read,
            cache_write_tokens: cache_write,
            reasoning_tokens: self.thinking.unwrap_or(0),
        }
    }
}

/// Decoding state for one stream.
#[derive(Default)]
pub struct MessagesDecoder {
    /// Open blocks by their content-block index.
    blocks: BTreeMap<u64, Block>,
    /// Tool calls started so far; the next one's ordinal.
    tool_calls: u32,
    tally: Tally,
    usage_sent: bool,
    stopped: bool,
}

impl Decoder for MessagesDecoder {
    fn event(&mut self, event: &SseEvent<'_>, out: &mut Vec<StreamChunk>) {
        self.on_event(event, out);
    }

    /// The stream ended, perhaps cut short: close what is still open so
    /// every started tool call ends, and report what usage is known.
    fn finish(&mut self) -> Vec<StreamChunk> {
        let mut out = Vec::new();
        self.close_all(&mut out);
        self.flush_usage(&mut out);
        out
    }
}

impl MessagesDecoder {
    fn on_event(&mut self, event: &SseEvent<'_>, out: &mut Vec<StreamChunk>) {
        if event.data.trim().is_empty() {
            return;
        }
        let data: Value = match serde_json::from_str(event.data) {
            Ok(data) => data,
            Err(e) => {
                let name = event.event.unwrap_or("unnamed");
                let why = format!("has data that is not JSON ({e})");
                out.push(vendor_error::malformed(name, &why));
                return;
            }
        };
        // The event name always equals the payload's type; either will do.
        let name = event
            .event
            .or_else(|| data["type"].as_str())
            .unwrap_or("unnamed");
        let handled = match name {
            "message_start" => {
                self.tally.absorb(&data["message"]["usage"]);
                Ok(())
            }
            "content_block_start" => self.block_start(&data, out),
            "content_block_delta" => self.block_delta(&data, out),
            "content_block_stop" => self.block_stop(&data, out),
            "message_delta" => {
                self.message_delta(&data, out);
                Ok(())
            }
            "message_stop" => {
                self.close_all(out);
                self.flush_usage(out);
                Ok(())
            }
            "error" => {
                out.push(vendor_error::stream_error(&data));
                Ok(())
            }
            // `ping`, and event types newer than this code.
            _ => Ok(()),
        };
        if let Err(why) = handled {
            out.push(vendor_error::malformed(name, &why));
        }
    }

    fn block_start(&mut self, data: &Value, out: &mut Vec<StreamChunk>) -> Result<(), Malformed> {
        let index = block_index(data)?;
        let start = &data["content_block"];
        let kind = start["type"]
            .as_str()
            .ok_or("has no `content_block.type`")?;
        // An index reused without a stop: the old block is over.
        if let Some(old) = self.blocks.remove(&index) {
            self.close(old, out);
        }
        let block = match kind {
            "text" => {
                push_text(out, start["text"].as_str().unwrap_or(""));
                Block::Text
            }
            "thinking" => {
                push_thought(out, start["thinking"].as_str().unwrap_or(""));
                let signature = start["signature"].as_str().unwrap_or("").to_string();
                Block::Thinking { signature }
            }
            "redacted_thinking" => {
                let data = start["data"]
                    .as_str()
                    .ok_or("has a redacted_thinking block without `data`")?;
                out.push(StreamChunk::ReasoningDelta(Reasoning {
                    id: None,
                    text: String::new(),
                    signature: None,
                    encrypted: Some(data.to_string()),
                }));
                Block::Other
            }
            "tool_use" => {
                let id = start["id"].as_str().ok_or("has a tool_use without `id`")?;
                let name = start["name"]
                    .as_str()
                    .ok_or("has a tool_use without `name`")?;
                let call = self.tool_calls;
                self.tool_calls += 1;
                out.push(StreamChunk::ToolCallStart(ToolCallStart {
                    index: call,
                    id: id.to_string(),
                    name: name.to_string(),
                }));
                let given = match &start["input"] {
                    Value::Object(input) if !input.is_empty() => Some(start["input"].to_string()),
                    _ => None,
                };
                Block::ToolUse {
                    call,
                    given,
                    streamed: false,
                }
            }
            _ => Block::Other,
        };
        self.blocks.insert(index, block);
        Ok(())
    }

    fn block_delta(&mut self, data: &Value, out: &mut Vec<StreamChunk>) -> Result<(), Malformed> {
        let index = block_index(data)?;
        let delta = &data["delta"];
        let kind = delta["type"].as_str().ok_or("has no `delta.type`")?;
        match kind {
            // Text and thinking pass through even when their start was
            // missed, as in a stream picked up midway.
            "text_delta" => push_text(out, text_field(delta, "text")?),
            "thinking_delta" => push_thought(out, text_field(delta, "thinking")?),
            "signature_delta" => {
                let piece = text_field(delta, "signature")?;
                let block = self.blocks.entry(index).or_insert(Block::Thinking {
                    signature: String::new(),
                });
                match block {
                    Block::Thinking { signature } => signature.push_str(piece),
                    _ => return Err(format!("signs block {index}, which is not thinking")),
                }
            }
            "input_json_delta" => {
                let piece = text_field(delta, "partial_json")?;
                match self.blocks.get_mut(&index) {
                    Some(Block::ToolUse { call, streamed, .. }) => {
                        if !piece.is_empty() {
                            *streamed = true;
                            out.push(StreamChunk::ToolCallDelta(ToolCallDelta {
                                index: *call,
                                arguments: piece.to_string(),
                            }));
                        }
                    }
                    _ => {
                        return Err(format!(
                            "carries tool input for block {index}, which is not an open tool call"
                        ))
                    }
                }
            }
            // Citations and delta types newer than this code.
            _ => {}
        }
        Ok(())
    }

    fn block_stop(&mut self, data: &Value, out: &mut Vec<StreamChunk>) -> Result<(), Malformed> {
        let index = block_index(data)?;
        // A stop for a block that is not open (a repeat) changes nothing.
        if let Some(block) = self.blocks.remove(&index) {
            self.close(block, out);
        }
        Ok(())
    }

    fn message_delta(&mut self, data: &Value, out: &mut Vec<StreamChunk>) {
        if data["usage"].is_object() {
            self.tally.absorb(&data["usage"]);
            out.push(StreamChunk::Usage(self.tally.usage()));
            self.usage_sent = true;
        }
        if let Some(reason) = data["delta"]["stop_reason"].as_str() {
            if !self.stopped {
                self.stopped = true;
                out.push(StreamChunk::Stop(stop_reason(reason)));
            }
        }
    }

    /// Sends what a block kept back until its stop.
    fn close(&mut self, block: Block, out: &mut Vec<StreamChunk>) {
        match block {
            Block::Thinking { signature } if !signature.is_empty() => {
                out.push(StreamChunk::ReasoningDelta(Reasoning {
                    id: None,
                    text: String::new(),
                    signature: Some(signature),
                    encrypted: None,
                }));
            }
            Block::ToolUse {
                call,
                given,
                streamed,
            } => {
                // A call without arguments still ends as a JSON object.
                if !streamed {
                    out.push(StreamChunk::ToolCallDelta(ToolCallDelta {
                        index: call,
                        arguments: given.unwrap_or_else(|| "{}".to_string()),
                    }));
                }
                out.push(StreamChunk::ToolCallEnd(call));
            }
            _ => {}
        }
    }

    /// Closes every open block, in content order.
    fn close_all(&mut self, out: &mut Vec<StreamChunk>) {
        for (_, block) in std::mem::take(&mut self.blocks) {
            self.close(block, out);
        }
    }

    /// Reports usage once when no `message_delta` did.
    fn flush_usage(&mut self, out: &mut Vec<StreamChunk>) {
        if !self.usage_sent && !self.tally.is_empty() {
            out.push(StreamChunk::Usage(self.tally.usage()));
            self.usage_sent = true;
        }
    }
}

fn block_index(data: &Value) -> Result<u64, Malformed> {
    data["index"]
        .as_u64()
        .ok_or_else(|| "has no numeric `index`".to_string())
}

fn text_field<'a>(delta: &'a Value, field: &str) -> Result<&'a str, Malformed> {
    delta[field]
        .as_str()
        .ok_or_else(|| format!("has a delta without a string `{field}`"))
}

/// Anthropic thinking blocks have no id; the signature follows at the stop.
fn push_thought(out: &mut Vec<StreamChunk>, text: &str) {
    if !text.is_empty() {
        out.push(StreamChunk::ReasoningDelta(Reasoning {
            id: None,
            text: text.to_string(),
            signature: None,
            encrypted: None,
        }));
    }
}

fn stop_reason(reason: &str) -> StopReason {
    match reason {
        "end_turn" | "stop_sequence" => StopReason::EndTurn,
        "tool_use" => StopReason::ToolUse,
        "max_tokens" => StopReason::MaxTokens,
        "refusal" => StopReason::Refusal,
        // `pause_turn` and reasons newer than this code.
        _ => StopReason::Other,
    }
}
