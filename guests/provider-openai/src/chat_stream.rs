//! Decodes a Chat Completions stream: `data:` chunks of
//! `{choices:[{delta, finish_reason}], usage}` ending in `[DONE]`, plus the
//! error events OpenAI-compatible servers send mid-stream.

use std::borrow::Cow;

use amber_sdk::{push_text, Decoder, Reasoning, SseEvent, StopReason, StreamChunk, Usage, Value};
use serde::Deserialize;

use crate::errors;
use crate::tool_calls::ToolCalls;

#[derive(Default)]
pub struct ChatStream {
    calls: ToolCalls,
    /// A refusal turns the `stop` finish into `refusal`.
    refused: bool,
    stopped: bool,
    done: bool,
}

impl Decoder for ChatStream {
    fn event(&mut self, event: &SseEvent<'_>, out: &mut Vec<StreamChunk>) {
        self.on_event(event, out);
    }

    fn finish(&mut self) -> Vec<StreamChunk> {
        // A stream cut before its finish_reason still closes its calls.
        let mut out = Vec::new();
        self.calls.end_all(&mut out);
        out
    }
}

/// The common chunk, parsed without building a JSON tree: strings borrow
/// from the event and unknown fields are skipped. Anything unusual (an
/// error, an odd type) falls back to the general `Value` path.
#[derive(Deserialize)]
struct Chunk<'a> {
    #[serde(default, borrow)]
    choices: ReplyChoices<'a>,
    #[serde(default)]
    usage: Option<Value>,
    #[serde(default)]
    error: Option<serde::de::IgnoredAny>,
}

/// The choices that are the reply: those with index 0, since we never ask
/// for n > 1. A chunk holds one choice, so it is kept without a `Vec`; an
/// allocation per event showed in the decode profile.
#[derive(Default)]
struct ReplyChoices<'a> {
    first: Option<Choice<'a>>,
    more: Vec<Choice<'a>>,
}

impl<'a> ReplyChoices<'a> {
    fn iter(&self) -> impl Iterator<Item = &Choice<'a>> {
        self.first.iter().chain(&self.more)
    }
}

impl<'de: 'a, 'a> Deserialize<'de> for ReplyChoices<'a> {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Visit<'a>(std::marker::PhantomData<ReplyChoices<'a>>);
        impl<'de: 'a, 'a> serde::de::Visitor<'de> for Visit<'a> {
            type Value = ReplyChoices<'a>;

            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a list of choices")
            }

            fn visit_seq<A: serde::de::SeqAccess<'de>>(
                self,
                mut seq: A,
            ) -> Result<Self::Value, A::Error> {
                let mut choices = ReplyChoices::default();
                while let Some(choice) = seq.next_element::<Choice<'a>>()? {
                    if choice.index != 0 {
                        continue;
                    }
                    match choices.first {
                        None => choices.first = Some(choice),
                        Some(_) => choices.more.push(choice),
                    }
                }
                Ok(choices)
            }
        }
        deserializer.deserialize_seq(Visit(std::marker::PhantomData))
    }
}

#[derive(Deserialize)]
struct Choice<'a> {
    #[serde(default)]
    index: u64,
    #[serde(default, borrow)]
    delta: Option<Delta<'a>>,
    #[serde(default, borrow)]
    finish_reason: Option<Cow<'a, str>>,
}

#[derive(Deserialize, Default)]
struct Delta<'a> {
    #[serde(default, borrow)]
    content: Option<Cow<'a, str>>,
    #[serde(default, borrow)]
    refusal: Option<Cow<'a, str>>,
    #[serde(default, borrow)]
    reasoning: Option<Cow<'a, str>>,
    #[serde(default, borrow)]
    reasoning_content: Option<Cow<'a, str>>,
    #[serde(default)]
    tool_calls: Option<Vec<Value>>,
}

fn filled<'s>(text: &'s Option<Cow<'_, str>>) -> Option<&'s str> {
    text.as_deref().filter(|s| !s.is_empty())
}

impl ChatStream {
    /// The fast path; false when the chunk needs the general one.
    fn typed(&mut self, event: &SseEvent<'_>, data: &str, out: &mut Vec<StreamChunk>) -> bool {
        if event.event == Some("error") {
            return false;
        }
        let Ok(chunk) = serde_json::from_str::<Chunk>(data) else {
            return false;
        };
        if chunk.error.is_some() {
            return false;
        }
        for choice in chunk.choices.iter() {
            if let Some(delta) = &choice.delta {
                if let Some(text) = filled(&delta.content) {
                    push_text(out, text);
                }
                if let Some(refusal) = filled(&delta.refusal) {
                    self.refused = true;
                    push_text(out, refusal);
                }
                if let Some(text) = filled(&delta.reasoning_content).or(filled(&delta.reasoning)) {
                    let text = text.to_string();
                    out.push(StreamChunk::ReasoningDelta(Reasoning {
                        id: None,
                        text,
                        signature: None,
                        encrypted: None,
                    }));
                }
                for call in delta.tool_calls.iter().flatten() {
                    self.tool_call(call, out);
                }
            }
            if let Some(reason) = choice.finish_reason.as_deref() {
                self.finish_reason(reason, out);
            }
        }
        if let Some(usage_value) = chunk.usage.as_ref().filter(|u| u.is_object()) {
            out.push(StreamChunk::Usage(usage(usage_value)));
        }
        true
    }

    fn on_event(&mut self, event: &SseEvent<'_>, out: &mut Vec<StreamChunk>) {
        let data = event.data.trim();
        if self.done || data.is_empty() {
            return;
        }
        if data == "[DONE]" {
            self.done = true;
            return;
        }
        if self.typed(event, data, out) {
            return;
        }
        let payload: Value = match serde_json::from_str(data) {
            Ok(payload) => payload,
            Err(e) => return out.push(errors::malformed("chat", event, &e)),
        };
        let has_error = payload.get("error").is_some_and(|e| !e.is_null());
        if event.event == Some("error") || has_error {
            return out.push(errors::from_vendor(errors::vendor_error(&payload)));
        }
        let choices = payload["choices"].as_array().map(Vec::as_slice);
        // We never ask for n > 1, so only the first choice is the reply.
        let first = choices
            .unwrap_or_default()
            .iter()
            .filter(|c| c["index"].as_u64().unwrap_or(0) == 0);
        for choice in first {
            self.delta(&choice["delta"], out);
            if let Some(reason) = choice["finish_reason"].as_str() {
                self.finish_reason(reason, out);
            }
        }
        if payload["usage"].is_object() {
            out.push(StreamChunk::Usage(usage(&payload["usage"])));
        }
    }

    fn delta(&mut self, delta: &Value, out: &mut Vec<StreamChunk>) {
        if let Some(text) = non_empty(&delta["content"]) {
            push_text(out, text);
        }
        if let Some(refusal) = non_empty(&delta["refusal"]) {
            self.refused = true;
            push_text(out, refusal);
        }
        // DeepSeek and vLLM say reasoning_content, OpenRouter and Groq say
        // reasoning; a server sending both means the same text.
        let reasoning = non_empty(&delta["reasoning_content"]).or(non_empty(&delta["reasoning"]));
        if let Some(text) = reasoning {
            out.push(StreamChunk::ReasoningDelta(Reasoning {
                id: None,
                text: text.to_string(),
                signature: None,
                encrypted: None,
            }));
        }
        for call in delta["tool_calls"].as_array().into_iter().flatten() {
            self.tool_call(call, out);
        }
    }

    fn tool_call(&mut self, call: &Value, out: &mut Vec<StreamChunk>) {
        // Some compatible servers omit the index; the id then tells calls apart.
        let key = call["index"]
            .as_u64()
            .map_or_else(|| "-".to_string(), |i| i.to_string());
        let id = non_empty(&call["id"]).unwrap_or_default();
        let index = match self.calls.find(&key) {
            // Some servers reuse index 0 for every parallel call.
            Some(open)
                if !id.is_empty()
                    && !self.calls.id(open).is_empty()
                    && self.calls.id(open) != id =>
            {
                self.calls.open(&key)
            }
            Some(open) => open,
            None => self.calls.open(&key),
        };
        let function = &call["function"];
        let name = non_empty(&function["name"]).unwrap_or_default();
        self.calls.identify(index, id, name, out);
        if let Some(piece) = non_empty(&function["arguments"]) {
            self.calls.append(index, piece, out);
        }
    }

    fn finish_reason(&mut self, reason: &str, out: &mut Vec<StreamChunk>) {
        self.calls.end_all(out);
        if std::mem::replace(&mut self.stopped, true) {
            return;
        }
        let stop = match reason {
            "stop" if self.refused => StopReason::Refusal,
            "stop" => StopReason::EndTurn,
            "tool_calls" | "function_call" => StopReason::ToolUse,
            "length" => StopReason::MaxTokens,
            "content_filter" => StopReason::ContentFilter,
            _ => StopReason::Other,
        };
        out.push(StreamChunk::Stop(stop));
    }
}

/// `prompt_tokens` already includes the cached ones.
fn usage(usage: &Value) -> Usage {
    let count = |v: &Value| v.as_u64().unwrap_or(0);
    Usage {
        input_tokens: count(&usage["prompt_tokens"]),
        output_tokens: count(&usage["completion_tokens"]),
        cached_input_tokens: count(&usage["prompt_tokens_details"]["cached_tokens"]),
        cache_write_tokens: 0,
        reasoning_tokens: count(&usage["completion_tokens_details"]["reasoning_tokens"]),
    }
}

fn non_empty(value: &Value) -> Option<&str> {
    value.as_str().filter(|s| !s.is_empty())
}
