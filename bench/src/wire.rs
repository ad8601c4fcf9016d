//! Providers: decode throughput through the component vs the same decoder
//! source compiled natively, and the whole path's time to first token vs a
//! bare reqwest read of the same fake stream.

use std::sync::Arc;
use std::time::Instant;

use amber_core::ports::dialect::{ChatRequest, Message, Part, Role, SseEvent, StreamChunk};
use amber_core::ports::Dialect;
use amber_core::Ledger;
use amber_runtime::{AmberDirs, Grants, PluginRuntime, RuntimeOptions};
use amber_sdk::Decoder;
use amber_tests::fake_llm::{FakeLlm, Reply, Transcript, Turn};
use amber_wire::retry::RetryPolicy;
use amber_wire::{make_dialect, Presets, WireClient, WireOptions};
use anyhow::{Context, Result};
use futures_util::StreamExt;
use serde_json::json;

use crate::measure::{guest, median, Figure, Rows};

const EVENTS: usize = 10_000;
const BATCH: usize = 64;

/// The envelope of each chunk in a chat stream.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Shape {
    /// Every field OpenAI sends, in its order, as recorded in
    /// `../shared/fixtures/sse/openai-chat-text.sse` (gpt-4o, 2025): the
    /// stream a user's decoder actually sees.
    Recorded,
    /// Only the fields the decoder reads, plus an id, model and object: the
    /// smallest real chunk, where the boundary's per-event cost weighs most.
    Minimal,
}

/// A chat stream of [`EVENTS`] chunks: text deltas, a tool call in argument
/// pieces, a finish, usage, [DONE].
pub(crate) fn chat_events(shape: Shape) -> Vec<(Option<String>, String)> {
    let chunk = |i: usize, delta: serde_json::Value, finish: Option<&str>| {
        let finish = json!(finish);
        match shape {
            Shape::Recorded => {
                // OpenAI pads each chunk with a random `obfuscation` string of
                // varying length.
                let pad = &"Qk5ENocFqkZOrG2ubBYw"[..8 + i % 12];
                format!(
                    "{{\"id\":\"chatcmpl-C2P2HtMJhPkWjQ2adKerkdVilXmRL\",\"object\":\"chat.completion.chunk\",\"created\":1754688929,\"model\":\"gpt-4o-2024-08-06\",\"service_tier\":\"default\",\"system_fingerprint\":\"fp_07871e2ad8\",\"choices\":[{{\"index\":0,\"delta\":{delta},\"logprobs\":null,\"finish_reason\":{finish}}}],\"usage\":null,\"obfuscation\":\"{pad}\"}}"
                )
            }
            Shape::Minimal => {
                json!({"id": "c", "object": "chat.completion.chunk", "model": "m", "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}).to_string()
            }
        }
    };
    let mut events = vec![(
        None,
        chunk(0, json!({"role": "assistant", "content": ""}), None),
    )];
    for i in 0..EVENTS - 105 {
        events.push((
            None,
            chunk(i, json!({"content": format!("word{i} ")}), None),
        ));
    }
    let head = json!({"tool_calls": [{"index": 0, "id": "call_1", "type": "function", "function": {"name": "grep", "arguments": ""}}]});
    events.push((None, chunk(0, head, None)));
    for i in 0..100 {
        let piece = if i == 0 {
            "{\"p\":\"".to_string()
        } else if i == 99 {
            "x\"}".to_string()
        } else {
            "abc".to_string()
        };
        events.push((
            None,
            chunk(
                i,
                json!({"tool_calls": [{"index": 0, "function": {"arguments": piece}}]}),
                None,
            ),
        ));
    }
    events.push((None, chunk(0, json!({}), Some("tool_calls"))));
    let usage = json!({"id": "c", "choices": [], "usage": {"prompt_tokens": 100, "completion_tokens": 9000}});
    events.push((None, usage.to_string()));
    events.push((None, "[DONE]".to_string()));
    events
}

fn runtime(home: &std::path::Path) -> Result<PluginRuntime> {
    let options = RuntimeOptions::new(AmberDirs::under(home), home.to_path_buf());
    let runtime = PluginRuntime::new(options, Arc::new(Ledger::new()))?;
    let (id, _) = runtime.register_file(&guest("provider-openai")?)?;
    runtime.enable(&id, Grants::none())?;
    Ok(runtime)
}

/// What a decode produced, for checking both sides agree: the text, the
/// tool-call arguments, and how many chunks of each other kind.
#[derive(Debug, Default, PartialEq)]
pub(crate) struct Decoded {
    pub(crate) text: String,
    arguments: String,
    others: usize,
}

pub(crate) fn decode_component(
    dialect: &dyn amber_core::ports::Dialect,
    events: &[SseEvent],
) -> Result<Decoded> {
    let mut decoder = dialect.decoder()?;
    let mut decoded = Decoded::default();
    let mut take = |chunks: Vec<StreamChunk>| {
        for chunk in chunks {
            match chunk {
                StreamChunk::TextDelta(t) => decoded.text.push_str(&t),
                StreamChunk::ToolCallDelta { arguments, .. } => {
                    decoded.arguments.push_str(&arguments)
                }
                _ => decoded.others += 1,
            }
        }
    };
    for batch in events.chunks(BATCH) {
        take(decoder.decode(batch)?);
    }
    take(decoder.finish()?);
    Ok(decoded)
}

/// The native side gets the events as a native host would hold them after
/// framing (owned strings built before the clock starts, lent to the
/// decoder as borrowed `SseEvent`s, as the glue lends them) and decodes each in
/// place: no copies, no boundary.
fn decode_native(events: &[amber_sdk::SseEvent<'_>]) -> Decoded {
    let mut decoder = crate::chat_stream::ChatStream::default();
    let mut decoded = Decoded::default();
    let mut out = Vec::new();
    let mut take = |chunks: &mut Vec<amber_sdk::StreamChunk>| {
        for chunk in chunks.drain(..) {
            match chunk {
                amber_sdk::StreamChunk::TextDelta(t) => decoded.text.push_str(&t),
                amber_sdk::StreamChunk::ToolCallDelta(d) => {
                    decoded.arguments.push_str(&d.arguments)
                }
                _ => decoded.others += 1,
            }
        }
    };
    // Batches of the same size as the component's, decoded into one list
    // as the SDK's glue does.
    for batch in events.chunks(BATCH) {
        for event in batch {
            decoder.event(event, &mut out);
        }
        take(&mut out);
    }
    take(&mut decoder.finish());
    decoded
}

pub fn run(rows: &mut Rows) -> Result<()> {
    let scratch = tempfile::tempdir()?;
    let runtime = runtime(scratch.path())?;
    let dialect = runtime
        .ledger()
        .provider("openai-chat")
        .context("openai-chat is installed")?;
    decode_figure(rows, &*dialect, Shape::Recorded)?;
    decode_figure(rows, &*dialect, Shape::Minimal)?;
    ttft(rows, &runtime)
}

/// One decode figure: the component against the same decoder compiled
/// natively, over the same stream of `shape`.
fn decode_figure(rows: &mut Rows, dialect: &dyn Dialect, shape: Shape) -> Result<()> {
    let raw = chat_events(shape);
    let events: Vec<SseEvent> = raw
        .iter()
        .map(|(e, d)| SseEvent {
            event: e.clone(),
            data: d.clone(),
        })
        .collect();
    let sdk_events: Vec<amber_sdk::SseEvent> = raw
        .iter()
        .map(|(event, data)| amber_sdk::SseEvent {
            event: event.as_deref(),
            data,
        })
        .collect();
    let (mut component, mut native) = (Vec::new(), Vec::new());
    let expected = decode_native(&sdk_events);
    anyhow::ensure!(
        decode_component(dialect, &events)? == expected,
        "both decoders agree"
    );
    // 31 rounds: the figure is a ratio of medians near its goal, and nine
    // rounds let one noisy neighbour move it by several percent.
    for _ in 0..31 {
        let start = Instant::now();
        std::hint::black_box(decode_component(dialect, &events)?);
        component.push(start.elapsed().as_secs_f64() * 1e3);
        let start = Instant::now();
        std::hint::black_box(decode_native(&sdk_events));
        native.push(start.elapsed().as_secs_f64() * 1e3);
    }
    let (value, baseline) = match shape {
        Shape::Recorded => ("decode_10k_events_component", "decode_10k_events_native"),
        Shape::Minimal => (
            "decode_10k_minimal_events_component",
            "decode_10k_minimal_events_native",
        ),
    };
    rows.push(
        Figure {
            name: value,
            unit: "ms",
            value: median(component),
            baseline: Some((baseline, median(native))),
            goal_value: None,
            goal_ratio: Some(1.5),
        }
        .row(),
    )
}

/// A client of the fake server through the OpenAI chat dialect component,
/// without retries (a benchmark must not hide a failure), and its dialect.
/// A client of the fake server through the OpenAI chat dialect, which
/// `wrap` may decorate (the loop benchmark times it).
pub fn fake_server_client(
    runtime: &PluginRuntime,
    server: &FakeLlm,
    wrap: impl FnOnce(Arc<dyn Dialect>) -> Arc<dyn Dialect>,
) -> Result<(WireClient, Arc<dyn Dialect>)> {
    let mut preset = Presets::shipped().get("openai")?.clone();
    preset.base_url = server.openai_base();
    let dialect = make_dialect(runtime.ledger(), &preset)?;
    let dialect = wrap(dialect);
    let options = WireOptions {
        retry: RetryPolicy {
            max_attempts: 1,
            ..RetryPolicy::default()
        },
        ..WireOptions::default()
    };
    let client = WireClient::new(
        preset,
        Arc::clone(&dialect),
        Some("sk-bench".into()),
        options,
    )?;
    Ok((client, dialect))
}

fn ttft(rows: &mut Rows, runtime: &PluginRuntime) -> Result<()> {
    const ROUNDS: usize = 101;
    let turn = Turn {
        reply: Reply {
            text: "The first token arrives here.".into(),
            ..Reply::default()
        },
        ..Turn::default()
    };
    let transcript = Transcript {
        turns: vec![turn; 2 * ROUNDS + 10],
        ..Transcript::default()
    };
    let server = FakeLlm::start(transcript, 0)?;
    let (client, dialect) = fake_server_client(runtime, &server, |d| d)?;
    let request = ChatRequest {
        flavor: "openai-chat".into(),
        model: "m".into(),
        messages: vec![Message {
            role: Role::User,
            parts: vec![Part::Text { text: "hi".into() }],
        }],
        tools: Vec::new(),
        max_tokens: None,
        temperature: None,
        cache_breakpoint: None,
    };
    let body = dialect.build_request(&request)?.body;
    let url = format!("{}/chat/completions", server.openai_base());
    let bare = reqwest::Client::new();
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    let (mut full, mut raw) = (Vec::new(), Vec::new());
    rt.block_on(async {
        for round in 0..ROUNDS {
            let start = Instant::now();
            let mut first = None;
            let mut on_chunk = |c: &StreamChunk| {
                if matches!(c, StreamChunk::TextDelta(t) if !t.is_empty()) && first.is_none() {
                    first = Some(start.elapsed());
                }
            };
            client.call(request.clone(), &mut on_chunk).await?;
            // The bare read: the same request, the same server, up to the
            // first body bytes that carry content.
            let start_bare = Instant::now();
            let response = bare
                .post(&url)
                .bearer_auth("sk-bench")
                .body(body.clone())
                .send()
                .await?;
            let mut stream = response.bytes_stream();
            let mut seen = Vec::new();
            let mut first_bare = None;
            while let Some(bytes) = stream.next().await {
                seen.extend_from_slice(&bytes?);
                if first_bare.is_none()
                    && seen.windows(10).any(|w| w == b"\"content\":")
                    && String::from_utf8_lossy(&seen).contains("The first")
                {
                    first_bare = Some(start_bare.elapsed());
                }
            }
            // A round without a first token is a broken bench, not a fast
            // one: counting it as zero would flatter the figure.
            let (Some(first), Some(first_bare)) = (first, first_bare) else {
                anyhow::bail!("round {round}: no first token arrived (full path: {first:?}, bare read: {first_bare:?})");
            };
            if round > 0 {
                full.push(first.as_secs_f64() * 1e3);
                raw.push(first_bare.as_secs_f64() * 1e3);
            }
        }
        Ok::<(), anyhow::Error>(())
    })?;
    let (full, raw) = (median(full), median(raw));
    rows.push(
        Figure {
            name: "ttft_full_path",
            unit: "ms",
            value: full,
            baseline: Some(("ttft_bare_reqwest", raw)),
            goal_value: None,
            goal_ratio: None,
        }
        .row(),
    )?;
    rows.push(
        Figure {
            name: "ttft_overhead",
            unit: "ms",
            value: full - raw,
            baseline: None,
            goal_value: Some(1.0),
            goal_ratio: None,
        }
        .row(),
    )
}
