//! Decodes a Responses API stream, dispatching on each payload's `type`
//! (`response.output_text.delta`, `response.output_item.done`, ...).

use std::collections::HashSet;

use amber_sdk::{push_text, Decoder, Reasoning, SseEvent, StopReason, StreamChunk, Usage, Value};

use crate::errors;
use crate::tool_calls::ToolCalls;

#[derive(Default)]
pub struct ResponsesStream {
    calls: ToolCalls,
    refused: bool,
    stopped: bool,
    /// Reasoning items whose summary text was streamed.
    summarised: HashSet<String>,
    /// The reasoning item and summary part the last summary delta was in,
    /// so parts are separated by a blank line.
    summary_at: Option<(String, u64)>,
}

impl Decoder for ResponsesStream {
    fn event(&mut self, event: &SseEvent<'_>, out: &mut Vec<StreamChunk>) {
        self.on_event(event, out);
    }

    fn finish(&mut self) -> Vec<StreamChunk> {
        let mut out = Vec::new();
        self.calls.end_all(&mut out);
        out
    }
}

impl ResponsesStream {
    fn on_event(&mut self, event: &SseEvent<'_>, out: &mut Vec<StreamChunk>) {
        let data = event.data.trim();
        if data.is_empty() || data == "[DONE]" {
            return;
        }
        let payload: Value = match serde_json::from_str(data) {
            Ok(payload) => payload,
            Err(e) => return out.push(errors::malformed("responses", event, &e)),
        };
        let kind = payload["type"].as_str().or(event.event).unwrap_or_default();
        match kind {
            "response.output_text.delta" => text(&payload, out),
            "response.refusal.delta" => {
                self.refused = true;
                text(&payload, out);
            }
            "response.reasoning_summary_text.delta" => self.summary(&payload, out),
            "response.output_item.added" => self.item_added(&payload["item"], &payload, out),
            "response.function_call_arguments.delta" => {
                if let Some(index) = self.calls.find(&call_key(&payload, &payload)) {
                    let piece = payload["delta"].as_str().unwrap_or_default();
                    self.calls.append(index, piece, out);
                }
            }
            "response.function_call_arguments.done" => {
                if let Some(index) = self.calls.find(&call_key(&payload, &payload)) {
                    let arguments = payload["arguments"].as_str().unwrap_or_default();
                    self.calls.fill(index, arguments, out);
                }
            }
            "response.output_item.done" => self.item_done(&payload["item"], &payload, out),
            "response.completed" => {
                self.finished(&payload["response"], out);
                let stop = if self.calls.any() {
                    StopReason::ToolUse
                } else if self.refused {
                    StopReason::Refusal
                } else {
                    StopReason::EndTurn
                };
                self.stop(stop, out);
            }
            "response.incomplete" => {
                self.finished(&payload["response"], out);
                let reason = &payload["response"]["incomplete_details"]["reason"];
                let stop = match reason.as_str() {
                    Some("max_output_tokens") => StopReason::MaxTokens,
                    Some("content_filter") => StopReason::ContentFilter,
                    _ => StopReason::Other,
                };
                self.stop(stop, out);
            }
            "response.failed" => {
                let error = &payload["response"]["error"];
                let error = if error.is_object() { error } else { &payload };
                out.push(errors::from_vendor(error));
            }
            "error" => out.push(errors::from_vendor(errors::vendor_error(&payload))),
            _ => {}
        }
    }

    fn summary(&mut self, payload: &Value, out: &mut Vec<StreamChunk>) {
        let id = payload["item_id"].as_str().unwrap_or_default().to_string();
        let part = payload["summary_index"].as_u64().unwrap_or(0);
        let Some(delta) = payload["delta"].as_str().filter(|d| !d.is_empty()) else {
            return;
        };
        let mut piece = String::new();
        if let Some((last_id, last_part)) = &self.summary_at {
            if *last_id == id && *last_part != part {
                piece.push_str("\n\n");
            }
        }
        piece.push_str(delta);
        self.summarised.insert(id.clone());
        self.summary_at = Some((id.clone(), part));
        out.push(reasoning(Some(id), piece, None));
    }

    fn item_added(&mut self, item: &Value, payload: &Value, out: &mut Vec<StreamChunk>) {
        if item["type"] != "function_call" {
            return;
        }
        let index = self.calls.open(&call_key(item, payload));
        let id = item["call_id"].as_str().unwrap_or_default();
        let name = item["name"].as_str().unwrap_or_default();
        self.calls.identify(index, id, name, out);
        let arguments = item["arguments"].as_str().unwrap_or_default();
        self.calls.append(index, arguments, out);
    }

    fn item_done(&mut self, item: &Value, payload: &Value, out: &mut Vec<StreamChunk>) {
        match item["type"].as_str() {
            Some("function_call") => {
                let key = call_key(item, payload);
                // A call that never announced itself still counts.
                let index = match self.calls.find(&key) {
                    Some(index) => index,
                    None => {
                        self.item_added(item, payload, out);
                        self.calls.find(&key).unwrap_or(u32::MAX)
                    }
                };
                let arguments = item["arguments"].as_str().unwrap_or_default();
                self.calls.fill(index, arguments, out);
                self.calls.end(index, out);
            }
            Some("reasoning") => {
                let id = item["id"].as_str().map(str::to_string);
                let streamed = id.as_ref().is_some_and(|id| self.summarised.contains(id));
                let summary = summary_text(item);
                if !streamed && !summary.is_empty() {
                    out.push(reasoning(id.clone(), summary, None));
                }
                let encrypted = item["encrypted_content"].as_str().map(str::to_string);
                out.push(reasoning(id, String::new(), encrypted));
            }
            _ => {}
        }
    }

    /// The response ended (completed or cut short): usage and open calls.
    fn finished(&mut self, response: &Value, out: &mut Vec<StreamChunk>) {
        self.calls.end_all(out);
        if response["usage"].is_object() {
            out.push(StreamChunk::Usage(usage(&response["usage"])));
        }
    }

    fn stop(&mut self, stop: StopReason, out: &mut Vec<StreamChunk>) {
        if !std::mem::replace(&mut self.stopped, true) {
            out.push(StreamChunk::Stop(stop));
        }
    }
}

fn text(payload: &Value, out: &mut Vec<StreamChunk>) {
    if let Some(delta) = payload["delta"].as_str() {
        push_text(out, delta);
    }
}

fn reasoning(id: Option<String>, text: String, encrypted: Option<String>) -> StreamChunk {
    StreamChunk::ReasoningDelta(Reasoning {
        id,
        text,
        signature: None,
        encrypted,
    })
}

/// A function call's handle: its item id (`id` on an item, `item_id` on a
/// delta), else its output position.
fn call_key(item: &Value, payload: &Value) -> String {
    let id = item["id"].as_str().or(item["item_id"].as_str());
    match id {
        Some(id) if !id.is_empty() => id.to_string(),
        _ => format!("#{}", payload["output_index"].as_u64().unwrap_or(0)),
    }
}

/// A reasoning item's summary parts, as the stream would have joined them.
fn summary_text(item: &Value) -> String {
    let parts: Vec<&str> = item["summary"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|p| p["text"].as_str())
        .filter(|t| !t.is_empty())
        .collect();
    parts.join("\n\n")
}

/// `input_tokens` already includes the cached ones.
fn usage(usage: &Value) -> Usage {
    let count = |v: &Value| v.as_u64().unwrap_or(0);
    Usage {
        input_tokens: count(&usage["input_tokens"]),
        output_tokens: count(&usage["output_tokens"]),
        cached_input_tokens: count(&usage["input_tokens_details"]["cached_tokens"]),
        cache_write_tokens: 0,
        reasoning_tokens: count(&usage["output_tokens_details"]["reasoning_tokens"]),
    }
}
