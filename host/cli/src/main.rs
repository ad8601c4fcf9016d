//! The `amber` binary: a thin front end over the runtime and core.

mod commands;
mod host;
mod workspace;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

/// amber: a terminal coding agent whose every extension is a sandboxed
/// WebAssembly component.
///
/// State lives in the XDG dirs, or all under $AMBER_HOME when set.
#[derive(Parser)]
#[command(name = "amber", version, about, long_about)]
struct Cli {
    /// The workspace root (default: $AMBER_WORKSPACE, then the current dir).
    #[arg(short = 'C', long = "workspace", global = true, value_name = "DIR")]
    workspace: Option<std::path::PathBuf>,

    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
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
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = workspace::resolve(cli.workspace.as_deref()).and_then(|root| match cli.command {
        Command::Plugin(cmd) => commands::plugin::run(cmd, &root),
        Command::Tool(cmd) => commands::tool::run(cmd, &root),
        Command::Providers(cmd) => commands::providers::run(cmd, &root),
        Command::Config(cmd) => commands::config::run(cmd),
    });
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("amber: {e:#}");
            ExitCode::FAILURE
        }
    }
}
