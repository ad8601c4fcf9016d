//! The Anthropic Messages dialect (seed: "Provider wire path"): shapes a
//! chat request into a `POST /v1/messages` body and decodes its event stream
//! into amber's normalised chunks. Bundled with amber.
//!
//! The host owns HTTP, SSE framing, retries and the API key; this component
//! only ever sees JSON text. It says `x-api-key` as its auth scheme and the
//! host adds that header.

mod decode;
mod request;
mod vendor_error;

use amber_sdk::prelude::*;
use amber_sdk::{AuthScheme, ChatRequest, ErrorClass, FlavorSpec, HttpRequest};

/// The one flavor this component speaks.
pub(crate) const FLAVOR: &str = "anthropic-messages";

#[derive(Default)]
struct Anthropic;

impl Plugin for Anthropic {
    fn manifest() -> Manifest {
        Manifest::new(
            "provider-anthropic",
            "0.1.0",
            "Speaks Anthropic's Messages API, thinking blocks and tool use included.",
        )
        .named("Anthropic Messages")
    }
}

impl ProviderPlugin for Anthropic {
    fn flavors(&self) -> Vec<FlavorSpec> {
        vec![FlavorSpec {
            name: FLAVOR.to_string(),
            auth: AuthScheme::XApiKey,
        }]
    }

    fn build_request(&mut self, req: ChatRequest) -> Result<HttpRequest, String> {
        request::build(&req)
    }

    fn new_decoder(&mut self, _flavor: &str) -> Box<dyn amber_sdk::Decoder> {
        Box::new(decode::MessagesDecoder::default())
    }

    fn classify_error(&mut self, _flavor: &str, status: u16, body: &str) -> ErrorClass {
        vendor_error::classify(status, body)
    }
}

amber_sdk::export!(Anthropic: provider);
