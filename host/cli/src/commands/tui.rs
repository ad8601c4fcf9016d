//! `amber` with no subcommand: the TUI on a terminal (amber-tui), in the
//! workspace, with `--provider`, `-m/--model`, `--base-url`, `--mode` as
//! for `exec`, `--resume [ID]` and `-c` (the workspace's latest session
//! that has a turn), and a first prompt (`amber "fix the tests"`).
//! Without a terminal there is nothing to draw on: the help, a pointer to
//! `amber exec`, and exit status 2.

use std::io::IsTerminal;
use std::process::ExitCode;

use amber_app::session::SessionOptions;
use amber_core::project::ProjectRoot;
use anyhow::Result;

use super::session_flags::{session_to_resume, TuiArgs};

/// Whether this process can run the TUI: both ends on a terminal.
pub fn on_terminal() -> bool {
    std::io::stdin().is_terminal() && std::io::stdout().is_terminal()
}

pub fn run(
    host: &amber_app::host::Host,
    args: TuiArgs,
    project: &ProjectRoot,
    asks: tokio::sync::mpsc::UnboundedReceiver<amber_tui::Ask>,
    first_prompt: Option<String>,
) -> Result<ExitCode> {
    let mode = args.mode();
    let resume = session_to_resume(host, args.resume, args.continue_latest, project)?;
    let options = SessionOptions {
        provider: args.provider,
        model: args.model,
        base_url: args.base_url,
        mode,
        resume,
        no_confirm: args.no_confirm,
        ..SessionOptions::default()
    };
    amber_tui::run(host, project.clone(), options, asks, first_prompt)
}
