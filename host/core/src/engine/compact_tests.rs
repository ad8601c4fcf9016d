//! The tests of `compact.rs`, beside it: most of its lines were tests.

use std::path::Path;
use std::sync::{Arc, Mutex};

use super::super::{AgentConfig, AgentPorts, ContextChain, Mode, Outcome};
use super::*;
use crate::compress::pipeline::fake::{text, FakeModel, Reply};
use crate::compress::{prompts, CompressorSettings, ModelCompressor};
use crate::context::ContextSnapshot;
use crate::policy::Policy;
use crate::ports::dialect::{Part, ToolCall};
use crate::ports::CompressionStats;
use crate::ports::{
    BoxFuture, Compressor, Learner, PortError, ThresholdGate, Tool, ToolError, ToolOutput, ToolSpec,
};
use crate::session::{self, SessionWriter};

const WINDOW: u64 = 1000;
/// What every fake reply reports as counted: over the 0.8 threshold.
const FULL: u64 = 950;
const EXTRACT_NOTHING: &str = "{\"memories\": [], \"skills\": []}";
const EXTRACT_ONE: &str = "{\"memories\": [{\"type\": \"decision\", \"title\": \"t\", \"content\": \"use blake3\"}], \"skills\": []}";

/// A small fake of the Tool port: a read-only tool that says ok.
struct Echo(ToolSpec);

impl Tool for Echo {
    fn spec(&self) -> &ToolSpec {
        &self.0
    }
    fn call(&self, _args: &serde_json::Value) -> Result<ToolOutput, ToolError> {
        Ok(ToolOutput {
            content: "ok".into(),
            meta: None,
            images: Vec::new(),
        })
    }
}

fn echo() -> Arc<dyn Tool> {
    Arc::new(Echo(ToolSpec {
        name: "echo".into(),
        description: "says ok".into(),
        input_schema: serde_json::json!({"type": "object"}),
        read_only: true,
        gated_by_exec: false,
        approval_group: None,
    }))
}

fn calls(n: u32) -> Reply {
    Reply::Calls(vec![ToolCall {
        id: format!("c{n}"),
        name: "echo".into(),
        arguments: format!("{{\"n\":{n}}}"),
    }])
}

/// A small fake of the Learner port: keeps what it is given, or fails.
#[derive(Default)]
struct Recorder {
    applied: Mutex<Vec<LearnOps>>,
    fail: bool,
}

impl Learner for Recorder {
    fn apply(&self, ops: &LearnOps) -> Result<LearnReport, PortError> {
        if self.fail {
            return Err(PortError("the memory store is read-only".into()));
        }
        self.applied.lock().unwrap().push(ops.clone());
        Ok(LearnReport {
            memories_written: ops.memory_ops.len(),
            skills_written: ops.skill_ops.len(),
        })
    }
}

struct Setup {
    system: String,
    compress: bool,
    learner: Option<Arc<dyn Learner>>,
}

impl Default for Setup {
    fn default() -> Self {
        Setup {
            system: "sys".into(),
            compress: true,
            learner: None,
        }
    }
}

/// An agent over one fake model, which also serves the compressor
/// (window 1000, target 0.5, threshold 0.8), recording into `path`.
fn agent(replies: Vec<Reply>, setup: Setup, path: &Path) -> (Agent, Arc<FakeModel>) {
    let model = Arc::new(FakeModel::new(replies, FULL));
    let compressor: Option<Arc<dyn Compressor>> = setup.compress.then(|| {
        Arc::new(ModelCompressor::new(
            model.clone(),
            CompressorSettings::new("openai-chat", "m", WINDOW),
        )) as Arc<dyn Compressor>
    });
    let config = AgentConfig {
        model: "m".into(),
        flavor: "openai-chat".into(),
        context_window: WINDOW,
        max_tool_iterations: 20,
        confirm: None,
        max_tokens: None,
        temperature: None,
        system_prompt: setup.system,
        workspace: None,
        price: None,
        max_budget_usd: None,
        images: false,
        preset: "test".into(),
    };
    let ports = AgentPorts {
        model: model.clone(),
        tools: vec![echo()],
        blocks: Vec::new(),
        policy: Arc::new(Policy::new(Mode::Write, "/ws".into(), Vec::new(), None)),
        gate: Arc::new(ThresholdGate { threshold: 0.8 }),
        compressor,
        learner: setup.learner,
    };
    let session = SessionWriter::open(path).unwrap();
    (
        Agent::new(config, ports, ContextChain::new(), Some(session)),
        model,
    )
}

/// The events that matter here, as short tags.
fn tags(events: &[AgentEvent]) -> Vec<String> {
    events
        .iter()
        .filter_map(|e| match e {
            AgentEvent::TurnStarted { turn, .. } => Some(format!("turn {turn}")),
            AgentEvent::CompactionStarted { .. } => Some("started".into()),
            AgentEvent::CompactionCompleted { .. } => Some("completed".into()),
            AgentEvent::CompactionFailed { .. } => Some("failed".into()),
            AgentEvent::Warning { message } => Some(format!("warning: {message}")),
            _ => None,
        })
        .collect()
}

fn failures(events: &[AgentEvent]) -> Vec<String> {
    events
        .iter()
        .filter_map(|e| match e {
            AgentEvent::CompactionFailed { reason } => Some(reason.clone()),
            _ => None,
        })
        .collect()
}

async fn run(agent: &mut Agent, prompt: &str) -> (Outcome, Vec<AgentEvent>) {
    let mut events = Vec::new();
    let report = agent.run(prompt, &mut |e| events.push(e)).await.unwrap();
    (report.outcome, events)
}

/// "first" → "one" fills the window; "second" passes the gate.
fn two_runs(classify: &str, extract: &str) -> Vec<Reply> {
    vec![text("one"), text(classify), text(extract), text("two")]
}

#[tokio::test]
async fn a_compression_rebuilds_the_context_learns_and_the_session_replays_it() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s1.jsonl");
    let learner = Arc::new(Recorder::default());
    let setup = Setup {
        learner: Some(learner.clone()),
        ..Setup::default()
    };
    let replies = two_runs(
        "{\"prune\": [1, 2], \"summary\": \"The user said first.\"}",
        EXTRACT_ONE,
    );
    let (mut agent, model) = agent(replies, setup, &path);
    run(&mut agent, &"first ".repeat(100)).await;
    let (outcome, events) = run(&mut agent, "second").await;
    assert_eq!(outcome, Outcome::Done("two".into()));
    assert_eq!(tags(&events), ["started", "completed", "turn 1"]);
    let compacted = vec![
        Message::text(Role::System, "sys"),
        Message::text(
            Role::User,
            "[amber] This conversation was compacted to fit the model's context window: \
             2 earlier segments of it were removed.\n\nWhat the compacted part held, in brief:\n\
             The user said first.",
        ),
        Message::text(Role::User, "second"),
    ];
    // The next turn's request holds the compressed set.
    let sent = model.sent();
    assert_eq!(sent.len(), 4);
    assert_eq!(sent[3].messages, compacted);
    let mut expected = compacted.clone();
    expected.push(Message::text(Role::Assistant, "two"));
    assert_eq!(agent.context().get_all(), expected);
    // The clear and every push are in the session: it replays to the
    // same chain, every link verified.
    let resumed = session::resume(&path).unwrap();
    assert_eq!(resumed.chain.get_all(), expected);
    assert_eq!(resumed.chain.head(), agent.context().head());
    match &events[1] {
        AgentEvent::CompactionCompleted {
            stats,
            memories,
            skills,
        } => {
            assert!(stats.tokens_after < stats.tokens_before);
            assert_eq!((stats.kept, stats.collapsed, stats.pruned), (1, 0, 2));
            assert_eq!((*memories, *skills), (1, 0));
        }
        other => panic!("{other:?}"),
    }
    match &events[0] {
        AgentEvent::CompactionStarted {
            trigger,
            tokens,
            window,
            focus,
        } => {
            assert_eq!(*trigger, CompactionTrigger::Auto);
            assert!(*tokens >= FULL);
            assert_eq!((*window, focus.as_deref()), (WINDOW, None));
        }
        other => panic!("{other:?}"),
    }
    let applied = learner.applied.lock().unwrap();
    assert_eq!(applied.len(), 1);
    assert_eq!(applied[0].session_id.as_deref(), Some("s1"));
    assert_eq!(applied[0].model, "m");
    assert_eq!(applied[0].memory_ops[0].content, "use blake3");
}

#[tokio::test]
async fn the_extract_request_starts_with_the_classify_requests_messages_byte_for_byte() {
    let dir = tempfile::tempdir().unwrap();
    let replies = two_runs("{\"context\": []}", EXTRACT_NOTHING);
    let (mut agent, model) = agent(replies, Setup::default(), &dir.path().join("s.jsonl"));
    run(&mut agent, "first").await;
    run(&mut agent, "second").await;
    let sent = model.sent();
    let (classify, extract) = (&sent[1], &sent[2]);
    let n = classify.messages.len();
    let bytes = |m: &[Message]| serde_json::to_vec(m).unwrap();
    assert_eq!(bytes(&extract.messages[..n]), bytes(&classify.messages));
    assert_eq!(extract.messages.len(), n + 1);
    assert_eq!(
        (&classify.tools, classify.cache_breakpoint),
        (&extract.tools, extract.cache_breakpoint)
    );
    assert_eq!(classify.cache_breakpoint, Some(n as u32 - 1));
    let Part::Text { text } = &extract.messages[n].parts[0] else {
        panic!("not text")
    };
    assert_eq!(text, prompts::extract().unwrap().text);
}

#[tokio::test]
async fn malformed_classify_json_leaves_the_context_untouched_and_the_run_goes_on() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.jsonl");
    let replies = vec![
        text("one"),
        text("I think segment 2 is noise."),
        text("two"),
    ];
    let (mut agent, model) = agent(replies, Setup::default(), &path);
    run(&mut agent, "first").await;
    let before = agent.context().get_all().to_vec();
    let (outcome, events) = run(&mut agent, "second").await;
    assert_eq!(outcome, Outcome::Done("two".into()));
    // One event says why; no extract request was sent.
    assert_eq!(tags(&events), ["started", "failed", "turn 1"]);
    assert!(
        failures(&events)[0].starts_with("the classify reply is not JSON, even after one repair"),
        "{events:?}"
    );
    assert_eq!(model.sent().len(), 3);
    assert_eq!(agent.context().get_all()[..before.len()], before[..]);
    assert_eq!(agent.context().len(), before.len() + 2);
    let resumed = session::resume(&path).unwrap();
    assert_eq!(resumed.chain.head(), agent.context().head());
}

#[tokio::test]
async fn a_compressed_set_still_over_the_target_fails_and_changes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    // The system message alone is over half the window.
    let setup = Setup {
        system: "s".repeat(2400),
        ..Setup::default()
    };
    let replies = two_runs("{\"prune\": [1, 2]}", EXTRACT_NOTHING);
    let (mut agent, _) = agent(replies, setup, &dir.path().join("s.jsonl"));
    run(&mut agent, "first").await;
    let before = agent.context().get_all().to_vec();
    let (outcome, events) = run(&mut agent, "second").await;
    assert_eq!(outcome, Outcome::Done("two".into()));
    assert_eq!(tags(&events), ["started", "failed", "turn 1"]);
    let reason = &failures(&events)[0];
    assert!(
        reason.starts_with("the compressed context would still be ")
            && reason.contains("over the target of 500 (50% of the window)"),
        "{reason}"
    );
    assert_eq!(agent.context().get_all()[..before.len()], before[..]);
}

#[tokio::test]
async fn three_failures_in_a_row_turn_compression_off_with_one_warning() {
    let dir = tempfile::tempdir().unwrap();
    let replies = vec![
        calls(1),
        text("nope"),
        calls(2),
        text("nope"),
        calls(3),
        text("nope"),
        calls(4),
        text("done"),
        // The next run tries again.
        text("nope"),
        text("again"),
    ];
    let (mut agent, _) = agent(replies, Setup::default(), &dir.path().join("s.jsonl"));
    let (outcome, events) = run(&mut agent, "go").await;
    assert_eq!(outcome, Outcome::Done("done".into()));
    assert_eq!(
        tags(&events),
        [
            "turn 1",
            "started",
            "failed",
            "turn 2",
            "started",
            "failed",
            "turn 3",
            "started",
            "failed",
            "warning: compression failed 3 times in a row; it is off for the rest of this run (/compact still works)",
            "turn 4",
            "turn 5",
        ]
    );
    let (outcome, events) = run(&mut agent, "more").await;
    assert_eq!(outcome, Outcome::Done("again".into()));
    assert_eq!(tags(&events), ["started", "failed", "turn 1"]);
}

#[tokio::test]
async fn the_gate_does_not_fire_on_the_turn_right_after_a_compression() {
    let dir = tempfile::tempdir().unwrap();
    let replies = vec![
        calls(1),
        text("{\"context\": []}"),
        text(EXTRACT_NOTHING),
        calls(2),
        // Over the threshold again, but the gate rests.
        calls(3),
        text("{\"context\": []}"),
        text(EXTRACT_NOTHING),
        text("done"),
    ];
    let (mut agent, _) = agent(replies, Setup::default(), &dir.path().join("s.jsonl"));
    let (outcome, events) = run(&mut agent, "go").await;
    assert_eq!(outcome, Outcome::Done("done".into()));
    assert_eq!(
        tags(&events),
        [
            "turn 1",
            "started",
            "completed",
            "turn 2",
            "turn 3",
            "started",
            "completed",
            "turn 4"
        ]
    );
}

#[tokio::test]
async fn compact_now_compresses_whatever_the_gate_says_with_the_focus() {
    let dir = tempfile::tempdir().unwrap();
    let replies = vec![
        text("one"),
        text("{\"context\": []}"),
        text(EXTRACT_NOTHING),
    ];
    let (mut agent, model) = agent(replies, Setup::default(), &dir.path().join("s.jsonl"));
    run(&mut agent, "first").await;
    agent.set_gate(Arc::new(ThresholdGate { threshold: 2.0 }));
    let mut events = Vec::new();
    let outcome = agent
        .compact_now(Some("the parser"), &mut |e| events.push(e))
        .await
        .unwrap();
    match outcome {
        CompactionOutcome::Completed { stats, learned } => {
            assert_eq!((stats.kept, stats.pruned), (2, 0));
            assert_eq!(learned, LearnReport::default());
        }
        other => panic!("{other:?}"),
    }
    assert!(matches!(
        &events[0],
        AgentEvent::CompactionStarted { trigger: CompactionTrigger::Manual, focus: Some(f), .. } if f == "the parser"
    ));
    let sent = model.sent();
    let Part::Text { text } = &sent[1].messages[2].parts[0] else {
        panic!("not text")
    };
    assert!(text.contains("focused on: the parser"));
}

#[tokio::test]
async fn without_a_compressor_the_gate_warns_once_and_compact_now_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let setup = Setup {
        compress: false,
        ..Setup::default()
    };
    let replies = vec![calls(1), calls(2), text("done")];
    let (mut agent, _) = agent(replies, setup, &dir.path().join("s.jsonl"));
    let (_, events) = run(&mut agent, "go").await;
    let warnings: Vec<String> = tags(&events)
        .into_iter()
        .filter(|t| t.starts_with("warning"))
        .collect();
    assert_eq!(warnings.len(), 1);
    assert!(warnings[0].contains("compression is off; going on uncompressed"));
    let mut events = Vec::new();
    let outcome = agent
        .compact_now(None, &mut |e| events.push(e))
        .await
        .unwrap();
    assert_eq!(outcome, CompactionOutcome::Unavailable);
    assert!(events.is_empty());
}

#[tokio::test]
async fn a_failing_learner_costs_the_memories_not_the_compression() {
    let dir = tempfile::tempdir().unwrap();
    let setup = Setup {
        learner: Some(Arc::new(Recorder {
            fail: true,
            ..Recorder::default()
        })),
        ..Setup::default()
    };
    let replies = two_runs("{\"context\": []}", EXTRACT_ONE);
    let (mut agent, _) = agent(replies, setup, &dir.path().join("s.jsonl"));
    run(&mut agent, "first").await;
    let (_, events) = run(&mut agent, "second").await;
    assert_eq!(
        tags(&events),
        [
            "started",
            "warning: the context was compacted, but what it taught was not kept: the memory store is read-only",
            "completed",
            "turn 1"
        ]
    );
    assert!(matches!(
        events[2],
        AgentEvent::CompactionCompleted { memories: 0, .. }
    ));
}

/// A small fake of the Compressor port that drops a tool result.
struct Careless;

impl Compressor for Careless {
    fn compress<'a>(
        &'a self,
        snapshot: &'a ContextSnapshot,
        _focus: Option<&'a str>,
    ) -> BoxFuture<'a, Result<CompressionResult, CompressionError>> {
        Box::pin(async move {
            let messages: Vec<Message> = snapshot
                .messages
                .iter()
                .filter(|m| m.role != Role::Tool)
                .cloned()
                .collect();
            Ok(CompressionResult {
                messages,
                memory_ops: Vec::new(),
                skill_ops: Vec::new(),
                stats: CompressionStats::default(),
            })
        })
    }
}

#[tokio::test]
async fn a_compressed_set_that_separates_a_call_from_its_result_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let (mut agent, _) = agent(
        vec![calls(1), text("done")],
        Setup::default(),
        &dir.path().join("s.jsonl"),
    );
    agent.set_compressor(Some(Arc::new(Careless)));
    let (_, events) = run(&mut agent, "go").await;
    assert_eq!(
        failures(&events),
        ["the compressed set is not a valid context: tool call c1 was separated from its result"]
    );
    assert_eq!(agent.context().len(), 5);
}

#[tokio::test]
async fn context_tokens_are_the_providers_count_plus_an_estimate_of_what_came_after() {
    let dir = tempfile::tempdir().unwrap();
    let (mut agent, _) = agent(
        vec![text("one")],
        Setup::default(),
        &dir.path().join("s.jsonl"),
    );
    // Before any reply: all estimated.
    agent
        .record_turn(vec![Message::text(Role::System, "sys")])
        .unwrap();
    assert_eq!(
        agent.context_usage().tokens,
        crate::compress::tokens::estimate_all(agent.context().get_all())
    );
    run(&mut agent, "first").await;
    let usage = agent.context_usage();
    assert_eq!(
        (usage.tokens, usage.window, usage.utilisation()),
        (FULL, WINDOW, 0.95)
    );
    let more = Message::text(Role::User, "and one more thing");
    agent.record_turn(vec![more.clone()]).unwrap();
    assert_eq!(
        agent.context_usage().tokens,
        FULL + crate::compress::tokens::count(&more)
    );
}

/// A small fake of the Hook port: answers every event of `event`
/// with `decision`.
struct FixedHook(crate::hooks::HookSpec, crate::hooks::Decision);

impl crate::hooks::Hook for FixedHook {
    fn spec(&self) -> &crate::hooks::HookSpec {
        &self.0
    }
    fn handle(
        &self,
        _ctx: &crate::hooks::HookContext,
        _payload: &crate::hooks::Payload,
    ) -> Result<crate::hooks::Decision, PortError> {
        Ok(self.1.clone())
    }
}

fn with_hooks(
    agent: Agent,
    hooks: Vec<(crate::hooks::HookEvent, crate::hooks::Decision)>,
) -> (Agent, Arc<crate::hooks::HookRunner>) {
    let ledger = Arc::new(crate::Ledger::new());
    for (event, decision) in hooks {
        let spec = crate::hooks::HookSpec::new("h", event, crate::hooks::Matcher::any());
        ledger
            .install(
                &crate::Owner::Plugin("h".into()),
                crate::Service::Hook(Arc::new(FixedHook(spec, decision))),
            )
            .unwrap();
    }
    let runner = Arc::new(crate::hooks::HookRunner::new(ledger, "s".into(), None));
    (agent.with_hooks(Some(runner.clone()), false), runner)
}

#[tokio::test]
async fn a_pre_compact_hook_skips_an_automatic_compaction() {
    let dir = tempfile::tempdir().unwrap();
    let replies = vec![text("one"), text("two")];
    let (agent, model) = agent(replies, Setup::default(), &dir.path().join("s.jsonl"));
    let (mut agent, _) = with_hooks(
        agent,
        vec![(
            crate::hooks::HookEvent::PreCompact,
            crate::hooks::Decision::Skip("mid-refactor".into()),
        )],
    );
    run(&mut agent, &"first ".repeat(100)).await;
    let (outcome, events) = run(&mut agent, "second").await;
    assert_eq!(outcome, Outcome::Done("two".into()));
    assert_eq!(
        tags(&events),
        [
            "warning: the automatic compaction was skipped by hook `h`: mid-refactor",
            "turn 1"
        ]
    );
    assert_eq!(model.sent().len(), 2, "no compression request was made");
}

#[tokio::test]
async fn compact_hooks_add_focus_words_and_context_for_the_next_prompt() {
    let dir = tempfile::tempdir().unwrap();
    let replies = vec![
        text("one"),
        text("{\"context\": []}"),
        text(EXTRACT_NOTHING),
        text("two"),
    ];
    let (agent, model) = agent(replies, Setup::default(), &dir.path().join("s.jsonl"));
    use crate::hooks::{Decision, HookEvent};
    let (mut agent, runner) = with_hooks(
        agent,
        vec![
            (HookEvent::PreCompact, Decision::Focus("auth".into())),
            (
                HookEvent::PostCompact,
                Decision::Context("tests pass".into()),
            ),
        ],
    );
    run(&mut agent, "first").await;
    agent.set_gate(Arc::new(ThresholdGate { threshold: 2.0 }));
    let mut events = Vec::new();
    agent
        .compact_now(Some("the parser"), &mut |e| events.push(e))
        .await
        .unwrap();
    assert!(events.iter().any(|e| matches!(
        e,
        AgentEvent::CompactionStarted { focus: Some(f), .. } if f == "the parser auth"
    )));
    let fired: Vec<HookEvent> = events
        .iter()
        .filter_map(|e| match e {
            AgentEvent::Hook(o) => Some(o.event),
            _ => None,
        })
        .collect();
    assert_eq!(fired, [HookEvent::PreCompact, HookEvent::PostCompact]);
    run(&mut agent, "next").await;
    let sent = model.sent();
    let last = sent.last().unwrap().messages.last().unwrap();
    let said: Vec<&str> = last
        .parts
        .iter()
        .filter_map(|p| match p {
            Part::Text { text } => Some(text.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(said, ["[hook `h`] tests pass", "next"]);
    assert!(
        runner.take_outcomes().is_empty(),
        "every outcome was reported"
    );
}
