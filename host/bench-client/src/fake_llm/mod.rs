//! The fake LLM server: a real HTTP server on 127.0.0.1 that speaks the
//! three wire formats (OpenAI chat completions, OpenAI responses, Anthropic
//! messages) as real SSE, driven by a scripted transcript. It checks what it
//! receives (the previous turn's tool results, in order, the declared
//! tools, and every image in its vendor's shape), records every request for the tests, and injects faults.
//!
//! Also a binary: `amber-fake-llm --script F --port 0` prints the port.

mod checks;
mod images;
pub mod script;
mod server;
mod sse;
mod wire;

pub use script::{Fault, Reply, ScriptedCall, Transcript, Turn};
pub use server::{FakeLlm, Received};
