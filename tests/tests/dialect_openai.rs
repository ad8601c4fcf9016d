//! The OpenAI dialects (`openai-chat`, `openai-responses`) through the real
//! `provider-openai` component: recorded streams decode to the normalised
//! chunks whatever the batch size, requests carry the conversation and no
//! key (and no cache mark: OpenAI caches prefixes by itself), and HTTP
//! errors are classified.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "a test fails by panicking, its helpers too"
)]

use amber_core::ports::dialect::{
    ChatRequest, Message, Part, Reasoning, Role, SseEvent, StopReason, StreamChunk, ToolCall,
    ToolDecl, ToolResult, Usage,
};
use amber_tests::requests::{compression_pair, recorded_body};
use amber_tests::sse::{parse, read_fixture};
use amber_tests::{decode_all, dialect, Decoded};
use serde_json::{json, Value};

const GUEST: &str = "provider-openai";
const CHAT: &str = "openai-chat";
const RESPONSES: &str = "openai-responses";

/// Decodes `events` one at a time and 64 at a time; both must agree.
fn decode(flavor: &str, events: &[SseEvent]) -> Decoded {
    let (_scratch, _runtime, dialect) = dialect(GUEST, flavor);
    let one = decode_all(&*dialect, events, 1);
    let many = decode_all(&*dialect, events, 64);
    assert_eq!(one, many, "batch sizes 1 and 64 disagree");
    one
}

fn decode_fixture(flavor: &str, name: &str) -> Decoded {
    decode(flavor, &read_fixture(name))
}

/// The raw chunk sequence, for assertions about order.
fn chunks(flavor: &str, events: &[SseEvent]) -> Vec<StreamChunk> {
    let (_scratch, _runtime, dialect) = dialect(GUEST, flavor);
    let mut decoder = dialect.decoder().unwrap();
    let mut out = decoder.decode(events).unwrap();
    out.extend(decoder.finish().unwrap());
    out
}

/// The chunks of one decoder fed one event at a time.
fn chunks_one_by_one(flavor: &str, events: &[SseEvent]) -> Vec<StreamChunk> {
    let (_scratch, _runtime, dialect) = dialect(GUEST, flavor);
    let mut decoder = dialect.decoder().unwrap();
    let mut out = Vec::new();
    for event in events.chunks(1) {
        out.extend(decoder.decode(event).unwrap());
    }
    out.extend(decoder.finish().unwrap());
    out
}

/// Every `data:` payload of a fixture that is JSON.
fn payloads(name: &str) -> Vec<Value> {
    read_fixture(name)
        .iter()
        .filter_map(|e| serde_json::from_str(&e.data).ok())
        .collect()
}

fn json_of(text: &str) -> Value {
    serde_json::from_str(text).unwrap_or_else(|e| panic!("not JSON ({e}): {text}"))
}

// ---- Chat Completions, recorded ----

#[test]
fn chat_text_assembles_the_reply_with_usage_and_end_turn() {
    let d = decode_fixture(CHAT, "openai-chat-text.sse");
    assert_eq!(d.text, "The capital of Mexico is Mexico City.");
    assert_eq!(d.stop, Some(StopReason::EndTurn));
    let usage = d.usage.expect("usage");
    assert_eq!((usage.input_tokens, usage.output_tokens), (14, 8));
    assert_eq!(usage.cached_input_tokens, 0);
    assert_eq!(usage.cache_write_tokens, 0);
    assert!(d.tool_calls.is_empty() && d.reasoning.is_empty() && d.errors.is_empty());
}

#[test]
fn chat_tool_call_split_over_41_deltas_reassembles_to_json() {
    let name = "openai-chat-tool-call-split-args.sse";
    let pieces: Vec<String> = payloads(name)
        .iter()
        .filter_map(|p| p["choices"][0]["delta"]["tool_calls"][0]["function"]["arguments"].as_str())
        .map(str::to_string)
        .collect();
    // The first of the 41 is the empty piece that comes with the name.
    assert_eq!(pieces.len(), 41, "the fixture splits the arguments 41 ways");
    assert_eq!(pieces[0], "");
    let deltas = |chunks: Vec<StreamChunk>| {
        chunks
            .into_iter()
            .filter(|c| matches!(c, StreamChunk::ToolCallDelta { .. }))
            .count()
    };
    let events = read_fixture(name);
    let one_by_one = deltas(chunks_one_by_one(CHAT, &events));
    assert_eq!(one_by_one, 40, "one delta per non-empty piece");
    // Arriving in one batch, they cross the boundary joined.
    assert_eq!(deltas(chunks(CHAT, &events)), 1);
    let d = decode_fixture(CHAT, name);
    assert_eq!(d.tool_calls.len(), 1);
    let (id, tool, args) = &d.tool_calls[0];
    assert_eq!(id, "call_4kc6691zCzjPnOuEtbEGUvz2");
    assert_eq!(tool, "final_result");
    assert_eq!(*args, pieces.concat());
    assert!(json_of(args)["answers"].is_array());
    assert_eq!(d.ended, vec![0]);
    assert_eq!(d.stop, Some(StopReason::ToolUse));
    let usage = d.usage.expect("usage");
    assert_eq!((usage.input_tokens, usage.output_tokens), (448, 49));
    assert!(d.text.is_empty());
}

#[test]
fn chat_parallel_tool_calls_each_start_and_end_once() {
    let d = decode_fixture(CHAT, "openai-chat-parallel-tool-calls.sse");
    assert_eq!(d.tool_calls.len(), 2);
    let (id, name, args) = &d.tool_calls[0];
    assert_eq!(
        (id.as_str(), name.as_str()),
        ("call_JMW1whyEaYG438VE1OIflxA2", "GetWeatherArgs")
    );
    assert_eq!(
        json_of(args),
        json!({"city": "Edinburgh", "country": "GB", "units": "c"})
    );
    let (id, name, args) = &d.tool_calls[1];
    assert_eq!(
        (id.as_str(), name.as_str()),
        ("call_DNYTawLBoN8fj3KN6qU9N1Ou", "get_stock_price")
    );
    assert_eq!(json_of(args)["ticker"], "AAPL");
    assert_eq!(d.ended, vec![0, 1]);
    assert_eq!(d.stop, Some(StopReason::ToolUse));
    let usage = d.usage.expect("usage without prompt_tokens_details");
    assert_eq!((usage.input_tokens, usage.output_tokens), (149, 60));
    assert_eq!(usage.cached_input_tokens, 0);
}

#[test]
fn chat_refusal_is_text_and_stops_as_refusal() {
    let d = decode_fixture(CHAT, "openai-chat-refusal.sse");
    assert_eq!(d.text, "I'm sorry, I can't assist with that request.");
    assert_eq!(d.stop, Some(StopReason::Refusal));
    assert!(d.errors.is_empty());
}

#[test]
fn groq_error_event_follows_the_reasoning_it_interrupted() {
    let name = "compat-groq-chat-error-event.sse";
    let reasoning: String = payloads(name)
        .iter()
        .filter_map(|p| p["choices"][0]["delta"]["reasoning"].as_str())
        .collect();
    assert!(reasoning.starts_with("We need to call"));
    let d = decode_fixture(CHAT, name);
    assert_eq!(d.reasoning.len(), 1);
    assert_eq!(d.reasoning[0].text, reasoning);
    assert_eq!(d.reasoning[0].id, None);
    assert_eq!(d.errors.len(), 1);
    let (kind, message, retryable) = &d.errors[0];
    assert_eq!(kind, "tool_use_failed");
    assert!(
        message.starts_with("Tool call validation failed"),
        "{message}"
    );
    assert!(!retryable);
    assert_eq!(d.stop, None, "the stream never said why it stopped");
    assert!(d.text.is_empty());
    let raw = chunks(CHAT, &read_fixture(name));
    assert!(matches!(raw.last(), Some(StreamChunk::Error { .. })));
    assert!(matches!(raw.first(), Some(StreamChunk::ReasoningDelta(_))));
}

#[test]
fn openrouter_usage_counts_cached_and_reasoning_tokens() {
    let d = decode_fixture(CHAT, "compat-openrouter-chat-usage-cached-comments.sse");
    assert!(
        d.text.starts_with("I'm Grok, an AI built by xAI."),
        "{}",
        d.text
    );
    assert!(d.text.ends_with("What's on your mind?"));
    assert_eq!(d.stop, Some(StopReason::EndTurn));
    let usage = d.usage.expect("usage");
    assert_eq!(usage.cached_input_tokens, 679);
    assert_eq!(usage.input_tokens, 687);
    assert_eq!(usage.output_tokens, 187);
    assert_eq!(usage.reasoning_tokens, 118);
    assert!(d.errors.is_empty());
}

// ---- Responses API, recorded ----

#[test]
fn responses_text_assembles_the_reply_with_usage() {
    let d = decode_fixture(RESPONSES, "openai-responses-text.sse");
    assert_eq!(d.text, "The capital of Minas Gerais is Belo Horizonte.");
    assert_eq!(d.stop, Some(StopReason::EndTurn));
    let usage = d.usage.expect("usage");
    assert_eq!((usage.input_tokens, usage.output_tokens), (25, 10));
    assert!(d.tool_calls.is_empty() && d.reasoning.is_empty() && d.errors.is_empty());
}

#[test]
fn responses_reasoning_item_keeps_its_id_and_encrypted_content() {
    let name = "openai-responses-reasoning-function-call.sse";
    let done = payloads(name)
        .into_iter()
        .find(|p| p["type"] == "response.output_item.done" && p["item"]["type"] == "reasoning")
        .expect("the fixture has a finished reasoning item");
    let encrypted = done["item"]["encrypted_content"]
        .as_str()
        .unwrap()
        .to_string();
    let d = decode_fixture(RESPONSES, name);
    assert_eq!(
        d.reasoning,
        vec![Reasoning {
            id: Some("rs_0050471a34b36ae60068c97bac4dcc819595fd0f80d6b3c405".into()),
            text: String::new(),
            signature: None,
            encrypted: Some(encrypted),
            flavor: None,
        }]
    );
    assert_eq!(
        d.tool_calls,
        vec![(
            "call_CWXgs68YprAjp6t0371hiPOI".to_string(),
            "final_result".to_string(),
            r#"{"result":6666}"#.to_string()
        )]
    );
    assert_eq!(d.ended, vec![0]);
    assert_eq!(d.stop, Some(StopReason::ToolUse));
    assert_eq!(
        d.usage,
        Some(Usage {
            input_tokens: 53,
            output_tokens: 469,
            cached_input_tokens: 0,
            cache_write_tokens: 0,
            reasoning_tokens: 448,
        })
    );
}

#[test]
fn responses_reasoning_summary_streams_before_the_text() {
    let name = "openai-responses-reasoning-summary-text.sse";
    let done = payloads(name)
        .into_iter()
        .find(|p| p["type"] == "response.output_item.done" && p["item"]["type"] == "reasoning")
        .expect("the fixture has a finished reasoning item");
    let parts: Vec<&str> = done["item"]["summary"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["text"].as_str().unwrap())
        .collect();
    assert_eq!(parts.len(), 4);
    let d = decode_fixture(RESPONSES, name);
    assert_eq!(d.reasoning.len(), 1);
    let block = &d.reasoning[0];
    assert_eq!(
        block.id.as_deref(),
        Some("rs_68c42d1d0878819d8266007cd3d1402c08fbf9b1584184ff")
    );
    assert_eq!(
        block.text,
        parts.join("\n\n"),
        "summary parts, blank-line separated"
    );
    assert!(block
        .text
        .starts_with("**Providing street crossing instructions**"));
    assert_eq!(
        block.encrypted.as_deref(),
        done["item"]["encrypted_content"].as_str()
    );
    assert!(d.text.starts_with("I'm not a road safety professional"));
    assert!(d.text.ends_with("Stay safe!"));
    assert_eq!(d.stop, Some(StopReason::EndTurn));
    let usage = d.usage.expect("usage");
    assert_eq!(
        (
            usage.input_tokens,
            usage.output_tokens,
            usage.reasoning_tokens
        ),
        (13, 1680, 1408)
    );
}

// ---- Edge cases the recordings miss ----

#[test]
fn a_malformed_event_becomes_an_error_and_decoding_goes_on() {
    let body = "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Hel\"}}]}\n\n\
                data: {oops\n\n\
                data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"lo\"},\"finish_reason\":\"stop\"}]}\n\n\
                data: [DONE]\n\n";
    let d = decode(CHAT, &parse(body));
    assert_eq!(d.text, "Hello");
    assert_eq!(d.stop, Some(StopReason::EndTurn));
    assert_eq!(d.errors.len(), 1);
    let (kind, message, retryable) = &d.errors[0];
    assert_eq!(kind, "malformed-event");
    assert!(message.contains("`message`"), "{message}");
    assert!(!retryable);

    let body = "event: response.output_text.delta\ndata: not json\n\n\
                event: response.output_text.delta\n\
                data: {\"type\":\"response.output_text.delta\",\"delta\":\"ok\"}\n\n";
    let d = decode(RESPONSES, &parse(body));
    assert_eq!(d.text, "ok");
    assert_eq!(d.errors.len(), 1);
    assert_eq!(d.errors[0].0, "malformed-event");
    assert!(d.errors[0].1.contains("response.output_text.delta"));
}

#[test]
fn a_stream_cut_before_finish_reason_ends_open_calls_in_finish() {
    let body = "data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"id\":\"call_a\",\"type\":\"function\",\"function\":{\"name\":\"read\",\"arguments\":\"\"}}]}}]}\n\n\
                data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"function\":{\"arguments\":\"{\\\"path\\\":\\\"a.rs\\\"}\"}}]}}]}\n\n";
    let d = decode(CHAT, &parse(body));
    assert_eq!(
        d.tool_calls,
        vec![("call_a".into(), "read".into(), r#"{"path":"a.rs"}"#.into())]
    );
    assert_eq!(d.ended, vec![0]);
    assert_eq!(d.stop, None, "the stream never said why it stopped");
}

#[test]
fn a_tool_call_without_arguments_gets_an_empty_object() {
    let body = "data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"id\":\"call_n\",\"type\":\"function\",\"function\":{\"name\":\"now\",\"arguments\":\"\"}}]}}]}\n\n\
                data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"tool_calls\"}]}\n\n\
                data: [DONE]\n\n";
    let d = decode(CHAT, &parse(body));
    assert_eq!(
        d.tool_calls,
        vec![("call_n".into(), "now".into(), "{}".into())]
    );
    assert_eq!(d.ended, vec![0]);
    assert_eq!(d.stop, Some(StopReason::ToolUse));

    let body = "event: response.output_item.added\n\
                data: {\"type\":\"response.output_item.added\",\"output_index\":0,\"item\":{\"id\":\"fc_1\",\"type\":\"function_call\",\"arguments\":\"\",\"call_id\":\"call_r\",\"name\":\"now\"}}\n\n\
                event: response.output_item.done\n\
                data: {\"type\":\"response.output_item.done\",\"output_index\":0,\"item\":{\"id\":\"fc_1\",\"type\":\"function_call\",\"arguments\":\"\",\"call_id\":\"call_r\",\"name\":\"now\"}}\n\n";
    let d = decode(RESPONSES, &parse(body));
    assert_eq!(
        d.tool_calls,
        vec![("call_r".into(), "now".into(), "{}".into())]
    );
    assert_eq!(d.ended, vec![0]);
}

/// Some servers that speak Responses send a function call whole, in its
/// `output_item.done`, with no `added` item and no argument deltas. It must
/// still be one call with its arguments, ended once, and the turn a tool use.
#[test]
fn a_responses_call_sent_only_in_its_done_item_is_one_whole_call() {
    let body = "event: response.output_text.delta\n\
                data: {\"type\":\"response.output_text.delta\",\"item_id\":\"msg_1\",\"output_index\":0,\"delta\":\"Reading it.\"}\n\n\
                event: response.output_item.done\n\
                data: {\"type\":\"response.output_item.done\",\"output_index\":1,\"item\":{\"id\":\"fc_9\",\"type\":\"function_call\",\"arguments\":\"{\\\"path\\\":\\\"src/main.rs\\\"}\",\"call_id\":\"call_9\",\"name\":\"read_file\"}}\n\n\
                event: response.completed\n\
                data: {\"type\":\"response.completed\",\"response\":{\"usage\":{\"input_tokens\":12,\"output_tokens\":5}}}\n\n";
    let d = decode(RESPONSES, &parse(body));
    assert_eq!(d.text, "Reading it.");
    assert_eq!(
        d.tool_calls,
        vec![(
            "call_9".into(),
            "read_file".into(),
            r#"{"path":"src/main.rs"}"#.into()
        )]
    );
    assert_eq!(d.ended, vec![0], "ended once, not again at completion");
    assert_eq!(d.stop, Some(StopReason::ToolUse));
    assert_eq!(
        d.usage.map(|u| (u.input_tokens, u.output_tokens)),
        Some((12, 5))
    );
}

#[test]
fn chat_finish_reason_length_and_content_filter_map_to_their_stops() {
    for (reason, stop) in [
        ("length", StopReason::MaxTokens),
        ("content_filter", StopReason::ContentFilter),
    ] {
        let body = format!(
            "data: {{\"choices\":[{{\"index\":0,\"delta\":{{\"content\":\"x\"}},\"finish_reason\":\"{reason}\"}}]}}\n\ndata: [DONE]\n\n"
        );
        assert_eq!(decode(CHAT, &parse(&body)).stop, Some(stop), "{reason}");
    }
}

#[test]
fn chat_reasoning_content_is_reasoning_without_an_id() {
    let body = "data: {\"choices\":[{\"index\":0,\"delta\":{\"reasoning_content\":\"think\"}}]}\n\n\
                data: {\"choices\":[{\"index\":0,\"delta\":{\"reasoning_content\":\"ing\"}}]}\n\n\
                data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"done\"},\"finish_reason\":\"stop\"}]}\n\n";
    let d = decode(CHAT, &parse(body));
    assert_eq!(d.reasoning.len(), 1);
    assert_eq!(d.reasoning[0].text, "thinking");
    assert_eq!(d.reasoning[0].id, None);
    assert_eq!(d.text, "done");
}

#[test]
fn a_rate_limit_error_in_a_stream_is_retryable() {
    let body = "data: {\"error\":{\"message\":\"Rate limit reached\",\"type\":\"requests\",\"code\":\"rate_limit_exceeded\"}}\n\n";
    let d = decode(CHAT, &parse(body));
    assert_eq!(
        d.errors,
        vec![(
            "rate_limit_exceeded".into(),
            "Rate limit reached".into(),
            true
        )]
    );
}

#[test]
fn responses_incomplete_and_failed_streams() {
    let body = "event: response.incomplete\n\
                data: {\"type\":\"response.incomplete\",\"response\":{\"status\":\"incomplete\",\"incomplete_details\":{\"reason\":\"max_output_tokens\"},\"usage\":{\"input_tokens\":5,\"output_tokens\":16}}}\n\n";
    let d = decode(RESPONSES, &parse(body));
    assert_eq!(d.stop, Some(StopReason::MaxTokens));
    assert_eq!(d.usage.map(|u| u.output_tokens), Some(16));

    let body = "event: response.failed\n\
                data: {\"type\":\"response.failed\",\"response\":{\"status\":\"failed\",\"error\":{\"code\":\"server_error\",\"message\":\"The model failed.\"}}}\n\n";
    let d = decode(RESPONSES, &parse(body));
    assert_eq!(
        d.errors,
        vec![("server_error".into(), "The model failed.".into(), true)]
    );
    assert_eq!(d.stop, None);

    let body = "event: error\n\
                data: {\"type\":\"error\",\"code\":\"invalid_prompt\",\"message\":\"Bad prompt.\",\"param\":null}\n\n";
    let d = decode(RESPONSES, &parse(body));
    assert_eq!(
        d.errors,
        vec![("invalid_prompt".into(), "Bad prompt.".into(), false)]
    );
}

// ---- Requests ----

/// A system prompt, user text, an assistant turn with reasoning, text and
/// a call, and the call's result.
fn conversation(flavor: &str) -> ChatRequest {
    let text = |t: &str| Part::Text { text: t.into() };
    ChatRequest {
        flavor: flavor.into(),
        model: "gpt-test".into(),
        messages: vec![
            Message {
                role: Role::System,
                parts: vec![text("You are amber.")],
            },
            Message {
                role: Role::User,
                parts: vec![text("Read a.rs")],
            },
            Message {
                role: Role::Assistant,
                parts: vec![
                    Part::Reasoning(Reasoning {
                        id: Some("rs_1".into()),
                        text: "Need the file.".into(),
                        signature: None,
                        encrypted: Some("gAAAA-opaque".into()),
                        flavor: None,
                    }),
                    text("Reading it."),
                    Part::ToolCall(ToolCall {
                        id: "call_1".into(),
                        name: "read".into(),
                        arguments: r#"{"path":"a.rs"}"#.into(),
                    }),
                ],
            },
            Message {
                role: Role::Tool,
                parts: vec![Part::ToolResult(ToolResult {
                    call_id: "call_1".into(),
                    content: "fn main() {}".into(),
                    is_error: false,
                })],
            },
        ],
        tools: vec![ToolDecl {
            name: "read".into(),
            description: "Read a file.".into(),
            input_schema: json!({"type": "object", "properties": {"path": {"type": "string"}}}),
        }],
        max_tokens: Some(1024),
        temperature: Some(0.2),
        cache_breakpoint: None,
    }
}

/// The request carries no credentials of any kind: the host adds them.
fn assert_keyless(req: &amber_core::ports::dialect::HttpRequest) {
    for (name, value) in &req.headers {
        assert!(!name.eq_ignore_ascii_case("authorization"), "{name}");
        assert!(!name.eq_ignore_ascii_case("x-api-key"), "{name}");
        assert!(
            !value.contains("Bearer") && !value.contains("sk-"),
            "{value}"
        );
    }
    for secret in ["Bearer", "sk-", "api_key", "api-key"] {
        assert!(!req.body.contains(secret), "the body contains {secret}");
    }
    let header = |n: &str| {
        req.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(n))
            .map(|(_, v)| v.as_str())
    };
    assert_eq!(header("content-type"), Some("application/json"));
    assert_eq!(header("accept"), Some("text/event-stream"));
    assert_eq!(req.method, "POST");
}

#[test]
fn chat_request_carries_the_conversation_and_no_key() {
    let (_scratch, _runtime, dialect) = dialect(GUEST, CHAT);
    let req = dialect.build_request(&conversation(CHAT)).unwrap();
    assert_eq!(req.path, "/chat/completions");
    assert_keyless(&req);
    let body = json_of(&req.body);
    assert_eq!(body["model"], "gpt-test");
    assert_eq!(body["stream"], true);
    assert_eq!(body["stream_options"], json!({"include_usage": true}));
    assert_eq!(body["max_tokens"], 1024);
    assert_eq!(body["temperature"], 0.2);
    assert_eq!(
        body["tools"],
        json!([{"type": "function", "function": {
            "name": "read",
            "description": "Read a file.",
            "parameters": {"type": "object", "properties": {"path": {"type": "string"}}},
        }}])
    );
    assert_eq!(
        body["messages"],
        json!([
            {"role": "system", "content": "You are amber."},
            {"role": "user", "content": "Read a.rs"},
            {"role": "assistant", "content": "Reading it.", "tool_calls": [
                {"id": "call_1", "type": "function",
                 "function": {"name": "read", "arguments": "{\"path\":\"a.rs\"}"}},
            ]},
            {"role": "tool", "tool_call_id": "call_1", "content": "fn main() {}"},
        ])
    );
}

#[test]
fn chat_request_omits_empty_tools_and_unset_limits() {
    let (_scratch, _runtime, dialect) = dialect(GUEST, CHAT);
    let mut request = conversation(CHAT);
    request.tools.clear();
    request.max_tokens = None;
    request.temperature = None;
    // An assistant turn that only called a tool has null content.
    request.messages[2]
        .parts
        .retain(|p| matches!(p, Part::ToolCall(_)));
    let body = json_of(&dialect.build_request(&request).unwrap().body);
    for absent in ["tools", "max_tokens", "temperature"] {
        assert!(body.get(absent).is_none(), "{absent} is sent");
    }
    assert_eq!(body["messages"][2]["content"], Value::Null);
    assert_eq!(body["messages"][2]["tool_calls"][0]["id"], "call_1");
}

#[test]
fn chat_request_caps_reasoning_models_with_max_completion_tokens() {
    let (_scratch, _runtime, dialect) = dialect(GUEST, CHAT);
    let mut request = conversation(CHAT);
    for (model, field) in [
        ("o1", "max_completion_tokens"),
        ("o3-mini", "max_completion_tokens"),
        ("o4-mini-2025-04-16", "max_completion_tokens"),
        ("gpt-5", "max_completion_tokens"),
        ("gpt-5-mini", "max_completion_tokens"),
        ("gpt-4o", "max_tokens"),
        ("llama3.1:8b", "max_tokens"),
        ("openchat", "max_tokens"),
        ("deepseek-chat", "max_tokens"),
    ] {
        request.model = model.into();
        let body = json_of(&dialect.build_request(&request).unwrap().body);
        assert_eq!(body[field], 1024, "{model}");
        let other = if field == "max_tokens" {
            "max_completion_tokens"
        } else {
            "max_tokens"
        };
        assert!(body.get(other).is_none(), "{model} also sends {other}");
    }
}

#[test]
fn responses_request_replays_reasoning_and_calls_as_items() {
    let (_scratch, _runtime, dialect) = dialect(GUEST, RESPONSES);
    let req = dialect.build_request(&conversation(RESPONSES)).unwrap();
    assert_eq!(req.path, "/responses");
    assert_keyless(&req);
    let body = json_of(&req.body);
    assert_eq!(body["model"], "gpt-test");
    assert_eq!(body["stream"], true);
    assert_eq!(body["store"], false);
    assert_eq!(body["include"], json!(["reasoning.encrypted_content"]));
    assert_eq!(body["max_output_tokens"], 1024);
    assert_eq!(body["temperature"], 0.2);
    assert!(body.get("messages").is_none() && body.get("max_tokens").is_none());
    let tool = &body["tools"][0];
    assert_eq!(tool["type"], "function");
    assert_eq!(tool["name"], "read");
    assert_eq!(tool["description"], "Read a file.");
    assert_eq!(tool["parameters"]["properties"]["path"]["type"], "string");
    assert_eq!(
        tool["strict"], false,
        "Responses defaults to strict schemas"
    );
    assert_eq!(
        body["input"],
        json!([
            {"role": "developer", "content": "You are amber."},
            {"role": "user", "content": [{"type": "input_text", "text": "Read a.rs"}]},
            {"type": "reasoning", "id": "rs_1",
             "summary": [{"type": "summary_text", "text": "Need the file."}],
             "encrypted_content": "gAAAA-opaque"},
            {"type": "message", "role": "assistant",
             "content": [{"type": "output_text", "text": "Reading it."}]},
            {"type": "function_call", "call_id": "call_1", "name": "read",
             "arguments": "{\"path\":\"a.rs\"}"},
            {"type": "function_call_output", "call_id": "call_1", "output": "fn main() {}"},
        ])
    );
}

#[test]
fn responses_reasoning_without_text_has_an_empty_summary() {
    let (_scratch, _runtime, dialect) = dialect(GUEST, RESPONSES);
    let mut request = conversation(RESPONSES);
    if let Part::Reasoning(r) = &mut request.messages[2].parts[0] {
        r.text.clear();
    }
    let body = json_of(&dialect.build_request(&request).unwrap().body);
    assert_eq!(body["input"][2]["summary"], json!([]));
    assert_eq!(body["input"][2]["encrypted_content"], "gAAAA-opaque");
}

#[test]
fn chat_request_sends_no_reasoning() {
    let (_scratch, _runtime, dialect) = dialect(GUEST, CHAT);
    let req = dialect.build_request(&conversation(CHAT)).unwrap();
    assert!(!req.body.contains("Need the file."));
    assert!(!req.body.contains("gAAAA-opaque"));
}

#[test]
fn compression_requests_match_their_recorded_shapes() {
    for (flavor, list) in [(CHAT, "messages"), (RESPONSES, "input")] {
        let (_scratch, _runtime, dialect) = dialect(GUEST, flavor);
        let (classify, extract) = compression_pair(flavor, "gpt-4o");
        let classify = json_of(&dialect.build_request(&classify).unwrap().body);
        let extract = json_of(&dialect.build_request(&extract).unwrap().body);
        assert_eq!(classify, recorded_body(&format!("{flavor}-classify.json")));
        assert_eq!(extract, recorded_body(&format!("{flavor}-extract.json")));
        // OpenAI caches the longest prefix it has seen: extract's begins
        // with everything classify sends.
        let shared = classify[list].as_array().unwrap();
        assert_eq!(
            extract[list].as_array().unwrap()[..shared.len()],
            shared[..]
        );
    }
}

#[test]
fn the_cache_mark_changes_nothing_in_either_body() {
    for flavor in [CHAT, RESPONSES] {
        let (_scratch, _runtime, dialect) = dialect(GUEST, flavor);
        let body = |request: &ChatRequest| dialect.build_request(request).unwrap().body;
        let mut request = conversation(flavor);
        let unmarked = body(&request);
        for index in [0, 1, 2, 3, 99] {
            request.cache_breakpoint = Some(index);
            assert_eq!(body(&request), unmarked, "{flavor}, mark at {index}");
        }
        let (mut classify, _) = compression_pair(flavor, "gpt-4o");
        let marked = body(&classify);
        classify.cache_breakpoint = None;
        assert_eq!(marked, body(&classify), "{flavor}");
        assert!(!marked.contains("cache"), "{flavor}: {marked}");
    }
}

// ---- HTTP errors ----

#[test]
fn classify_error_retries_rate_limits_and_server_faults_only() {
    let (_scratch, _runtime, dialect) = dialect(GUEST, CHAT);
    let rate = r#"{"error":{"message":"Rate limit reached for gpt-4o","type":"requests","code":"rate_limit_exceeded"}}"#;
    let class = dialect.classify_error(429, rate).unwrap();
    assert!(class.retryable);
    assert!(class.message.starts_with("HTTP 429"), "{}", class.message);
    assert!(class.message.contains("Rate limit reached for gpt-4o"));

    let class = dialect.classify_error(500, "upstream exploded").unwrap();
    assert!(class.retryable);
    assert_eq!(class.message, "HTTP 500: upstream exploded");

    let bad = r#"{"error":{"message":"Unknown parameter: 'foo'.","type":"invalid_request_error","param":"foo","code":"unknown_parameter"}}"#;
    let class = dialect.classify_error(400, bad).unwrap();
    assert!(!class.retryable);
    assert_eq!(class.message, "HTTP 400: Unknown parameter: 'foo'.");
}

#[test]
fn classify_error_does_not_retry_an_exhausted_quota_and_cuts_long_bodies() {
    let (_scratch, _runtime, dialect) = dialect(GUEST, RESPONSES);
    let quota = r#"{"error":{"message":"You exceeded your current quota.","type":"insufficient_quota","code":"insufficient_quota"}}"#;
    assert!(!dialect.classify_error(429, quota).unwrap().retryable);
    let long = "x".repeat(2000);
    let class = dialect.classify_error(502, &long).unwrap();
    assert!(class.retryable);
    assert_eq!(class.message, format!("HTTP 502: {}", "x".repeat(500)));
}

#[test]
fn calls_that_reuse_an_index_with_new_ids_are_told_apart() {
    // Some compatible servers send every parallel call as index 0.
    let call = |id: &str, name: &str, args: &str| {
        let delta = json!({"tool_calls": [{"index": 0, "id": id, "type": "function",
            "function": {"name": name, "arguments": args}}]});
        format!(
            "data: {}\n\n",
            json!({"choices": [{"index": 0, "delta": delta}]})
        )
    };
    let body = format!(
        "{}{}data: {}\n\ndata: [DONE]\n\n",
        call("call_x", "first", "{\"a\":1}"),
        call("call_y", "second", ""),
        json!({"choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]}),
    );
    let d = decode(CHAT, &parse(&body));
    assert_eq!(
        d.tool_calls,
        vec![
            ("call_x".into(), "first".into(), "{\"a\":1}".into()),
            ("call_y".into(), "second".into(), "{}".into()),
        ]
    );
    assert_eq!(d.ended, vec![0, 1]);
    assert_eq!(d.stop, Some(StopReason::ToolUse));
}
