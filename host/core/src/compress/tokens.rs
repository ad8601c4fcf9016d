//! The local token estimate: four bytes of a message's canonical JSON a
//! token. The gate counts what the provider reported for what was sent and
//! estimates only what was added since; the pipeline estimates the set it
//! builds, which nothing has counted yet. One function, so a tokenizer
//! (tiktoken, or the model family's own) can replace it in one place.

use crate::context::canonical;
use crate::ports::dialect::Message;

/// Bytes of canonical JSON a token, roughly, for English and code.
pub const BYTES_PER_TOKEN: u64 = 4;

/// The estimated tokens of one message, rounded up.
pub fn estimate(message: &Message) -> u64 {
    (canonical(message).len() as u64).div_ceil(BYTES_PER_TOKEN)
}

/// The estimated tokens of several messages.
pub fn estimate_all(messages: &[Message]) -> u64 {
    messages.iter().map(estimate).sum()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::assemble::text_message;
    use crate::ports::dialect::Role;

    #[test]
    fn four_bytes_of_canonical_json_make_a_token_rounded_up() {
        let message = text_message(Role::User, "x".repeat(100));
        let bytes = canonical(&message).len() as u64;
        assert_eq!(estimate(&message), bytes.div_ceil(4));
        assert_eq!(
            estimate_all(&[message.clone(), message]),
            2 * bytes.div_ceil(4)
        );
    }
}
