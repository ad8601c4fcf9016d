//! Opening a session: the preset, the policy, the plugins, the model
//! client, the project's instructions and the agent over a new or resumed
//! chain. `amber exec` runs one prompt on it; the TUI runs many.

use std::sync::Arc;

use amber_config::Config;
use amber_core::engine::instructions;
use amber_core::engine::side_events::side_channel;
use amber_core::engine::task::{ChildSessions, TaskContext};
use amber_core::engine::todo::{Todo, TodoList};
use amber_core::engine::{
    Agent, AgentConfig, AgentEvent, AgentPorts, Interrupt, Mode, CONFIRM_PROMPT,
};
use amber_core::hooks::HookRunner;
use amber_core::policy::Policy;
use amber_core::project::ProjectRoot;
use amber_core::session::{self, SessionInfo, SessionSettings, SessionStore, SessionWriter};
use amber_core::{ContextChain, Ledger};
use amber_runtime::manager::PluginManager;
use amber_runtime::AmberDirs;
use amber_wire::Preset;
use anyhow::Result;

pub use crate::clients::model_client;
use crate::compaction::{self, Compression};
use crate::host::{self, Host};
use crate::presets::presets_from;
use crate::subagents::{main_tools, MainTools, SubAgents};

/// An open session: the agent and what it was opened with.
pub struct Live {
    pub agent: Agent,
    pub info: amber_core::session::SessionInfo,
    pub preset: Preset,
    /// How the session compresses (the gate and the pipeline are opaque
    /// ports built from it: `compaction::install`).
    pub compression: Compression,
    /// The `session.started` event, for the front end to show.
    pub started: AgentEvent,
    /// The ledger's [`amber_core::Ledger::agent_generation`] the agent's
    /// tools and prompt blocks were taken at (`session::sync_tools`).
    pub tools_generation: u64,
    /// The skills the index and the `skill` tool serve (docs/skills.md).
    pub skills: Option<Arc<crate::skills::SkillSet>>,
    /// The custom agents and where sub-agents' sessions go.
    pub subagents: SubAgents,
    /// Its background processes, stopped when it ends.
    pub jobs: Arc<crate::jobs::Jobs>,
}

/// What the command line (or the TUI's flags) asks of a session.
#[derive(Debug, Clone, Default)]
pub struct SessionOptions {
    /// A provider preset; default: config, the resumed session's, openai
    /// (anthropic when only ANTHROPIC_API_KEY is set).
    pub provider: Option<String>,
    pub model: Option<String>,
    pub base_url: Option<String>,
    /// Default: `policy.mode` from config.
    pub mode: Option<Mode>,
    /// Approve every approval prompt.
    pub yes: bool,
    /// Continue this session (its chain is verified first).
    pub resume: Option<String>,
    /// The compression threshold for this run, in (0, 1] (`amber exec
    /// --compact-at X`); default: `agent.compress_threshold`.
    pub compress_threshold: Option<f64>,
    /// Trust every workspace hook found (`--trust-hooks`); without it an
    /// untrusted one is asked about at a terminal, else skipped.
    pub trust_hooks: bool,
    /// Leave out the silent confirm turn in every session of this process
    /// (`--no-confirm`), whatever `agent.confirm_turn` says
    /// ([`config_for`]).
    pub no_confirm: bool,
    /// Stop a run before the call that would spend more than this many
    /// US dollars (`--max-budget-usd`), over `agent.max_budget_usd`.
    pub max_budget_usd: Option<f64>,
}

/// A session ready for its first prompt, with the host it runs in.
pub struct OpenSession {
    pub live: Live,
    pub config: Config,
    pub policy: Arc<Policy>,
    /// Keeps the plugins loaded for as long as the agent uses their tools.
    pub manager: PluginManager,
    /// The MCP servers, when any is configured.
    pub mcp: Option<Arc<amber_mcp::McpHub>>,
}

/// A session to resume: verified, and locked against a second run.
pub struct Resuming {
    path: std::path::PathBuf,
    resumed: session::Resumed,
    lock: session::SessionLock,
    id: String,
}

/// Session `id`, locked and its chain verified, ready for [`start`].
pub fn resuming(dirs: &AmberDirs, id: &str) -> Result<Resuming> {
    let path = store(dirs).path(id)?;
    // Locked before it is read: a second run on the same session fails
    // here, at once, naming the first.
    let lock = session::SessionLock::acquire(&path)?;
    let resumed = session::resume(&path)?;
    Ok(Resuming {
        path,
        resumed,
        lock,
        id: id.to_string(),
    })
}

impl Resuming {
    /// What the session was started with, if its start record is there.
    pub fn info(&self) -> Option<&SessionInfo> {
        self.resumed.info.as_ref()
    }

    /// What the session last ran with: its start, with the provider and
    /// model its last recorded settings name (a `/model` mid-session).
    pub fn last_run_with(&self) -> Option<SessionInfo> {
        let mut info = self.resumed.info.clone()?;
        if let Some(settings) = &self.resumed.settings {
            if !settings.provider.is_empty() {
                info.provider = settings.provider.clone();
                info.model = settings.model.clone();
            }
        }
        Some(info)
    }

    /// The policy mode the session last ran in, if it was recorded.
    pub fn mode(&self) -> Option<Mode> {
        self.resumed
            .settings
            .as_ref()
            .and_then(|s| s.mode.as_deref())
            .and_then(|m| m.parse().ok())
    }
}

/// The sessions of this user, newest first in listings.
pub fn store(dirs: &AmberDirs) -> SessionStore {
    SessionStore::new(dirs.data.join("sessions"))
}

/// The id of the newest session of `project`'s workspace that has a
/// turn: what `amber --resume`, `-c` and `amber /compact` work on without
/// an id (an older amber left an empty session for each TUI opened and
/// quit; none of those is picked).
pub fn latest_in_workspace(dirs: &AmberDirs, project: &ProjectRoot) -> Result<Option<String>> {
    latest_at(dirs, &project.root)
}

/// [`latest_in_workspace`] of the workspace at `root` (canonical).
pub fn latest_at(dirs: &AmberDirs, root: &std::path::Path) -> Result<Option<String>> {
    let workspace = root.display().to_string();
    let sessions = store(dirs).list()?;
    Ok(sessions
        .into_iter()
        // A sub-agent's session is its parent's part, not one to go on.
        .find(|s| s.workspace == workspace && s.turns > 0 && s.parent.is_none())
        .map(|s| s.id))
}

/// The preset: `options.provider`, then the resumed session's (what it
/// last ran with), then config, then a default that has a key set; its
/// model and base URL overridden the same way.
pub fn choose_preset(
    options: &SessionOptions,
    config: &Config,
    resumed: Option<&SessionInfo>,
) -> Result<Preset> {
    let presets = presets_from(config)?;
    let env_set = amber_wire::secrets::is_set;
    let name = options
        .provider
        .clone()
        .or_else(|| {
            resumed
                .map(|s| s.provider.clone())
                .filter(|p| !p.is_empty())
        })
        .or_else(|| config.model.provider.clone())
        .unwrap_or_else(|| {
            if !env_set("OPENAI_API_KEY") && env_set("ANTHROPIC_API_KEY") {
                "anthropic".into()
            } else {
                "openai".into()
            }
        });
    let mut preset = presets.get(&name)?.clone();
    let config_model = config
        .model
        .model
        .clone()
        .filter(|_| config.model.provider.as_deref().is_none_or(|p| p == name));
    let resumed_model = resumed
        .filter(|s| s.provider == name && !s.model.is_empty())
        .map(|s| s.model.clone());
    if let Some(model) = options.model.clone().or(resumed_model).or(config_model) {
        preset.model = model;
    }
    if let Some(url) = &options.base_url {
        preset.base_url = url.clone();
    }
    Ok(preset)
}

/// The config as this process runs it: the file, with what the command
/// line overrides for every session of the process (`--no-confirm`)
/// written over it, so each session started reads it from one place.
pub fn config_for(dirs: &AmberDirs, options: &SessionOptions) -> Result<Config> {
    let mut config = host::load_config(dirs)?;
    if options.no_confirm {
        config.agent.confirm_turn = false;
    }
    if let Some(budget) = options.max_budget_usd {
        config.agent.max_budget_usd = Some(budget);
    }
    Ok(config)
}

/// Opens a new session in `project`, or resumes `options.resume`.
pub fn open(host: &Host, options: &SessionOptions, project: &ProjectRoot) -> Result<OpenSession> {
    let workspace = project.root.as_path();
    let dirs = &host.dirs;
    let config = config_for(dirs, options)?;
    // Resume first: a tampered session is refused before anything else.
    let resuming = match &options.resume {
        Some(id) => Some(resuming(dirs, id)?),
        None => None,
    };
    let preset = choose_preset(
        options,
        &config,
        resuming.as_ref().and_then(Resuming::last_run_with).as_ref(),
    )?;
    // A resumed session runs in the mode it had, unless told otherwise.
    let mode: Mode = options
        .mode
        .or_else(|| resuming.as_ref().and_then(Resuming::mode))
        .unwrap_or(config.policy.mode);
    let policy = host::policy(&host.front_end, &config, workspace, Some(mode), options.yes);
    let manager = host::loaded_with(host, workspace, &config, Some(policy.clone()))?;
    let trusting = if options.trust_hooks {
        crate::hooks::Trusting::All
    } else {
        crate::hooks::Trusting::Ask
    };
    let hook_warnings = crate::hooks::install(
        manager.runtime().ledger(),
        &config,
        dirs,
        workspace,
        &manager.runtime().options().exec,
        trusting,
    );
    // The servers start now, in parallel with the rest of the start.
    let mcp = crate::mcp::hub(
        &config,
        dirs,
        workspace,
        manager.runtime().ledger(),
        manager.runtime().options().exec.environment(),
    )?;
    if let Some(hub) = &mcp {
        hub.start();
    }
    let mut live = start(
        dirs, project, &config, &manager, &policy, preset, resuming, None,
    )?;
    // The first request waits for each server's tools
    // (`App::wait_for_mcp`), not the opening: the TUI draws meanwhile.
    if let Some(threshold) = options.compress_threshold {
        live.compression.threshold = threshold;
        compaction::install(&mut live.agent, live.compression);
    }
    if let AgentEvent::SessionStarted { warnings, .. } = &mut live.started {
        warnings.extend(hook_warnings);
    }
    Ok(OpenSession {
        live,
        config,
        policy,
        manager,
        mcp,
    })
}

/// The session a start writes to: a new one, or the one resumed with
/// what it held.
struct Opened {
    info: SessionInfo,
    chain: ContextChain,
    writer: SessionWriter,
    /// Call ids left without a result by a run that stopped mid-turn.
    interrupted: Vec<String>,
    resumed: bool,
    /// The resumed session's token totals and last recorded settings.
    usage: amber_core::ports::dialect::Usage,
    settings: Option<SessionSettings>,
    /// The resumed session's todo list.
    todos: Vec<Todo>,
    /// Sub-agents the resumed session started.
    children: usize,
    /// The resumed session's cost so far, if known.
    cost: Option<f64>,
    /// What its `checkpoint` records say its turns changed.
    checkpoints: Vec<amber_core::ports::FileChange>,
}

/// Starts the agent of a session under `preset`: a new session in the
/// store, or the one `resuming` names.
#[allow(clippy::too_many_arguments)]
pub fn start(
    dirs: &AmberDirs,
    project: &ProjectRoot,
    config: &Config,
    manager: &PluginManager,
    policy: &Arc<Policy>,
    preset: Preset,
    resuming: Option<Resuming>,
    skills: Option<Arc<crate::skills::SkillSet>>,
) -> Result<Live> {
    let ledger = manager.runtime().ledger();
    let parsers = host::parsers(manager)?;
    let watch = host::workspace_watch(manager);
    let workspace = project.root.as_path();
    let store = store(dirs);
    let mut warnings = Vec::new();
    let (model, flavor) = model_client(ledger, &preset, config)?;
    let workspace_text = workspace.display().to_string();
    let found = match instructions::load_down_to(workspace, &project.subdir) {
        Ok(found) => found,
        Err(e) => {
            warnings.push(format!("{e}; going on without project instructions"));
            Vec::new()
        }
    };
    let Opened {
        info,
        chain,
        writer,
        interrupted,
        resumed: is_resumed,
        usage,
        settings: last_settings,
        todos,
        children,
        cost,
        checkpoints: earlier,
    } = match resuming {
        Some(Resuming {
            path,
            resumed,
            lock,
            id,
        }) => {
            warnings.extend(resumed.warnings.iter().cloned());
            let writer = SessionWriter::reopen(&path, &resumed, lock)?;
            let info = resumed.info.clone().unwrap_or_else(|| SessionInfo {
                id,
                ..SessionInfo::default()
            });
            if !info.workspace.is_empty() && info.workspace != workspace_text {
                warnings.push(format!(
                    "session {} belongs to the workspace {}; this run works in {} (use -C {} to work there); its turns here keep no checkpoints, and /rewind restores no files",
                    info.id, info.workspace, workspace_text, info.workspace
                ));
            }
            Opened {
                info,
                chain: resumed.chain,
                writer,
                interrupted: resumed.interrupted,
                resumed: true,
                usage: resumed.usage,
                settings: resumed.settings,
                todos: resumed.todos,
                children: resumed.children.len(),
                cost: resumed.cost_usd,
                checkpoints: resumed.checkpoints,
            }
        }
        None => {
            let (mut info, mut writer) =
                store.create(&workspace_text, &preset.name, &preset.model)?;
            info.git_head = crate::git::head(workspace);
            writer.set_git_head(info.git_head.clone());
            Opened {
                info,
                chain: ContextChain::new(),
                writer,
                interrupted: Vec::new(),
                resumed: false,
                usage: Default::default(),
                settings: None,
                todos: Vec::new(),
                children: 0,
                cost: Some(0.0),
                checkpoints: Vec::new(),
            }
        }
    };
    let agent_config = &config.agent;
    let confirm = agent_config.confirm_turn.then(|| {
        if agent_config.confirm_prompt.trim().is_empty() {
            CONFIRM_PROMPT.to_string()
        } else {
            agent_config.confirm_prompt.clone()
        }
    });
    let settings = AgentConfig {
        model: preset.model.clone(),
        flavor: flavor.clone(),
        context_window: preset.context_window,
        max_tool_iterations: agent_config.max_tool_iterations,
        confirm,
        max_tokens: agent_config.max_tokens,
        temperature: agent_config.temperature,
        system_prompt: instructions::system_prompt(&workspace_text, &found),
        workspace: Some(workspace_text.clone()),
        price: config.price_of(&preset.name, &preset.model),
        max_budget_usd: agent_config.max_budget_usd,
        images: preset.images,
        preset: preset.name.clone(),
    };
    let interrupt = Interrupt::default();
    let compression = Compression::from_config(config);
    let gate = compaction::gate(compression.threshold);
    // Read coverage: this host is the session journal's one writer.
    let reads = if config.coverage.enabled {
        let (reads, reads_warnings) =
            crate::coverage::for_session(dirs, workspace, &info.id, parsers, &config.coverage);
        warnings.extend(reads_warnings);
        Some(Arc::new(reads))
    } else {
        None
    };
    let tracker: Option<Arc<dyn amber_core::ports::ReadTracker>> = reads
        .clone()
        .map(|r| r as Arc<dyn amber_core::ports::ReadTracker>);
    // Installed once per ledger: a second session of the same host finds
    // it there already.
    if !ledger
        .prompt_blocks()
        .iter()
        .any(|b| b.spec().name == amber_memory::prompt_block::BLOCK_NAME)
    {
        warnings.extend(crate::recall::install_recall_block(
            dirs,
            ledger,
            workspace,
            &config.memory,
        ));
    }
    let (skills, skills_warning) =
        crate::skills::install(ledger, skills, dirs, workspace, &config.skills, policy);
    warnings.extend(skills_warning);
    // The hooks follow the ledger: a hook plugin enabled mid-session
    // counts from its next event.
    let hooks = Arc::new(
        HookRunner::new(
            ledger.clone(),
            info.id.clone(),
            Some(workspace_text.clone()),
        )
        .with_overrides(crate::hooks::plugin_overrides(config)),
    );
    policy.set_hooks(Some(hooks.clone()));
    // Read before the tools: a change in between is seen at the first turn.
    let tools_generation = ledger.agent_generation();
    let blocks = ledger.prompt_blocks();
    let agents = crate::agents::catalog(dirs, workspace);
    warnings.extend(
        agents
            .skipped
            .iter()
            .map(|s| format!("agent file {} skipped: {}", s.path.display(), s.reason)),
    );
    let subagents = SubAgents {
        profiles: agents.agents.iter().map(|a| a.profile()).collect(),
        sessions: Some(ChildSessions {
            dir: store.dir().to_path_buf(),
            parent: info.id.clone(),
            workspace: workspace_text.clone(),
            provider: preset.name.clone(),
        }),
        started: Arc::new(std::sync::atomic::AtomicU32::new(children as u32)),
    };
    let (side_tx, side_rx) = side_channel();
    let todo_list = TodoList::new(todos, side_tx.clone());
    let jobs = crate::jobs::Jobs::new(
        manager.runtime().options().exec.clone(),
        workspace,
        dirs.data.join("jobs").join(&info.id),
    );
    // Which tools wait behind `tool_search`: the session's and its
    // sub-agents' alike.
    let tool_search = crate::tool_search::settings(
        dirs,
        &config.tools,
        ledger.clone(),
        manager.bundled_ids().clone(),
    );
    let tool_uses = amber_core::engine::tool_search::ToolUses::default();
    let tools = main_tools(
        MainTools {
            config,
            ledger,
            preset: &preset,
            subagents: &subagents,
            todos: &todo_list,
            jobs: &jobs,
        },
        TaskContext {
            config: settings.clone(),
            model: model.clone(),
            tools: ledger.tools(),
            ledger: Some(ledger.clone()),
            tool_search: Some(tool_search.clone()),
            tool_uses: Some(tool_uses.clone()),
            blocks: blocks.clone(),
            policy: policy.clone(),
            gate: gate.clone(),
            max_iterations: agent_config.subagent_max_iterations,
            interrupt: interrupt.clone(),
            reads: tracker.clone(),
            hooks: Some(hooks.clone()),
            profiles: Vec::new(),
            models: None,
            sessions: None,
            events: side_tx.clone(),
            started: Default::default(),
            image_prep: Some(crate::images::prep()),
        },
    );
    let ports = AgentPorts {
        model,
        tools,
        blocks,
        policy: policy.clone(),
        gate,
        compressor: None,
        learner: Some(compaction::learner(dirs, project, config)),
    };
    let session_path = writer.path().display().to_string();
    let mut agent = Agent::new(settings, ports, chain, Some(writer))
        .with_interrupt(interrupt)
        .following(ledger.clone())
        .with_reads(tracker, amber_coverage::MAIN)
        .with_hooks(Some(hooks), false)
        .with_workspace_watch(Some(watch))
        .with_total_usage(usage)
        .with_total_cost(cost)
        .with_side_channel((side_tx, side_rx))
        .with_todos(Some(todo_list))
        .with_image_prep(Some(crate::images::prep()))
        .with_tool_search(tool_search.clone())
        .with_tool_uses(tool_uses)
        .with_checkpoints(
            // A session's checkpoints are of its own workspace's files:
            // resumed elsewhere, they are left alone (said above).
            (info.workspace.is_empty() || info.workspace == workspace_text)
                .then(|| checkpoints(dirs, workspace, config, &earlier, &info.id))
                .flatten(),
        );
    // What it runs with, for a resume to restore (a new session's waits
    // for its first message; a resumed one's is written when it changed).
    let running_with = SessionSettings {
        mode: Some(policy.mode().as_str().to_string()),
        provider: preset.name.clone(),
        model: preset.model.clone(),
    };
    if last_settings.as_ref() != Some(&running_with) {
        agent.record_settings(&running_with)?;
    }
    // A resumed session is told once what it had read.
    if is_resumed {
        if let Some(digest) = reads.as_ref().and_then(|r| r.digest()) {
            agent.note_before_next_prompt(digest);
        }
    }
    // A turn killed before its changes were recorded: recorded now, as
    // that turn's, before the turn is closed below.
    warnings.extend(agent.recover_checkpoint()?);
    if !interrupted.is_empty() {
        agent.record_turn(session::interrupted_results(&interrupted))?;
    }
    let started = AgentEvent::SessionStarted {
        session_id: info.id.clone(),
        path: session_path,
        workspace: workspace_text,
        provider: preset.name.clone(),
        flavor,
        model: preset.model.clone(),
        mode: policy.mode().as_str().into(),
        resumed: is_resumed,
        instructions: found.last().map(|f| f.file.display().to_string()),
        instruction_files: found.iter().map(|f| f.file.display().to_string()).collect(),
        interrupted,
        warnings,
    };
    let mut live = Live {
        agent,
        info,
        preset,
        compression,
        started,
        tools_generation,
        skills,
        subagents,
        jobs,
    };
    compaction::install(&mut live.agent, live.compression);
    Ok(live)
}

/// What keeps a session's changes for rewind, unless config turns it off.
fn checkpoints(
    dirs: &AmberDirs,
    workspace: &std::path::Path,
    config: &Config,
    earlier: &[amber_core::ports::FileChange],
    id: &str,
) -> Option<Arc<dyn amber_core::ports::Checkpoints>> {
    config.checkpoints.enabled.then(|| {
        Arc::new(crate::checkpoints::for_session(
            dirs,
            workspace,
            &config.checkpoints,
            earlier,
            id,
        )) as Arc<dyn amber_core::ports::Checkpoints>
    })
}

/// Gives the session the ledger's tools and prompt blocks when they
/// changed since it took them (a plugin enabled, disabled or replaced
/// while it ran), so the next request declares what is there now; or at
/// once with `force` (another model, which sub-agents must use too).
pub fn sync_tools(live: &mut Live, ledger: &Arc<Ledger>, config: &Config, force: bool) {
    let generation = ledger.agent_generation();
    if generation == live.tools_generation && !force {
        return;
    }
    let agent = &live.agent;
    let Some(todos) = agent.todos().cloned() else {
        return;
    };
    live.tools_generation = generation;
    let agent = &live.agent;
    let blocks = ledger.prompt_blocks();
    let tools = main_tools(
        MainTools {
            config,
            ledger,
            preset: &live.preset,
            subagents: &live.subagents,
            todos: &todos,
            jobs: &live.jobs,
        },
        TaskContext {
            config: agent.config().clone(),
            model: agent.model_client().clone(),
            tools: ledger.tools(),
            ledger: Some(ledger.clone()),
            tool_search: agent.tool_search_settings(),
            tool_uses: Some(agent.tool_uses_shared()),
            blocks: blocks.clone(),
            policy: agent.policy().clone(),
            gate: agent.gate().clone(),
            max_iterations: config.agent.subagent_max_iterations,
            interrupt: agent.interrupt().clone(),
            reads: agent.reads().cloned(),
            hooks: agent.hooks().cloned(),
            profiles: Vec::new(),
            models: None,
            sessions: None,
            events: agent.side_sender(),
            started: Default::default(),
            image_prep: Some(crate::images::prep()),
        },
    );
    live.agent.set_tools(&tools, blocks);
}
