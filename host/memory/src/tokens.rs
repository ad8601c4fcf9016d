//! Token counting with `cl100k_base`. Building the encoder parses a
//! 100k-entry vocabulary, so it is built once per process and shared.

use std::sync::OnceLock;

use tiktoken_rs::CoreBPE;

use crate::error::MemoryError;

/// The encoding every stored and compiled count uses.
pub const TOKENIZER: &str = "cl100k_base";

static ENCODER: OnceLock<Result<CoreBPE, String>> = OnceLock::new();

fn encoder() -> Result<&'static CoreBPE, MemoryError> {
    ENCODER
        .get_or_init(|| tiktoken_rs::cl100k_base().map_err(|e| e.to_string()))
        .as_ref()
        .map_err(|e| MemoryError::invalid("tokenizer", format!("cannot load {TOKENIZER}: {e}")))
}

/// The number of tokens in `text`. Special-token markers in the text are
/// counted as ordinary text, since memory content is data, not control.
pub fn count(text: &str) -> Result<usize, MemoryError> {
    Ok(encoder()?.encode_ordinary(text).len())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_are_cl100k_counts() {
        assert_eq!(count("").unwrap(), 0);
        assert_eq!(count("hello world").unwrap(), 2);
        assert_eq!(count("<|endoftext|>").unwrap(), 7);
    }
}
