//! Shapes amber's chat request into a Messages API request (seed: "Provider
//! wire path", the request half).
//!
//! Anthropic wants the system prompt apart from the turns, roles that
//! alternate strictly, tool results inside a user turn, thinking blocks
//! sent back unchanged with their signatures, and a `cache_control` mark
//! where a cached prefix ends. Everything here serves one of those rules.

use amber_sdk::bindings::exports::amber::plugin::provider::{
    Message, Part, Reasoning, Role, ToolCall, ToolDecl, ToolResult,
};
use amber_sdk::{json, ChatRequest, HttpRequest, Value};
use serde_json::{Map, Number};

use crate::FLAVOR;

/// Anthropic requires `max_tokens`; this is used when the request has none.
const DEFAULT_MAX_TOKENS: u32 = 8192;

/// The `anthropic-version` header: the wire format this code speaks.
const API_VERSION: &str = "2023-06-01";

/// Relative to a base URL that has no `/v1`.
const PATH: &str = "/v1/messages";

pub fn build(req: &ChatRequest) -> Result<HttpRequest, String> {
    if req.flavor != FLAVOR {
        return Err(format!(
            "this component speaks `{FLAVOR}`, not `{}`",
            req.flavor
        ));
    }
    let mut body = Map::new();
    body.insert("model".into(), json!(req.model));
    let max_tokens = req.max_tokens.unwrap_or(DEFAULT_MAX_TOKENS);
    body.insert("max_tokens".into(), json!(max_tokens));
    body.insert("stream".into(), json!(true));
    // One mark at most, well under Anthropic's four a request. An index
    // past the last message marks nothing.
    let mark = req
        .cache_breakpoint
        .map(|i| i as usize)
        .filter(|&i| i < req.messages.len());
    if let Some(system) = system(&req.messages, mark) {
        body.insert("system".into(), system);
    }
    body.insert("messages".into(), Value::Array(turns(&req.messages, mark)?));
    if !req.tools.is_empty() {
        let tools = req.tools.iter().map(tool).collect::<Result<_, _>>()?;
        body.insert("tools".into(), Value::Array(tools));
    }
    if let Some(t) = req.temperature {
        body.insert("temperature".into(), temperature(t)?);
    }
    let headers = [
        ("content-type", "application/json"),
        ("accept", "text/event-stream"),
        ("anthropic-version", API_VERSION),
    ];
    Ok(HttpRequest {
        method: "POST".to_string(),
        path: PATH.to_string(),
        headers: headers
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect(),
        body: Value::Object(body).to_string(),
    })
}

/// The `system` field: the text of every system message, in order, as one
/// string; `None` when there is none. When the cache mark falls on a system
/// message the field is a list of text blocks instead, so that the mark has
/// a block to sit on: the system messages up to the marked one in a first
/// block, which carries it, and any after it in a second.
fn system(messages: &[Message], mark: Option<usize>) -> Option<Value> {
    let marked = mark
        .filter(|&i| messages[i].role == Role::System)
        .and_then(|i| {
            let (cached, after) = messages.split_at(i + 1);
            Some((system_text(cached)?, system_text(after)))
        });
    let Some((cached, after)) = marked else {
        return system_text(messages).map(Value::String);
    };
    let mut first = json!({"type": "text", "text": cached});
    first["cache_control"] = cache_control();
    let mut blocks = vec![first];
    blocks.extend(after.map(|text| json!({"type": "text", "text": text})));
    Some(Value::Array(blocks))
}

/// The text of every system message, in order; `None` when there is none.
fn system_text(messages: &[Message]) -> Option<String> {
    let texts: Vec<&str> = messages
        .iter()
        .filter(|m| m.role == Role::System)
        .flat_map(|m| &m.parts)
        .filter_map(|p| match p {
            Part::Text(t) if !t.trim().is_empty() => Some(t.as_str()),
            _ => None,
        })
        .collect();
    (!texts.is_empty()).then(|| texts.join("\n\n"))
}

/// One entry of `messages` while it is being assembled.
struct Turn {
    role: &'static str,
    content: Vec<Value>,
}

/// The non-system messages as alternating turns: adjacent messages that
/// land on the same role (tool results and the user's next words, say)
/// share one turn, and a message with nothing to send is skipped. The
/// message at `mark`, if it is one of them, gets the cache mark.
fn turns(messages: &[Message], mark: Option<usize>) -> Result<Vec<Value>, String> {
    let mut turns: Vec<Turn> = Vec::new();
    for (n, message) in messages.iter().enumerate() {
        let role = match message.role {
            Role::System => continue,
            Role::Assistant => "assistant",
            Role::User | Role::Tool => "user",
        };
        let mut content = Vec::new();
        for part in &message.parts {
            if let Some(block) = block(role, part).map_err(|e| format!("message {n}: {e}"))? {
                content.push(block);
            }
        }
        if mark == Some(n) {
            put_mark(&mut content);
        }
        if content.is_empty() {
            continue;
        }
        match turns.last_mut() {
            Some(last) if last.role == role => last.content.extend(content),
            _ => turns.push(Turn { role, content }),
        }
    }
    Ok(turns.into_iter().map(finish_turn).collect())
}

/// The cache mark: Anthropic caches the prompt (tools, system, then
/// messages) up to and including the block that carries it.
fn cache_control() -> Value {
    json!({"type": "ephemeral"})
}

/// Marks the last of a message's blocks that may carry the mark: thinking
/// blocks cannot (Anthropic caches them only with a later block). A message
/// with no such block gets no mark.
fn put_mark(blocks: &mut [Value]) {
    let markable =
        |b: &&mut Value| !matches!(b["type"].as_str(), Some("thinking" | "redacted_thinking"));
    if let Some(block) = blocks.iter_mut().rev().find(markable) {
        block["cache_control"] = cache_control();
    }
}

/// Anthropic reads tool results only at the start of a user turn, so a
/// merged turn keeps them first (each group in its original order).
fn finish_turn(turn: Turn) -> Value {
    let (mut content, rest): (Vec<Value>, Vec<Value>) = turn
        .content
        .into_iter()
        .partition(|b| turn.role == "user" && b["type"] == "tool_result");
    content.extend(rest);
    json!({"role": turn.role, "content": content})
}

/// The content block for one part, or `None` when the part has nothing
/// Anthropic would accept in that role.
fn block(role: &str, part: &Part) -> Result<Option<Value>, String> {
    let assistant = role == "assistant";
    Ok(match part {
        // Anthropic refuses text blocks with no visible text.
        Part::Text(text) if text.trim().is_empty() => None,
        Part::Text(text) => Some(json!({"type": "text", "text": text})),
        Part::Reasoning(r) if assistant => reasoning(r),
        // Reasoning belongs to the assistant; anywhere else it is noise.
        Part::Reasoning(_) => None,
        Part::ToolCall(call) if assistant => Some(tool_use(call)),
        Part::ToolCall(call) => {
            return Err(format!(
                "tool call `{}` ({}) is outside an assistant message",
                call.name, call.id
            ))
        }
        Part::ToolResult(result) if !assistant => Some(tool_result(result)),
        Part::ToolResult(result) => {
            return Err(format!(
                "the result of tool call {} is inside an assistant message",
                result.call_id
            ))
        }
        Part::Image(image) if !assistant => Some(image_block(image)),
        Part::Image(_) => return Err("an image is inside an assistant message".into()),
    })
}

/// An image, inline, as a base64 source.
fn image_block(image: &amber_sdk::Image) -> Value {
    json!({
        "type": "image",
        "source": {
            "type": "base64",
            "media_type": image.media_type,
            "data": amber_sdk::base64(&image.data),
        },
    })
}

/// A thinking block goes back with its signature, a redacted one with its
/// data. Reasoning with neither (another vendor's, or a cut stream's) cannot
/// be verified by Anthropic, which would refuse the request, so it is left
/// out.
fn reasoning(r: &Reasoning) -> Option<Value> {
    let signature = r.signature.as_deref().filter(|s| !s.is_empty());
    let encrypted = r.encrypted.as_deref().filter(|s| !s.is_empty());
    match (signature, encrypted) {
        (Some(signature), _) => Some(json!({
            "type": "thinking",
            "thinking": r.text,
            "signature": signature,
        })),
        (None, Some(data)) => Some(json!({"type": "redacted_thinking", "data": data})),
        (None, None) => None,
    }
}

/// `input` must be an object; arguments that are empty, not JSON or not an
/// object (a model's broken output) go back as `{}`.
fn tool_use(call: &ToolCall) -> Value {
    let input = match serde_json::from_str::<Value>(&call.arguments) {
        Ok(Value::Object(map)) => Value::Object(map),
        _ => json!({}),
    };
    json!({"type": "tool_use", "id": call.id, "name": call.name, "input": input})
}

fn tool_result(result: &ToolResult) -> Value {
    // With images, the content is a list of blocks: the text, then them.
    let content = if result.images.is_empty() {
        json!(result.content)
    } else {
        let mut blocks = vec![json!({"type": "text", "text": result.content})];
        blocks.extend(result.images.iter().map(image_block));
        Value::Array(blocks)
    };
    json!({
        "type": "tool_result",
        "tool_use_id": result.call_id,
        "content": content,
        "is_error": result.is_error,
    })
}

fn tool(decl: &ToolDecl) -> Result<Value, String> {
    let schema: Value = if decl.input_schema.trim().is_empty() {
        json!({"type": "object"})
    } else {
        serde_json::from_str(&decl.input_schema)
            .map_err(|e| format!("tool `{}`: its input schema is not JSON: {e}", decl.name))?
    };
    Ok(json!({
        "name": decl.name,
        "description": decl.description,
        "input_schema": schema,
    }))
}

/// Through the shortest decimal text, so `0.7f32` is sent as `0.7` and not
/// as `0.699999988079071`.
fn temperature(t: f32) -> Result<Value, String> {
    t.to_string()
        .parse::<f64>()
        .ok()
        .and_then(Number::from_f64)
        .map(Value::Number)
        .ok_or_else(|| format!("temperature {t} is not a finite number"))
}
