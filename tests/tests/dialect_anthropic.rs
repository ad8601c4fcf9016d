//! The bundled `provider-anthropic` component, through the real runtime:
//! recorded Anthropic streams decode to amber's normalised chunks whatever
//! the batch size, edge cases the recordings miss still decode safely, and
//! requests keep Anthropic's rules (alternating roles, thinking sent back
//! signed, no key in the component, the cache mark where a shared prefix
//! ends).

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "a test fails by panicking, its helpers too"
)]

use std::sync::Arc;

use amber_core::ports::dialect::{
    ChatRequest, Message, Part, Reasoning, Role, SseEvent, StopReason, StreamChunk, ToolCall,
    ToolDecl, ToolResult, Usage,
};
use amber_core::ports::Dialect;
use amber_runtime::PluginRuntime;
use amber_tests::requests::{self, compression_pair, recorded_body};
use amber_tests::sse::{parse, read_fixture};
use amber_tests::{decode_all, Decoded, Scratch};
use serde_json::{json, Value};

const FLAVOR: &str = "anthropic-messages";

/// The dialect with what keeps it alive.
struct Anthropic {
    _scratch: Scratch,
    _runtime: PluginRuntime,
    dialect: Arc<dyn Dialect>,
}

fn anthropic() -> Anthropic {
    let (scratch, runtime, dialect) = amber_tests::dialect("provider-anthropic", FLAVOR);
    Anthropic {
        _scratch: scratch,
        _runtime: runtime,
        dialect,
    }
}

impl Anthropic {
    /// Decodes one event at a time and in one batch; both must agree.
    fn decode(&self, events: &[SseEvent]) -> Decoded {
        let one = decode_all(&*self.dialect, events, 1);
        let many = decode_all(&*self.dialect, events, 64);
        assert_eq!(one, many, "batch sizes 1 and 64 disagree");
        one
    }

    fn fixture(&self, name: &str) -> Decoded {
        self.decode(&read_fixture(name))
    }

    /// The chunks of one decoder fed one event at a time.
    fn chunks_one_by_one(&self, events: &[SseEvent]) -> Vec<StreamChunk> {
        let mut decoder = self.dialect.decoder().expect("a decoder");
        let mut chunks = Vec::new();
        for event in events.chunks(1) {
            chunks.extend(decoder.decode(event).expect("decode does not fail"));
        }
        chunks.extend(decoder.finish().expect("finish does not fail"));
        chunks
    }

    /// The raw chunks, in order, for assertions about sequence.
    fn chunks(&self, events: &[SseEvent]) -> Vec<StreamChunk> {
        let mut decoder = self.dialect.decoder().expect("a decoder");
        let mut chunks = decoder.decode(events).expect("decode does not fail");
        chunks.extend(decoder.finish().expect("finish does not fail"));
        chunks
    }
}

fn usage(input: u64, output: u64, cached: u64, written: u64, reasoning: u64) -> Usage {
    Usage {
        input_tokens: input,
        output_tokens: output,
        cached_input_tokens: cached,
        cache_write_tokens: written,
        reasoning_tokens: reasoning,
    }
}

fn stops(chunks: &[StreamChunk]) -> usize {
    chunks
        .iter()
        .filter(|c| matches!(c, StreamChunk::Stop(_)))
        .count()
}

const THINKING_TEXT_SIGNATURE: &str = "EvMCCkYICxgCKkCHP2cSuEdcJK/0rFwqES/ecn+VurRpNTwI4XNyM0vnNfGsc9OmE8YYHauwBZ/uaRpmlEn2I4/kszHlcpptO82JEgyRMSbPkJYaegxYF3AaDHZbSm9EzZ6CM+YtliIw3iNVP/ilYrfoneo8S2+ad/5xSC62nKbk6joLtKmqXgXwYFJRpjIUjM2V7EGReOPRKtoBKfNHVmdNf7SeMhHalX/ObSeJ1G/NjDyGQAsDjyHGd7uY1r5gAIn3Cpdv5r+gHYJmWT+w2uiKZsBDRoSf4O3Km0l752EhPD4InEhqpCKyqhbUZ3dt5+JVKQHk2iyTBhQMB/XBYgZTstIpRqQRXU5ypcrydgnqj3mD1G9C7YC0ZTCNvFluAx0OL8q+cQwufgfqKquLEf2+XMYzhx9jYkVFEpnf/s1nx6gNBATKfF3Dmrs2r4tWu2QJB+FjlRuDp/8dxUxgJbmyhGxb7XsYeb1vgb7wwzDvP/UhjfQYAQ==";

const TOOL_USE_SIGNATURE_START: &str = "EoQDCm0IDhgCKkCDzGs2kL2PgnDCZU";

#[test]
fn text_stream_gives_the_text_its_usage_and_end_turn() {
    let anthropic = anthropic();
    let decoded = anthropic.fixture("anthropic-text.sse");
    assert_eq!(decoded.text, "1. **Captain Scoop**\n2. **Gullet**");
    // 17 uncached prompt tokens, no cache reads or writes; the final
    // message_delta says 20 output tokens (message_start said 1).
    assert_eq!(decoded.usage, Some(usage(17, 20, 0, 0, 0)));
    assert_eq!(decoded.stop, Some(StopReason::EndTurn));
    assert!(decoded.reasoning.is_empty());
    assert!(decoded.tool_calls.is_empty());
    assert!(decoded.errors.is_empty(), "{:?}", decoded.errors);
    let events = read_fixture("anthropic-text.sse");
    let chunks = anthropic.chunks(&events);
    assert_eq!(stops(&chunks), 1);
    let texts = |chunks: &[StreamChunk]| {
        chunks
            .iter()
            .filter(|c| matches!(c, StreamChunk::TextDelta(_)))
            .count()
    };
    // One chunk per text_delta event; deltas of one batch cross the
    // boundary joined.
    let one_by_one = anthropic.chunks_one_by_one(&events);
    assert_eq!(texts(&one_by_one), 9, "one chunk per text_delta");
    assert_eq!(texts(&chunks), 1, "one batch, one joined delta");
}

#[test]
fn split_input_json_reassembles_into_the_tool_arguments() {
    let anthropic = anthropic();
    let decoded = anthropic.fixture("anthropic-tool-use-split-input-json.sse");
    assert_eq!(decoded.tool_calls.len(), 1);
    let (id, name, arguments) = &decoded.tool_calls[0];
    assert_eq!(id, "toolu_01BEUcgSZ295kTDkxpovXdpA");
    assert_eq!(name, "output_structured_data");
    assert_eq!(
        arguments,
        r#"{"name": "Buddy", "age": 3, "bio": "Buddy is a loyal and energetic Golden Retriever who loves long walks."}"#
    );
    let parsed: Value = serde_json::from_str(arguments).expect("the arguments are JSON");
    assert_eq!(parsed["age"], 3);
    assert_eq!(decoded.ended, vec![0], "ended exactly once");
    assert_eq!(decoded.stop, Some(StopReason::ToolUse));
    assert_eq!(decoded.usage, Some(usage(429, 140, 0, 0, 0)));
    assert!(decoded.text.is_empty());
    assert!(decoded.errors.is_empty(), "{:?}", decoded.errors);
}

#[test]
fn thinking_comes_with_its_signature_before_the_text() {
    let anthropic = anthropic();
    let decoded = anthropic.fixture("anthropic-thinking-text.sse");
    assert_eq!(decoded.reasoning.len(), 1, "{:?}", decoded.reasoning);
    let thought = &decoded.reasoning[0];
    assert_eq!(
        thought.text,
        "This is a straightforward question about pedestrian safety. I should provide clear, \
         helpful advice about how to safely cross a street. This is basic safety information \
         that could help prevent accidents."
    );
    assert_eq!(thought.signature.as_deref(), Some(THINKING_TEXT_SIGNATURE));
    assert_eq!(thought.id, None, "Anthropic thinking blocks have no id");
    assert_eq!(thought.encrypted, None);
    assert!(decoded
        .text
        .starts_with("Here are the basic steps for safely crossing the street:\n\n"));
    assert!(decoded
        .text
        .ends_with("Always prioritize safety over speed when crossing streets."));
    assert_eq!(decoded.stop, Some(StopReason::EndTurn));
    assert_eq!(decoded.usage, Some(usage(43, 282, 0, 0, 0)));

    let chunks = anthropic.chunks(&read_fixture("anthropic-thinking-text.sse"));
    let signed = chunks
        .iter()
        .position(|c| matches!(c, StreamChunk::ReasoningDelta(r) if r.signature.is_some()))
        .expect("a signature chunk");
    let first_text = chunks
        .iter()
        .position(|c| matches!(c, StreamChunk::TextDelta(_)))
        .expect("text");
    assert!(
        signed < first_text,
        "the signature closes the thinking first"
    );
    assert!(chunks[..signed]
        .iter()
        .all(|c| matches!(c, StreamChunk::ReasoningDelta(r) if r.signature.is_none())));
    match &chunks[signed] {
        StreamChunk::ReasoningDelta(r) => assert_eq!(r.text, "", "the signature chunk has no text"),
        other => panic!("unexpected {other:?}"),
    }
    let texts = chunks
        .iter()
        .filter(|c| matches!(c, StreamChunk::TextDelta(_)))
        .count();
    // 95 text_delta events in one batch cross the boundary as one delta.
    assert_eq!(texts, 1);
}

#[test]
fn thinking_then_a_tool_without_arguments_gives_an_empty_object() {
    let anthropic = anthropic();
    let decoded = anthropic.fixture("anthropic-thinking-tool-use.sse");
    assert_eq!(decoded.reasoning.len(), 1);
    assert!(decoded.reasoning[0]
        .text
        .starts_with("The user wants me to:\n1. Use the fixed_version tool"));
    let signature = decoded.reasoning[0].signature.as_deref().unwrap_or("");
    assert!(
        signature.starts_with(TOOL_USE_SIGNATURE_START),
        "{signature}"
    );
    assert!(signature.ends_with("ANWRjSBwUxgB"));
    assert_eq!(
        decoded.tool_calls,
        vec![(
            "toolu_01825dXWLSoJwCst1qTsiWdb".to_string(),
            "fixed_version".to_string(),
            "{}".to_string()
        )]
    );
    // The tool is content block 1 but the first tool call: index 0.
    assert_eq!(decoded.ended, vec![0]);
    assert_eq!(decoded.stop, Some(StopReason::ToolUse));
    assert_eq!(decoded.usage, Some(usage(598, 92, 0, 0, 53)));
    assert!(decoded.text.is_empty());
    assert!(decoded.errors.is_empty(), "{:?}", decoded.errors);
}

#[test]
fn an_overloaded_stream_is_one_retryable_error() {
    let anthropic = anthropic();
    let decoded = anthropic.fixture("anthropic-error-overloaded.sse");
    assert_eq!(
        decoded.errors,
        vec![("overloaded_error".into(), "Overloaded".into(), true)]
    );
    assert_eq!(decoded.chunks, 1);
    assert_eq!(decoded.stop, None);
    assert_eq!(decoded.usage, None);
}

#[test]
fn a_midstream_api_error_follows_the_text_already_sent() {
    let anthropic = anthropic();
    let decoded = anthropic.fixture("anthropic-error-midstream-api-error-fragment.sse");
    assert_eq!(decoded.text, "d with a replacement character (");
    assert_eq!(
        decoded.errors,
        vec![("api_error".into(), "Internal server error".into(), true)]
    );
    assert_eq!(decoded.stop, None);
    let chunks = anthropic.chunks(&read_fixture(
        "anthropic-error-midstream-api-error-fragment.sse",
    ));
    assert_eq!(
        chunks,
        vec![
            // Two text_delta events of one batch, joined.
            StreamChunk::TextDelta("d with a replacement character (".into()),
            StreamChunk::Error {
                kind: "api_error".into(),
                message: "Internal server error".into(),
                retryable: true,
            },
        ]
    );
}

#[test]
fn a_malformed_event_is_reported_and_decoding_goes_on() {
    let anthropic = anthropic();
    let events = parse(concat!(
        "event: content_block_start\n",
        "data: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n",
        "event: content_block_delta\n",
        "data: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"Hel\"}}\n\n",
        "event: content_block_delta\n",
        "data: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_de\n\n",
        "event: content_block_delta\n",
        "data: {\"type\":\"content_block_delta\",\"delta\":{\"type\":\"text_delta\",\"text\":\"?\"}}\n\n",
        "event: content_block_delta\n",
        "data: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"lo\"}}\n\n",
        "event: content_block_stop\n",
        "data: {\"type\":\"content_block_stop\",\"index\":0}\n\n",
        "event: message_delta\n",
        "data: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"stop_sequence\"},\"usage\":{\"output_tokens\":3}}\n\n",
    ));
    let decoded = anthropic.decode(&events);
    assert_eq!(decoded.text, "Hello");
    assert_eq!(decoded.errors.len(), 2, "{:?}", decoded.errors);
    for (kind, message, retryable) in &decoded.errors {
        assert_eq!(kind, "malformed-event");
        assert!(message.contains("content_block_delta"), "{message}");
        assert!(!retryable);
    }
    assert!(decoded.errors[0].1.contains("not JSON"));
    assert_eq!(
        decoded.stop,
        Some(StopReason::EndTurn),
        "stop_sequence ends the turn"
    );
}

#[test]
fn a_stream_cut_inside_a_tool_call_still_ends_it_in_finish() {
    let anthropic = anthropic();
    let events = parse(concat!(
        "event: message_start\n",
        "data: {\"type\":\"message_start\",\"message\":{\"usage\":{\"input_tokens\":10,\"output_tokens\":1}}}\n\n",
        "event: content_block_start\n",
        "data: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"tool_use\",\"id\":\"toolu_a\",\"name\":\"read\",\"input\":{}}}\n\n",
        "event: content_block_delta\n",
        "data: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\"{\\\"path\\\": \\\"a\\\"}\"}}\n\n",
        "event: content_block_stop\n",
        "data: {\"type\":\"content_block_stop\",\"index\":0}\n\n",
        "event: content_block_start\n",
        "data: {\"type\":\"content_block_start\",\"index\":1,\"content_block\":{\"type\":\"tool_use\",\"id\":\"toolu_b\",\"name\":\"list\",\"input\":{}}}\n\n",
    ));
    let decoded = anthropic.decode(&events);
    assert_eq!(decoded.ended, vec![0, 1], "each call ends exactly once");
    assert_eq!(decoded.tool_calls[0].2, r#"{"path": "a"}"#);
    assert_eq!(decoded.tool_calls[1].0, "toolu_b");
    assert_eq!(
        decoded.tool_calls[1].2, "{}",
        "no input arrived: an empty object"
    );
    assert_eq!(decoded.stop, None, "a cut stream has no stop reason");
    assert_eq!(
        decoded.usage,
        Some(usage(10, 1, 0, 0, 0)),
        "finish reports the usage message_start gave"
    );
}

#[test]
fn redacted_thinking_is_one_encrypted_reasoning_delta() {
    let anthropic = anthropic();
    let events = parse(concat!(
        "event: content_block_start\n",
        "data: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"redacted_thinking\",\"data\":\"EmwKAhgBEgy3va3pzix\"}}\n\n",
        "event: content_block_stop\n",
        "data: {\"type\":\"content_block_stop\",\"index\":0}\n\n",
        "event: content_block_start\n",
        "data: {\"type\":\"content_block_start\",\"index\":1,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n",
        "event: content_block_delta\n",
        "data: {\"type\":\"content_block_delta\",\"index\":1,\"delta\":{\"type\":\"text_delta\",\"text\":\"Done.\"}}\n\n",
        "event: content_block_stop\n",
        "data: {\"type\":\"content_block_stop\",\"index\":1}\n\n",
        "event: message_stop\n",
        "data: {\"type\":\"message_stop\"}\n\n",
    ));
    let chunks = anthropic.chunks(&events);
    assert_eq!(
        chunks,
        vec![
            StreamChunk::ReasoningDelta(Reasoning {
                id: None,
                text: String::new(),
                signature: None,
                encrypted: Some("EmwKAhgBEgy3va3pzix".into()),
                flavor: None,
            }),
            StreamChunk::TextDelta("Done.".into()),
        ]
    );
    assert_eq!(anthropic.decode(&events).reasoning.len(), 1);
}

#[test]
fn cache_reads_and_writes_count_toward_the_prompt() {
    let anthropic = anthropic();
    let events = parse(concat!(
        "event: message_start\n",
        "data: {\"type\":\"message_start\",\"message\":{\"usage\":{\"input_tokens\":5,\"cache_read_input_tokens\":1000,\"cache_creation_input_tokens\":200,\"output_tokens\":1}}}\n\n",
        "event: message_delta\n",
        "data: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"max_tokens\"},\"usage\":{\"output_tokens\":64}}\n\n",
        "event: message_stop\n",
        "data: {\"type\":\"message_stop\"}\n\n",
    ));
    let decoded = anthropic.decode(&events);
    assert_eq!(decoded.usage, Some(usage(1205, 64, 1000, 200, 0)));
    assert_eq!(decoded.stop, Some(StopReason::MaxTokens));
}

fn text(role: Role, text: &str) -> Message {
    Message {
        role,
        parts: vec![Part::Text { text: text.into() }],
    }
}

fn tool_result(call_id: &str, content: &str, is_error: bool) -> Message {
    Message {
        role: Role::Tool,
        parts: vec![Part::ToolResult(ToolResult {
            call_id: call_id.into(),
            content: content.into(),
            is_error,
        })],
    }
}

fn conversation() -> ChatRequest {
    let assistant = Message {
        role: Role::Assistant,
        parts: vec![
            Part::Reasoning(Reasoning {
                id: None,
                text: "I should look first.".into(),
                signature: Some("sig-abc".into()),
                encrypted: None,
                flavor: None,
            }),
            Part::Text {
                text: "Let me look.".into(),
            },
            Part::ToolCall(ToolCall {
                id: "toolu_1".into(),
                name: "read".into(),
                arguments: r#"{"path":"README.md"}"#.into(),
            }),
            Part::ToolCall(ToolCall {
                id: "toolu_2".into(),
                name: "list".into(),
                arguments: String::new(),
            }),
        ],
    };
    ChatRequest {
        flavor: FLAVOR.into(),
        model: "claude-sonnet-4-5".into(),
        messages: vec![
            text(Role::System, "You are amber."),
            text(Role::User, "What is in the README?"),
            assistant,
            tool_result("toolu_1", "# amber", false),
            tool_result("toolu_2", "no such dir", true),
            text(Role::User, "Thanks. Summarise it."),
        ],
        tools: vec![ToolDecl {
            name: "read".into(),
            description: "Reads a file.".into(),
            input_schema: json!({"type": "object", "properties": {"path": {"type": "string"}}}),
        }],
        max_tokens: None,
        temperature: None,
        cache_breakpoint: None,
    }
}

#[test]
fn a_request_keeps_anthropics_rules_and_sends_thinking_back_signed() {
    let anthropic = anthropic();
    let request = anthropic.dialect.build_request(&conversation()).unwrap();
    assert_eq!(request.method, "POST");
    assert_eq!(request.path, "/v1/messages");
    let header = |name: &str| {
        request
            .headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    };
    assert_eq!(header("anthropic-version"), Some("2023-06-01"));
    assert_eq!(header("content-type"), Some("application/json"));
    assert_eq!(header("accept"), Some("text/event-stream"));
    for (name, _) in &request.headers {
        assert!(
            !name.eq_ignore_ascii_case("authorization") && !name.eq_ignore_ascii_case("x-api-key"),
            "the component must not set `{name}`"
        );
    }

    let body: Value = serde_json::from_str(&request.body).unwrap();
    assert_eq!(body["model"], "claude-sonnet-4-5");
    assert_eq!(body["max_tokens"], 8192, "max_tokens is required");
    assert_eq!(body["stream"], true);
    assert_eq!(body["system"], "You are amber.");
    assert!(body.get("temperature").is_none());
    assert_eq!(
        body["tools"],
        json!([{
            "name": "read",
            "description": "Reads a file.",
            "input_schema": {"type": "object", "properties": {"path": {"type": "string"}}},
        }])
    );

    let messages = body["messages"].as_array().unwrap();
    let roles: Vec<&str> = messages
        .iter()
        .map(|m| m["role"].as_str().unwrap())
        .collect();
    assert_eq!(roles, ["user", "assistant", "user"], "roles alternate");
    assert_eq!(
        messages[0]["content"],
        json!([{"type": "text", "text": "What is in the README?"}])
    );
    assert_eq!(
        messages[1]["content"],
        json!([
            {"type": "thinking", "thinking": "I should look first.", "signature": "sig-abc"},
            {"type": "text", "text": "Let me look."},
            {"type": "tool_use", "id": "toolu_1", "name": "read", "input": {"path": "README.md"}},
            {"type": "tool_use", "id": "toolu_2", "name": "list", "input": {}},
        ])
    );
    assert_eq!(
        messages[2]["content"],
        json!([
            {"type": "tool_result", "tool_use_id": "toolu_1", "content": "# amber", "is_error": false},
            {"type": "tool_result", "tool_use_id": "toolu_2", "content": "no such dir", "is_error": true},
            {"type": "text", "text": "Thanks. Summarise it."},
        ])
    );
}

#[test]
fn a_request_sends_max_tokens_temperature_and_redacted_thinking_as_given() {
    let anthropic = anthropic();
    let mut request = conversation();
    request.max_tokens = Some(1024);
    request.temperature = Some(0.7);
    request.tools.clear();
    request.messages = vec![
        text(Role::User, "Hi"),
        Message {
            role: Role::Assistant,
            parts: vec![
                Part::Reasoning(Reasoning {
                    id: None,
                    text: String::new(),
                    signature: None,
                    encrypted: Some("opaque".into()),
                    flavor: None,
                }),
                // Unsigned reasoning cannot go back to Anthropic.
                Part::Reasoning(Reasoning {
                    id: Some("rs_1".into()),
                    text: "unsigned".into(),
                    signature: None,
                    encrypted: None,
                    flavor: None,
                }),
                Part::Text {
                    text: "Hello.".into(),
                },
            ],
        },
        text(Role::User, "Again"),
    ];
    let built = anthropic.dialect.build_request(&request).unwrap();
    let body: Value = serde_json::from_str(&built.body).unwrap();
    assert_eq!(body["max_tokens"], 1024);
    assert_eq!(body["temperature"], 0.7);
    assert!(
        body.get("system").is_none(),
        "no system messages, no system"
    );
    assert!(body.get("tools").is_none(), "no tools, no tools field");
    assert_eq!(
        body["messages"][1]["content"],
        json!([
            {"type": "redacted_thinking", "data": "opaque"},
            {"type": "text", "text": "Hello."},
        ])
    );
}

#[test]
fn classify_error_retries_rate_limits_and_overload_only() {
    let anthropic = anthropic();
    let classify = |status, body: &str| anthropic.dialect.classify_error(status, body).unwrap();

    let limited = classify(
        429,
        r#"{"type":"error","error":{"type":"rate_limit_error","message":"Number of request tokens has exceeded your per-minute rate limit"}}"#,
    );
    assert!(limited.retryable);
    assert!(limited.message.starts_with("429"), "{}", limited.message);
    assert!(limited.message.contains("per-minute rate limit"));

    let overloaded = classify(
        529,
        r#"{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}"#,
    );
    assert!(overloaded.retryable);
    assert!(overloaded.message.contains("Overloaded"));

    let server = classify(500, "<html>Internal Server Error</html>");
    assert!(server.retryable);
    assert_eq!(server.message, "500: <html>Internal Server Error</html>");

    let invalid = classify(
        400,
        r#"{"type":"error","error":{"type":"invalid_request_error","message":"max_tokens: Field required"}}"#,
    );
    assert!(!invalid.retryable);
    assert!(invalid.message.starts_with("400"), "{}", invalid.message);
    assert!(invalid.message.contains("max_tokens: Field required"));

    // An overloaded body is retryable whatever the status says.
    let odd = classify(
        400,
        r#"{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}"#,
    );
    assert!(odd.retryable);

    let long = classify(502, &"x".repeat(2000));
    assert!(long.message.chars().count() <= 520, "a long body is cut");
}

#[test]
fn a_request_it_cannot_shape_is_refused_with_the_reason() {
    let anthropic = anthropic();
    let mut other = conversation();
    other.flavor = "openai-chat".into();
    let err = anthropic.dialect.build_request(&other).unwrap_err();
    assert!(err.to_string().contains("openai-chat"), "{err}");

    let mut misplaced = conversation();
    misplaced.messages.push(Message {
        role: Role::User,
        parts: vec![Part::ToolCall(ToolCall {
            id: "toolu_9".into(),
            name: "read".into(),
            arguments: "{}".into(),
        })],
    });
    let err = anthropic.dialect.build_request(&misplaced).unwrap_err();
    assert!(err.to_string().contains("toolu_9"), "{err}");
}

/// The cache mark as it appears in a body.
const MARK: &str = r#""cache_control":{"type":"ephemeral"}"#;

impl Anthropic {
    fn body(&self, request: &ChatRequest) -> String {
        self.dialect.build_request(request).unwrap().body
    }
}

fn json_of(body: &str) -> Value {
    serde_json::from_str(body).unwrap_or_else(|e| panic!("not JSON ({e}): {body}"))
}

/// The byte just past the block that carries the body's one mark: the
/// first `}` after the mark that is in no string and closes no object
/// opened after it.
fn end_of_marked_block(body: &str) -> usize {
    assert_eq!(body.matches(MARK).count(), 1, "one mark: {body}");
    let start = body.find(MARK).unwrap() + MARK.len();
    let (mut depth, mut in_string, mut escaped) = (0, false, false);
    for (at, c) in body[start..].char_indices() {
        match c {
            _ if escaped => escaped = false,
            '\\' if in_string => escaped = true,
            '"' => in_string = !in_string,
            _ if in_string => {}
            '{' => depth += 1,
            '}' if depth == 0 => return start + at + 1,
            '}' => depth -= 1,
            _ => {}
        }
    }
    panic!("the marked block never closes: {body}")
}

#[test]
fn compression_requests_match_their_recorded_shapes() {
    let anthropic = anthropic();
    let (classify, extract) = compression_pair(FLAVOR, "claude-sonnet-4-5");
    assert_eq!(
        json_of(&anthropic.body(&classify)),
        recorded_body("anthropic-messages-classify.json")
    );
    assert_eq!(
        json_of(&anthropic.body(&extract)),
        recorded_body("anthropic-messages-extract.json")
    );
}

#[test]
fn classify_and_extract_share_their_bytes_through_the_marked_block() {
    let anthropic = anthropic();
    let (classify, extract) = compression_pair(FLAVOR, "claude-sonnet-4-5");
    let (classify, extract) = (anthropic.body(&classify), anthropic.body(&extract));
    let end = end_of_marked_block(&classify);
    assert_eq!(end, end_of_marked_block(&extract));
    assert_eq!(classify[..end], extract[..end]);
    assert_ne!(classify[end..], extract[end..]);
    for body in [&classify, &extract] {
        // The system prompt is lifted out, and messages 1 to 3 are all
        // user messages, merged into one turn: message 2 is its block 1.
        let body = json_of(body);
        let turn = &body["messages"][0]["content"];
        assert_eq!(turn[1]["text"], requests::CLASSIFY);
        assert_eq!(turn[1]["cache_control"], json!({"type": "ephemeral"}));
        assert_eq!(body["system"], requests::SYSTEM, "system stays a string");
    }
}

#[test]
fn without_a_mark_or_past_the_last_message_nothing_is_marked() {
    let anthropic = anthropic();
    let unmarked = anthropic.body(&conversation());
    assert!(!unmarked.contains("cache_control"), "{unmarked}");
    let (mut classify, _) = compression_pair(FLAVOR, "claude-sonnet-4-5");
    classify.cache_breakpoint = None;
    let plain = anthropic.body(&classify);
    assert!(!plain.contains("cache_control"), "{plain}");
    for past in [3, 99, u32::MAX] {
        classify.cache_breakpoint = Some(past);
        assert_eq!(anthropic.body(&classify), plain, "index {past}");
    }
}

#[test]
fn a_mark_on_a_system_message_turns_system_into_marked_blocks() {
    let anthropic = anthropic();
    let mut request = conversation();
    let unmarked = json_of(&anthropic.body(&request));
    request.cache_breakpoint = Some(0);
    let body = anthropic.body(&request);
    assert_eq!(body.matches(MARK).count(), 1);
    let body = json_of(&body);
    assert_eq!(
        body["system"],
        json!([{"type": "text", "text": "You are amber.", "cache_control": {"type": "ephemeral"}}])
    );
    assert_eq!(body["messages"], unmarked["messages"]);

    // A later system message is not part of the cached prefix: it goes in
    // a second block, unmarked.
    request.messages.insert(2, text(Role::System, "Be brief."));
    let body = json_of(&anthropic.body(&request));
    assert_eq!(
        body["system"],
        json!([
            {"type": "text", "text": "You are amber.", "cache_control": {"type": "ephemeral"}},
            {"type": "text", "text": "Be brief."},
        ])
    );
}

#[test]
fn a_mark_counts_messages_as_sent_and_lands_on_the_last_block_it_may() {
    let anthropic = anthropic();
    let mark = json!({"type": "ephemeral"});
    let marked = |index: u32| {
        let mut request = conversation();
        request.cache_breakpoint = Some(index);
        let body = anthropic.body(&request);
        assert!(body.matches(MARK).count() <= 1, "{body}");
        json_of(&body)
    };

    // Message 1, the first user words, is turn 0 once system is lifted.
    let body = marked(1);
    assert_eq!(body["messages"][0]["content"][0]["cache_control"], mark);

    // Message 2, the assistant turn, ends with its second tool call.
    let body = marked(2);
    let turn = body["messages"][1]["content"].as_array().unwrap();
    assert_eq!(turn[3]["id"], "toolu_2");
    assert_eq!(turn[3]["cache_control"], mark);
    assert!(turn[..3].iter().all(|b| b.get("cache_control").is_none()));

    // Message 4, the second tool result, shares the last user turn with
    // message 3's result and message 5's words.
    let body = marked(4);
    let turn = body["messages"][2]["content"].as_array().unwrap();
    assert_eq!(turn[1]["tool_use_id"], "toolu_2");
    assert_eq!(turn[1]["cache_control"], mark);
    assert!(turn[2].get("cache_control").is_none());

    // Thinking blocks cannot carry the mark: it goes on the last block
    // before them, and a message of thinking alone is not marked.
    let mut request = conversation();
    request.messages[2].parts = vec![
        Part::Text {
            text: "Let me look.".into(),
        },
        Part::Reasoning(Reasoning {
            id: None,
            text: "Later thoughts.".into(),
            signature: Some("sig-later".into()),
            encrypted: None,
            flavor: None,
        }),
    ];
    request.messages.truncate(3);
    request.cache_breakpoint = Some(2);
    let body = json_of(&anthropic.body(&request));
    let turn = &body["messages"][1]["content"];
    assert_eq!(turn[0]["cache_control"], mark);
    assert!(turn[1].get("cache_control").is_none());
    request.messages[2].parts.remove(0);
    let body = anthropic.body(&request);
    assert!(!body.contains("cache_control"), "{body}");
}
