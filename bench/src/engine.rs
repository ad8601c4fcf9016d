//! The agent loop's own cost per turn, the model excluded: real runs of
//! `Agent` against the fake LLM server (zero delay) through the OpenAI
//! dialect component, one echo-tool call per turn, a real session file
//! fsynced at every turn. The time inside `ModelClient::stream` (HTTP, SSE,
//! the server, and the dialect) is measured by a timing wrapper and
//! subtracted: `loop_overhead_per_turn_excluding_dialect`. The dialect
//! component's own time in it (building the request, decoding the
//! stream) is timed by a second wrapper and added back for
//! `loop_overhead_per_turn_with_dialect`: what amber costs per turn on
//! top of the network and the model.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Instant;

use amber_core::engine::{Agent, AgentConfig, AgentPorts, Mode, Outcome, CONFIRM_PROMPT};
use amber_core::policy::Policy;
use amber_core::ports::dialect::{
    ChatRequest, ErrorClass, FlavorSpec, HttpRequest, ModelReply, SseEvent, StreamChunk,
    StreamDecoder,
};
use amber_core::ports::{BoxFuture, Dialect, ModelClient, ModelError, PortError, ThresholdGate};
use amber_core::session::SessionStore;
use amber_core::{ContextChain, Ledger};
use amber_runtime::{AmberDirs, Grants, PluginRuntime, RuntimeOptions};
use amber_tests::fake_llm::{FakeLlm, Reply, ScriptedCall, Transcript, Turn};
use amber_wire::WireClient;
use anyhow::{Context, Result};
use serde_json::json;

use crate::measure::{guest, median, Figure, Rows};
use crate::wire::fake_server_client;

/// Tool turns per run; each run also has a final reply and a confirm turn.
const TOOL_TURNS: usize = 50;
const RUNS: usize = 7;

/// Delegates to the real client and adds up the time spent inside it.
struct Timed {
    inner: WireClient,
    nanos: AtomicU64,
}

impl ModelClient for Timed {
    fn stream<'a>(
        &'a self,
        request: ChatRequest,
        on_chunk: &'a mut (dyn FnMut(&StreamChunk) + Send),
    ) -> BoxFuture<'a, Result<ModelReply, ModelError>> {
        Box::pin(async move {
            let start = Instant::now();
            let reply = self.inner.stream(request, on_chunk).await;
            self.nanos
                .fetch_add(start.elapsed().as_nanos() as u64, Ordering::Relaxed);
            reply
        })
    }
}

/// Adds up the time spent in a dialect's own calls.
struct TimedDialect {
    inner: Arc<dyn Dialect>,
    nanos: Arc<AtomicU64>,
}

fn timed<T>(nanos: &AtomicU64, f: impl FnOnce() -> T) -> T {
    let start = Instant::now();
    let out = f();
    nanos.fetch_add(start.elapsed().as_nanos() as u64, Ordering::Relaxed);
    out
}

impl Dialect for TimedDialect {
    fn flavor(&self) -> &FlavorSpec {
        self.inner.flavor()
    }

    fn build_request(&self, req: &ChatRequest) -> Result<HttpRequest, PortError> {
        timed(&self.nanos, || self.inner.build_request(req))
    }

    fn decoder(&self) -> Result<Box<dyn StreamDecoder>, PortError> {
        let inner = timed(&self.nanos, || self.inner.decoder())?;
        Ok(Box::new(TimedDecoder {
            inner,
            nanos: Arc::clone(&self.nanos),
        }))
    }

    fn classify_error(&self, status: u16, body: &str) -> Result<ErrorClass, PortError> {
        timed(&self.nanos, || self.inner.classify_error(status, body))
    }
}

struct TimedDecoder {
    inner: Box<dyn StreamDecoder>,
    nanos: Arc<AtomicU64>,
}

impl StreamDecoder for TimedDecoder {
    fn decode(&mut self, events: &[SseEvent]) -> Result<Vec<StreamChunk>, PortError> {
        timed(&self.nanos, || self.inner.decode(events))
    }

    fn finish(&mut self) -> Result<Vec<StreamChunk>, PortError> {
        timed(&self.nanos, || self.inner.finish())
    }
}

fn script() -> Transcript {
    let mut turns = Vec::new();
    for _ in 0..RUNS + 1 {
        for i in 0..TOOL_TURNS {
            let call = ScriptedCall {
                id: format!("call_{i}"),
                name: "echo".into(),
                arguments: json!({"i": i, "note": "a small argument object"}),
                undeclared: false,
            };
            turns.push(Turn {
                reply: Reply {
                    // Distinct each turn: the same text five times in a
                    // row is a hard stop (error recovery).
                    text: format!("Checking item {i}."),
                    tool_calls: vec![call],
                    ..Reply::default()
                },
                ..Turn::default()
            });
        }
        for text in ["All done.", "DONE"] {
            turns.push(Turn {
                reply: Reply {
                    text: text.into(),
                    ..Reply::default()
                },
                ..Turn::default()
            });
        }
    }
    Transcript {
        turns,
        ..Transcript::default()
    }
}

pub fn run(rows: &mut Rows) -> Result<()> {
    let scratch = tempfile::tempdir()?;
    let home = scratch.path();
    let options = RuntimeOptions::new(AmberDirs::under(home), home.to_path_buf());
    let runtime = PluginRuntime::new(options, Arc::new(Ledger::new()))?;
    for name in ["provider-openai", "echo-tool"] {
        let (id, _) = runtime.register_file(&guest(name)?)?;
        runtime.enable(&id, Grants::none())?;
    }
    let server = FakeLlm::start(script(), 0)?;
    let in_dialect = Arc::new(AtomicU64::new(0));
    let wrap = |inner| -> Arc<dyn Dialect> {
        Arc::new(TimedDialect {
            inner,
            nanos: Arc::clone(&in_dialect),
        })
    };
    let model = Arc::new(Timed {
        inner: fake_server_client(&runtime, &server, wrap)?.0,
        nanos: AtomicU64::new(0),
    });
    let store = SessionStore::new(home.join("sessions"));
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()?;
    let (mut per_turn, mut with_dialect) = (Vec::new(), Vec::new());
    for run in 0..RUNS + 1 {
        let (_, writer) = store.create("/bench", "openai", "m")?;
        let config = AgentConfig {
            model: "m".into(),
            flavor: "openai-chat".into(),
            context_window: 1_000_000,
            max_tool_iterations: 1000,
            confirm: Some(CONFIRM_PROMPT.into()),
            max_tokens: None,
            temperature: None,
            system_prompt: "You are a benchmark.".into(),
            workspace: None,
            price: None,
            max_budget_usd: None,
            images: false,
            preset: "test".into(),
        };
        let ports = AgentPorts {
            model: model.clone(),
            tools: runtime.ledger().tools(),
            blocks: Vec::new(),
            policy: Arc::new(Policy::new(
                Mode::Write,
                home.to_path_buf(),
                Vec::new(),
                None,
            )),
            gate: Arc::new(ThresholdGate { threshold: 0.8 }),
            compressor: None,
            learner: None,
        };
        let mut agent = Agent::new(config, ports, ContextChain::new(), Some(writer));
        model.nanos.store(0, Ordering::Relaxed);
        in_dialect.store(0, Ordering::Relaxed);
        let start = Instant::now();
        let report = rt.block_on(agent.run("Echo fifty times.", &mut |_| {}))?;
        let total = start.elapsed().as_nanos() as f64;
        anyhow::ensure!(
            report.outcome == Outcome::Done("All done.".into()),
            "the benchmark run ended with {:?}",
            report.outcome
        );
        let in_model = model.nanos.load(Ordering::Relaxed) as f64;
        let dialect = in_dialect.load(Ordering::Relaxed) as f64;
        // The first run warms the instances and the connection.
        if run > 0 {
            let turns = f64::from(report.turns);
            per_turn.push((total - in_model) / 1e6 / turns);
            with_dialect.push((total - in_model + dialect) / 1e6 / turns);
        }
    }
    rows.push(
        Figure {
            name: "loop_overhead_per_turn_excluding_dialect",
            unit: "ms",
            value: median(per_turn),
            baseline: None,
            goal_value: Some(1.0),
            goal_ratio: None,
        }
        .row(),
    )
    .context("cannot write the row")?;
    rows.push(
        Figure {
            name: "loop_overhead_per_turn_with_dialect",
            unit: "ms",
            value: median(with_dialect),
            baseline: None,
            goal_value: None,
            goal_ratio: None,
        }
        .row(),
    )
    .context("cannot write the row")
}
