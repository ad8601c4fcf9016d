//! `amber exec "<prompt>"`: one headless run of the agent. The terminal
//! gets the reply on stdout and progress on stderr; `--json` streams the
//! events as JSONL on stdout (docs/exec-json.md). Exit codes: 0 done,
//! 1 error, 2 usage, 3 hard stop, 130 interrupted.

use std::io::Read;
use std::process::ExitCode;
use std::sync::Arc;

use amber_config::SubagentMode;
use amber_core::engine::instructions;
use amber_core::engine::task::{Execution, TaskContext, TaskTool};
use amber_core::engine::{
    Agent, AgentConfig, AgentEvent, AgentPorts, FailureKind, Mode, Outcome, RunReport,
    CONFIRM_PROMPT,
};
use amber_core::ports::dialect::Usage;
use amber_core::ports::{CompressionGate, ModelClient, ThresholdGate};
use amber_core::project::ProjectRoot;
use amber_core::session::{self, SessionInfo, SessionStore, SessionWriter};
use amber_core::ContextChain;
use amber_runtime::manager::PluginManager;
use amber_runtime::AmberDirs;
use amber_wire::{make_dialect, Preset, WireClient};
use anyhow::{Context, Result};
use clap::Args;
use tokio_util::sync::CancellationToken;

use super::providers::presets_from;
use crate::host;
use crate::render::Printer;

/// Exit code of a hard stop (the loop stopped itself).
pub const EXIT_HARD_STOP: u8 = 3;
/// Exit code after Ctrl-C, as shells expect.
pub const EXIT_INTERRUPTED: u8 = 130;
/// Stopped by SIGTERM (128 + 15) or SIGHUP (128 + 1), handled as Ctrl-C.
pub const EXIT_TERMINATED: u8 = 143;
pub const EXIT_HUNG_UP: u8 = 129;

#[derive(Args)]
pub struct ExecArgs {
    /// The request for the agent; `-` reads it from stdin.
    pub prompt: String,
    /// Stream JSONL events on stdout instead of text (see docs/exec-json.md).
    #[arg(long)]
    pub json: bool,
    /// read: only read-only tools run. write: the rest need approval.
    /// yolo: everything runs. Default: `policy.mode` from config, else write.
    #[arg(long, value_parser = clap::value_parser!(ModeArg))]
    pub mode: Option<ModeArg>,
    /// Approve every approval prompt of this run.
    #[arg(long)]
    pub yes: bool,
    /// A provider preset (see `amber providers list`). Default: `model.provider`
    /// from config, else the resumed session's, else openai (anthropic when
    /// only ANTHROPIC_API_KEY is set).
    #[arg(long)]
    pub provider: Option<String>,
    /// Another model than the preset's.
    #[arg(short = 'm', long)]
    pub model: Option<String>,
    /// Another base URL than the preset's.
    #[arg(long)]
    pub base_url: Option<String>,
    /// Continue session ID (see `amber sessions list`); its chain is
    /// verified first.
    #[arg(long, value_name = "ID")]
    pub resume: Option<String>,
    /// Also write the final reply to FILE when the run completes (for
    /// scripts); a failed run leaves FILE as it was.
    #[arg(long, value_name = "FILE")]
    pub output_last_message: Option<std::path::PathBuf>,
}

impl ExecArgs {
    /// `amber exec PROMPT` with every option at its default (`amber -p`).
    pub fn with_prompt(prompt: String) -> Self {
        ExecArgs {
            prompt,
            json: false,
            mode: None,
            yes: false,
            provider: None,
            model: None,
            base_url: None,
            resume: None,
            output_last_message: None,
        }
    }
}

#[derive(Clone, Copy, clap::ValueEnum)]
pub enum ModeArg {
    Read,
    Write,
    Yolo,
}

impl From<ModeArg> for Mode {
    fn from(m: ModeArg) -> Mode {
        match m {
            ModeArg::Read => Mode::Read,
            ModeArg::Write => Mode::Write,
            ModeArg::Yolo => Mode::Yolo,
        }
    }
}

/// Everything a run needs, made before the first event.
struct Prepared {
    agent: Agent,
    started: AgentEvent,
    session_id: String,
    prompt: String,
    /// Keeps the plugins loaded for as long as the agent uses their tools.
    _manager: PluginManager,
}

pub fn run(args: ExecArgs, project: &ProjectRoot) -> ExitCode {
    let mut printer = Printer::new(args.json);
    let prepared = match prepare(&args, project) {
        Ok(prepared) => prepared,
        Err(e) => {
            printer.event(&AgentEvent::SessionFailed {
                session_id: String::new(),
                kind: FailureKind::Error,
                error: format!("{e:#}"),
                model_error: None,
                turns: 0,
                usage: Usage::default(),
            });
            return ExitCode::FAILURE;
        }
    };
    let Prepared {
        mut agent,
        started,
        session_id,
        prompt,
        _manager,
    } = prepared;
    printer.event(&started);
    // Two workers: sub-agents block on the runtime from tool threads.
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(e) => {
            eprintln!("amber: cannot start the async runtime: {e}");
            return ExitCode::FAILURE;
        }
    };
    let cancel = agent.cancel_token();
    let result = runtime.block_on(async {
        tokio::spawn(async move {
            let Some(code) = stop_signal().await else {
                return;
            };
            STOPPED_BY.store(code, std::sync::atomic::Ordering::SeqCst);
            cancel.cancel();
            // Commands started through `exec` die with their groups.
            amber_runtime::imports::exec::kill_running();
            // A second signal does not wait for anything.
            if stop_signal().await.is_some() {
                amber_runtime::imports::exec::kill_running();
                std::process::exit(i32::from(code));
            }
        });
        let mut sink = |event: AgentEvent| printer.event(&event);
        agent.run(&prompt, &mut sink).await
    });
    // Tool calls abandoned by Ctrl-C may still hold blocking threads.
    runtime.shutdown_background();
    let (event, code) = finish(result, &session_id);
    printer.event(&event);
    if let (AgentEvent::SessionCompleted { reply, .. }, Some(file)) =
        (&event, &args.output_last_message)
    {
        // Through a temporary file beside it: a reader never sees half.
        if let Err(e) = amber_runtime::atomic::write_atomic(file, reply.as_bytes()) {
            eprintln!(
                "amber: cannot write the reply to {} (--output-last-message): {e}",
                file.display()
            );
            return ExitCode::FAILURE;
        }
    }
    code
}

/// The exit code of the signal that stopped the run, 0 while none has.
static STOPPED_BY: std::sync::atomic::AtomicU8 = std::sync::atomic::AtomicU8::new(0);

/// Waits for Ctrl-C, SIGTERM or SIGHUP, each handled the same way (the
/// turn is sealed, children are killed), and gives the exit code it
/// means: 130, 143 or 129. None when no handler could be installed.
async fn stop_signal() -> Option<u8> {
    use tokio::signal::unix::{signal, SignalKind};
    let mut term = signal(SignalKind::terminate()).ok()?;
    let mut hup = signal(SignalKind::hangup()).ok()?;
    tokio::select! {
        r = tokio::signal::ctrl_c() => r.ok().map(|()| EXIT_INTERRUPTED),
        _ = term.recv() => Some(EXIT_TERMINATED),
        _ = hup.recv() => Some(EXIT_HUNG_UP),
    }
}

fn finish(
    result: Result<RunReport, amber_core::engine::AgentError>,
    session_id: &str,
) -> (AgentEvent, ExitCode) {
    let failed = |kind, error: String, turns, usage| AgentEvent::SessionFailed {
        session_id: session_id.to_string(),
        kind,
        error,
        model_error: None,
        turns,
        usage,
    };
    match result {
        Ok(RunReport {
            outcome: Outcome::Done(reply),
            turns,
            usage,
        }) => (
            AgentEvent::SessionCompleted {
                session_id: session_id.to_string(),
                reply,
                turns,
                usage,
            },
            ExitCode::SUCCESS,
        ),
        Ok(RunReport {
            outcome: Outcome::HardStop(reason),
            turns,
            usage,
        }) => (
            failed(FailureKind::HardStop, reason, turns, usage),
            ExitCode::from(EXIT_HARD_STOP),
        ),
        Ok(RunReport {
            outcome: Outcome::Interrupted,
            turns,
            usage,
        }) => (
            failed(
                FailureKind::Interrupted,
                "interrupted; the session is saved".into(),
                turns,
                usage,
            ),
            ExitCode::from(match STOPPED_BY.load(std::sync::atomic::Ordering::SeqCst) {
                0 => EXIT_INTERRUPTED,
                code => code,
            }),
        ),
        Ok(RunReport {
            outcome: Outcome::ModelFailed(e),
            turns,
            usage,
        }) => (
            AgentEvent::SessionFailed {
                session_id: session_id.to_string(),
                kind: FailureKind::Error,
                error: format!("the model call failed: {e}"),
                model_error: Some(e),
                turns,
                usage,
            },
            ExitCode::FAILURE,
        ),
        Err(e) => (
            failed(FailureKind::Error, e.to_string(), 0, Usage::default()),
            ExitCode::FAILURE,
        ),
    }
}

fn read_prompt(arg: &str) -> Result<String> {
    if arg != "-" {
        return Ok(arg.to_string());
    }
    let mut prompt = String::new();
    std::io::stdin()
        .read_to_string(&mut prompt)
        .context("cannot read the prompt from stdin")?;
    Ok(prompt)
}

/// The preset: --provider, then config, then the resumed session's, then
/// a default that has a key set.
fn choose_preset(
    args: &ExecArgs,
    config: &amber_config::Config,
    resumed: Option<&SessionInfo>,
) -> Result<Preset> {
    let presets = presets_from(config)?;
    let env_set = amber_wire::secrets::is_set;
    let name = args
        .provider
        .clone()
        .or_else(|| config.model.provider.clone())
        .or_else(|| {
            resumed
                .map(|s| s.provider.clone())
                .filter(|p| !p.is_empty())
        })
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
    if let Some(model) = args.model.clone().or(config_model).or(resumed_model) {
        preset.model = model;
    }
    if let Some(url) = &args.base_url {
        preset.base_url = url.clone();
    }
    Ok(preset)
}

fn prepare(args: &ExecArgs, project: &ProjectRoot) -> Result<Prepared> {
    let workspace = project.root.as_path();
    let prompt = read_prompt(&args.prompt)?;
    if prompt.trim().is_empty() {
        anyhow::bail!("the prompt is empty");
    }
    let dirs = AmberDirs::from_env();
    let config = host::load_config(&dirs)?;
    let store = SessionStore::new(dirs.data.join("sessions"));
    let mut warnings = Vec::new();
    // Resume first: a tampered session is refused before anything else.
    let resumed = match &args.resume {
        Some(id) => {
            let path = store.path(id)?;
            // Locked before it is read: a second run on the same session
            // fails here, at once, naming the first.
            let lock = session::SessionLock::acquire(&path)?;
            let resumed = session::resume(&path)?;
            warnings.extend(resumed.warnings.iter().cloned());
            Some((path, resumed, lock))
        }
        None => None,
    };
    let preset = choose_preset(
        args,
        &config,
        resumed.as_ref().and_then(|(_, r, _)| r.info.as_ref()),
    )?;
    let mode: Mode = args.mode.map(Mode::from).unwrap_or(config.policy.mode);
    let policy = host::policy(&config, workspace, Some(mode), args.yes);
    let manager = host::loaded_with(workspace, &config, Some(policy.clone()))?;
    let ledger = manager.runtime().ledger();
    let (dialect, warning) =
        make_dialect(ledger, &preset.flavor).map_err(|e| host::with_bundle_hint(e.into()))?;
    warnings.extend(warning);
    let key = WireClient::key_from_env(&preset)?;
    let flavor = dialect.flavor().name.clone();
    let client = WireClient::new(preset.clone(), dialect, key, host::wire_options(&config))?;
    let workspace_text = workspace.display().to_string();
    let found = match instructions::load_down_to(workspace, &project.subdir) {
        Ok(found) => found,
        Err(e) => {
            warnings.push(format!("{e}; going on without project instructions"));
            Vec::new()
        }
    };
    let (info, chain, writer, interrupted, is_resumed) = match resumed {
        Some((path, resumed, lock)) => {
            let writer = SessionWriter::reopen(&path, &resumed, lock)?;
            let info = resumed.info.clone().unwrap_or_else(|| SessionInfo {
                id: args.resume.clone().unwrap_or_default(),
                ..SessionInfo::default()
            });
            if !info.workspace.is_empty() && info.workspace != workspace_text {
                warnings.push(format!(
                    "session {} belongs to the workspace {}; this run works in {} (use -C {} to work there)",
                    info.id, info.workspace, workspace_text, info.workspace
                ));
            }
            (info, resumed.chain, writer, resumed.interrupted, true)
        }
        None => {
            let (info, writer) = store.create(&workspace_text, &preset.name, &preset.model)?;
            (info, ContextChain::new(), writer, Vec::new(), false)
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
    let mode: Mode = args
        .mode
        .map(Mode::from)
        .unwrap_or(match config.policy.mode {
            amber_config::Mode::Read => Mode::Read,
            amber_config::Mode::Write => Mode::Write,
            amber_config::Mode::Yolo => Mode::Yolo,
        });
    let settings = AgentConfig {
        model: preset.model.clone(),
        flavor: flavor.clone(),
        context_window: preset.context_window,
        max_tool_iterations: agent_config.max_tool_iterations,
        confirm,
        max_tokens: agent_config.max_tokens,
        temperature: None,
        system_prompt: instructions::system_prompt(&workspace_text, &found),
        workspace: Some(workspace_text.clone()),
    };
    let cancel = CancellationToken::new();
    let gate: Arc<dyn CompressionGate> = Arc::new(ThresholdGate {
        threshold: agent_config.compress_threshold,
    });
    let model: Arc<dyn ModelClient> = Arc::new(client);
    let mut tools = ledger.tools();
    warnings.extend(super::memory::install_recall_block(
        ledger,
        workspace,
        &config.memory,
    ));
    let blocks = ledger.prompt_blocks();
    let task = TaskTool::new(
        TaskContext {
            config: AgentConfig {
                system_prompt: String::new(),
                ..settings.clone()
            },
            model: model.clone(),
            tools: tools.clone(),
            blocks: blocks.clone(),
            policy: policy.clone(),
            gate: gate.clone(),
            max_iterations: agent_config.subagent_max_iterations,
            cancel: cancel.clone(),
        },
        match agent_config.subagents {
            SubagentMode::Serial => Execution::Serial,
            SubagentMode::Parallel => Execution::Parallel(agent_config.subagent_max as usize),
        },
    );
    tools.push(Arc::new(task));
    let ports = AgentPorts {
        model,
        tools,
        blocks,
        policy,
        gate,
        compressor: None,
    };
    let session_path = writer.path().display().to_string();
    let mut agent = Agent::new(settings, ports, chain, Some(writer)).with_cancel(cancel);
    warnings.extend(agent.warnings().iter().cloned());
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
        mode: mode.as_str().into(),
        resumed: is_resumed,
        instructions: found.last().map(|f| f.file.display().to_string()),
        instruction_files: found.iter().map(|f| f.file.display().to_string()).collect(),
        interrupted,
        warnings,
    };
    Ok(Prepared {
        agent,
        started,
        session_id: info.id,
        prompt,
        _manager: manager,
    })
}
