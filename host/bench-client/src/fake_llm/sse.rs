//! Writes a scripted reply as each vendor's real SSE events.

use serde_json::{json, Value};

use super::script::Reply;

/// The wire format of an endpoint.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Chat,
    Responses,
    Messages,
}

/// One SSE event: an optional name and the data line.
pub type Event = (Option<&'static str>, String);

/// Splits text into small pieces, as a model streams it.
fn pieces(text: &str, size: usize) -> Vec<String> {
    let chars: Vec<char> = text.chars().collect();
    chars
        .chunks(size.max(1))
        .map(|c| c.iter().collect())
        .collect()
}

pub fn render(format: Format, reply: &Reply) -> Vec<Event> {
    match format {
        Format::Chat => chat(reply),
        Format::Responses => responses(reply),
        Format::Messages => messages(reply),
    }
}

pub fn encode(events: &[Event]) -> Vec<String> {
    events
        .iter()
        .map(|(name, data)| match name {
            Some(n) => format!("event: {n}\ndata: {data}\n\n"),
            None => format!("data: {data}\n\n"),
        })
        .collect()
}

fn chat_chunk(delta: Value, finish: Option<&str>) -> Event {
    let chunk = json!({"id": "chatcmpl-fake", "object": "chat.completion.chunk", "model": "fake",
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]});
    (None, chunk.to_string())
}

fn chat(reply: &Reply) -> Vec<Event> {
    let mut events = vec![chat_chunk(
        json!({"role": "assistant", "content": ""}),
        None,
    )];
    for piece in pieces(&reply.reasoning, 12) {
        events.push(chat_chunk(json!({"reasoning_content": piece}), None));
    }
    for piece in pieces(&reply.text, 12) {
        events.push(chat_chunk(json!({"content": piece}), None));
    }
    for (index, call) in reply.tool_calls.iter().enumerate() {
        let head = json!({"index": index, "id": call.id, "type": "function", "function": {"name": call.name, "arguments": ""}});
        events.push(chat_chunk(json!({"tool_calls": [head]}), None));
        for piece in pieces(&call.arguments.to_string(), 7) {
            let delta = json!({"index": index, "function": {"arguments": piece}});
            events.push(chat_chunk(json!({"tool_calls": [delta]}), None));
        }
    }
    let finish = if reply.capped {
        "length"
    } else if reply.tool_calls.is_empty() {
        "stop"
    } else {
        "tool_calls"
    };
    events.push(chat_chunk(json!({}), Some(finish)));
    let u = reply.usage;
    let usage = json!({"id": "chatcmpl-fake", "object": "chat.completion.chunk", "choices": [],
        "usage": {"prompt_tokens": u.input, "completion_tokens": u.output, "total_tokens": u.input + u.output,
                  "prompt_tokens_details": {"cached_tokens": u.cached}}});
    events.push((None, usage.to_string()));
    events.push((None, "[DONE]".to_string()));
    events
}

/// A Responses or Anthropic event: its name, also as the payload's `type`.
fn typed(name: &'static str, mut payload: Value) -> Event {
    if let Some(fields) = payload.as_object_mut() {
        fields.insert("type".into(), json!(name));
    }
    (Some(name), payload.to_string())
}

fn responses(reply: &Reply) -> Vec<Event> {
    let mut events = vec![typed(
        "response.created",
        json!({"response": {"id": "resp_fake", "status": "in_progress"}}),
    )];
    let mut output_index = 0;
    if !reply.reasoning.is_empty() {
        let item = json!({"type": "reasoning", "id": "rs_fake", "summary": []});
        events.push(typed(
            "response.output_item.added",
            json!({"output_index": output_index, "item": item}),
        ));
        for piece in pieces(&reply.reasoning, 12) {
            events.push(typed("response.reasoning_summary_text.delta", json!({"item_id": "rs_fake", "output_index": output_index, "summary_index": 0, "delta": piece})));
        }
        let done = json!({"type": "reasoning", "id": "rs_fake", "summary": [{"type": "summary_text", "text": reply.reasoning}], "encrypted_content": "enc-fake-reasoning"});
        events.push(typed(
            "response.output_item.done",
            json!({"output_index": output_index, "item": done}),
        ));
        output_index += 1;
    }
    if !reply.text.is_empty() {
        let item = json!({"type": "message", "id": "msg_fake", "role": "assistant", "content": []});
        events.push(typed(
            "response.output_item.added",
            json!({"output_index": output_index, "item": item}),
        ));
        for piece in pieces(&reply.text, 12) {
            events.push(typed("response.output_text.delta", json!({"item_id": "msg_fake", "output_index": output_index, "content_index": 0, "delta": piece})));
        }
        let done = json!({"type": "message", "id": "msg_fake", "role": "assistant", "content": [{"type": "output_text", "text": reply.text}]});
        events.push(typed(
            "response.output_item.done",
            json!({"output_index": output_index, "item": done}),
        ));
        output_index += 1;
    }
    for call in &reply.tool_calls {
        let id = format!("fc_{}", call.id);
        let item = json!({"type": "function_call", "id": id, "call_id": call.id, "name": call.name, "arguments": ""});
        events.push(typed(
            "response.output_item.added",
            json!({"output_index": output_index, "item": item}),
        ));
        let args = call.arguments.to_string();
        for piece in pieces(&args, 7) {
            events.push(typed(
                "response.function_call_arguments.delta",
                json!({"item_id": id, "output_index": output_index, "delta": piece}),
            ));
        }
        events.push(typed(
            "response.function_call_arguments.done",
            json!({"item_id": id, "output_index": output_index, "arguments": args}),
        ));
        let done = json!({"type": "function_call", "id": id, "call_id": call.id, "name": call.name, "arguments": args, "status": "completed"});
        events.push(typed(
            "response.output_item.done",
            json!({"output_index": output_index, "item": done}),
        ));
        output_index += 1;
    }
    let u = reply.usage;
    let usage = json!({"input_tokens": u.input, "output_tokens": u.output, "total_tokens": u.input + u.output,
        "input_tokens_details": {"cached_tokens": u.cached}, "output_tokens_details": {"reasoning_tokens": 0}});
    events.push(if reply.capped {
        typed(
            "response.incomplete",
            json!({"response": {"id": "resp_fake", "status": "incomplete",
                "incomplete_details": {"reason": "max_output_tokens"}, "usage": usage}}),
        )
    } else {
        typed(
            "response.completed",
            json!({"response": {"id": "resp_fake", "status": "completed", "usage": usage}}),
        )
    });
    events
}

fn messages(reply: &Reply) -> Vec<Event> {
    let u = reply.usage;
    let start = json!({"message": {"id": "msg_fake", "type": "message", "role": "assistant", "model": "fake", "content": [],
        "usage": {"input_tokens": u.input.saturating_sub(u.cached), "cache_read_input_tokens": u.cached, "cache_creation_input_tokens": 0, "output_tokens": 1}}});
    let mut events = vec![typed("message_start", start)];
    let mut index = 0;
    if !reply.reasoning.is_empty() {
        events.push(typed(
            "content_block_start",
            json!({"index": index, "content_block": {"type": "thinking", "thinking": ""}}),
        ));
        for piece in pieces(&reply.reasoning, 12) {
            events.push(typed(
                "content_block_delta",
                json!({"index": index, "delta": {"type": "thinking_delta", "thinking": piece}}),
            ));
        }
        events.push(typed(
            "content_block_delta",
            json!({"index": index, "delta": {"type": "signature_delta", "signature": "sig-fake"}}),
        ));
        events.push(typed("content_block_stop", json!({"index": index})));
        index += 1;
    }
    events.push(typed("ping", json!({})));
    if !reply.text.is_empty() {
        events.push(typed(
            "content_block_start",
            json!({"index": index, "content_block": {"type": "text", "text": ""}}),
        ));
        for piece in pieces(&reply.text, 12) {
            events.push(typed(
                "content_block_delta",
                json!({"index": index, "delta": {"type": "text_delta", "text": piece}}),
            ));
        }
        events.push(typed("content_block_stop", json!({"index": index})));
        index += 1;
    }
    for call in &reply.tool_calls {
        let block = json!({"type": "tool_use", "id": call.id, "name": call.name, "input": {}});
        events.push(typed(
            "content_block_start",
            json!({"index": index, "content_block": block}),
        ));
        for piece in pieces(&call.arguments.to_string(), 7) {
            events.push(typed("content_block_delta", json!({"index": index, "delta": {"type": "input_json_delta", "partial_json": piece}})));
        }
        events.push(typed("content_block_stop", json!({"index": index})));
        index += 1;
    }
    let stop = if reply.capped {
        "max_tokens"
    } else if reply.tool_calls.is_empty() {
        "end_turn"
    } else {
        "tool_use"
    };
    events.push(typed("message_delta", json!({"delta": {"stop_reason": stop, "stop_sequence": null}, "usage": {"output_tokens": u.output}})));
    events.push(typed("message_stop", json!({})));
    events
}

/// A recorded body cut into its events (each with its blank line), so
/// faults can count them as they count written ones.
pub fn recorded_events(body: &str) -> Vec<String> {
    let mut events: Vec<String> = body.split_inclusive("\n\n").map(String::from).collect();
    events.retain(|e| !e.trim().is_empty());
    events
}

/// The body in pieces of `size` bytes, cut anywhere, even inside a
/// character: the client must reassemble it.
pub fn split_bytes(events: Vec<String>, size: usize) -> Vec<Vec<u8>> {
    events
        .concat()
        .into_bytes()
        .chunks(size.max(1))
        .map(<[u8]>::to_vec)
        .collect()
}
