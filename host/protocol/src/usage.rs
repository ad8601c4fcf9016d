//! What a model call cost and why it stopped, as the dialects report it.

use serde::{Deserialize, Serialize};

/// Tokens of one model call, or of a run summed.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Usage {
    pub input_tokens: u64,
    pub output_tokens: u64,
    pub cached_input_tokens: u64,
    pub cache_write_tokens: u64,
    pub reasoning_tokens: u64,
}

impl Usage {
    /// Adds `more`: a run's calls summed, a session's runs.
    pub fn add(&mut self, more: &Usage) {
        self.input_tokens += more.input_tokens;
        self.output_tokens += more.output_tokens;
        self.cached_input_tokens += more.cached_input_tokens;
        self.cache_write_tokens += more.cache_write_tokens;
        self.reasoning_tokens += more.reasoning_tokens;
    }
}

/// Why the model stopped, in the dialects' common words.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum StopReason {
    EndTurn,
    ToolUse,
    MaxTokens,
    ContentFilter,
    Refusal,
    Other,
}
