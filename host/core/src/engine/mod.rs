//! The agent. Seed: "Agent loop", every arrow: the history starts with a
//! system message; each iteration (under `max_tool_iterations`) passes the
//! compression gate, assembles a prompt copy, streams one model call and
//! parses its tool calls; with none, a silent confirm turn ("are you
//! finished?") ends the run or continues it; with some, they are
//! dispatched and one tool-role message per call is pushed, in order.
//!
//! The agent is the context's single owner: it alone pushes, pops and
//! clears, and every change is recorded in the session as it happens, with
//! a head record (and an fsync) at the end of each turn.

pub mod assemble;
mod compact;
mod compaction_state;
pub mod dispatch;
pub mod envelope;
pub mod events;
mod hooked;
mod images;
pub mod instructions;
mod interrupt;
pub mod plan;
pub mod recovery;
pub mod side_events;
pub mod task;
pub mod todo;
pub mod tool_search;

use std::sync::Arc;

use tokio_util::sync::CancellationToken;

pub use compaction_state::{CompactionOutcome, MAX_COMPACTION_FAILURES};
pub use dispatch::{Dispatcher, Mode};
pub use envelope::{Envelope, Status};
pub use events::{AgentEvent, CompactionTrigger, DeltaKind, EventSink, FailureKind};
pub use interrupt::Interrupt;

use crate::context::ContextChain;
use crate::hooks::HookRunner;
use crate::policy::Policy;
use crate::ports::dialect::{
    ChatRequest, Message, ModelReply, Part, Reasoning, Role, StopReason, StreamChunk, ToolCall,
    ToolDecl, Usage,
};
use crate::ports::{
    CompressionGate, Compressor, ContextUsage, FileChange, Image, ImagePrep, Learner, ModelClient,
    ModelError, ModelErrorKind, PromptBlock, RenderContext, Tool,
};
use crate::session::{SessionError, SessionWriter};
use assemble::{assemble, render_blocks, Rendered};
use compaction_state::CompactionState;
use recovery::{Recovery, Verdict};

/// The default silent confirm question.
pub const CONFIRM_PROMPT: &str = "Are you finished? If the task is done, reply with just DONE. \
     If not, continue working with the tools.";

pub const DEFAULT_MAX_TOOL_ITERATIONS: u32 = 100;

#[derive(Debug, Clone)]
pub struct AgentConfig {
    pub model: String,
    pub flavor: String,
    /// The model's context window in tokens, from its preset (0: unknown).
    pub context_window: u64,
    /// Model calls per run, confirm turns included.
    pub max_tool_iterations: u32,
    /// The confirm question; `None` turns the confirm turn off.
    pub confirm: Option<String>,
    pub max_tokens: Option<u32>,
    pub temperature: Option<f32>,
    /// The system prompt for a history that has none yet.
    pub system_prompt: String,
    /// The workspace root, for prompt blocks and approval requests.
    pub workspace: Option<String>,
    /// The model's price, when config has one: each call's cost.
    pub price: Option<Price>,
    /// The run stops before a model call that would spend more than
    /// this many US dollars.
    pub max_budget_usd: Option<f64>,
    /// Whether the model takes images, as its preset says: a prompt with
    /// images to one that does not is refused before anything is sent,
    /// and a tool's images are described to it instead (docs/images.md).
    pub images: bool,
    /// The preset the model is reached through, for messages to name.
    pub preset: String,
}

/// The ports the agent drives.
pub struct AgentPorts {
    pub model: Arc<dyn ModelClient>,
    pub tools: Vec<Arc<dyn Tool>>,
    pub blocks: Vec<Arc<dyn PromptBlock>>,
    /// The mode, rules, session grants and approval handler.
    pub policy: Arc<Policy>,
    pub gate: Arc<dyn CompressionGate>,
    /// The compression pipeline (`compress::ModelCompressor`); without
    /// one, a context over the threshold goes on uncompressed.
    pub compressor: Option<Arc<dyn Compressor>>,
    /// Stores what a compression cycle learned (amber-memory); without
    /// one, it is not kept.
    pub learner: Option<Arc<dyn Learner>>,
}

pub use amber_protocol::{add_cost, dollars, Outcome, Price, RunReport};

/// What the provider counted for the context at the last model call: the
/// messages sent and the reply, which were the chain's first `covers`.
#[derive(Debug, Clone, Copy)]
struct Counted {
    tokens: u64,
    covers: usize,
}

#[derive(Debug, thiserror::Error)]
pub enum AgentError {
    #[error(transparent)]
    Session(#[from] SessionError),
}

pub struct Agent {
    config: AgentConfig,
    model: Arc<dyn ModelClient>,
    blocks: Vec<Arc<dyn PromptBlock>>,
    decls: Vec<ToolDecl>,
    dispatcher: Dispatcher,
    /// The followed ledger's [`crate::Ledger::agent_generation`] when the
    /// tools were last taken: a later one has tools that arrived since
    /// (an MCP server that answered late), declared from the next request.
    tools_seen: u64,
    gate: Arc<dyn CompressionGate>,
    compressor: Option<Arc<dyn Compressor>>,
    learner: Option<Arc<dyn Learner>>,
    compaction: CompactionState,
    counted: Option<Counted>,
    chain: ContextChain,
    session: Option<SessionWriter>,
    /// Records written since the last head record.
    unsealed: bool,
    /// The current run's token, taken from `interrupt` as the run starts.
    cancel: CancellationToken,
    interrupt: Interrupt,
    last_usage: Usage,
    /// Every model call of the session summed, resumed ones included: the
    /// counters a front end shows, recorded with each turn's head.
    total_usage: Usage,
    /// Their cost, while every call had a price.
    total_cost: Option<f64>,
    /// What calls outside the loop's own spent (sub-agents, compression)
    /// since the run report last took it.
    unreported: (Usage, Option<f64>),
    warned_no_compressor: bool,
    /// Warnings already reported this run.
    warned: std::collections::HashSet<String>,
    recovery: Recovery,
    /// Read coverage, when the host tracks it.
    reads: Option<Arc<dyn crate::ports::ReadTracker>>,
    /// Whose reads these are: `main`, or a sub-agent's id.
    agent_id: String,
    /// Said to the model once, before the next prompt (a resumed
    /// session's read-coverage digest).
    note: Option<String>,
    /// Images for the next prompt.
    attached: Vec<Image>,
    image_prep: Option<Arc<dyn ImagePrep>>,
    /// The session's hooks, when the host has any.
    hooks: Option<Arc<HookRunner>>,
    /// A sub-agent's hooks see its tool calls and its end
    /// (`subagent-stop`), not a session of its own.
    sub_agent: bool,
    /// `session-start` was fired for this agent.
    started: bool,
    /// Times in a row a stop hook has continued this run.
    stop_continues: u32,
    /// What commands did to guarded paths, shown at the end of each turn
    /// (a sub-agent has none: its parent's turn shows them).
    watch: Option<Arc<dyn crate::ports::WorkspaceWatch>>,
    /// What its tools report while they run (sub-agents, the todo
    /// list): the sender is handed to the tools, the receiver drained
    /// while calls run.
    side_tx: side_events::SideSender,
    side_rx: side_events::SideReceiver,
    /// The session's todo list, when it keeps one.
    todos: Option<Arc<todo::TodoList>>,
    /// Keeps what a turn's calls change, for rewind.
    checkpoints: Option<Arc<dyn crate::ports::Checkpoints>>,
    /// Tool search, when the host defers tools that do not fit.
    deferral: Option<Deferral>,
    /// Successful calls per tool this session, its sub-agents' too: what
    /// the host counts as most used.
    tool_uses: tool_search::ToolUses,
}

/// Tool search in force: how to arrange, the shelf and its tool, and the
/// declarations the last arrangement kept in full (`None`: all fit).
struct Deferral {
    settings: tool_search::DeferralSettings,
    shelf: Arc<tool_search::Shelf>,
    tool: Arc<tool_search::ToolSearchTool>,
    offered: Option<Vec<ToolDecl>>,
}

/// What the model is told of `tools`.
pub fn declarations(tools: &[Arc<dyn Tool>]) -> Vec<ToolDecl> {
    tools
        .iter()
        .map(|t| {
            let spec = t.spec();
            ToolDecl {
                name: spec.name.clone(),
                description: spec.description.clone(),
                input_schema: spec.input_schema.clone(),
            }
        })
        .collect()
}

impl Agent {
    /// An agent over `chain` (empty, or resumed), recording into `session`.
    pub fn new(
        config: AgentConfig,
        ports: AgentPorts,
        chain: ContextChain,
        session: Option<SessionWriter>,
    ) -> Self {
        let decls = declarations(&ports.tools);
        let dispatcher = Dispatcher::new(&ports.tools, ports.policy);
        let (side_tx, side_rx) = side_events::side_channel();
        Agent {
            config,
            model: ports.model,
            blocks: ports.blocks,
            decls,
            dispatcher,
            tools_seen: 0,
            gate: ports.gate,
            compressor: ports.compressor,
            learner: ports.learner,
            compaction: CompactionState::default(),
            counted: None,
            chain,
            session,
            unsealed: false,
            cancel: CancellationToken::new(),
            interrupt: Interrupt::default(),
            last_usage: Usage::default(),
            total_usage: Usage::default(),
            total_cost: Some(0.0),
            unreported: (Usage::default(), Some(0.0)),
            warned_no_compressor: false,
            warned: Default::default(),
            recovery: Recovery::default(),
            reads: None,
            watch: None,
            agent_id: "main".into(),
            note: None,
            attached: Vec::new(),
            image_prep: None,
            hooks: None,
            sub_agent: false,
            started: false,
            stop_continues: 0,
            side_tx,
            side_rx,
            todos: None,
            checkpoints: None,
            deferral: None,
            tool_uses: Default::default(),
        }
    }

    /// Keeps what its turns change in `checkpoints` (docs/checkpoints.md).
    pub fn with_checkpoints(
        mut self,
        checkpoints: Option<Arc<dyn crate::ports::Checkpoints>>,
    ) -> Self {
        self.checkpoints = checkpoints;
        self
    }

    /// Its tools report through this channel (made before the tools, so
    /// they could be given its sender).
    pub fn with_side_channel(
        mut self,
        (tx, rx): (side_events::SideSender, side_events::SideReceiver),
    ) -> Self {
        self.side_tx = tx;
        self.side_rx = rx;
        self
    }

    /// Where its tools send what they report, for tools made later.
    pub fn side_sender(&self) -> side_events::SideSender {
        self.side_tx.clone()
    }

    /// Keeps `todos` in the session (its tools are among the agent's).
    pub fn with_todos(mut self, todos: Option<Arc<todo::TodoList>>) -> Self {
        self.todos = todos;
        self
    }

    /// The session's todo list, if it keeps one.
    pub fn todos(&self) -> Option<&Arc<todo::TodoList>> {
        self.todos.as_ref()
    }

    /// Its events go to `hooks` (docs/hooks.md); a sub-agent's
    /// (`sub_agent`) are its tool calls and its end. Set after
    /// [`Self::with_reads`], whose agent id the hooks are told.
    pub fn with_hooks(mut self, hooks: Option<Arc<HookRunner>>, sub_agent: bool) -> Self {
        // The runner is the parent's too: a sub-agent's own session does
        // not rename the one its hooks are told of.
        if let (Some(hooks), Some(id), false) = (&hooks, self.session_id(), sub_agent) {
            hooks.set_session(id);
        }
        self.dispatcher
            .hook(hooks.clone().map(|h| (h, self.agent_id.clone())));
        self.hooks = hooks;
        self.sub_agent = sub_agent;
        self
    }

    /// Shows what commands did to guarded paths at the end of each turn.
    pub fn with_workspace_watch(
        mut self,
        watch: Option<Arc<dyn crate::ports::WorkspaceWatch>>,
    ) -> Self {
        self.watch = watch;
        self
    }

    /// The hooks, for the sub-agents it starts.
    pub fn hooks(&self) -> Option<&Arc<HookRunner>> {
        self.hooks.as_ref()
    }

    /// Runs under `token` instead of a token of its own (a sub-agent takes
    /// a child of its parent's).
    pub fn with_cancel(mut self, token: CancellationToken) -> Self {
        self.interrupt = Interrupt::new(token);
        self
    }

    /// Runs under `interrupt`, shared with the `task` tool, so a front end
    /// with many runs can renew it after an interrupted one.
    pub fn with_interrupt(mut self, interrupt: Interrupt) -> Self {
        self.interrupt = interrupt;
        self
    }

    /// Tools the host may defer wait behind `tool_search` whenever the
    /// declarations would take more than `settings.defer_over` of the
    /// window ([`tool_search`]).
    pub fn with_tool_search(mut self, settings: tool_search::DeferralSettings) -> Self {
        let shelf = Arc::new(tool_search::Shelf::default());
        let tool = Arc::new(tool_search::ToolSearchTool::new(shelf.clone()));
        self.dispatcher.add(&[tool.clone() as Arc<dyn Tool>]);
        self.deferral = Some(Deferral {
            settings,
            shelf,
            tool,
            offered: None,
        });
        self.arrange_tools();
        self
    }

    /// Splits the declarations anew (the tools or the window changed).
    /// A narrowing in force (a skill, a custom agent's list) limits what
    /// a search finds to what it allows.
    fn arrange_tools(&mut self) {
        let window = self.config.context_window;
        let narrowing = self.policy().narrowing();
        let allows = |name: &str| narrowing.as_ref().is_none_or(|n| n.allows(name));
        let visible: Option<&dyn Fn(&str) -> bool> = narrowing.as_ref().map(|_| &allows as _);
        if let Some(deferral) = self.deferral.as_mut() {
            deferral.offered =
                deferral
                    .shelf
                    .arrange(&self.decls, window, &deferral.settings, visible);
        }
    }

    /// What the next request declares: every tool, or those kept in full,
    /// `tool_search`, and what searches found.
    fn declared(&self) -> Vec<ToolDecl> {
        match &self.deferral {
            Some(Deferral {
                offered: Some(offered),
                shelf,
                tool,
                ..
            }) => {
                let mut declared = offered.clone();
                declared.push(tool.decl());
                declared.extend(shelf.found());
                declared
            }
            _ => self.decls.clone(),
        }
    }

    /// Which tools the next request declares in full, which a search
    /// brought in, and which wait (`/tools`).
    pub fn tool_offer(&self) -> tool_search::ToolOffer {
        let names = |decls: &[ToolDecl]| decls.iter().map(|d| d.name.clone()).collect();
        match &self.deferral {
            Some(Deferral {
                offered: Some(offered),
                shelf,
                ..
            }) => tool_search::ToolOffer {
                offered: names(offered),
                found: names(&shelf.found()),
                deferred: shelf.deferred(),
            },
            _ => tool_search::ToolOffer {
                offered: names(&self.decls),
                ..Default::default()
            },
        }
    }

    /// How it defers tools, when it does: what its sub-agents defer by.
    pub fn tool_search_settings(&self) -> Option<tool_search::DeferralSettings> {
        self.deferral.as_ref().map(|d| d.settings.clone())
    }

    /// Successful calls per tool name in this session.
    pub fn tool_uses(&self) -> std::collections::BTreeMap<String, u64> {
        self.tool_uses
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }

    /// Its calls are counted in `uses` (a sub-agent's, in its parent's).
    pub fn with_tool_uses(mut self, uses: tool_search::ToolUses) -> Self {
        self.tool_uses = uses;
        self
    }

    /// Where its calls are counted.
    pub fn tool_uses_shared(&self) -> tool_search::ToolUses {
        self.tool_uses.clone()
    }

    /// Its tool calls' reads go to `reads`, as `agent_id`'s.
    pub fn with_reads(
        mut self,
        reads: Option<Arc<dyn crate::ports::ReadTracker>>,
        agent_id: impl Into<String>,
    ) -> Self {
        self.reads = reads;
        self.agent_id = agent_id.into();
        self
    }

    /// Images the person attached (`@shot.png`, `--image`), sent with
    /// the next prompt. A model without images refuses that prompt.
    pub fn attach_images(&mut self, images: Vec<Image>) {
        self.attached.extend(images);
    }

    /// What makes a tool's images ready to send (the host's `image`
    /// crate); without it they are sent as the tool gave them.
    pub fn with_image_prep(mut self, prep: Option<Arc<dyn ImagePrep>>) -> Self {
        self.image_prep = prep;
        self
    }

    /// `text` goes to the model once, ahead of the next prompt, in the
    /// same message (so the roles still alternate).
    pub fn note_before_next_prompt(&mut self, text: String) {
        // Notes add up: a resumed session's digest, then an attached
        // file, then a command the person ran, all before one prompt.
        self.note = Some(match self.note.take() {
            Some(before) => format!("{before}\n\n{text}"),
            None => text,
        });
    }

    /// The read tracker, for the sub-agents it starts.
    pub fn reads(&self) -> Option<&Arc<dyn crate::ports::ReadTracker>> {
        self.reads.as_ref()
    }

    /// What interrupts this session's runs.
    pub fn interrupt(&self) -> &Interrupt {
        &self.interrupt
    }

    /// The token that interrupts the run (Ctrl-C).
    pub fn cancel_token(&self) -> CancellationToken {
        self.interrupt.current()
    }

    /// The context, read-only.
    pub fn context(&self) -> &ContextChain {
        &self.chain
    }

    /// The settings of the run: model, window, iterations, temperature.
    pub fn config(&self) -> &AgentConfig {
        &self.config
    }

    /// The settings, for `/set` between turns: the next turn uses them.
    pub fn config_mut(&mut self) -> &mut AgentConfig {
        &mut self.config
    }

    /// Another model client (`/set model`, `/set provider`) for the next
    /// turns; the context carries over.
    pub fn set_model_client(&mut self, model: Arc<dyn ModelClient>) {
        self.model = model;
    }

    /// The model client the next turn calls: what a compressor for this
    /// session talks to.
    pub fn model_client(&self) -> &Arc<dyn ModelClient> {
        &self.model
    }

    /// Other tools and prompt blocks for the next turns (a plugin was
    /// enabled or disabled while the session ran); the context carries
    /// over, and the next request declares exactly these tools.
    pub fn set_tools(&mut self, tools: &[Arc<dyn Tool>], blocks: Vec<Arc<dyn PromptBlock>>) {
        self.decls = declarations(tools);
        let ledger = self.dispatcher.ledger().cloned();
        let hooks = self.dispatcher.hooks().cloned();
        if let Some(ledger) = &ledger {
            self.tools_seen = ledger.agent_generation();
        }
        self.dispatcher = Dispatcher::new(tools, self.dispatcher.policy().clone())
            .following(ledger)
            .hooked(hooks);
        if let Some(deferral) = &self.deferral {
            self.dispatcher
                .add(&[deferral.tool.clone() as Arc<dyn Tool>]);
        }
        self.blocks = blocks;
        self.arrange_tools();
    }

    /// The followed ledger's tools that arrived since the tools were
    /// taken (an MCP server that answered after the startup wait, or whose
    /// list changed), declared from the next request of this same run:
    /// a one-prompt `exec` whose server takes 6 s still reaches them. Only
    /// tools are added: the app's own (`task`, the todo list) stay as
    /// they are, and a tool that went is refused when called. A tool the
    /// policy's narrowing (a skill in force, a custom agent's list) does
    /// not allow is not offered, and is looked at again at the next
    /// request, when the narrowing may have ended.
    fn join_late_tools(&mut self, sink: &mut EventSink<'_>) {
        let Some(ledger) = self.dispatcher.ledger().cloned() else {
            return;
        };
        let generation = ledger.agent_generation();
        if generation == self.tools_seen {
            return;
        }
        let declared: std::collections::HashSet<String> =
            self.decls.iter().map(|d| d.name.clone()).collect();
        let narrowing = self.policy().narrowing();
        let (late, held): (Vec<_>, Vec<_>) = ledger
            .tools()
            .into_iter()
            .filter(|t| !declared.contains(&t.spec().name))
            .partition(|t| narrowing.as_ref().is_none_or(|n| n.allows(&t.spec().name)));
        if held.is_empty() {
            self.tools_seen = generation;
        }
        if late.is_empty() {
            return;
        }
        let names: Vec<String> = late.iter().map(|t| t.spec().name.clone()).collect();
        self.decls.extend(declarations(&late));
        self.dispatcher.add(&late);
        self.arrange_tools();
        let waiting: std::collections::HashSet<String> =
            self.tool_offer().deferred.into_iter().collect();
        let (shelved, offered): (Vec<String>, Vec<String>) =
            names.into_iter().partition(|name| waiting.contains(name));
        let mut said = Vec::new();
        if !offered.is_empty() {
            said.push(format!(
                "{} arrived while this run went on, and {} offered from this request: {}",
                if offered.len() == 1 {
                    "a tool"
                } else {
                    "tools"
                },
                if offered.len() == 1 { "is" } else { "are" },
                offered.join(", ")
            ));
        }
        if !shelved.is_empty() {
            said.push(format!(
                "{} more arrived and {} behind tool_search: {}",
                shelved.len(),
                if shelved.len() == 1 { "waits" } else { "wait" },
                shelved.join(", ")
            ));
        }
        sink(AgentEvent::Warning {
            message: said.join("; "),
        });
    }

    /// Its tool calls go to `ledger`'s tool of the same name when there
    /// is one, so a plugin replaced while a turn runs answers from its new
    /// instance; the tools declared to the model change at the next turn.
    pub fn following(mut self, ledger: Arc<crate::Ledger>) -> Self {
        self.tools_seen = ledger.agent_generation();
        self.dispatcher.follow(Some(ledger));
        self
    }

    /// The policy its tool calls are checked against.
    pub fn policy(&self) -> &Arc<Policy> {
        self.dispatcher.policy()
    }

    /// The compression gate the next turn checks.
    pub fn gate(&self) -> &Arc<dyn CompressionGate> {
        &self.gate
    }

    /// Another compression gate (`/set compress_threshold`).
    pub fn set_gate(&mut self, gate: Arc<dyn CompressionGate>) {
        self.gate = gate;
    }

    /// Another compression pipeline, or none (`/set model` changes the
    /// window it compresses for).
    pub fn set_compressor(&mut self, compressor: Option<Arc<dyn Compressor>>) {
        self.compressor = compressor;
    }

    /// Another learner for what compression extracts, or none.
    pub fn set_learner(&mut self, learner: Option<Arc<dyn Learner>>) {
        self.learner = learner;
    }

    /// What the provider counted on the last model call.
    pub fn last_usage(&self) -> &Usage {
        &self.last_usage
    }

    /// The session's tokens so far, every model call summed (a resumed
    /// session's earlier calls included).
    pub fn total_usage(&self) -> Usage {
        self.total_usage
    }

    /// Carries on a resumed session's totals.
    pub fn with_total_usage(mut self, usage: Usage) -> Self {
        self.total_usage = usage;
        self
    }

    /// Carries on a resumed session's cost (`None`: not known, e.g. a
    /// call without a price, or a session an older amber recorded).
    pub fn with_total_cost(mut self, cost: Option<f64>) -> Self {
        self.total_cost = cost;
        self
    }

    /// The session's cost so far, while every call had a price.
    pub fn total_cost(&self) -> Option<f64> {
        self.total_cost
    }

    /// Counts calls made outside the loop (a sub-agent's, compression's)
    /// in the session's totals, and in the running report's.
    fn spent_elsewhere(&mut self, usage: &Usage, cost: Option<f64>) {
        add_usage(&mut self.total_usage, usage);
        add_cost(&mut self.total_cost, cost);
        add_usage(&mut self.unreported.0, usage);
        add_cost(&mut self.unreported.1, cost);
    }

    /// What [`Self::spent_elsewhere`] counted, into `report`.
    fn report_spent_elsewhere(&mut self, report: &mut RunReport) {
        let (usage, cost) = std::mem::replace(&mut self.unreported, (Usage::default(), Some(0.0)));
        add_usage(&mut report.usage, &usage);
        add_cost(&mut report.cost_usd, cost);
    }

    /// Records the settings the session runs with from here on, which a
    /// resume restores (a new session's wait for its first message).
    pub fn record_settings(
        &mut self,
        settings: &crate::session::SessionSettings,
    ) -> Result<(), AgentError> {
        if let Some(session) = &mut self.session {
            session.settings(settings)?;
        }
        Ok(())
    }

    /// Tokens in the context now, against the model's window: what the
    /// compression gate weighs, and `/status` shows.
    pub fn context_usage(&self) -> ContextUsage {
        ContextUsage {
            tokens: self.context_tokens(),
            window: self.config.context_window,
        }
    }

    /// Puts the history back to `messages` (a rewind to an earlier
    /// turn's), recorded as a rebuild: a `clear`, the messages and a head,
    /// so the session verifies and nothing before is destroyed.
    pub fn rewind_history(
        &mut self,
        turn: usize,
        messages: Vec<Message>,
    ) -> Result<(), AgentError> {
        self.clear()?;
        // Inside the rebuild unit: a rewind cut short leaves no marker.
        if let Some(session) = &mut self.session {
            session.rewound(turn)?;
        }
        for message in messages {
            self.push(message)?;
        }
        self.counted = None;
        self.seal()
    }

    /// Records the given messages, sealed as one turn: e.g. the
    /// "interrupted" results a resume fills in.
    pub fn record_turn(&mut self, messages: Vec<Message>) -> Result<(), AgentError> {
        for message in messages {
            self.push(message)?;
        }
        self.seal()
    }

    /// Runs one user request to its end.
    pub async fn run(
        &mut self,
        prompt: &str,
        sink: &mut EventSink<'_>,
    ) -> Result<RunReport, AgentError> {
        self.cancel = self.interrupt.current();
        // A skill's narrowing lasts to the end of the request that loaded
        // it; a sub-agent's run is part of its parent's request.
        if self.agent_id == "main" {
            self.policy().end_narrowing();
        }
        let mut report = RunReport {
            outcome: Outcome::Interrupted,
            turns: 0,
            usage: Usage::default(),
            cost_usd: Some(0.0),
        };
        self.unreported = (Usage::default(), Some(0.0));
        let attached = std::mem::take(&mut self.attached);
        if !attached.is_empty() && !self.config.images {
            // Before anything is recorded or sent: the prompt can be
            // given again, without the images or to another model.
            report.outcome = Outcome::HardStop(images::refusal(&self.config, attached.len()));
            return Ok(report);
        }
        let resumed = !self.chain.is_empty();
        self.ensure_system_prompt()?;
        let mut context = self.start_hooks(resumed, sink).await?;
        match self.prompt_hooks(prompt, sink).await? {
            Ok(added) => context.extend(added),
            Err(blocked) => {
                // What the session's start added waits for the next prompt.
                if !context.is_empty() {
                    let context = context.join("\n");
                    self.note = Some(match self.note.take() {
                        Some(note) => format!("{note}\n{context}"),
                        None => context,
                    });
                }
                report.outcome = Outcome::HardStop(blocked);
                self.seal()?;
                return Ok(report);
            }
        }
        // The prompt as typed, for a resumed transcript to show.
        if let Some(session) = &mut self.session {
            session.prompt(prompt)?;
        }
        let mut message = Message::text(Role::User, prompt);
        if let Some(note) = self.note.take() {
            message.parts.insert(0, Part::Text { text: note });
        }
        if !context.is_empty() {
            message.parts.push(Part::Text {
                text: context.join("\n"),
            });
        }
        message.parts.extend(attached.into_iter().map(Part::Image));
        self.push(message)?;
        // Each run gives compression its chances again, and stop hooks
        // their continues.
        self.compaction.failures = 0;
        self.stop_continues = 0;
        let result = self.iterate(prompt, &mut report, sink).await;
        // What a tool reported as the run ended (an interrupted sub-agent
        // finishing) goes out with it.
        self.drain_side_events(sink);
        self.report_spent_elsewhere(&mut report);
        // Whatever happened, what was recorded is sealed and on disk.
        self.seal()?;
        result.map(|outcome| RunReport { outcome, ..report })
    }

    /// Before calls that may write: the checkpointer keeps what they may
    /// change. Returns whether it was asked (so it is asked after too).
    async fn checkpoint_before(&self, calls: &[ToolCall]) -> bool {
        let Some(checkpoints) = self.checkpoints.clone() else {
            return false;
        };
        let mut paths = Vec::new();
        let mut writes = false;
        let mut commands = false;
        for call in calls {
            let (may_write, through_commands) = self.dispatcher.may_change(&call.name);
            writes |= may_write;
            commands |= through_commands;
            if may_write {
                if let Ok(args) = serde_json::from_str(&call.arguments) {
                    paths.extend(
                        dispatch::confine_only(&args, self.policy().root()).unwrap_or_default(),
                    );
                }
            }
        }
        if !writes {
            return false;
        }
        let _ = crate::blocking::run_to_end(move || checkpoints.before(&paths, commands)).await;
        true
    }

    /// After them: what changed goes into the session's `checkpoint`
    /// record, before the turn's head.
    async fn checkpoint_after(&mut self, sink: &mut EventSink<'_>) -> Result<(), AgentError> {
        let Some(checkpoints) = self.checkpoints.clone() else {
            return Ok(());
        };
        let (changes, notes) = crate::blocking::run_to_end(move || checkpoints.after())
            .await
            .unwrap_or_else(|e| (Vec::new(), vec![format!("the checkpoint failed: {e}")]));
        for message in notes {
            sink(AgentEvent::Warning { message });
        }
        if let (Some(session), false) = (&mut self.session, changes.is_empty()) {
            session.checkpoint(&changes)?;
        }
        if let Some(checkpoints) = &self.checkpoints {
            checkpoints.recorded();
        }
        Ok(())
    }

    /// A turn killed before its changes were recorded: they are compared
    /// and recorded now (as that turn's). Returns what to tell the person.
    pub fn recover_checkpoint(&mut self) -> Result<Vec<String>, AgentError> {
        let Some(checkpoints) = self.checkpoints.clone() else {
            return Ok(Vec::new());
        };
        let Some((changes, notes)) = checkpoints.recover() else {
            return Ok(Vec::new());
        };
        if let (Some(session), false) = (&mut self.session, changes.is_empty()) {
            session.checkpoint(&changes)?;
        }
        checkpoints.recorded();
        Ok(notes)
    }

    /// Records the files a code rewind wrote (each one's content before
    /// the rewind and after it), so a later rewind can undo it and the
    /// next turn does not take them for a person's edits.
    pub fn record_code_rewind(&mut self, changes: &[FileChange]) -> Result<(), AgentError> {
        if changes.is_empty() {
            return Ok(());
        }
        if let Some(session) = &mut self.session {
            session.checkpoint(changes)?;
        }
        if let Some(checkpoints) = &self.checkpoints {
            checkpoints.note(changes);
        }
        Ok(())
    }

    /// Passes on what the tools reported and the run has not shown yet.
    fn drain_side_events(&mut self, sink: &mut EventSink<'_>) {
        while let Ok(event) = self.side_rx.0.try_recv() {
            if let Some((usage, cost)) = side_event(&mut self.session, event, sink) {
                self.spent_elsewhere(&usage, cost);
            }
        }
    }

    /// The history always starts with a system message.
    fn ensure_system_prompt(&mut self) -> Result<(), AgentError> {
        if self.chain.is_empty() {
            let system = Message::text(Role::System, self.config.system_prompt.clone());
            self.push(system)?;
        }
        Ok(())
    }

    async fn iterate(
        &mut self,
        prompt: &str,
        report: &mut RunReport,
        sink: &mut EventSink<'_>,
    ) -> Result<Outcome, AgentError> {
        let mut confirming = false;
        let mut final_reply = String::new();
        loop {
            if self.cancel.is_cancelled() {
                return Ok(Outcome::Interrupted);
            }
            if report.turns >= self.config.max_tool_iterations {
                return Ok(Outcome::HardStop(format!(
                    "stopped after {} model calls (max_tool_iterations); the task may be looping",
                    report.turns
                )));
            }
            report.turns += 1;
            let turn = report.turns;
            // Not during the silent question: a rebuild there would leave
            // the two pops below taking the wrong messages.
            if !confirming {
                self.compression_gate(sink).await?;
                self.join_late_tools(sink);
            }
            self.report_spent_elsewhere(report);
            if let Some(reason) = self.over_budget(report) {
                return Ok(Outcome::HardStop(reason));
            }
            let request = self.request(prompt, sink).await;
            sink(AgentEvent::TurnStarted {
                turn,
                confirm: confirming,
            });
            let reply = match self.call_model(request, turn, confirming, sink).await {
                Ok(Some(reply)) => reply,
                Ok(None) => {
                    if confirming {
                        self.pop()?;
                    }
                    return Ok(Outcome::Interrupted);
                }
                // The silent question failed, not the task: its answer
                // stands, and the question leaves the history as it would
                // have with its reply.
                Err(e) if confirming => {
                    self.pop()?;
                    sink(AgentEvent::Warning {
                        message: format!(
                            "the silent confirm turn failed ({e}); ending with the reply given"
                        ),
                    });
                    return Ok(Outcome::Done(final_reply));
                }
                Err(e) => return Ok(Outcome::ModelFailed(e)),
            };
            self.last_usage = reply.usage;
            add_usage(&mut report.usage, &reply.usage);
            add_usage(&mut self.total_usage, &reply.usage);
            let cost = self.call_cost(&reply.usage);
            add_cost(&mut report.cost_usd, cost);
            add_cost(&mut self.total_cost, cost);
            let calls = reply.tool_calls.clone();
            let empty = reply.text.trim().is_empty() && calls.is_empty();
            if empty && !confirming {
                self.turn_completed(turn, &reply, sink);
                if self.recovery.retry_empty() {
                    sink(AgentEvent::Warning {
                        message: "the model sent an empty reply; asking again".into(),
                    });
                    continue;
                }
                return Ok(Outcome::HardStop(
                    "the model sent an empty reply twice".into(),
                ));
            }
            // Recovery watches the working turns, not the silent question.
            let verdict = if confirming {
                Verdict::Continue
            } else {
                self.recovery.on_reply(&reply.text, &calls)
            };
            let previous = self.last_assistant_calls();
            self.push(assistant_message(&reply, &self.config.flavor))?;
            self.counted = Some(Counted {
                tokens: counted_tokens(&reply.usage),
                covers: self.chain.len(),
            });
            if let Verdict::Stop(reason) = verdict {
                // Every call still gets exactly one result.
                let denied = vec![Envelope::denied(format!("not run: {reason}")); calls.len()];
                self.record_results(turn, &calls, denied, sink).await?;
                self.turn_completed(turn, &reply, sink);
                return Ok(Outcome::HardStop(reason));
            }
            if calls.is_empty() {
                self.turn_completed(turn, &reply, sink);
                if confirming {
                    // Silent: the question and its answer leave the history.
                    self.pop()?;
                    self.pop()?;
                    if let Some(reason) = self.stop_hooks(&final_reply, sink).await? {
                        self.steer(turn, reason, sink)?;
                        self.seal()?;
                        confirming = false;
                        continue;
                    }
                    return Ok(Outcome::Done(final_reply));
                }
                if let Verdict::Steer(steer) = verdict {
                    self.steer(turn, steer, sink)?;
                    self.seal()?;
                    continue;
                }
                final_reply = reply.text.clone();
                match self.config.confirm.clone() {
                    Some(question) => {
                        self.push(Message::text(Role::User, question))?;
                        self.seal()?;
                        confirming = true;
                        continue;
                    }
                    None => {
                        if let Some(reason) = self.stop_hooks(&final_reply, sink).await? {
                            self.steer(turn, reason, sink)?;
                            self.seal()?;
                            continue;
                        }
                        return Ok(Outcome::Done(final_reply));
                    }
                }
            }
            if confirming {
                confirming = false;
                // The confirm turn's words were held back; it goes on, so
                // they are shown now.
                if !reply.text.is_empty() {
                    sink(AgentEvent::MessageDelta {
                        turn,
                        kind: DeltaKind::Text,
                        text: reply.text.clone(),
                    });
                }
            }
            let results = self.dispatch(turn, &calls, &previous, sink).await?;
            self.report_spent_elsewhere(report);
            self.turn_completed(turn, &reply, sink);
            // A plan proposed ends the run: the person answers it.
            if let Some(plan) = proposed_plan(&calls, &results) {
                sink(AgentEvent::PlanProposed { plan: plan.clone() });
                self.seal()?;
                return Ok(Outcome::Done(plan));
            }
            // Steers go after the results: a tool message must follow the
            // assistant message that called it.
            if let Verdict::Steer(steer) = verdict {
                self.steer(turn, steer, sink)?;
            }
            match self.recovery.on_results(&results) {
                Verdict::Stop(reason) => {
                    self.seal()?;
                    return Ok(Outcome::HardStop(reason));
                }
                Verdict::Steer(steer) => self.steer(turn, steer, sink)?,
                Verdict::Continue => {}
            }
            self.seal()?;
        }
    }

    /// A call's cost at the model's price, if it has one.
    fn call_cost(&self, usage: &Usage) -> Option<f64> {
        self.config.price.map(|price| price.cost(usage))
    }

    /// Why the next model call may not be made: the run's budget would be
    /// passed by it (its input, at the input price, on top of what the
    /// run spent), or there is a budget and no price to keep to it.
    fn over_budget(&self, report: &RunReport) -> Option<String> {
        let budget = self.config.max_budget_usd?;
        let Some(price) = self.config.price else {
            return Some(format!(
                "a budget of {} is set, but model `{}` has no price (set [prices.\"provider/{}\"] in config, docs/cost.md), so the run cannot keep to it",
                dollars(budget),
                self.config.model,
                self.config.model
            ));
        };
        let Some(spent) = report.cost_usd else {
            return Some(format!(
                "a budget of {} is set, but a call of this run had no price, so what it spent is not known",
                dollars(budget)
            ));
        };
        let next = self.context_tokens() as f64 * price.input / 1_000_000.0;
        (spent + next > budget).then(|| {
            format!(
                "the budget of {} would be passed by the next model call ({} spent, about {} for its input); raise --max-budget-usd to go on",
                dollars(budget),
                dollars(spent),
                dollars(next)
            )
        })
    }

    /// Pushes a steering message; the model reads it next turn.
    fn steer(
        &mut self,
        turn: u32,
        message: String,
        sink: &mut EventSink<'_>,
    ) -> Result<(), AgentError> {
        sink(AgentEvent::Steer {
            turn,
            message: message.clone(),
        });
        self.push(Message::text(Role::User, message))
    }

    /// Tokens in the context: what the provider counted at the last call
    /// (the messages sent and the reply), plus the messages added since
    /// (tool results, steers) counted with cl100k; all estimated before
    /// the first reply and right after a compression (compress/tokens.rs
    /// says why).
    fn context_tokens(&self) -> u64 {
        let messages = self.chain.get_all();
        match self.counted {
            Some(counted) if counted.tokens > 0 => {
                let since = messages.get(counted.covers..).unwrap_or_default();
                counted.tokens + crate::compress::tokens::count_all(since)
            }
            _ => crate::compress::tokens::estimate_all(messages),
        }
    }

    /// The request for this turn: a prompt copy plus the tools.
    async fn request(&mut self, prompt: &str, sink: &mut EventSink<'_>) -> ChatRequest {
        let rendered = self.render_blocks(prompt).await;
        for message in &rendered.failed {
            // Once per run: a block that fails every turn says so once.
            if self.warned.insert(message.clone()) {
                sink(AgentEvent::Warning {
                    message: message.clone(),
                });
            }
        }
        let mut rendered = rendered;
        let planning = self.policy().mode() == Mode::Plan;
        if planning {
            rendered.tail.push(plan::PLAN_MODE_PROMPT.to_string());
        }
        // `exit_plan` is offered only while there is a plan to propose.
        self.arrange_tools();
        let tools = self
            .declared()
            .into_iter()
            .filter(|d| planning || d.name != plan::PLAN_TOOL)
            .collect();
        ChatRequest {
            flavor: self.config.flavor.clone(),
            model: self.config.model.clone(),
            messages: assemble::for_model(
                assemble(self.chain.get_all(), &self.config.system_prompt, &rendered),
                &self.config.flavor,
                self.config.images,
            ),
            tools,
            max_tokens: self.config.max_tokens,
            temperature: self.config.temperature,
            cache_breakpoint: None,
        }
    }

    /// Renders the prompt blocks through [`crate::blocking::run`]: a
    /// component block may do blocking I/O, which must not run on the
    /// async runtime.
    async fn render_blocks(&self, prompt: &str) -> Rendered {
        if self.blocks.is_empty() {
            return Rendered::default();
        }
        let blocks = self.blocks.clone();
        let render = RenderContext {
            workspace: self.config.workspace.clone(),
            request: prompt.to_string(),
            model: self.config.model.clone(),
        };
        crate::blocking::run(&self.cancel, move || render_blocks(&blocks, &render))
            .await
            .unwrap_or_else(|e| Rendered {
                failed: vec![format!("the prompt blocks: {e}")],
                ..Rendered::default()
            })
    }

    /// One streamed model call; `None` when it was cancelled. Deltas of a
    /// confirm turn are held back (it is silent).
    async fn call_model(
        &self,
        request: ChatRequest,
        turn: u32,
        silent: bool,
        sink: &mut EventSink<'_>,
    ) -> Result<Option<ModelReply>, ModelError> {
        let mut on_chunk = |chunk: &StreamChunk| {
            if silent {
                return;
            }
            if let StreamChunk::Restart { attempt, reason } = chunk {
                sink(AgentEvent::StreamRetry {
                    turn,
                    attempt: *attempt,
                    reason: reason.clone(),
                });
                return;
            }
            let (kind, text) = match chunk {
                StreamChunk::TextDelta(t) => (DeltaKind::Text, t.clone()),
                StreamChunk::ReasoningDelta(r) if !r.text.is_empty() => {
                    (DeltaKind::Reasoning, r.text.clone())
                }
                _ => return,
            };
            sink(AgentEvent::MessageDelta { turn, kind, text });
        };
        let stream = self.model.stream(request, &mut on_chunk);
        tokio::select! {
            biased;
            _ = self.cancel.cancelled() => Ok(None),
            // The wire saw the same cancel first: still a cancel.
            reply = stream => match reply {
                Err(e) if e.kind == ModelErrorKind::Cancelled => Ok(None),
                reply => reply.map(Some),
            },
        }
    }

    fn turn_completed(&self, turn: u32, reply: &ModelReply, sink: &mut EventSink<'_>) {
        if let Some(message) = self.reads.as_ref().and_then(|r| r.turn_ended()) {
            sink(AgentEvent::Warning { message });
        }
        if let Some(watch) = &self.watch {
            let changes = watch.take_changes();
            if !changes.is_empty() {
                sink(AgentEvent::ProtectedChanged { turn, changes });
            }
        }
        sink(AgentEvent::TurnCompleted {
            turn,
            cost_usd: self.call_cost(&reply.usage),
            usage: reply.usage,
            stop_reason: reply.stop.or(Some(if reply.tool_calls.is_empty() {
                StopReason::EndTurn
            } else {
                StopReason::ToolUse
            })),
            tool_calls: reply.tool_calls.len(),
        });
    }

    /// Runs the calls and pushes one tool-role message per call, in order.
    async fn dispatch(
        &mut self,
        turn: u32,
        calls: &[ToolCall],
        previous: &[ToolCall],
        sink: &mut EventSink<'_>,
    ) -> Result<Vec<Envelope>, AgentError> {
        for call in calls {
            sink(AgentEvent::ToolCall {
                turn,
                id: call.id.clone(),
                name: call.name.clone(),
                arguments: call.arguments.clone(),
            });
        }
        // What the tools report while they run reaches the sink as it
        // comes, and the session records what belongs there.
        let watching = self.checkpoint_before(calls).await;
        let mut elsewhere = Vec::new();
        let envelopes = {
            let running = self.dispatcher.dispatch(calls, previous, &self.cancel);
            tokio::pin!(running);
            loop {
                tokio::select! {
                    biased;
                    Some(event) = self.side_rx.0.recv() => {
                        if let Some(spent) = side_event(&mut self.session, event, sink) {
                            elsewhere.push(spent);
                        }
                    }
                    envelopes = &mut running => break envelopes,
                }
            }
        };
        for (usage, cost) in elsewhere {
            self.spent_elsewhere(&usage, cost);
        }
        if watching {
            self.checkpoint_after(sink).await?;
        }
        self.drain_side_events(sink);
        for message in self.dispatcher.take_warnings() {
            sink(AgentEvent::Warning { message });
        }
        self.hook_outcomes(sink)?;
        self.record_results(turn, calls, envelopes.clone(), sink)
            .await?;
        Ok(envelopes)
    }

    /// One tool-role message per call, in call order, each reported.
    async fn record_results(
        &mut self,
        turn: u32,
        calls: &[ToolCall],
        envelopes: Vec<Envelope>,
        sink: &mut EventSink<'_>,
    ) -> Result<(), AgentError> {
        for (call, mut envelope) in calls.iter().zip(envelopes) {
            if let (Some(reads), Status::Ok) = (&self.reads, envelope.status) {
                let args = serde_json::from_str(&call.arguments).unwrap_or(serde_json::Value::Null);
                if let Some(line) =
                    reads.tool_result(&self.agent_id, &call.name, &args, &envelope.output)
                {
                    envelope.output = format!("{}\n{line}", envelope.output.trim_end());
                }
            }
            if let Some(added) = self.post_tool_hooks(call, &envelope).await {
                envelope.output = format!("{}\n{added}", envelope.output.trim_end());
            }
            let images = images::for_the_model(
                std::mem::take(&mut envelope.images),
                &self.config,
                self.image_prep.as_deref(),
                &mut envelope.output,
            );
            if envelope.status == Status::Ok {
                let mut uses = self.tool_uses.lock().unwrap_or_else(|e| e.into_inner());
                *uses.entry(call.name.clone()).or_default() += 1;
            }
            sink(AgentEvent::ToolResult {
                turn,
                id: call.id.clone(),
                name: call.name.clone(),
                status: envelope.status,
                output: envelope.output.clone(),
                meta: envelope.meta.clone(),
            });
            let mut parts = vec![Part::ToolResult(envelope.to_result(&call.id))];
            parts.extend(images.into_iter().map(Part::Image));
            self.push(Message {
                role: Role::Tool,
                parts,
            })?;
        }
        // The post-tool hooks' outcomes, in order with their results.
        self.hook_outcomes(sink)
    }

    /// The calls of the newest assistant message in the history.
    fn last_assistant_calls(&self) -> Vec<ToolCall> {
        self.chain
            .get_all()
            .iter()
            .rev()
            .find(|m| m.role == Role::Assistant)
            .map(|m| {
                m.parts
                    .iter()
                    .filter_map(|p| match p {
                        Part::ToolCall(c) => Some(c.clone()),
                        _ => None,
                    })
                    .collect()
            })
            .unwrap_or_default()
    }

    // The only ways the context changes; each is recorded as it happens.

    fn push(&mut self, message: Message) -> Result<(), AgentError> {
        self.unsealed = true;
        match &mut self.session {
            Some(session) => {
                session.push(&mut self.chain, message)?;
            }
            None => {
                self.chain.push(message);
            }
        }
        Ok(())
    }

    fn pop(&mut self) -> Result<(), AgentError> {
        self.unsealed = true;
        match &mut self.session {
            Some(session) => {
                session.pop(&mut self.chain)?;
            }
            None => {
                self.chain.pop();
            }
        }
        Ok(())
    }

    fn clear(&mut self) -> Result<(), AgentError> {
        self.unsealed = true;
        match &mut self.session {
            Some(session) => session.clear(&mut self.chain)?,
            None => self.chain.clear(),
        }
        Ok(())
    }

    /// Ends a turn in the session: a head record, fsynced.
    fn seal(&mut self) -> Result<(), AgentError> {
        if !self.unsealed {
            return Ok(());
        }
        if let Some(session) = &mut self.session {
            session.end_turn_with(&self.chain, Some(self.total_usage), self.total_cost)?;
        }
        self.unsealed = false;
        Ok(())
    }
}

/// Passes on one event a tool reported, recording in the session what
/// belongs there: a sub-agent's session, linked; the todo list. A record
/// that cannot be written is warned of: the calls running go on, and the
/// turn's head fails on the same disk soon enough, with its own error.
/// Returns what a finished sub-agent spent, for the run's totals.
fn side_event(
    session: &mut Option<SessionWriter>,
    event: AgentEvent,
    sink: &mut EventSink<'_>,
) -> Option<(Usage, Option<f64>)> {
    let spent = match &event {
        AgentEvent::SubAgentFinished {
            usage, cost_usd, ..
        } => Some((*usage, *cost_usd)),
        _ => None,
    };
    let recorded = match (session, &event) {
        (
            Some(session),
            AgentEvent::SubAgentStarted {
                agent,
                call_id,
                session_id: Some(child),
                ..
            },
        ) => session.child(child, call_id, agent),
        (Some(session), AgentEvent::TodoUpdated { todos }) => session.todos(todos),
        _ => Ok(()),
    };
    sink(event);
    if let Err(e) = recorded {
        sink(AgentEvent::Warning {
            message: format!("not recorded in the session: {e}"),
        });
    }
    spent
}

/// The plan of this turn's `exit_plan` call, when it was accepted: what
/// the tool returned in its `meta`.
fn proposed_plan(calls: &[ToolCall], results: &[Envelope]) -> Option<String> {
    calls
        .iter()
        .zip(results)
        .find(|(call, result)| call.name == plan::PLAN_TOOL && result.status == Status::Ok)
        .and_then(|(_, result)| result.meta.as_ref()?["plan"].as_str().map(str::to_string))
}

/// The assistant message of a reply: reasoning (which some vendors need
/// back), then text, then the tool calls.
fn assistant_message(reply: &ModelReply, flavor: &str) -> Message {
    let mut parts: Vec<Part> = reply
        .reasoning
        .iter()
        .cloned()
        .map(|r| {
            Part::Reasoning(Reasoning {
                flavor: Some(flavor.to_string()),
                ..r
            })
        })
        .collect();
    if !reply.text.is_empty() {
        parts.push(Part::Text {
            text: reply.text.clone(),
        });
    }
    parts.extend(reply.tool_calls.iter().cloned().map(Part::ToolCall));
    Message {
        role: Role::Assistant,
        parts,
    }
}

/// The context's tokens as a reply's usage counts them: everything sent
/// (cached or not) and the reply.
fn counted_tokens(usage: &Usage) -> u64 {
    usage.input_tokens + usage.cached_input_tokens + usage.output_tokens
}

fn add_usage(total: &mut Usage, more: &Usage) {
    total.add(more);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compress::pipeline::fake::{text, FakeModel};
    use crate::ports::{BoxFuture, ThresholdGate};
    use crate::session::{self, SessionWriter};

    #[tokio::test]
    async fn reasoning_goes_back_to_its_own_flavor_only() {
        use crate::compress::pipeline::fake::Reply;
        let item = Reasoning {
            id: Some("rs_1".into()),
            encrypted: Some("opaque".into()),
            ..Reasoning::default()
        };
        let model = Arc::new(FakeModel::new(
            vec![
                Reply::Thought("first".into(), item),
                text("second"),
                text("third"),
            ],
            10,
        ));
        let dir = tempfile::tempdir().unwrap();
        let session = SessionWriter::open(&dir.path().join("s.jsonl")).unwrap();
        let mut agent = agent_of(model.clone(), None, session);
        agent.config_mut().flavor = "openai-responses".into();
        let mut sink = |_: AgentEvent| {};
        agent.run("one", &mut sink).await.unwrap();
        // The same flavor gets its reasoning back.
        agent.run("two", &mut sink).await.unwrap();
        // Another flavor does not (Anthropic would refuse the item).
        agent.config_mut().flavor = "anthropic-messages".into();
        agent.run("three", &mut sink).await.unwrap();
        let sent = model.sent.lock().unwrap();
        let reasoning_in = |request: &ChatRequest| {
            request
                .messages
                .iter()
                .flat_map(|m| &m.parts)
                .filter(|p| matches!(p, Part::Reasoning(_)))
                .count()
        };
        assert_eq!(reasoning_in(&sent[1]), 1);
        assert_eq!(reasoning_in(&sent[2]), 0);
    }

    fn agent_of(
        model: Arc<dyn ModelClient>,
        compressor: Option<Arc<dyn Compressor>>,
        session: SessionWriter,
    ) -> Agent {
        let config = AgentConfig {
            model: "m".into(),
            flavor: "openai-chat".into(),
            context_window: 100,
            max_tool_iterations: 10,
            confirm: None,
            max_tokens: None,
            temperature: None,
            system_prompt: "sys".into(),
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
            policy: Arc::new(Policy::new(Mode::Write, "/ws".into(), Vec::new(), None)),
            gate: Arc::new(ThresholdGate { threshold: 0.8 }),
            compressor,
            learner: None,
        };
        Agent::new(config, ports, ContextChain::new(), Some(session))
    }

    /// A small fake of the ModelClient port whose every call fails.
    struct Failing(ModelErrorKind);

    impl ModelClient for Failing {
        fn stream<'a>(
            &'a self,
            _request: ChatRequest,
            _on_chunk: &'a mut (dyn FnMut(&StreamChunk) + Send),
        ) -> BoxFuture<'a, Result<ModelReply, ModelError>> {
            Box::pin(async move { Err(ModelError::new(self.0, "the server said no")) })
        }
    }

    #[tokio::test]
    async fn a_failed_model_call_is_an_outcome_with_its_cause_and_the_prompt_is_kept() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.jsonl");
        let model = Arc::new(Failing(ModelErrorKind::Auth));
        let mut agent = agent_of(model, None, SessionWriter::open(&path).unwrap());
        let report = agent.run("first", &mut |_| {}).await.unwrap();
        assert_eq!(
            report.outcome,
            Outcome::ModelFailed(ModelError::new(ModelErrorKind::Auth, "the server said no"))
        );
        assert_eq!(report.turns, 1);
        // The question is recorded and sealed, so a resume can retry it.
        let resumed = session::resume(&path).unwrap();
        assert_eq!(resumed.chain.head(), agent.context().head());
        assert_eq!(agent.context().len(), 2);
    }

    #[tokio::test]
    async fn a_failed_confirm_turn_keeps_the_answer_and_drops_the_question() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.jsonl");
        let model = Arc::new(FakeModel::new(vec![text("the answer")], 90));
        let mut agent = agent_of(model, None, SessionWriter::open(&path).unwrap());
        agent.config.confirm = Some("Are you finished?".into());
        let mut warnings = Vec::new();
        let report = agent
            .run("first", &mut |e| {
                if let AgentEvent::Warning { message } = e {
                    warnings.push(message)
                }
            })
            .await
            .unwrap();
        assert_eq!(report.outcome, Outcome::Done("the answer".into()));
        assert!(
            warnings[0].contains("silent confirm turn failed (overloaded)"),
            "{warnings:?}"
        );
        // system, question, answer: the confirm question is gone, on disk too.
        assert_eq!(agent.context().len(), 3);
        let resumed = session::resume(&path).unwrap();
        assert_eq!(resumed.chain.head(), agent.context().head());
    }

    #[tokio::test]
    async fn a_model_call_cancelled_inside_the_wire_is_an_interruption() {
        let dir = tempfile::tempdir().unwrap();
        let model = Arc::new(Failing(ModelErrorKind::Cancelled));
        let session = SessionWriter::open(&dir.path().join("s.jsonl")).unwrap();
        let mut agent = agent_of(model, None, session);
        let report = agent.run("first", &mut |_| {}).await.unwrap();
        assert_eq!(report.outcome, Outcome::Interrupted);
    }
}
