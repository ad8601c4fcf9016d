//! `amber` with no subcommand: the TUI on a terminal (amber-tui), in the
//! workspace, with `--provider`, `--model`, `--mode` as for `exec` and
//! `--resume [ID]` (the workspace's latest session without an ID).
//! Without a terminal there is nothing to draw on: the help, a pointer to
//! `amber exec`, and exit status 2.

use std::io::IsTerminal;
use std::process::ExitCode;

use amber_app::session::SessionOptions;
use amber_core::engine::Mode;
use amber_core::project::ProjectRoot;
use anyhow::{anyhow, Result};
use clap::Args;

use super::exec::ModeArg;

#[derive(Args, Default)]
pub struct TuiArgs {
    /// Continue a session in the TUI (its chain is verified first); without
    /// ID, the workspace's latest.
    #[arg(long, value_name = "ID", num_args = 0..=1, default_missing_value = "")]
    pub resume: Option<String>,
    /// A provider preset for the TUI's session (see `amber providers list`).
    #[arg(long)]
    pub provider: Option<String>,
    /// Another model than the preset's, for the TUI's session.
    #[arg(long)]
    pub model: Option<String>,
    /// The policy mode of the TUI's session: read, write or yolo.
    #[arg(long, value_parser = clap::value_parser!(ModeArg))]
    pub mode: Option<ModeArg>,
    /// Leave out the silent confirm turn in the TUI's session (see `amber
    /// exec --help`).
    #[arg(long)]
    pub no_confirm: bool,
}

impl TuiArgs {
    /// Whether any of the TUI's flags was given.
    pub fn any(&self) -> bool {
        self.resume.is_some()
            || self.provider.is_some()
            || self.model.is_some()
            || self.mode.is_some()
            || self.no_confirm
    }
}

/// Whether this process can run the TUI: both ends on a terminal.
pub fn on_terminal() -> bool {
    std::io::stdin().is_terminal() && std::io::stdout().is_terminal()
}

pub fn run(
    host: &amber_app::host::Host,
    args: TuiArgs,
    project: &ProjectRoot,
    asks: tokio::sync::mpsc::UnboundedReceiver<amber_tui::Ask>,
) -> Result<ExitCode> {
    let resume = match args.resume {
        Some(id) if id.is_empty() => Some(
            amber_app::session::latest_in_workspace(&host.dirs, project)?
                .ok_or_else(|| {
                    anyhow!(
                        "no recorded session of the workspace {} to resume (amber sessions list shows every session)",
                        project.root.display()
                    )
                })?,
        ),
        other => other,
    };
    let options = SessionOptions {
        provider: args.provider,
        model: args.model,
        mode: args.mode.map(Mode::from),
        resume,
        no_confirm: args.no_confirm,
        ..SessionOptions::default()
    };
    amber_tui::run(host, project.clone(), options, asks)
}
