//! {{id}}: an amber provider plugin in Rust: a wire dialect for an
//! OpenAI-style chat API, text only (no tools, no reasoning). The host
//! owns HTTP, the base URL and the key; this shapes the request and
//! decodes the stream. guests/provider-openai is the whole of it.
use amber_sdk::prelude::*;
use amber_sdk::{
    push_text, AuthScheme, ChatRequest, Decoder, FlavorSpec, HttpRequest, Part, Role, SseEvent,
    StopReason, StreamChunk, StreamError,
};

#[derive(Default)]
struct {{Camel}};

impl Plugin for {{Camel}} {
    fn manifest() -> Manifest {
        amber_sdk::manifest!(id: "{{id}}")
    }
}

fn role(role: Role) -> &'static str {
    match role {
        Role::System => "system",
        Role::User => "user",
        Role::Assistant => "assistant",
        Role::Tool => "tool",
    }
}

/// Decodes `data: {"choices":[{"delta":{"content":…},"finish_reason":…}]}`.
#[derive(Default)]
struct Chat;

impl Decoder for Chat {
    fn event(&mut self, event: &SseEvent<'_>, out: &mut Vec<StreamChunk>) {
        if event.data == "[DONE]" {
            return;
        }
        let Ok(json) = amber_sdk::serde_json::from_str::<Value>(event.data) else {
            out.push(StreamChunk::Error(StreamError {
                kind: "decode".into(),
                message: format!("not JSON: {}", event.data),
                retryable: false,
            }));
            return;
        };
        let choice = &json["choices"][0];
        if let Some(text) = choice["delta"]["content"].as_str() {
            push_text(out, text);
        }
        match choice["finish_reason"].as_str() {
            Some("stop") => out.push(StreamChunk::Stop(StopReason::EndTurn)),
            Some("length") => out.push(StreamChunk::Stop(StopReason::MaxTokens)),
            Some(_) => out.push(StreamChunk::Stop(StopReason::Other)),
            None => {}
        }
    }
}

impl ProviderPlugin for {{Camel}} {
    fn flavors(&self) -> Vec<FlavorSpec> {
        vec![FlavorSpec {
            name: "{{id}}".into(),
            auth: AuthScheme::Bearer,
        }]
    }

    fn build_request(&mut self, req: ChatRequest) -> Result<HttpRequest, String> {
        let messages: Vec<Value> = req
            .messages
            .iter()
            .map(|m| {
                let text: String = m
                    .parts
                    .iter()
                    .filter_map(|p| match p {
                        Part::Text(t) => Some(t.as_str()),
                        _ => None,
                    })
                    .collect();
                json!({"role": role(m.role), "content": text})
            })
            .collect();
        let body = json!({"model": req.model, "messages": messages, "stream": true});
        Ok(HttpRequest {
            method: "POST".into(),
            path: "/chat/completions".into(),
            headers: vec![("content-type".into(), "application/json".into())],
            body: body.to_string(),
        })
    }

    fn new_decoder(&mut self, _flavor: &str) -> Box<dyn Decoder> {
        Box::new(Chat)
    }
}

amber_sdk::export!({{Camel}}: provider);
