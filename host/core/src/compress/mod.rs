//! The compression pipeline. Seeds: "Compression pipeline" and, for what
//! the cycle hands on, "Memory extraction".
//!
//! One job a file: [`segment`] splits the history into segments (a user
//! message, or an assistant message with all its tool results), [`collapse`]
//! folds tool-call loops, [`render`] shows the segments to the model,
//! [`prompts`] holds the classify and extract prompts with their schemas,
//! [`parse`] reads the replies tolerantly and validates them, [`headroom`]
//! applies the labels within the target, and [`pipeline`] runs the cycle
//! as [`ModelCompressor`]. [`tokens`] is the local token estimate.

pub mod collapse;
pub mod headroom;
pub mod parse;
pub mod pipeline;
pub mod prompts;
pub mod render;
pub mod segment;
pub mod tokens;

pub use pipeline::{CompressorSettings, ModelCompressor, DEFAULT_TARGET, DEFAULT_TIMEOUT};
