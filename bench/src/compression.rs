//! Compression (issue 25): the host's own work for one cycle on a
//! 100k-token context, and how much of the extract request is new.
//!
//! The context is a coding session: 90 rounds of a request, a step with
//! one `read_file` call and its ~3.5 KiB result, and in the middle a
//! 20-call read loop on one file that collapsing folds. The model answers
//! at once with a canned classification and extraction (a small fake of
//! the ModelClient port: the model's time is not the host's), so what is
//! timed is the cycle itself: segmenting, collapsing, rendering the
//! transcript, parsing and validating the replies, headroom, and the
//! rebuild with its session records (clear, pushes, the fsynced head).
//! The baseline is a clone of the same context, in the same run.
//!
//! The second row is the extract request's new tokens (after the prefix it
//! shares with the classify request) against the classify request's, in
//! cl100k tokens: at most 5% of them are not served from the cache.

use std::sync::{Arc, Mutex};
use std::time::Instant;

use amber_core::compress::{CompressorSettings, ModelCompressor};
use amber_core::engine::{Agent, AgentConfig, AgentPorts, CompactionOutcome, Mode};
use amber_core::policy::Policy;
use amber_core::ports::dialect::{
    ChatRequest, Message, ModelReply, Part, Role, StreamChunk, ToolCall, ToolResult,
};
use amber_core::ports::{BoxFuture, ModelClient, ModelError, ThresholdGate};
use amber_core::session::SessionWriter;
use amber_core::ContextChain;
use anyhow::{bail, ensure, Context, Result};

use crate::measure::{median, per_call_us, Figure, Rows};

/// Estimated tokens (the pipeline's own estimate) the context holds.
const CONTEXT_TOKENS: u64 = 100_000;
const ROUNDS: usize = 90;
const LOOP_CALLS: usize = 20;
const SAMPLES: usize = 21;

/// Replies in turn: the classification, then the extraction.
struct Canned {
    replies: [&'static str; 2],
    next: Mutex<usize>,
    sent: Mutex<Vec<ChatRequest>>,
}

impl ModelClient for Canned {
    fn stream<'a>(
        &'a self,
        request: ChatRequest,
        _on_chunk: &'a mut (dyn FnMut(&StreamChunk) + Send),
    ) -> BoxFuture<'a, Result<ModelReply, ModelError>> {
        Box::pin(async move {
            let mut next = self.next.lock().unwrap_or_else(|e| e.into_inner());
            let text = self.replies[*next % 2].to_string();
            *next += 1;
            self.sent
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .push(request);
            Ok(ModelReply {
                text,
                ..ModelReply::default()
            })
        })
    }
}

fn text(role: Role, text: String) -> Message {
    Message {
        role,
        parts: vec![Part::Text { text }],
    }
}

/// One step: an assistant message with a call, and the call's result.
fn step(id: String, path: &str, offset: usize, body: &str) -> [Message; 2] {
    let call = ToolCall {
        id: id.clone(),
        name: "read_file".into(),
        arguments: format!("{{\"path\":\"{path}\",\"offset\":{offset}}}"),
    };
    [
        Message {
            role: Role::Assistant,
            parts: vec![
                Part::Text {
                    text: format!("Reading {path} from line {offset}."),
                },
                Part::ToolCall(call),
            ],
        },
        Message {
            role: Role::Tool,
            parts: vec![Part::ToolResult(ToolResult {
                call_id: id,
                content: body.to_string(),
                is_error: false,
            })],
        },
    ]
}

/// The session's messages: a system prompt, then rounds of a request and
/// a read, with a read loop of [`LOOP_CALLS`] calls in the middle.
fn session() -> Vec<Message> {
    let line = "    let value = compute(input, &settings).context(\"computing the value\")?;\n";
    let body: String = line.repeat(3500 / line.len());
    let mut messages = vec![text(
        Role::System,
        "You are amber, a coding agent working in /work/project.".into(),
    )];
    for round in 0..ROUNDS {
        messages.push(text(
            Role::User,
            format!("Step {round}: look at module {round} and tell me what it does."),
        ));
        if round == ROUNDS / 2 {
            for i in 0..LOOP_CALLS {
                messages.extend(step(format!("loop{i}"), "src/engine.rs", i * 40, &body));
            }
        }
        messages.extend(step(
            format!("call{round}"),
            &format!("src/module_{round}.rs"),
            0,
            &body,
        ));
    }
    messages
}

/// An agent over `messages` that records into a new session file, its
/// window sized so the context fills 90% of it.
fn agent(
    messages: &[Message],
    model: Arc<Canned>,
    window: u64,
    session: &std::path::Path,
) -> Result<Agent> {
    let mut chain = ContextChain::new();
    for message in messages {
        chain.push(message.clone());
    }
    let mut settings = CompressorSettings::new("openai-chat", "m", window);
    settings.target = 0.5;
    let compressor = ModelCompressor::new(model.clone(), settings);
    let config = AgentConfig {
        model: "m".into(),
        flavor: "openai-chat".into(),
        context_window: window,
        max_tool_iterations: 10,
        confirm: None,
        max_tokens: None,
        temperature: None,
        system_prompt: String::new(),
        workspace: None,
        price: None,
        max_budget_usd: None,
        images: false,
        preset: "test".into(),
    };
    let ports = AgentPorts {
        model,
        tools: Vec::new(),
        blocks: Vec::new(),
        policy: Arc::new(Policy::new(Mode::Read, "/bench".into(), Vec::new(), None)),
        gate: Arc::new(ThresholdGate { threshold: 0.8 }),
        compressor: Some(Arc::new(compressor)),
        learner: None,
    };
    let writer = SessionWriter::open(session)?;
    Ok(Agent::new(config, ports, chain, Some(writer)))
}

pub fn run(rows: &mut Rows) -> Result<()> {
    let messages = session();
    let tokens = amber_core::compress::tokens::estimate_all(&messages);
    ensure!(
        tokens.abs_diff(CONTEXT_TOKENS) < CONTEXT_TOKENS / 10,
        "the bench context is {tokens} tokens, not about {CONTEXT_TOKENS}"
    );
    let window = tokens * 10 / 9;
    let scratch = tempfile::tempdir()?;
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    let mut samples = Vec::with_capacity(SAMPLES);
    let mut sent = Vec::new();
    for sample in 0..SAMPLES + 1 {
        let model = Arc::new(Canned {
            replies: [
                "{\"context\": [], \"summary\": \"Ninety modules were read, one of them twenty times.\"}",
                "{\"memories\": [], \"skills\": []}",
            ],
            next: Mutex::new(0),
            sent: Mutex::new(Vec::new()),
        });
        let path = scratch.path().join(format!("s{sample}.jsonl"));
        let mut agent = agent(&messages, model.clone(), window, &path)?;
        let start = Instant::now();
        let outcome = rt.block_on(agent.compact_now(None, &mut |_| {}))?;
        let elapsed = start.elapsed().as_secs_f64() * 1e3;
        let CompactionOutcome::Completed { stats, .. } = outcome else {
            bail!("the bench compression did not complete: {outcome:?}");
        };
        ensure!(
            stats.collapsed == LOOP_CALLS - 1 && stats.pruned > 0,
            "the bench cycle collapsed {} and pruned {} segments",
            stats.collapsed,
            stats.pruned
        );
        // The first is a warm-up (allocator, page cache, the prompts).
        if sample > 0 {
            samples.push(elapsed);
        }
        sent = model.sent.lock().map(|s| s.clone()).unwrap_or_default();
    }
    let cycle = median(samples);
    let clone = per_call_us(21, 5, || {
        std::hint::black_box(messages.clone());
    }) / 1e3;
    rows.push(
        Figure {
            name: "compression_host_work_100k_tokens",
            unit: "ms",
            value: cycle,
            baseline: Some(("clone_of_the_same_context", clone)),
            goal_value: Some(5.0),
            goal_ratio: None,
        }
        .row(),
    )?;

    let [classify, extract] = sent.as_slice() else {
        bail!("the cycle sent {} requests, not 2", sent.len());
    };
    let shared = classify.messages.len();
    ensure!(
        extract.messages[..shared] == classify.messages[..],
        "the extract request does not start with the classify request"
    );
    let count = |messages: &[Message]| -> Result<usize> {
        let mut n = 0;
        for message in messages {
            for part in &message.parts {
                if let Part::Text { text } = part {
                    n += amber_memory::tokens::count(text).context("counting tokens")?;
                }
            }
        }
        Ok(n)
    };
    let classify_tokens = count(&classify.messages)?;
    let new_tokens = count(&extract.messages[shared..])?;
    rows.push(
        Figure {
            name: "compression_extract_new_tokens",
            unit: "tokens",
            value: new_tokens as f64,
            baseline: Some(("classify_request_tokens", classify_tokens as f64)),
            goal_value: None,
            goal_ratio: Some(0.05),
        }
        .row(),
    )?;
    Ok(())
}
