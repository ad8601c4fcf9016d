//! OpenAI wire dialects as a component (seed: "Provider wire path"): Chat
//! Completions (`openai-chat`, which most OpenAI-compatible servers also
//! speak) and the Responses API (`openai-responses`). The component shapes
//! requests and decodes streams into amber's normalised chunks; the host owns
//! HTTP, SSE framing, retries and the API key, which never enters here.
//! Bundled with amber.

mod chat_request;
mod chat_stream;
mod errors;
mod request;
mod responses_request;
mod responses_stream;
mod tool_calls;

use amber_sdk::prelude::*;
use amber_sdk::{
    AuthScheme, ChatRequest, Decoder, ErrorClass, FlavorSpec, HttpRequest, SseEvent, StreamChunk,
};

/// Chat Completions: `POST /chat/completions`.
const CHAT: &str = "openai-chat";
/// The Responses API: `POST /responses`.
const RESPONSES: &str = "openai-responses";

#[derive(Default)]
struct OpenAi;

impl Plugin for OpenAi {
    fn manifest() -> Manifest {
        Manifest::new(
            "provider-openai",
            "0.1.0",
            "OpenAI Chat Completions and Responses wire dialects.",
        )
        .named("OpenAI dialects")
    }
}

impl ProviderPlugin for OpenAi {
    fn flavors(&self) -> Vec<FlavorSpec> {
        [CHAT, RESPONSES]
            .into_iter()
            .map(|name| FlavorSpec {
                name: name.to_string(),
                auth: AuthScheme::Bearer,
            })
            .collect()
    }

    fn build_request(&mut self, req: ChatRequest) -> Result<HttpRequest, String> {
        match req.flavor.as_str() {
            CHAT => chat_request::build(&req),
            RESPONSES => responses_request::build(&req),
            other => Err(unknown_flavor(other)),
        }
    }

    fn new_decoder(&mut self, flavor: &str) -> Box<dyn Decoder> {
        match flavor {
            CHAT => Box::<chat_stream::ChatStream>::default(),
            RESPONSES => Box::<responses_stream::ResponsesStream>::default(),
            other => Box::new(UnknownFlavor {
                flavor: other.to_string(),
                reported: false,
            }),
        }
    }

    fn classify_error(&mut self, _flavor: &str, status: u16, body: &str) -> ErrorClass {
        errors::classify(status, body)
    }
}

fn unknown_flavor(flavor: &str) -> String {
    format!(
        "provider-openai does not speak flavor `{flavor}`; it speaks `{CHAT}` and `{RESPONSES}`"
    )
}

/// A decoder for a flavor this component does not speak: it says so once
/// instead of silently yielding an empty reply.
struct UnknownFlavor {
    flavor: String,
    reported: bool,
}

impl Decoder for UnknownFlavor {
    fn event(&mut self, _event: &SseEvent<'_>, out: &mut Vec<StreamChunk>) {
        if !std::mem::replace(&mut self.reported, true) {
            let message = unknown_flavor(&self.flavor);
            out.push(errors::chunk("unknown-flavor", message, false));
        }
    }
}

amber_sdk::export!(OpenAi: provider);
