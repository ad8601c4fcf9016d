//! The `amber` binary: a thin front end over the runtime and core.

mod commands;
mod workspace;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

/// amber: a terminal coding agent whose every extension is a sandboxed
/// WebAssembly component.
#[derive(Parser)]
#[command(name = "amber", version, about, long_about = None)]
struct Cli {
    /// The workspace root (default: $AMBER_WORKSPACE, then the current dir).
    #[arg(short = 'C', long = "workspace", global = true, value_name = "DIR")]
    workspace: Option<std::path::PathBuf>,

    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Look at plugins.
    #[command(subcommand)]
    Plugin(commands::plugin::PluginCommand),
    /// Call tools through the real runtime.
    #[command(subcommand)]
    Tool(commands::tool::ToolCommand),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = workspace::resolve(cli.workspace.as_deref()).and_then(|root| match cli.command {
        Command::Plugin(cmd) => commands::plugin::run(cmd, &root),
        Command::Tool(cmd) => commands::tool::run(cmd, &root),
    });
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("amber: {e:#}");
            ExitCode::FAILURE
        }
    }
}
