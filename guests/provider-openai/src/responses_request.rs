//! Shapes a Responses API request: `POST /responses` with the conversation
//! as `input` items. Nothing is stored server-side, so reasoning travels
//! back as encrypted items each turn.

use amber_sdk::{json, ChatRequest, HttpRequest, Message, Part, Reasoning, Role, Value};

use crate::request;

pub fn build(req: &ChatRequest) -> Result<HttpRequest, String> {
    let mut input = Vec::new();
    for message in &req.messages {
        push_items(message, &mut input);
    }
    let mut body = json!({
        "model": req.model,
        "input": input,
        "stream": true,
        "store": false,
        // With store:false this is the only way reasoning survives a turn.
        "include": ["reasoning.encrypted_content"],
    });
    if !req.tools.is_empty() {
        let mut tools = Vec::new();
        for tool in &req.tools {
            tools.push(json!({
                "type": "function",
                "name": tool.name,
                "description": tool.description,
                "parameters": request::parameters(tool)?,
                // Responses defaults to strict schemas, which rewrite
                // optional fields as required; amber's tools are not strict.
                "strict": false,
            }));
        }
        body["tools"] = Value::Array(tools);
    }
    if let Some(max) = req.max_tokens {
        body["max_output_tokens"] = json!(max);
    }
    if let Some(t) = req.temperature {
        body["temperature"] = request::temperature(t);
    }
    Ok(request::post("/responses", &body))
}

fn push_items(message: &Message, out: &mut Vec<Value>) {
    match message.role {
        Role::System => {
            let text = request::text(&message.parts);
            if !text.is_empty() {
                out.push(json!({"role": "developer", "content": text}));
            }
        }
        Role::User | Role::Tool => {
            // Results answer the previous assistant turn, so they come
            // before any new user text.
            out.extend(message.parts.iter().filter_map(tool_result));
            let content: Vec<Value> = message
                .parts
                .iter()
                .filter_map(|p| match p {
                    Part::Text(t) if !t.is_empty() => {
                        Some(json!({"type": "input_text", "text": t}))
                    }
                    Part::Image(image) => Some(input_image(image)),
                    _ => None,
                })
                .collect();
            if !content.is_empty() {
                out.push(json!({"role": "user", "content": content}));
            }
        }
        // The assistant's items go back in the order they were produced:
        // a reasoning item must precede the call it led to.
        Role::Assistant => {
            for part in &message.parts {
                match part {
                    Part::Text(t) if !t.is_empty() => out.push(json!({
                        "type": "message",
                        "role": "assistant",
                        "content": [{"type": "output_text", "text": t}],
                    })),
                    Part::Text(_) => {}
                    Part::Reasoning(r) => out.extend(reasoning(r)),
                    Part::ToolCall(c) => out.push(json!({
                        "type": "function_call",
                        "call_id": c.id,
                        "name": c.name,
                        "arguments": request::arguments(&c.arguments),
                    })),
                    Part::ToolResult(_) => out.extend(tool_result(part)),
                    // An assistant's message never holds one.
                    Part::Image(_) => {}
                }
            }
        }
    }
}

/// A reasoning item. Reasoning without an item id did not come from the
/// Responses API (chat reasoning, another vendor's thinking) and cannot be
/// replayed here, so it is left out.
fn reasoning(r: &Reasoning) -> Option<Value> {
    let id = r.id.as_ref()?;
    let summary = if r.text.is_empty() {
        Vec::new()
    } else {
        vec![json!({"type": "summary_text", "text": r.text})]
    };
    let mut item = json!({"type": "reasoning", "id": id, "summary": summary});
    if let Some(encrypted) = &r.encrypted {
        item["encrypted_content"] = json!(encrypted);
    }
    Some(item)
}

fn tool_result(part: &Part) -> Option<Value> {
    match part {
        // A result with images gives its output as a list of parts.
        Part::ToolResult(r) if !r.images.is_empty() => {
            let mut output = vec![json!({"type": "input_text", "text": r.content})];
            output.extend(r.images.iter().map(input_image));
            Some(json!({
                "type": "function_call_output",
                "call_id": r.call_id,
                "output": output,
            }))
        }
        Part::ToolResult(r) => Some(json!({
            "type": "function_call_output",
            "call_id": r.call_id,
            "output": r.content,
        })),
        _ => None,
    }
}

fn input_image(image: &amber_sdk::Image) -> Value {
    json!({"type": "input_image", "image_url": request::data_url(image)})
}
