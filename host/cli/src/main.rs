//! The `amber` binary: a thin front end over the runtime and core.

#[macro_use]
mod printing;
mod approval;
mod commands;
mod compile_progress;
mod pipes;
mod render;
mod workspace;

use std::process::ExitCode;

use amber_app::host::{FrontEnd, Host};
use clap::{CommandFactory, FromArgMatches, Parser, Subcommand};

/// Before anything else runs: amber becomes non-dumpable, so another
/// process of the same user cannot read its memory or
/// `/proc/PID/environ`, and its keys move out of the environment into the
/// wire layer (amber_wire::secrets), scrubbed from the original block.
fn protect_own_secrets() {
    #[cfg(target_os = "linux")]
    // SAFETY: prctl with integer arguments only.
    unsafe {
        libc::prctl(libc::PR_SET_DUMPABLE, 0, 0, 0, 0);
    }
    amber_wire::secrets::capture_from_env();
}

/// amber: a terminal coding agent whose every extension is a sandboxed
/// WebAssembly component.
///
/// `amber` opens the TUI; `amber "fix the tests"` opens it with that
/// prompt sent. The first word decides: a subcommand's name runs the
/// subcommand (`amber index`); a word starting with / is a slash command
/// (`amber /help`); anything else is a prompt. After `--` everything is a
/// prompt: `amber -- index` sends the word "index". `-c` continues the
/// workspace's latest session; `-p PROMPT` runs one request headless.
/// What is piped in (`git diff | amber -p "review this"`) goes before
/// the prompt.
///
/// State lives in the XDG dirs, or all under $AMBER_HOME when set.
#[derive(Parser)]
#[command(name = "amber", version, about, long_about)]
struct Cli {
    /// The workspace root (default: $AMBER_WORKSPACE, then the nearest
    /// folder up from here holding .amber/ or .git, then the current dir).
    #[arg(short = 'C', long = "workspace", global = true, value_name = "DIR")]
    workspace: Option<std::path::PathBuf>,

    /// Colour in amber's output: auto (on a terminal, unless NO_COLOR is
    /// set), always or never.
    #[arg(long, global = true, value_name = "WHEN", default_value = "auto")]
    color: clap::ColorChoice,

    /// Run the agent on PROMPT and print the reply: `amber exec PROMPT`
    /// with the defaults (as `claude -p`). For more options use `exec`.
    #[arg(short = 'p', long = "print", value_name = "PROMPT")]
    print: Option<String>,

    /// With a slash command: print its outcome as JSON for scripts.
    #[arg(long)]
    json: bool,

    /// Without a subcommand: the session's options, for the TUI and -p.
    #[command(flatten)]
    tui: commands::session_flags::TuiArgs,

    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Subcommand)]
enum Command {
    /// Run the agent on one request, headless, and exit.
    ///
    /// Exit codes: 0 done, 1 error, 2 usage error, 3 hard stop (e.g.
    /// max_tool_iterations reached), 4 done right after an action it asked
    /// for was denied (session.completed's `denied` says why), 130
    /// interrupted (Ctrl-C; the session is saved and can be resumed), 143
    /// and 129 the same for SIGTERM and SIGHUP.
    ///
    /// Every shell command runs in an OS sandbox (bubblewrap, else Landlock
    /// and seccomp): the workspace writable but .git and .amber, the rest
    /// read-only, the home hidden but its toolchains, no network unless
    /// approved. See docs/sandbox.md.
    Exec(commands::exec::ExecArgs),
    /// The recorded sessions: list, show (and verify), fork, rewind,
    /// delete and prune them.
    #[command(subcommand)]
    Sessions(commands::sessions::SessionsCommand),
    /// Add, list, enable, disable, grant and remove plugins.
    #[command(subcommand)]
    Plugin(commands::plugin::PluginCommand),
    /// List tools and call them through the real runtime.
    #[command(subcommand)]
    Tool(commands::tool::ToolCommand),
    /// List provider presets and check a key and endpoint with one request.
    #[command(subcommand)]
    Providers(commands::providers::ProvidersCommand),
    /// Show where the config file is and what it says.
    #[command(subcommand)]
    Config(commands::config::ConfigCommand),
    /// Index the workspace's code into symbols with ids, spans and hashes.
    ///
    /// Every file a parser plugin serves is parsed in parallel; outlines are
    /// cached by file content, so running it again parses only what changed.
    Index(commands::code::IndexArgs),
    /// Print a file's symbols with their kinds, line ranges and ids.
    Outline(commands::code::OutlineArgs),
    /// Print symbols' source by name (`new`, `App/new`), id
    /// (`src/app.rs::App/new`) or hash prefix.
    ///
    /// Ids are `<path>::<name-path>` as `amber outline` prints them; a hash
    /// prefix is `b3:` and 8 or more hex digits of a symbol's hash. A name
    /// matches every symbol whose name path is it or ends with it; when
    /// several do, the error lists their ids.
    Show(commands::code::ShowArgs),
    /// Find the calls of functions or methods by name, with their callers.
    ///
    /// Each call is attributed to the symbol it is in; calls inside macro
    /// bodies such as println! and assert_eq! count.
    Callers(commands::code::CallersArgs),
    /// Search files for a regex; each hit names the symbol it is in.
    ///
    /// Files are rejected on raw bytes first, and only the files that
    /// matched are parsed.
    Grep(commands::code::GrepArgs),
    /// What a session's agents have read, per file; `coverage digest`
    /// prints what a compacted session is told it had read.
    ///
    /// Exit codes: 0, or 1 when there is no session or no parser.
    Coverage(commands::coverage::CoverageArgs),
    /// Hooks: list them with their source, events, matcher and trust;
    /// trust or untrust the hooks a workspace defines (docs/hooks.md).
    #[command(subcommand)]
    Hooks(commands::hooks::HooksCommand),
    /// Skills: list the skills found for this workspace with their source,
    /// show one, or promote a candidate compression wrote (docs/skills.md).
    #[command(subcommand)]
    Skills(commands::skills::SkillsCommand),
    /// Custom agents: list the agent files found for this workspace with
    /// their source, or show one with its prompt (docs/agents.md).
    ///
    /// A custom agent is a Markdown file: front matter with `name` and
    /// `description`, optionally `tools`, `model`, `mode` and
    /// `max_iterations`, then its system prompt. The model runs one
    /// through the `task` tool's `agent` argument; what it sets can only
    /// narrow the parent's mode, tools and cap.
    ///
    /// The `*.md` files are read from, in this order, a later one
    /// shadowing an earlier one of the same name: `agents/` under amber's
    /// config dir, `~/.claude/agents/`, the workspace's `.amber/agents/`,
    /// then the workspace's `.claude/agents/`. A file that cannot be read
    /// as an agent is skipped, with its line and key.
    #[command(subcommand)]
    Agents(commands::agents::AgentsCommand),
    /// MCP servers: add, list, remove, enable or disable them; list a
    /// server's tools, call one, or approve one that changed since it was
    /// pinned (docs/mcp.md).
    #[command(subcommand)]
    Mcp(commands::mcp::McpCommand),
    /// Governed engineering memory: store, recall, revise, forget, compile.
    Memory(commands::memory::MemoryArgs),
    /// The bench client: run scenarios through `amber exec`, score each
    /// (passed, failed with reasons, over budget) and report KPIs per
    /// suite (docs/bench-client.md).
    #[command(subcommand)]
    Bench(commands::bench::BenchCommand),
    /// Write a shell completion script: `eval "$(amber completions bash)"`.
    ///
    /// The script asks amber at completion time, so slash commands and
    /// the subtrees of plugins enabled later complete too.
    Completions {
        #[arg(value_enum)]
        shell: commands::completions::Shell,
    },
    /// The candidates for one word of a command line (what the scripts
    /// of `amber completions` call).
    #[command(hide = true)]
    Complete {
        #[arg(long, value_enum, default_value = "bash")]
        shell: commands::completions::Shell,
        /// Which word is being completed (0 is the program).
        #[arg(long)]
        index: usize,
        #[arg(last = true)]
        words: Vec<String>,
    },
    /// Write the man pages into DIR (amber.1, one per subcommand, and
    /// amber-commands.7 for the slash commands); without DIR, print
    /// amber.1 (`amber man | man -l -`).
    Man { dir: Option<std::path::PathBuf> },
    /// A slash command from the shell: `amber /set policy read`,
    /// `amber /plugins list`, `amber /help`. The same commands as in a
    /// session; `/set` writes the config file.
    #[command(external_subcommand)]
    Slash(Vec<String>),
    /// Check the installation: the bundled plugins, the compile caches, the
    /// config, the API keys, the providers, the workspace root, versions.
    ///
    /// Each problem comes with what to do. Exits 1 when something would
    /// stop amber from working (no bundle, a config that does not parse).
    Doctor(commands::doctor::DoctorArgs),
}

/// `--color WHEN` (or `--color=WHEN`) when given, else never under
/// `NO_COLOR` (https://no-color.org), else auto.
fn color_choice(args: &[std::ffi::OsString]) -> clap::ColorChoice {
    let mut given = None;
    let mut it = args.iter().map(|a| a.to_string_lossy());
    while let Some(arg) = it.next() {
        if arg == "--" {
            break;
        }
        if arg == "--color" {
            given = it.next().map(|v| v.into_owned());
        } else if let Some(value) = arg.strip_prefix("--color=") {
            given = Some(value.to_string());
        }
    }
    match given.as_deref() {
        Some("always") => clap::ColorChoice::Always,
        Some("never") => clap::ColorChoice::Never,
        Some(_) => clap::ColorChoice::Auto,
        None if std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty()) => {
            clap::ColorChoice::Never
        }
        None => clap::ColorChoice::Auto,
    }
}

fn main() -> ExitCode {
    pipes::exit_quietly_on_closed_stdout();
    protect_own_secrets();
    // The dirs, read from the environment once: everything below gets
    // them from here.
    let dirs = amber_runtime::AmberDirs::from_env();
    clean_up_after_a_killed_amber(&dirs);
    let code = run(dirs);
    // Nothing amber started outlives it (docs/sandbox.md).
    amber_sandbox::shutdown();
    code
}

/// What an amber killed with `kill -9` left in its cgroups (below this
/// one's own) is killed now (docs/sandbox.md), and the temporary files it
/// left mid-write are removed. amber becomes the subreaper of its commands
/// when it starts the first one.
fn clean_up_after_a_killed_amber(dirs: &amber_runtime::AmberDirs) {
    let killed = amber_sandbox::cgroup::reap_stale();
    if killed > 0 {
        eprintln!(
            "amber: killed {killed} process(es) an earlier amber left running when it was killed"
        );
    }
    // And the temporary files such an amber left mid-write (doctor says
    // which).
    let _ = STALE_TEMPS.set(dirs.remove_stale_temps());
}

/// The temporary files this start removed, for `amber doctor` to report.
static STALE_TEMPS: std::sync::OnceLock<amber_core::atomic::StaleTemps> =
    std::sync::OnceLock::new();

/// What [`clean_up_after_a_killed_amber`] removed (and could not).
pub(crate) fn stale_temps_at_start() -> amber_core::atomic::StaleTemps {
    STALE_TEMPS.get().cloned().unwrap_or_default()
}

fn run(dirs: amber_runtime::AmberDirs) -> ExitCode {
    let args: Vec<std::ffi::OsString> = std::env::args_os().collect();
    let (cli, mut first_prompt) = parse(&args);
    // `amber "fix the tests"`: a first word that is no subcommand and no
    // slash command is a prompt for the TUI.
    let mut command = cli.command;
    if let Some(Command::Slash(words)) = &command {
        if !words.first().is_some_and(|w| w.starts_with('/')) {
            first_prompt = Some(words.join(" "));
            command = None;
        }
    }
    // `amber --resume exec`: a subcommand's name is no session id.
    if let Some(id) = cli.tui.resume.as_deref() {
        if Cli::command().find_subcommand(id).is_some() {
            Cli::command()
                .error(
                    clap::error::ErrorKind::ArgumentConflict,
                    format!("`{id}` is a subcommand, not a session id: give --resume to it (`amber {id} --resume ID …`), or an id to --resume"),
                )
                .exit()
        }
    }
    if cli.tui.any() && command.is_some() {
        Cli::command()
            .error(
                clap::error::ErrorKind::ArgumentConflict,
                "--resume, -c, --provider, --model, --base-url and --mode before a subcommand are the session's of the TUI or -p; give them to the subcommand (e.g. `amber exec --model M …`)",
            )
            .exit()
    }
    let command = match (command, cli.print) {
        (Some(_), Some(_)) => Cli::command()
            .error(
                clap::error::ErrorKind::ArgumentConflict,
                "-p PROMPT runs `amber exec PROMPT`; it takes no subcommand",
            )
            .exit(),
        (None, Some(_)) if first_prompt.is_some() => Cli::command()
            .error(
                clap::error::ErrorKind::ArgumentConflict,
                "-p takes the prompt: `amber -p \"…\"`, not a second one after it",
            )
            .exit(),
        (Some(command), None) => command,
        (None, Some(prompt)) => Command::Exec(
            commands::exec::ExecArgs::with_prompt(prompt).with_session_flags(cli.tui),
        ),
        (None, None) if commands::tui::on_terminal() => {
            // The TUI answers approvals in its dialog, through the front
            // end handed to the host it opens.
            let (front_end, asks) = amber_tui::front_end();
            let host = Host::new(dirs, front_end);
            let result = workspace::resolve(cli.workspace.as_deref()).and_then(|project| {
                commands::tui::run(&host, cli.tui, &project, asks, first_prompt)
            });
            return report(result);
        }
        (None, None) if first_prompt.is_some() => {
            eprintln!(
                "amber: without a terminal there is no TUI to send the prompt to; run it headless with `amber -p \"…\"` (or `amber exec \"…\"`)"
            );
            return ExitCode::from(2);
        }
        (None, None) => {
            let _ = Cli::command()
                .color(color_choice(&args))
                .write_help(&mut std::io::stderr());
            eprintln!(
                "\namber: without a terminal there is no TUI to open; run one request headless with `amber exec \"…\"` (or `amber -p \"…\"`)"
            );
            return ExitCode::from(2);
        }
    };
    // The terminal dialog previews an edit or a write against the
    // workspace's files.
    let preview_root = workspace::resolve(cli.workspace.as_deref())
        .ok()
        .map(|p| p.root);
    let host = Host::new(
        dirs,
        FrontEnd::new(move |yes| approval::handler(yes, preview_root.clone()))
            .with_compile_progress(std::sync::Arc::new(compile_progress::CompileBar::new())),
    );
    let done = |r: anyhow::Result<()>| r.map(|()| ExitCode::SUCCESS);
    // These need no workspace (and a completion never fails loudly).
    let command = match command {
        Command::Completions { shell } => {
            print!("{}", commands::completions::script(shell));
            return ExitCode::SUCCESS;
        }
        Command::Complete {
            shell,
            index,
            words,
        } => {
            let project = workspace::resolve(cli.workspace.as_deref()).ok();
            // Nothing is approved while completing: headless.
            let host = Host::new(host.dirs.clone(), FrontEnd::headless());
            commands::completions::complete(
                &host,
                shell,
                index,
                words,
                Cli::command(),
                project.as_ref(),
            );
            return ExitCode::SUCCESS;
        }
        Command::Man { dir } => {
            return report(
                commands::completions::man(Cli::command(), dir.as_deref())
                    .map(|()| ExitCode::SUCCESS),
            );
        }
        other => other,
    };
    let json = cli.json;
    let result = workspace::resolve(cli.workspace.as_deref()).and_then(|project| {
        let root = project.root.clone();
        match command {
            // exec reports its own failures (as events) and chooses its code.
            Command::Exec(args) => Ok(commands::exec::run(&host, args, &project)),
            Command::Sessions(cmd) => done(commands::sessions::run(&host, cmd, &project)),
            Command::Plugin(cmd) => done(commands::plugin::run(&host, cmd, &root)),
            Command::Tool(cmd) => done(commands::tool::run(&host, cmd, &root)),
            Command::Providers(cmd) => done(commands::providers::run(&host, cmd, &root)),
            Command::Config(cmd) => done(commands::config::run(&host, cmd)),
            Command::Index(args) => done(commands::code::index(&host, args, &project)),
            Command::Outline(args) => done(commands::code::outline(&host, args, &project)),
            Command::Show(args) => done(commands::code::show(&host, args, &root)),
            Command::Callers(args) => done(commands::code::callers(&host, args, &root)),
            Command::Grep(args) => done(commands::code::grep(&host, args, &root)),
            Command::Memory(args) => done(commands::memory::run(&host, args, &root)),
            Command::Coverage(args) => done(commands::coverage::run(&host, args, &project)),
            Command::Hooks(cmd) => done(commands::hooks::run(&host, cmd, &project)),
            Command::Skills(cmd) => done(commands::skills::run(&host, cmd, &project)),
            Command::Agents(cmd) => done(commands::agents::run(&host, cmd, &project)),
            Command::Mcp(cmd) => done(commands::mcp::run(&host, cmd, &project)),
            Command::Doctor(args) => commands::doctor::run(&host, args, &project),
            Command::Bench(cmd) => commands::bench::run(&host, cmd),
            Command::Slash(words) => commands::slash::run(&host, words, json, &project),
            Command::Completions { .. } | Command::Complete { .. } | Command::Man { .. } => {
                Ok(ExitCode::SUCCESS)
            }
        }
    });
    report(result)
}

/// The command line parsed, and the prompt after a top-level `--`
/// (`amber -- index` sends "index"; `amber exec -- …` is exec's own).
fn parse(args: &[std::ffi::OsString]) -> (Cli, Option<String>) {
    // Read before clap parses, so its own help and errors follow it too.
    let color = color_choice(args);
    let parse_from = |args: &[std::ffi::OsString]| {
        let matches = Cli::command().color(color).get_matches_from(args);
        Cli::from_arg_matches(&matches).unwrap_or_else(|e| e.exit())
    };
    if let Some(split) = args.iter().position(|a| a == "--") {
        let before = &args[..split];
        let quiet = Cli::command().color(color).try_get_matches_from(before);
        if let Ok(matches) = quiet {
            if let Ok(cli) = Cli::from_arg_matches(&matches) {
                if cli.command.is_none() && cli.print.is_none() {
                    let words: Vec<String> = args[split + 1..]
                        .iter()
                        .map(|a| a.to_string_lossy().into_owned())
                        .collect();
                    let prompt = (!words.is_empty()).then(|| words.join(" "));
                    return (cli, prompt);
                }
            }
        }
    }
    (parse_from(args), None)
}

/// The exit code of a command's result; an error is printed first.
fn report(result: anyhow::Result<ExitCode>) -> ExitCode {
    result.unwrap_or_else(|e| {
        if pipes::is_closed_pipe(&e) {
            return ExitCode::SUCCESS;
        }
        eprintln!("amber: {e:#}");
        ExitCode::FAILURE
    })
}
