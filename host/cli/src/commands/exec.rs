//! `amber exec "<prompt>"`: one headless run of the agent. The terminal
//! gets the reply on stdout and progress on stderr; `--json` streams the
//! events as JSONL on stdout (docs/exec-json.md). Exit codes: 0 done,
//! 1 error, 2 usage, 3 hard stop, 4 done after a denial, 130 interrupted.

use std::io::Read;
use std::process::ExitCode;

use amber_app::session::SessionOptions;
use amber_app::stop_signals::{Stop, StopSignals};
use amber_app::App;
use amber_core::engine::{AgentEvent, FailureKind, Mode, Outcome, RunReport};
use amber_core::ports::dialect::Usage;
use amber_core::project::ProjectRoot;
use anyhow::{Context, Result};
use clap::Args;

use super::session_flags::ModeArg;
use crate::render::Printer;

/// Exit code of a hard stop (the loop stopped itself).
pub const EXIT_HARD_STOP: u8 = 3;
/// Exit code of a run that ended right after an action it asked for was
/// denied: it finished, but without what it needed.
pub const EXIT_DENIED: u8 = 4;
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
    /// plan: read-only tools, and the run ends with a proposed plan.
    /// read: only read-only tools run. write: the rest need approval.
    /// yolo: everything runs. Default: `policy.mode` from config, else write.
    #[arg(long, value_parser = clap::value_parser!(ModeArg), conflicts_with = "plan")]
    pub mode: Option<ModeArg>,
    /// Stop the run before the model call that would spend more than this
    /// many US dollars (the run's calls, its sub-agents' and compression's
    /// included; needs the model's price in `[prices]`, docs/cost.md).
    /// Default: `agent.max_budget_usd` from config, else none.
    #[arg(long, value_name = "USD", value_parser = budget)]
    pub max_budget_usd: Option<f64>,
    /// Plan mode (`--mode plan`): the model reads what it needs and ends
    /// with a plan (`exit_plan`), printed on stdout (with `--json`, a
    /// `plan.proposed` event); nothing is changed (docs/plan-mode.md).
    #[arg(long)]
    pub plan: bool,
    /// Approve every approval prompt of this run.
    #[arg(long)]
    pub yes: bool,
    /// A provider preset (see `amber providers list`). Default: `model.provider`
    /// from config, else the resumed session's, else openai (anthropic when
    /// only ANTHROPIC_API_KEY is set).
    #[arg(long, add = clap_complete::engine::ArgValueCandidates::new(super::completers::presets))]
    pub provider: Option<String>,
    /// Another model than the preset's.
    #[arg(short = 'm', long, add = clap_complete::engine::ArgValueCandidates::new(super::completers::models))]
    pub model: Option<String>,
    /// Another base URL than the preset's.
    #[arg(long)]
    pub base_url: Option<String>,
    /// Continue session ID (see `amber sessions list`); its chain is
    /// verified first.
    #[arg(long, value_name = "ID", add = clap_complete::engine::ArgValueCandidates::new(super::completers::session_ids))]
    pub resume: Option<String>,
    /// Continue the workspace's latest session that has a turn.
    #[arg(short = 'c', long = "continue", conflicts_with = "resume")]
    pub continue_latest: bool,
    /// Also write the final reply to FILE when the run completes (for
    /// scripts); a failed run leaves FILE as it was.
    #[arg(long, value_name = "FILE")]
    pub output_last_message: Option<std::path::PathBuf>,
    /// Compress the context when it fills this share of the model's window,
    /// for this run (0 < X <= 1; default `agent.compress_threshold`, 0.8).
    #[arg(long, value_name = "X", value_parser = share_of_window)]
    pub compact_at: Option<f64>,
    /// Trust every hook the workspace defines (`.claude/settings.json`)
    /// and pin it, without asking. Without it, an untrusted workspace hook
    /// is asked about at a terminal and skipped otherwise (docs/hooks.md).
    #[arg(long)]
    pub trust_hooks: bool,
    /// Leave out the silent confirm turn ("are you finished?") that follows
    /// an answer without tool calls: one model call fewer per run, but a
    /// model that stopped early is not sent back to work. Default:
    /// `agent.confirm_turn` from config (on).
    #[arg(long)]
    pub no_confirm: bool,
    /// Send the image in FILE (PNG, JPEG, GIF or WebP) with the prompt;
    /// repeat for more. It is shrunk to fit every vendor's limits first,
    /// and a preset whose model does not take images refuses the run
    /// before anything is sent (docs/images.md).
    #[arg(long = "image", value_name = "FILE")]
    pub images: Vec<std::path::PathBuf>,
}

/// A share of the context window: above 0, at most 1.
fn share_of_window(text: &str) -> Result<f64, String> {
    let x: f64 = text
        .parse()
        .map_err(|_| format!("`{text}` is not a number"))?;
    if x > 0.0 && x <= 1.0 {
        Ok(x)
    } else {
        Err(format!(
            "{x} is not in (0, 1]: a share of the model's context window"
        ))
    }
}

/// `--max-budget-usd`: a number of US dollars above 0.
fn budget(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(x) if x.is_finite() && x > 0.0 => Ok(x),
        _ => Err(format!("`{text}` is not a number of US dollars above 0")),
    }
}

impl ExecArgs {
    /// `amber exec PROMPT` with every option at its default (`amber -p`).
    pub fn with_prompt(prompt: String) -> Self {
        ExecArgs {
            prompt,
            json: false,
            mode: None,
            plan: false,
            max_budget_usd: None,
            yes: false,
            provider: None,
            model: None,
            base_url: None,
            resume: None,
            continue_latest: false,
            output_last_message: None,
            compact_at: None,
            trust_hooks: false,
            no_confirm: false,
            images: Vec::new(),
        }
    }
}

impl ExecArgs {
    /// `amber -p PROMPT` with the session flags given before it
    /// (`amber -m MODEL --mode read -p …`).
    pub fn with_session_flags(mut self, flags: super::session_flags::TuiArgs) -> Self {
        self.provider = flags.provider;
        self.model = flags.model;
        self.base_url = flags.base_url;
        self.mode = flags.mode;
        self.plan = flags.plan;
        // `--resume` without an ID is `-c`.
        self.continue_latest = flags.continue_latest || flags.resume.as_deref() == Some("");
        self.resume = flags.resume.filter(|id| !id.is_empty());
        self.no_confirm = flags.no_confirm;
        self
    }

    /// What this run asks of its session; `resume` is the session
    /// `--resume` or `-c` named.
    fn session_options(&self, resume: Option<String>) -> SessionOptions {
        SessionOptions {
            provider: self.provider.clone(),
            model: self.model.clone(),
            base_url: self.base_url.clone(),
            mode: if self.plan {
                Some(Mode::Plan)
            } else {
                self.mode.map(Mode::from)
            },
            yes: self.yes,
            resume,
            compress_threshold: self.compact_at,
            trust_hooks: self.trust_hooks,
            no_confirm: self.no_confirm,
            max_budget_usd: self.max_budget_usd,
        }
    }
}

/// Everything a run needs, made before the first event.
struct Prepared {
    app: App,
    prompt: String,
}

/// The prompt first (a bad one costs no plugin load), then the session.
fn prepare(
    host: &amber_app::host::Host,
    args: &ExecArgs,
    project: &ProjectRoot,
) -> Result<Prepared> {
    let prompt = read_prompt(&args.prompt)?;
    if prompt.trim().is_empty() {
        anyhow::bail!("the prompt is empty");
    }
    // Read before the session opens: an image that cannot be sent fails
    // the run at once rather than a prompt going without it.
    let prep = amber_app::images::prep();
    let images = args
        .images
        .iter()
        .map(|path| amber_app::images::from_file(path, &*prep))
        .collect::<Result<Vec<_>, String>>()
        .map_err(|e| anyhow::anyhow!("--image {e}"))?;
    // `git diff | amber -p "review this"`: what is piped in is context,
    // put before the prompt (as a note, so the session's title and its
    // resumed transcript show the prompt as typed).
    let mut piped_block = None;
    if args.prompt != "-" {
        if let Some(piped) =
            amber_app::piped::read_piped_stdin().context("cannot read what was piped to amber")?
        {
            let (with, note) = amber_app::piped::with_piped(&piped, &prompt);
            if let Some(note) = note {
                eprintln!("amber: {note}");
            }
            piped_block = with
                .strip_suffix(prompt.as_str())
                .map(|block| block.trim_end().to_string())
                .filter(|block| !block.is_empty());
        }
    }
    let resume = super::session_flags::session_to_resume(
        host,
        args.resume.clone(),
        args.continue_latest,
        project,
    )?;
    let mut app = App::open_session(host, project.clone(), args.session_options(resume))?;
    if let (Some(block), Some(live)) = (piped_block, app.live_mut()) {
        live.agent.note_before_next_prompt(block);
    }
    if let Some(live) = app.live_mut() {
        live.agent.attach_images(images);
    }
    let prompt = match file_command(&mut app, &prompt, project)? {
        Some(expanded) => expanded,
        None => prompt,
    };
    Ok(Prepared { app, prompt })
}

/// `amber exec "/fix the-widget"`: a command file's prompt, made ready
/// as the TUI makes it (`prompt_effect::realize`); `None` for a prompt
/// that is no command file's (a path such as `/etc/hosts is wrong` goes
/// to the model as written).
fn file_command(app: &mut App, prompt: &str, project: &ProjectRoot) -> Result<Option<String>> {
    let Some(rest) = prompt.trim_start().strip_prefix('/') else {
        return Ok(None);
    };
    let root = rest.split_whitespace().next().unwrap_or_default();
    let is_file_command = app
        .tree()
        .child(root)
        .and_then(|node| node.action.as_deref())
        .is_some_and(|action| action.starts_with("feed.file-commands."));
    if !is_file_command {
        return Ok(None);
    }
    let effect = match app.dispatch(prompt.trim()) {
        amber_core::commands::Outcome::Ok { reply, .. } => match reply.effect {
            amber_core::commands::Effect::Prompt(effect) => effect,
            _ => return Ok(None),
        },
        other => anyhow::bail!("{}", other.text()),
    };
    let shell = app.manager().runtime().ledger().tool("shell");
    let dirs = app.dirs.clone();
    let live = app.live_mut().context("the session did not open")?;
    let policy = live.agent.policy().clone();
    let ready = amber_app::prompt_effect::realize(&effect, &policy, shell, &dirs, &project.root)
        .map_err(anyhow::Error::msg)?;
    for note in &ready.notes {
        eprintln!("amber: {note}");
    }
    if let Some(attached) = ready.attached {
        live.agent.note_before_next_prompt(attached);
    }
    live.agent.attach_images(ready.images);
    Ok(Some(ready.prompt))
}

pub fn run(host: &amber_app::host::Host, args: ExecArgs, project: &ProjectRoot) -> ExitCode {
    let mut printer = Printer::new(args.json);
    let prepared = match prepare(host, &args, project) {
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
    let Prepared { mut app, prompt } = prepared;
    let dirs = app.dirs.clone();
    let mcp = app.mcp_hub();
    // The first request waits for the MCP servers' tools; what it goes on
    // without is said where the session's start is.
    let mcp_warnings = app.wait_for_mcp();
    let Some(live) = app.live_mut() else {
        eprintln!("amber: the session did not open");
        return ExitCode::FAILURE;
    };
    if let AgentEvent::SessionStarted { warnings, .. } = &mut live.started {
        warnings.extend(mcp_warnings);
    }
    let (agent, started, session_id) = (&mut live.agent, &live.started, live.info.id.clone());
    printer.event(started);
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
    let last_denied: std::sync::Mutex<Option<String>> = Default::default();
    let result = runtime.block_on(async {
        tokio::spawn(async move {
            let mut signals = StopSignals::new();
            let Some(code) = stop_signal(&mut signals).await else {
                return;
            };
            STOPPED_BY.store(code, std::sync::atomic::Ordering::SeqCst);
            cancel.cancel();
            // Commands started through `exec` die with their groups.
            amber_runtime::imports::exec::kill_running();
            // A second signal does not wait for the turn: what runs is
            // killed (a moment's wait to reap it) and amber exits.
            if stop_signal(&mut signals).await.is_some() {
                amber_sandbox::shutdown();
                std::process::exit(i32::from(code));
            }
        });
        let mut sink = |event: AgentEvent| {
            // Whether the last tool result was a denial, and why: a run
            // that ends right after one did not get what it asked for.
            if let AgentEvent::ToolResult {
                name,
                status,
                output,
                ..
            } = &event
            {
                if let Ok(mut last) = last_denied.lock() {
                    *last = (*status == amber_core::engine::Status::Denied)
                        .then(|| format!("{name}: {}", amber_core::text::one_line(output, 300)));
                }
            }
            printer.event(&event)
        };
        let result = agent.run(&prompt, &mut sink).await;
        // What the MCP servers said while it ran (a restart, a tool held
        // back after a relisting).
        for message in mcp.iter().flat_map(|hub| hub.take_notes()) {
            sink(AgentEvent::Warning { message });
        }
        let reason = match &result {
            Ok(report) if report.outcome == amber_core::engine::Outcome::Interrupted => {
                "interrupted"
            }
            _ => "exit",
        };
        // The session-end hooks; a failure to record their outcome costs
        // the record, not the run's result.
        if let Err(e) = agent.end_session(reason, &mut sink).await {
            sink(AgentEvent::Warning {
                message: format!("the session-end hooks' outcome was not recorded: {e}"),
            });
        }
        if let Err(e) = amber_app::tool_search::record(&dirs, &agent.tool_uses()) {
            sink(AgentEvent::Warning {
                message: format!("the tools' use was not counted: {e:#}"),
            });
        }
        result
    });
    // Tool calls abandoned by Ctrl-C may still hold blocking threads.
    runtime.shutdown_background();
    if let Some(path) = std::env::var_os(amber_app::run_report::EXEC_REPORT) {
        if let Err(e) = amber_app::run_report::write(&app, std::path::Path::new(&path), true) {
            eprintln!(
                "amber: cannot write the run report to {}: {e}",
                std::path::Path::new(&path).display()
            );
        }
    }
    let session_cost = app.live().and_then(|live| live.agent.total_cost());
    let (event, code) = finish(
        result,
        &session_id,
        last_denied.into_inner().unwrap_or_default(),
        session_cost,
    );
    printer.event(&event);
    if let (AgentEvent::SessionCompleted { reply, .. }, Some(file)) =
        (&event, &args.output_last_message)
    {
        // Through a temporary file beside it: a reader never sees half.
        if let Err(e) = amber_core::atomic::write_atomic(file, reply.as_bytes()) {
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
async fn stop_signal(signals: &mut StopSignals) -> Option<u8> {
    tokio::select! {
        r = tokio::signal::ctrl_c() => r.ok().map(|()| EXIT_INTERRUPTED),
        stop = signals.recv() => Some(match stop {
            Stop::Terminated => EXIT_TERMINATED,
            Stop::HungUp => EXIT_HUNG_UP,
        }),
    }
}

/// The run's last event and exit code; `denied` is why the last tool
/// result was a denial, when it was.
fn finish(
    result: Result<RunReport, amber_core::engine::AgentError>,
    session_id: &str,
    denied: Option<String>,
    session_cost_usd: Option<f64>,
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
            cost_usd,
        }) => (
            AgentEvent::SessionCompleted {
                session_id: session_id.to_string(),
                reply,
                turns,
                usage,
                denied: denied.clone(),
                cost_usd,
                session_cost_usd,
            },
            if denied.is_some() {
                ExitCode::from(EXIT_DENIED)
            } else {
                ExitCode::SUCCESS
            },
        ),
        Ok(RunReport {
            outcome: Outcome::HardStop(reason),
            turns,
            usage,
            ..
        }) => (
            failed(FailureKind::HardStop, reason, turns, usage),
            ExitCode::from(EXIT_HARD_STOP),
        ),
        Ok(RunReport {
            outcome: Outcome::Interrupted,
            turns,
            usage,
            ..
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
            ..
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
