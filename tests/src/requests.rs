//! The compression cycle's two requests, as a dialect receives them, and
//! the recorded shapes of the bodies the dialects build from them
//! (`fixtures/requests/`).

use amber_core::ports::dialect::{ChatRequest, Message, Part, Role};
use serde_json::Value;

pub const SYSTEM: &str = "You compress the context of a coding agent. Answer with JSON only.";
pub const TRANSCRIPT: &str = "<transcript>\n\
    [0] user: The test in a.rs fails.\n\
    [1] assistant: read a.rs\n\
    [2] tool: fn main() { assert_eq!(1, 2) }\n\
    </transcript>";
pub const CLASSIFY: &str = "Label every segment core, context or prune.";
pub const EXTRACT: &str = "Now extract the memories and skills worth keeping.";

/// The last message the two requests share, and the mark both carry.
pub const SHARED: u32 = 2;

fn text(role: Role, text: &str) -> Message {
    Message {
        role,
        parts: vec![Part::Text { text: text.into() }],
    }
}

/// The classify and extract requests of one cycle, shaped as the
/// compression pipeline shapes them: a system prompt, the transcript and
/// the classify instruction; extract repeats them and adds its own
/// instruction. Both mark message 2, the end of what they share.
pub fn compression_pair(flavor: &str, model: &str) -> (ChatRequest, ChatRequest) {
    let classify = ChatRequest {
        flavor: flavor.into(),
        model: model.into(),
        messages: vec![
            text(Role::System, SYSTEM),
            text(Role::User, TRANSCRIPT),
            text(Role::User, CLASSIFY),
        ],
        tools: Vec::new(),
        max_tokens: Some(4096),
        temperature: None,
        cache_breakpoint: Some(SHARED),
    };
    let mut extract = classify.clone();
    extract.messages.push(text(Role::User, EXTRACT));
    (classify, extract)
}

/// A recorded request body, `fixtures/requests/<name>`, parsed.
pub fn recorded_body(name: &str) -> Value {
    let path = crate::repo_root().join("fixtures/requests").join(name);
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{} is not JSON: {e}", path.display()))
}
