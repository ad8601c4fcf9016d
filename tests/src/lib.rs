//! amber-tests: hermetic end-to-end tests through real components built
//! from `guests/`, and (later) the fake LLM server.
//!
//! Every test gets its own home and workspace in a temporary directory
//! (the seed's "Regression" layer: contributions never leak between
//! tests). Compiled components are shared through one cache dir under
//! `target/`, as `AMBER_CACHE_DIR` allows.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "test support: a test fails by panicking"
)]

pub mod cli;
pub mod edits;
pub mod exec_env;
pub mod http_fixture;
/// The fake LLM server lives with the bench client, which the `amber`
/// binary links (`amber bench run`); the tests use it from there.
pub use amber_bench_client::fake_llm;
pub mod native_parsers;
pub mod processes;
pub mod requests;
pub mod sse;
pub mod tmux;

use std::path::{Path, PathBuf};
use std::sync::Arc;

use amber_core::Ledger;
use amber_runtime::{AmberDirs, Grants, PluginRuntime, RuntimeOptions};

/// The repository root.
pub fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_default()
}

pub mod guests;

pub use guests::{guest, guests_dir};

/// A scratch home and workspace, removed when dropped.
pub struct Scratch {
    pub dir: tempfile::TempDir,
    pub home: PathBuf,
    pub workspace: PathBuf,
}

impl Scratch {
    pub fn new() -> Self {
        let dir = tempfile::tempdir().expect("cannot create a temp dir");
        let home = dir.path().join("home");
        let workspace = dir.path().join("workspace");
        std::fs::create_dir_all(&home).expect("cannot create the home");
        std::fs::create_dir_all(&workspace).expect("cannot create the workspace");
        Scratch {
            dir,
            home,
            workspace,
        }
    }

    /// Dirs under the scratch home, sharing the compiled-code cache.
    pub fn dirs(&self) -> AmberDirs {
        let mut dirs = AmberDirs::under(&self.home);
        dirs.cache = repo_root().join("target/test-cache");
        dirs
    }

    pub fn options(&self) -> RuntimeOptions {
        RuntimeOptions::new(self.dirs(), self.workspace.clone())
    }

    /// A runtime with its own ledger.
    pub fn runtime(&self) -> PluginRuntime {
        self.runtime_with(self.options())
    }

    pub fn runtime_with(&self, options: RuntimeOptions) -> PluginRuntime {
        PluginRuntime::new(options, Arc::new(Ledger::new())).expect("the runtime starts")
    }
}

impl Default for Scratch {
    fn default() -> Self {
        Self::new()
    }
}

/// Registers and enables `guest` with `grants`; returns its id.
pub fn enable(runtime: &PluginRuntime, guest_name: &str, grants: Grants) -> String {
    let (id, _) = runtime
        .register_file(&guest(guest_name))
        .unwrap_or_else(|e| panic!("cannot register {guest_name}: {e}"));
    runtime
        .enable(&id, grants)
        .unwrap_or_else(|e| panic!("cannot enable {guest_name}: {e}"));
    id
}

/// Calls tool `name` through the runtime's ledger, as dispatch will.
pub fn call_tool(
    runtime: &PluginRuntime,
    name: &str,
    args: serde_json::Value,
) -> Result<String, String> {
    let tool = runtime
        .ledger()
        .tool(name)
        .ok_or_else(|| format!("no tool `{name}` is installed"))?;
    tool.call(&args)
        .map(|o| o.content)
        .map_err(|e| e.to_string())
}

/// A provider component's dialect for `flavor`, through the real runtime.
/// Keep the runtime alive as long as the dialect is used.
pub fn dialect(
    guest_name: &str,
    flavor: &str,
) -> (
    Scratch,
    PluginRuntime,
    std::sync::Arc<dyn amber_core::ports::Dialect>,
) {
    let scratch = Scratch::new();
    let runtime = scratch.runtime();
    enable(&runtime, guest_name, Grants::none());
    let dialect = runtime
        .ledger()
        .provider(flavor)
        .unwrap_or_else(|| panic!("{guest_name} does not provide flavor `{flavor}`"));
    (scratch, runtime, dialect)
}

/// What a stream decoded to, assembled the way the engine will.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct Decoded {
    pub text: String,
    pub reasoning: Vec<amber_core::ports::dialect::Reasoning>,
    /// (id, name, arguments) in index order.
    pub tool_calls: Vec<(String, String, String)>,
    /// Indexes whose ToolCallEnd arrived.
    pub ended: Vec<u32>,
    pub usage: Option<amber_core::ports::dialect::Usage>,
    pub stop: Option<amber_core::ports::dialect::StopReason>,
    pub errors: Vec<(String, String, bool)>,
    /// Chunks other than text and argument deltas, which the SDK joins
    /// when they arrive in one batch, so their count depends on batching.
    pub chunks: usize,
}

/// Decodes `events` in batches of `batch` through `dialect` and assembles
/// the chunks.
pub fn decode_all(
    dialect: &dyn amber_core::ports::Dialect,
    events: &[amber_core::ports::dialect::SseEvent],
    batch: usize,
) -> Decoded {
    use amber_core::ports::dialect::StreamChunk;
    let mut decoder = dialect.decoder().expect("a decoder");
    let mut chunks = Vec::new();
    for part in events.chunks(batch.max(1)) {
        chunks.extend(decoder.decode(part).expect("decode does not fail"));
    }
    chunks.extend(decoder.finish().expect("finish does not fail"));
    let joinable = |c: &StreamChunk| {
        matches!(
            c,
            StreamChunk::TextDelta(_) | StreamChunk::ToolCallDelta { .. }
        )
    };
    let mut out = Decoded {
        chunks: chunks.iter().filter(|c| !joinable(c)).count(),
        ..Decoded::default()
    };
    let mut calls: std::collections::BTreeMap<u32, (String, String, String)> = Default::default();
    for chunk in chunks {
        match chunk {
            StreamChunk::TextDelta(t) => out.text.push_str(&t),
            StreamChunk::ReasoningDelta(r) => merge_reasoning(&mut out.reasoning, r),
            StreamChunk::ToolCallStart { index, id, name } => {
                calls.insert(index, (id, name, String::new()));
            }
            StreamChunk::ToolCallDelta { index, arguments } => {
                calls.entry(index).or_default().2.push_str(&arguments);
            }
            StreamChunk::ToolCallEnd(index) => out.ended.push(index),
            StreamChunk::Usage(u) => out.usage = Some(u),
            StreamChunk::Stop(s) => out.stop = Some(s),
            StreamChunk::Error {
                kind,
                message,
                retryable,
            } => out.errors.push((kind, message, retryable)),
            // A dialect never yields one; only the wire client does.
            StreamChunk::Restart { .. } => unreachable!("a dialect yielded a restart"),
        }
    }
    out.tool_calls = calls.into_values().collect();
    out
}

/// Reasoning deltas with the same id (or, without ids, consecutive ones)
/// make one block; signature and encrypted content attach to it.
fn merge_reasoning(
    blocks: &mut Vec<amber_core::ports::dialect::Reasoning>,
    delta: amber_core::ports::dialect::Reasoning,
) {
    let same = blocks.last().is_some_and(|last| {
        last.id == delta.id && last.signature.is_none() && last.encrypted.is_none()
    });
    match blocks.last_mut() {
        Some(last) if same => {
            last.text.push_str(&delta.text);
            last.signature = delta.signature.or(last.signature.take());
            last.encrypted = delta.encrypted.or(last.encrypted.take());
        }
        _ => blocks.push(delta),
    }
}
