//! Shapes a Chat Completions request: `POST /chat/completions` with the
//! conversation as `messages`, streaming with usage.

use amber_sdk::{json, ChatRequest, HttpRequest, Message, Part, Role, Value};

use crate::request;

pub fn build(req: &ChatRequest) -> Result<HttpRequest, String> {
    let mut messages = Vec::new();
    // The user messages that carry tool results' images wait for the end
    // of the run of `tool` messages: a `tool` message must follow the
    // assistant turn that called it or another `tool` message.
    let mut held = Vec::new();
    for message in &req.messages {
        push_message(message, &mut messages, &mut held);
    }
    messages.append(&mut held);
    let mut body = json!({
        "model": req.model,
        "messages": messages,
        "stream": true,
        // Without this the stream carries no token counts at all.
        "stream_options": {"include_usage": true},
    });
    if !req.tools.is_empty() {
        let mut tools = Vec::new();
        for tool in &req.tools {
            tools.push(json!({
                "type": "function",
                "function": {
                    "name": tool.name,
                    "description": tool.description,
                    "parameters": request::parameters(tool)?,
                },
            }));
        }
        body["tools"] = Value::Array(tools);
    }
    if let Some(max) = req.max_tokens {
        body[limit_field(&req.model)] = json!(max);
    }
    if let Some(t) = req.temperature {
        body["temperature"] = request::temperature(t);
    }
    Ok(request::post("/chat/completions", &body))
}

/// The field that caps the reply. OpenAI's reasoning models (o1, o3,
/// o4-mini, gpt-5 and their variants) refuse `max_tokens` with a 400 and
/// take `max_completion_tokens`, which also counts their reasoning. The
/// servers that copy Chat Completions (ollama, llama.cpp, DeepSeek) know
/// only `max_tokens`, so it stays the default.
fn limit_field(model: &str) -> &'static str {
    let mut chars = model.chars();
    let o_series = chars.next() == Some('o') && chars.next().is_some_and(|c| c.is_ascii_digit());
    if o_series || model.starts_with("gpt-5") {
        "max_completion_tokens"
    } else {
        "max_tokens"
    }
}

/// One amber message becomes one chat message, plus one `tool` message per
/// tool result. Reasoning is not sent back: Chat Completions has no field
/// for it. The images of its results go to `held`, sent once the results
/// of the turn are all out.
fn push_message(message: &Message, out: &mut Vec<Value>, held: &mut Vec<Value>) {
    let text = request::text(&message.parts);
    let results: Vec<Value> = message
        .parts
        .iter()
        .filter_map(|p| match p {
            Part::ToolResult(r) => Some(json!({
                "role": "tool",
                "tool_call_id": r.call_id,
                "content": r.content,
            })),
            _ => None,
        })
        .collect();
    // A `tool` message carries text only: a result's images follow the
    // turn's results as a user message that says whose they are.
    let mut result_images = Vec::new();
    for part in &message.parts {
        if let Part::ToolResult(r) = part {
            if !r.images.is_empty() {
                let mut content = vec![json!({
                    "type": "text",
                    "text": format!("The images the tool call {} returned:", r.call_id),
                })];
                content.extend(r.images.iter().map(image_part));
                result_images.push(json!({"role": "user", "content": content}));
            }
        }
    }
    let images = request::images(&message.parts);
    match message.role {
        Role::System if !text.is_empty() => {
            out.append(held);
            out.push(json!({"role": "system", "content": text}))
        }
        Role::Assistant => {
            out.append(held);
            let calls: Vec<Value> = message
                .parts
                .iter()
                .filter_map(|p| match p {
                    Part::ToolCall(c) => Some(json!({
                        "id": c.id,
                        "type": "function",
                        "function": {
                            "name": c.name,
                            "arguments": request::arguments(&c.arguments),
                        },
                    })),
                    _ => None,
                })
                .collect();
            if !text.is_empty() || !calls.is_empty() {
                let content = if text.is_empty() {
                    Value::Null
                } else {
                    json!(text)
                };
                let mut turn = json!({"role": "assistant", "content": content});
                if !calls.is_empty() {
                    turn["tool_calls"] = Value::Array(calls);
                }
                out.push(turn);
            }
            // Results belong after the calls they answer.
            out.extend(results);
            held.extend(result_images);
        }
        Role::User | Role::Tool => {
            // Results answer the previous assistant turn, so they come
            // before any new user text.
            out.extend(results);
            held.extend(result_images);
            if !images.is_empty() || !text.is_empty() {
                out.append(held);
            }
            if !images.is_empty() {
                let mut content = Vec::new();
                if !text.is_empty() {
                    content.push(json!({"type": "text", "text": text}));
                }
                content.extend(images.into_iter().map(image_part));
                out.push(json!({"role": "user", "content": content}));
            } else if !text.is_empty() {
                out.push(json!({"role": "user", "content": text}));
            }
        }
        Role::System => {}
    }
}

/// An image as a content part of a user message.
fn image_part(image: &amber_sdk::Image) -> Value {
    json!({"type": "image_url", "image_url": {"url": request::data_url(image)}})
}
