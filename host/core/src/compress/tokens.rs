//! Token counts of messages nothing has counted yet.
//!
//! - [`count`]: the gate counts what the provider reported for what was
//!   sent and adds the messages pushed since (tool results, steers),
//!   tokenized with `cl100k_base` (tiktoken): close to what OpenAI's and
//!   Anthropic's models count for code and English, and the same encoding
//!   amber-memory counts with.
//! - [`estimate`]: four bytes of a message's canonical JSON a token. The
//!   pipeline estimates the whole set it builds with it, and the gate the
//!   whole context before the first reply: a compression of a 100k-token
//!   context must cost milliseconds (docs/bench.md), and tokenizing all of
//!   it would cost more than the cycle itself.

use std::sync::OnceLock;

use tiktoken_rs::CoreBPE;

use crate::context::canonical;
use crate::ports::dialect::{Message, Part};

/// Bytes of canonical JSON a token, roughly, for English and code.
pub const BYTES_PER_TOKEN: u64 = 4;

/// What a message costs beyond its text: its role and the framing the
/// chat formats wrap around it.
pub const MESSAGE_OVERHEAD: u64 = 4;

/// The estimated tokens of one message, rounded up; an image counts as
/// its vendors count it ([`crate::ports::Image::approx_tokens`]), not by its record.
pub fn estimate(message: &Message) -> u64 {
    let images: u64 = message
        .parts
        .iter()
        .map(|p| match p {
            Part::Image(image) => image.approx_tokens(),
            _ => 0,
        })
        .sum();
    (canonical(message).len() as u64).div_ceil(BYTES_PER_TOKEN) + images
}

/// The estimated tokens of several messages.
pub fn estimate_all(messages: &[Message]) -> u64 {
    messages.iter().map(estimate).sum()
}

/// The encoder, built once per process on first use (it parses a
/// 100k-entry vocabulary); `None` if it cannot be built, and then
/// [`count`] estimates.
fn encoder() -> Option<&'static CoreBPE> {
    static ENCODER: OnceLock<Option<CoreBPE>> = OnceLock::new();
    ENCODER
        .get_or_init(|| tiktoken_rs::cl100k_base().ok())
        .as_ref()
}

/// The `cl100k_base` tokens of one message: its texts, reasoning, tool
/// calls (name, id and arguments) and results, plus
/// [`MESSAGE_OVERHEAD`]. Special-token markers count as plain text.
pub fn count(message: &Message) -> u64 {
    let Some(encoder) = encoder() else {
        return estimate(message);
    };
    let tokens = |text: &str| encoder.encode_ordinary(text).len() as u64;
    let parts: u64 = message
        .parts
        .iter()
        .map(|part| match part {
            Part::Text { text } => tokens(text),
            Part::Reasoning(reasoning) => tokens(&reasoning.text),
            Part::ToolCall(call) => tokens(&call.id) + tokens(&call.name) + tokens(&call.arguments),
            Part::ToolResult(result) => tokens(&result.call_id) + tokens(&result.content),
            Part::Image(image) => image.approx_tokens(),
        })
        .sum();
    parts + MESSAGE_OVERHEAD
}

/// The `cl100k_base` tokens of several messages.
pub fn count_all(messages: &[Message]) -> u64 {
    messages.iter().map(count).sum()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ports::dialect::Role;

    #[test]
    fn four_bytes_of_canonical_json_make_a_token_rounded_up() {
        let message = Message::text(Role::User, "x".repeat(100));
        let bytes = canonical(&message).len() as u64;
        assert_eq!(estimate(&message), bytes.div_ceil(4));
        assert_eq!(
            estimate_all(&[message.clone(), message]),
            2 * bytes.div_ceil(4)
        );
    }

    #[test]
    fn a_count_is_cl100k_tokens_of_every_part_plus_the_overhead() {
        use crate::ports::dialect::{ToolCall, ToolResult};
        // "hello world" is two cl100k tokens.
        let message = Message::text(Role::User, "hello world");
        assert_eq!(count(&message), 2 + MESSAGE_OVERHEAD);
        let call = Message {
            role: Role::Assistant,
            parts: vec![Part::ToolCall(ToolCall {
                id: "c1".into(),
                name: "read_file".into(),
                arguments: "{\"path\":\"a.rs\"}".into(),
            })],
        };
        let result = Message {
            role: Role::Tool,
            parts: vec![Part::ToolResult(ToolResult {
                call_id: "c1".into(),
                content: "fn main() {}\n".repeat(100),
                is_error: false,
            })],
        };
        assert!(count(&call) > MESSAGE_OVERHEAD);
        // A hundred lines of code: a few tokens a line, near the estimate.
        let counted = count(&result);
        assert!(
            (300..=2 * estimate(&result)).contains(&counted),
            "{counted}"
        );
        assert_eq!(
            count_all(&[call.clone(), result.clone()]),
            count(&call) + count(&result)
        );
    }
}
