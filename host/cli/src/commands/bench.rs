//! `amber bench run`: the bench client (docs/bench-client.md). Scenarios
//! run through this same binary's `amber exec --json`, each in a scratch
//! workspace, and are scored, aggregated and reported.

use std::io::IsTerminal;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use amber_app::host;
use amber_bench_client::report::{Format, Report};
use amber_bench_client::{run, scenario, RunSettings};
use amber_runtime::AmberDirs;
use anyhow::{bail, Context, Result};
use clap::{Args, Subcommand, ValueEnum};

#[derive(Subcommand)]
pub enum BenchCommand {
    /// Run scenarios and score the agent on them.
    ///
    /// Each scenario (a TOML file: docs/bench-client.md) is set up in a
    /// scratch workspace and run with `amber exec --json`, as its own
    /// process. Scenarios with scripted replies run against a local fake
    /// server speaking the provider's wire format; those without run
    /// against the model chosen with --provider and --model, and are
    /// skipped without one. A run passes, fails with each reason, or goes
    /// over its budget; the report sums them per suite and overall.
    ///
    /// Exit codes: 0 every run passed, 1 a run failed or went over budget
    /// or a scenario file could not be used, 2 usage (no scenario found).
    Run(BenchRunArgs),
}

#[derive(Clone, Copy, ValueEnum)]
pub enum ReportArg {
    Text,
    Md,
    Json,
}

#[derive(Args)]
pub struct BenchRunArgs {
    /// Scenario files, or folders searched for `*.toml` (their folder
    /// names the suite).
    #[arg(required = true, value_name = "FILES|DIRS")]
    pub paths: Vec<PathBuf>,
    /// The provider (see `amber providers list`): the wire format the
    /// scripted replies are served in, and the model of the scenarios
    /// without them. Its key is read from the environment as for `exec`.
    #[arg(long)]
    pub provider: Option<String>,
    /// Another model than the provider's default.
    #[arg(short = 'm', long)]
    pub model: Option<String>,
    /// Print the report as JSON (the same as `--report json`).
    #[arg(long, conflicts_with = "report")]
    pub json: bool,
    /// The report's format.
    #[arg(long, value_enum, default_value = "text")]
    pub report: ReportArg,
    /// Write the report to FILE instead of standard output.
    #[arg(long, value_name = "FILE")]
    pub out: Option<PathBuf>,
    /// Run each scenario N times; the report gives each one's pass rate
    /// and the spread of the rounds' success rates.
    #[arg(long, value_name = "N", default_value = "1", value_parser = clap::value_parser!(u32).range(1..=1000))]
    pub repeat: u32,
    /// Kill and fail a run still going after this many seconds.
    #[arg(long, value_name = "SECS", default_value = "600")]
    pub timeout: u64,
    /// Keep each run's scratch home and workspace under DIR, to look at.
    #[arg(long, value_name = "DIR")]
    pub keep: Option<PathBuf>,
}

pub fn run(host: &amber_app::host::Host, cmd: BenchCommand) -> Result<ExitCode> {
    match cmd {
        BenchCommand::Run(args) => bench_run(&host.dirs, args),
    }
}

fn bench_run(dirs: &AmberDirs, args: BenchRunArgs) -> Result<ExitCode> {
    let loaded = scenario::load(&args.paths);
    if loaded.scenarios.is_empty() && loaded.invalid.is_empty() {
        eprintln!(
            "amber bench: no scenario (*.toml) under {}",
            args.paths
                .iter()
                .map(|p| p.display().to_string())
                .collect::<Vec<_>>()
                .join(", ")
        );
        return Ok(ExitCode::from(2));
    }
    let settings = settings(dirs, &args)?;
    let format = match (args.json, args.report) {
        (true, _) | (_, ReportArg::Json) => Format::Json,
        (_, ReportArg::Md) => Format::Markdown,
        (_, ReportArg::Text) => Format::Text,
    };
    let total = loaded.scenarios.len() as u64 * u64::from(args.repeat);
    let bar = indicatif::ProgressBar::new(total);
    if !std::io::stderr().is_terminal() {
        bar.set_draw_target(indicatif::ProgressDrawTarget::hidden());
    }
    bar.set_style(
        indicatif::ProgressStyle::with_template("{spinner} {pos}/{len} {wide_bar} {msg}")
            .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
    );
    for bad in &loaded.invalid {
        bar.suspend(|| eprintln!("amber bench: skipped {bad}"));
    }
    let mut runs = Vec::new();
    for attempt in 1..=args.repeat {
        for scenario in &loaded.scenarios {
            bar.set_message(format!("{}/{}", scenario.suite, scenario.name));
            let done = run::run(scenario, &settings, attempt);
            let line = format!(
                "{:<12} {}/{} ({} ms)",
                done.verdict.label(),
                done.suite,
                done.name,
                done.observed.wall_ms
            );
            bar.suspend(|| eprintln!("{line}"));
            bar.inc(1);
            runs.push(done);
        }
    }
    bar.finish_and_clear();
    let report = Report::new(
        runs,
        loaded.invalid,
        args.provider.clone(),
        args.model.clone(),
        args.repeat,
    );
    let text = report.render(format);
    match &args.out {
        Some(path) => {
            std::fs::write(path, &text)
                .with_context(|| format!("cannot write the report to {}", path.display()))?;
            let first = report.render(Format::Text);
            let headline = first.lines().next().unwrap_or_default();
            eprintln!("{headline}\nthe report is in {}", path.display());
        }
        None => print!("{text}"),
    }
    Ok(if report.failed() {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    })
}

/// How the runs are made: this binary, the provider's wire format and key,
/// the user's config and compile cache.
fn settings(dirs: &AmberDirs, args: &BenchRunArgs) -> Result<RunSettings> {
    let amber = std::env::current_exe().context("cannot find the amber binary to run")?;
    let mut anthropic = false;
    let mut secrets = Vec::new();
    if let Some(name) = &args.provider {
        let config = host::load_config(dirs)?;
        let presets = super::providers::presets_from(&config)?;
        let preset = presets.get(name)?;
        anthropic = match preset.flavor.as_str() {
            "anthropic-messages" => true,
            "openai-chat" | "openai-responses" => false,
            other => {
                bail!("provider `{name}` speaks `{other}`, which the bench's fake server does not")
            }
        };
        if let Some(env) = &preset.key_env {
            if let Some(key) = amber_wire::secrets::get(env) {
                secrets.push((env.clone(), key));
            }
        }
    }
    Ok(RunSettings {
        amber,
        provider: args.provider.clone(),
        model: args.model.clone(),
        anthropic,
        user_config: Some(host::config_path(dirs)),
        cache_dir: Some(dirs.cache.clone()),
        timeout: Duration::from_secs(args.timeout),
        keep: args.keep.clone(),
        secrets,
    })
}
