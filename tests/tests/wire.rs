//! The wire end to end: real provider components, the real HTTP client and
//! the fake LLM server speaking each vendor's SSE. Every fault ends in a
//! complete reply or a typed error, never half of one.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "a test fails by panicking, its helpers too"
)]

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use amber_core::ports::dialect::{
    ChatRequest, Message, ModelReply, Part, Role, StopReason, StreamChunk, ToolCall, ToolDecl,
    ToolResult,
};
use amber_runtime::{Grants, PluginRuntime};
use amber_tests::fake_llm::{FakeLlm, Reply, Transcript, Turn};
use amber_tests::sse::read_fixture;
use amber_tests::{enable, Scratch};
use amber_wire::assemble::ReplyAssembler;
use amber_wire::retry::RetryPolicy;
use amber_wire::{make_dialect, ApiError, Cancel, Preset, Presets, WireClient, WireOptions};
use serde_json::json;

const KEY: &str = "sk-amber-test-KEY-0123456789";

struct Setup {
    _scratch: Scratch,
    runtime: PluginRuntime,
    taps: Arc<Mutex<Vec<String>>>,
}

fn setup() -> Setup {
    let scratch = Scratch::new();
    let taps = Arc::new(Mutex::new(Vec::new()));
    let mut options = scratch.options();
    let seen = Arc::clone(&taps);
    options.tap = Some(Arc::new(move |id: &str, call: &str, args: &str| {
        seen.lock().unwrap().push(format!("{id} {call} {args}"));
    }));
    let runtime = scratch.runtime_with(options);
    enable(&runtime, "provider-openai", Grants::none());
    enable(&runtime, "provider-anthropic", Grants::none());
    Setup {
        _scratch: scratch,
        runtime,
        taps,
    }
}

fn fast() -> WireOptions {
    WireOptions {
        connect_timeout: Duration::from_secs(5),
        first_byte_timeout: Duration::from_secs(10),
        read_timeout: Duration::from_secs(10),
        retry: RetryPolicy {
            max_attempts: 3,
            base_delay: Duration::from_millis(20),
            max_delay: Duration::from_secs(2),
        },
        ..WireOptions::default()
    }
}

fn client(setup: &Setup, preset: &str, server: &FakeLlm, options: WireOptions) -> WireClient {
    let mut preset = Presets::shipped().get(preset).unwrap().clone();
    preset.base_url = if preset.flavor == "anthropic-messages" {
        server.anthropic_base()
    } else {
        server.openai_base()
    };
    let dialect = make_dialect(setup.runtime.ledger(), &preset).unwrap();
    WireClient::new(preset, dialect, Some(KEY.to_string()), options).unwrap()
}

fn request(flavor: &str, messages: Vec<Message>) -> ChatRequest {
    ChatRequest {
        flavor: flavor.into(),
        model: "fake-model".into(),
        messages,
        tools: vec![ToolDecl {
            name: "read_file".into(),
            description: "Read a file.".into(),
            input_schema: json!({"type": "object", "properties": {"path": {"type": "string"}}}),
        }],
        max_tokens: None,
        temperature: None,
        cache_breakpoint: None,
    }
}

fn user(text: &str) -> Message {
    Message {
        role: Role::User,
        parts: vec![Part::Text { text: text.into() }],
    }
}

fn server(script: &str) -> FakeLlm {
    FakeLlm::start(Transcript::parse(script).unwrap(), 0).unwrap()
}

async fn call(
    client: &WireClient,
    req: ChatRequest,
) -> Result<amber_core::ports::dialect::ModelReply, ApiError> {
    let mut seen = 0usize;
    let mut on_chunk = |_: &amber_core::ports::dialect::StreamChunk| seen += 1;
    client.call(req, &mut on_chunk).await
}

/// One "hi" through `preset` (in its shipped flavor) against a fresh fake
/// server running `script`, with the fast options: the shape of most fault
/// tests. The server comes back too, to count what it received.
async fn say_hi(preset: &str, script: &str) -> (Result<ModelReply, ApiError>, FakeLlm) {
    let setup = setup();
    let fake = server(script);
    let flavor = Presets::shipped().get(preset).unwrap().flavor.clone();
    let result = call(
        &client(&setup, preset, &fake, fast()),
        request(&flavor, vec![user("hi")]),
    )
    .await;
    (result, fake)
}

const FLAVORS: [(&str, &str); 3] = [
    ("openai", "openai-chat"),
    ("openai-responses", "openai-responses"),
    ("anthropic", "anthropic-messages"),
];

const TEXT: &str = r#"
[[turns]]
reply = { text = "Hello from the fake server.", usage = { input = 42, output = 7, cached = 40 } }
"#;

#[tokio::test]
async fn a_text_reply_round_trips_in_every_flavor_with_the_vendors_auth() {
    let setup = setup();
    for (preset, flavor) in FLAVORS {
        let fake = server(TEXT);
        let reply = call(
            &client(&setup, preset, &fake, fast()),
            request(flavor, vec![user("hi")]),
        )
        .await
        .unwrap();
        assert_eq!(reply.text, "Hello from the fake server.", "{flavor}");
        assert_eq!(reply.stop, Some(StopReason::EndTurn), "{flavor}");
        assert_eq!(
            (
                reply.usage.input_tokens,
                reply.usage.output_tokens,
                reply.usage.cached_input_tokens
            ),
            (42, 7, 40),
            "{flavor}"
        );
        let got = &fake.received()[0];
        assert!(got.problems.is_empty(), "{:?}", got.problems);
        if flavor == "anthropic-messages" {
            assert_eq!(got.path, "/v1/messages");
            assert_eq!(got.x_api_key.as_deref(), Some(KEY));
            assert_eq!(
                got.authorization, None,
                "Anthropic requests never carry Authorization"
            );
            assert!(got.anthropic_version.is_some());
        } else {
            assert_eq!(
                got.authorization.as_deref(),
                Some(format!("Bearer {KEY}").as_str())
            );
            assert_eq!(got.x_api_key, None);
        }
    }
}

/// A reply cut at the token cap ends as `max_tokens` in every flavor,
/// whatever the vendor calls it (`length`, `max_tokens`, an incomplete
/// response), with the text that came before the cap.
#[tokio::test]
async fn a_reply_cut_at_the_token_cap_stops_as_max_tokens_in_every_flavor() {
    let setup = setup();
    for (preset, flavor) in FLAVORS {
        let fake = server("[[turns]]\nreply = { text = \"The first half\", capped = true }\n");
        let reply = call(
            &client(&setup, preset, &fake, fast()),
            request(flavor, vec![user("hi")]),
        )
        .await
        .unwrap();
        assert_eq!(reply.text, "The first half", "{flavor}");
        assert_eq!(reply.stop, Some(StopReason::MaxTokens), "{flavor}");
    }
}

const TOOLS: &str = r#"
[[turns]]
expect_tools = ["read_file"]
reply = { text = "Let me look.", tool_calls = [{ id = "call_1", name = "read_file", arguments = { path = "src/main.rs" } }, { id = "call_2", name = "read_file", arguments = { path = "README.md" } }] }

[[turns]]
expect_tools = ["read_file"]
expect_tool_results = ["call_1", "call_2"]
reply = { text = "Both files read." }
"#;

#[tokio::test]
async fn tool_calls_and_their_results_round_trip_and_the_server_checks_them() {
    let setup = setup();
    for (preset, flavor) in FLAVORS {
        let fake = server(TOOLS);
        let client = client(&setup, preset, &fake, fast());
        let first = call(&client, request(flavor, vec![user("read two files")]))
            .await
            .unwrap();
        assert_eq!(first.stop, Some(StopReason::ToolUse), "{flavor}");
        let calls: Vec<(&str, serde_json::Value)> = first
            .tool_calls
            .iter()
            .map(|c| (c.id.as_str(), serde_json::from_str(&c.arguments).unwrap()))
            .collect();
        assert_eq!(
            calls,
            [
                ("call_1", json!({"path": "src/main.rs"})),
                ("call_2", json!({"path": "README.md"}))
            ],
            "{flavor}"
        );
        let mut assistant = vec![Part::Text {
            text: first.text.clone(),
        }];
        assistant.extend(first.tool_calls.iter().cloned().map(Part::ToolCall));
        let results = first.tool_calls.iter().map(|c: &ToolCall| {
            Part::ToolResult(ToolResult {
                call_id: c.id.clone(),
                content: format!("contents of {}", c.arguments),
                is_error: false,
            })
        });
        let messages = vec![
            user("read two files"),
            Message {
                role: Role::Assistant,
                parts: assistant,
            },
            Message {
                role: Role::Tool,
                parts: results.collect(),
            },
        ];
        let second = call(&client, request(flavor, messages)).await.unwrap();
        assert_eq!(second.text, "Both files read.", "{flavor}");
        for got in fake.received() {
            assert!(got.problems.is_empty(), "{flavor}: {:?}", got.problems);
        }
    }
}

#[tokio::test]
async fn a_429_with_retry_after_is_waited_out_then_served() {
    let setup = setup();
    let fake = server(
        r#"
[[turns]]
faults = [{ kind = "status", status = 429, retry_after_s = 1 }]
reply = { text = "after the wait" }
"#,
    );
    let started = Instant::now();
    let reply = call(
        &client(&setup, "openai", &fake, fast()),
        request("openai-chat", vec![user("hi")]),
    )
    .await
    .unwrap();
    assert_eq!(reply.text, "after the wait");
    assert!(
        started.elapsed() >= Duration::from_millis(900),
        "Retry-After: 1 was honoured"
    );
    assert_eq!(fake.received().len(), 2);
}

#[tokio::test]
async fn retry_after_as_a_date_or_in_milliseconds_is_honoured() {
    let setup = setup();
    // A date one second ahead (HTTP dates have whole seconds, so at least
    // a few hundred milliseconds of wait remain).
    let date = httpdate::fmt_http_date(std::time::SystemTime::now() + Duration::from_secs(2));
    let fake = server(&format!(
        r#"
[[turns]]
faults = [{{ kind = "status", status = 429, retry_after = "{date}" }}]
reply = {{ text = "after the date" }}

[[turns]]
faults = [{{ kind = "status", status = 503, retry_after_ms = 600, retry_after_s = 30 }}]
reply = {{ text = "after 600 ms" }}
"#
    ));
    let client = client(&setup, "openai", &fake, fast());
    let started = Instant::now();
    let reply = call(&client, request("openai-chat", vec![user("hi")]))
        .await
        .unwrap();
    assert_eq!(reply.text, "after the date");
    assert!(
        started.elapsed() >= Duration::from_millis(900),
        "the date was honoured"
    );
    // retry-after-ms is finer than retry-after and wins over it (30 s would
    // be past the limit and end the call).
    let started = Instant::now();
    let reply = call(&client, request("openai-chat", vec![user("hi")]))
        .await
        .unwrap();
    assert_eq!(reply.text, "after 600 ms");
    let waited = started.elapsed();
    assert!(
        waited >= Duration::from_millis(550) && waited < Duration::from_secs(20),
        "{waited:?}"
    );
}

#[tokio::test]
async fn a_wait_longer_than_amber_waits_ends_the_call_saying_so() {
    let (result, fake) = say_hi(
        "openai",
        r#"
[[turns]]
faults = [{ kind = "status", status = 429, retry_after_s = 120 }]
reply = { text = "never" }
"#,
    )
    .await;
    let err = result.unwrap_err();
    assert!(
        err.to_string()
            .contains("the server asks to wait 120 s before trying again"),
        "{err}"
    );
    assert_eq!(fake.received().len(), 1, "no early retry");
}

#[tokio::test]
async fn an_unreachable_server_names_the_cause() {
    let setup = setup();
    // A port nothing listens on: bind one, then let it go.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let mut preset = Presets::shipped().get("openai").unwrap().clone();
    preset.base_url = format!("http://127.0.0.1:{port}/v1");
    let dialect = make_dialect(setup.runtime.ledger(), &preset).unwrap();
    let mut options = fast();
    options.retry.max_attempts = 1;
    let client = WireClient::new(preset, dialect, Some(KEY.to_string()), options).unwrap();
    let err = call(&client, request("openai-chat", vec![user("hi")]))
        .await
        .unwrap_err();
    let text = err.to_string().to_lowercase();
    assert!(text.contains("cannot reach"), "{err}");
    assert!(
        text.contains("connection refused"),
        "the cause is named: {err}"
    );
}

#[tokio::test]
async fn a_500_then_success_gives_the_whole_reply() {
    let (result, fake) = say_hi(
        "anthropic",
        r#"
[[turns]]
faults = [{ kind = "status", status = 500 }]
reply = { text = "second time lucky" }
"#,
    )
    .await;
    let reply = result.unwrap();
    assert_eq!(reply.text, "second time lucky");
    assert_eq!(fake.received().len(), 2);
}

#[tokio::test]
async fn a_401_is_not_retried_and_names_the_keys_variable() {
    let (result, fake) = say_hi(
        "openai",
        r#"
[[turns]]
faults = [{ kind = "status", status = 401 }]
reply = { text = "never" }
"#,
    )
    .await;
    let err = result.unwrap_err();
    assert!(matches!(err, ApiError::Auth { status: 401, .. }), "{err:?}");
    assert!(err.to_string().contains("check OPENAI_API_KEY"), "{err}");
    assert_eq!(fake.received().len(), 1);
}

/// One call of `script` through `preset`, with every chunk it handed on.
async fn say_hi_seeing(
    preset: &str,
    script: &str,
) -> (Result<ModelReply, ApiError>, Vec<StreamChunk>, FakeLlm) {
    let setup = setup();
    let fake = server(script);
    let flavor = Presets::shipped().get(preset).unwrap().flavor.clone();
    let mut seen = Vec::new();
    let mut on_chunk = |chunk: &StreamChunk| seen.push(chunk.clone());
    let result = client(&setup, preset, &fake, fast())
        .call(request(&flavor, vec![user("hi")]), &mut on_chunk)
        .await;
    (result, seen, fake)
}

fn restarts(chunks: &[StreamChunk]) -> Vec<u32> {
    chunks
        .iter()
        .filter_map(|c| match c {
            StreamChunk::Restart { attempt, .. } => Some(*attempt),
            _ => None,
        })
        .collect()
}

#[tokio::test]
async fn a_stream_cut_after_the_first_tokens_is_retried_in_every_flavor() {
    for (preset, flavor) in FLAVORS {
        let (result, seen, fake) = say_hi_seeing(
            preset,
            r#"
[[turns]]
faults = [{ kind = "cut", after_events = 4 }]
reply = { text = "a long answer that arrives whole the second time" }
"#,
        )
        .await;
        let reply = result.unwrap_or_else(|e| panic!("{flavor}: {e}"));
        assert_eq!(
            reply.text, "a long answer that arrives whole the second time",
            "{flavor}: the partial reply never joins the whole one"
        );
        assert_eq!(fake.received().len(), 2, "{flavor}");
        assert_eq!(
            restarts(&seen),
            [2],
            "{flavor}: one restart, before attempt 2"
        );
        let before: String = seen
            .iter()
            .take_while(|c| !matches!(c, StreamChunk::Restart { .. }))
            .filter_map(|c| match c {
                StreamChunk::TextDelta(t) => Some(t.as_str()),
                _ => None,
            })
            .collect();
        assert!(
            !before.is_empty(),
            "{flavor}: the cut came after the first tokens"
        );
        let Some(StreamChunk::Restart { reason, .. }) = seen
            .iter()
            .find(|c| matches!(c, StreamChunk::Restart { .. }))
        else {
            unreachable!()
        };
        assert!(reason.contains("broke off"), "{flavor}: {reason}");
    }
}

#[tokio::test]
async fn a_cut_inside_a_tool_calls_arguments_is_retried_and_the_call_arrives_once() {
    for (preset, flavor) in FLAVORS {
        let (result, seen, _fake) = say_hi_seeing(
            preset,
            r#"
[[turns]]
faults = [{ kind = "cut", after_events = 9 }]
[turns.reply]
text = "Reading."
tool_calls = [{ id = "call_1", name = "read_file", arguments = { path = "src/a-rather-long-file-name-split-over-deltas.rs" } }]
"#,
        )
        .await;
        let reply = result.unwrap_or_else(|e| panic!("{flavor}: {e}"));
        assert_eq!(
            reply.tool_calls.len(),
            1,
            "{flavor}: {:?}",
            reply.tool_calls
        );
        let args: serde_json::Value = serde_json::from_str(&reply.tool_calls[0].arguments).unwrap();
        assert_eq!(
            args,
            json!({"path": "src/a-rather-long-file-name-split-over-deltas.rs"}),
            "{flavor}"
        );
        assert_eq!(reply.text, "Reading.", "{flavor}");
        assert_eq!(restarts(&seen), [2], "{flavor}");
        let began = seen
            .iter()
            .take_while(|c| !matches!(c, StreamChunk::Restart { .. }))
            .any(|c| matches!(c, StreamChunk::ToolCallDelta { .. }));
        assert!(
            began,
            "{flavor}: the cut came inside the arguments: {seen:?}"
        );
    }
}

#[tokio::test]
async fn a_stream_cut_on_every_attempt_is_a_typed_error_after_max_attempts() {
    let (result, seen, fake) = say_hi_seeing(
        "openai",
        r#"
[[turns]]
faults = [{ kind = "cut", after_events = 3 }, { kind = "cut", after_events = 3 }, { kind = "cut", after_events = 3 }]
reply = { text = "a long answer that will not arrive whole" }
"#,
    )
    .await;
    let err = result.unwrap_err();
    assert!(matches!(err, ApiError::Stream { .. }), "{err:?}");
    assert!(err.to_string().contains("broke off"), "{err}");
    assert_eq!(fake.received().len(), 3, "max_attempts is 3");
    assert_eq!(restarts(&seen), [2, 3]);
}

#[tokio::test]
async fn a_stream_cut_before_any_content_is_retried() {
    let (result, fake) = say_hi(
        "anthropic",
        r#"
[[turns]]
faults = [{ kind = "cut", after_events = 1 }]
reply = { text = "whole" }
"#,
    )
    .await;
    let reply = result.unwrap();
    assert_eq!(reply.text, "whole");
    assert_eq!(fake.received().len(), 2);
}

#[tokio::test]
async fn a_malformed_event_is_reported_as_such() {
    let (result, _fake) = say_hi(
        "openai",
        r#"
[[turns]]
faults = [{ kind = "malformed", after_events = 2 }]
reply = { text = "some text here" }
"#,
    )
    .await;
    let err = result.unwrap_err();
    match &err {
        ApiError::Provider { kind, .. } => assert_eq!(kind, "malformed-event"),
        other => panic!("{other:?}"),
    }
}

#[tokio::test]
async fn a_slow_first_byte_times_out_and_the_retry_succeeds() {
    let setup = setup();
    let script = r#"
[[turns]]
faults = [{ kind = "slow_first_byte", delay_ms = 3000 }]
reply = { text = "prompt this time" }
"#;
    let options = WireOptions {
        first_byte_timeout: Duration::from_millis(300),
        ..fast()
    };
    let fake = server(script);
    let reply = call(
        &client(&setup, "openai", &fake, options),
        request("openai-chat", vec![user("hi")]),
    )
    .await
    .unwrap();
    assert_eq!(reply.text, "prompt this time");

    let once = WireOptions {
        retry: RetryPolicy {
            max_attempts: 1,
            ..fast().retry
        },
        ..options
    };
    let fake = server(script);
    let err = call(
        &client(&setup, "openai", &fake, once),
        request("openai-chat", vec![user("hi")]),
    )
    .await
    .unwrap_err();
    assert!(matches!(err, ApiError::Timeout { .. }), "{err:?}");
    assert!(
        err.to_string().contains("before the first event") || err.to_string().contains("waiting"),
        "{err}"
    );
}

#[tokio::test]
async fn cancelling_aborts_a_waiting_call_cleanly() {
    let setup = setup();
    let fake = server(
        r#"
[[turns]]
faults = [{ kind = "slow_first_byte", delay_ms = 5000 }]
reply = { text = "too late" }
"#,
    );
    let cancel = Cancel::default();
    let client = client(&setup, "openai", &fake, fast()).with_cancel(cancel.clone());
    let started = Instant::now();
    let trigger = cancel.clone();
    tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(100)).await;
        trigger.cancel();
    });
    let err = call(&client, request("openai-chat", vec![user("hi")]))
        .await
        .unwrap_err();
    assert_eq!(err, ApiError::Cancelled);
    assert!(started.elapsed() < Duration::from_secs(4));
}

/// Ctrl-C while text is streaming: the call ends at once as cancelled, the
/// text already shown was handed out, and nothing is retried.
#[tokio::test]
async fn cancelling_mid_reply_stops_the_stream_without_a_retry() {
    let setup = setup();
    for (preset, flavor) in FLAVORS {
        let fake = server(
            r#"
[[turns]]
faults = [{ kind = "stall", after_events = 4, delay_ms = 5000 }]
reply = { text = "A reply long enough to arrive in several pieces before the stall." }
"#,
        );
        let cancel = Cancel::default();
        let client = client(&setup, preset, &fake, fast()).with_cancel(cancel.clone());
        let started = Instant::now();
        let mut shown = String::new();
        let trigger = cancel.clone();
        let mut on_chunk = |chunk: &amber_core::ports::dialect::StreamChunk| {
            if let amber_core::ports::dialect::StreamChunk::TextDelta(text) = chunk {
                shown.push_str(text);
                trigger.cancel();
            }
        };
        let err = client
            .call(request(flavor, vec![user("hi")]), &mut on_chunk)
            .await
            .unwrap_err();
        assert_eq!(err, ApiError::Cancelled, "{flavor}");
        assert!(
            !shown.is_empty(),
            "{flavor}: text arrived before the cancel"
        );
        assert!(started.elapsed() < Duration::from_secs(4), "{flavor}");
        assert_eq!(
            fake.received().len(),
            1,
            "{flavor}: a cancelled call is not retried"
        );
    }
}

#[tokio::test]
async fn the_key_never_enters_a_component() {
    let setup = setup();
    for (preset, flavor) in FLAVORS {
        let fake = server(TOOLS);
        let client = client(&setup, preset, &fake, fast());
        call(&client, request(flavor, vec![user("read two files")]))
            .await
            .unwrap();
        let got = &fake.received()[0];
        let sent = format!("{:?}{:?}", got.authorization, got.x_api_key);
        assert!(sent.contains(KEY), "{flavor}: the host sent the key");
    }
    let taps = setup.taps.lock().unwrap();
    assert!(
        taps.iter().any(|t| t.contains("build-request"))
            && taps.iter().any(|t| t.contains("decode"))
    );
    assert!(
        taps.iter().all(|t| !t.contains(KEY)),
        "a component saw the key"
    );
}

#[test]
fn an_unknown_flavor_is_an_error_naming_the_key() {
    let setup = setup();
    let preset = Preset {
        name: "mine".into(),
        flavor: "openai-chta".into(),
        ..Preset::default()
    };
    let err = make_dialect(setup.runtime.ledger(), &preset).err().unwrap();
    assert!(
        err.to_string().starts_with("providers.mine.flavor: no dialect serves flavor `openai-chta` (the installed ones serve: "),
        "{err}"
    );
    assert!(err.to_string().contains("openai-chat"), "{err}");
}

#[test]
fn a_known_flavor_whose_plugin_is_missing_is_an_error_not_a_fallback() {
    let scratch = Scratch::new();
    let runtime = scratch.runtime();
    enable(&runtime, "provider-openai", Grants::none());
    let preset = Preset {
        flavor: "anthropic-messages".into(),
        ..Preset::default()
    };
    let err = make_dialect(runtime.ledger(), &preset).err().unwrap();
    assert!(
        err.to_string().contains("is its provider plugin disabled?"),
        "{err}"
    );
}

/// What decoding a recording in one batch, in process, ends with: the
/// assembled reply, or the kind of the first error chunk.
fn decoded_in_process(setup: &Setup, flavor: &str, name: &str) -> Result<ModelReply, String> {
    let dialect = setup.runtime.ledger().provider(flavor).unwrap();
    let mut decoder = dialect.decoder().unwrap();
    let mut chunks = decoder.decode(&read_fixture(name)).unwrap();
    chunks.extend(decoder.finish().unwrap());
    let mut assembler = ReplyAssembler::default();
    for chunk in &chunks {
        if let StreamChunk::Error { kind, .. } = chunk {
            return Err(kind.clone());
        }
        assembler.push(chunk);
    }
    assert!(assembler.is_complete(), "{name} is a whole reply");
    Ok(assembler.finish())
}

/// Every recorded stream, served byte for byte over a real socket (an
/// event a write, then in 7-byte pieces that cut events, lines and UTF-8
/// characters apart), through reqwest, eventsource-stream's framing and
/// the dialect component, ends as decoding the same recording in process
/// does: the same reply, or the same provider error.
#[tokio::test]
async fn every_recorded_stream_ends_the_same_over_a_socket() {
    let setup = setup();
    let mut options = fast();
    // An error is compared, not retried.
    options.retry.max_attempts = 1;
    let folder = amber_tests::repo_root().join("fixtures/sse");
    let mut names: Vec<String> = std::fs::read_dir(&folder)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".sse"))
        .collect();
    names.sort();
    assert!(names.len() >= 15, "{names:?}");
    for name in &names {
        let (preset, flavor) = if name.starts_with("anthropic") {
            ("anthropic", "anthropic-messages")
        } else if name.starts_with("openai-responses") {
            ("openai-responses", "openai-responses")
        } else {
            ("openai", "openai-chat")
        };
        let expected = decoded_in_process(&setup, flavor, name);
        for split_bytes in [None, Some(7)] {
            let reply = Reply {
                recorded: Some(folder.join(name)),
                split_bytes,
                ..Reply::default()
            };
            let transcript = Transcript {
                turns: vec![Turn {
                    reply,
                    ..Turn::default()
                }],
                ..Transcript::default()
            };
            let fake = FakeLlm::start(transcript, 0).unwrap();
            let got = call(
                &client(&setup, preset, &fake, options),
                request(flavor, vec![user("hi")]),
            )
            .await;
            let what = format!("{name} in pieces of {split_bytes:?} bytes");
            match (&expected, got) {
                (Ok(expected), Ok(got)) => assert_eq!(&got, expected, "{what}"),
                (Err(kind), Err(ApiError::Provider { kind: got, .. })) => {
                    assert_eq!(&got, kind, "{what}")
                }
                (expected, got) => panic!("{what}: expected {expected:?}, got {got:?}"),
            }
        }
    }
}
