//! The session flags the TUI, `-p` and `exec` share: which session
//! (`--resume [ID]`, `-c`), the provider, model, base URL and mode.
//! Apart from both commands so neither depends on the other.

use amber_core::engine::Mode;
use amber_core::project::ProjectRoot;
use anyhow::{anyhow, Result};
use clap::Args;

#[derive(Clone, Copy, clap::ValueEnum)]
pub enum ModeArg {
    Plan,
    Read,
    Write,
    Yolo,
}

impl From<ModeArg> for Mode {
    fn from(m: ModeArg) -> Mode {
        match m {
            ModeArg::Plan => Mode::Plan,
            ModeArg::Read => Mode::Read,
            ModeArg::Write => Mode::Write,
            ModeArg::Yolo => Mode::Yolo,
        }
    }
}

#[derive(Args, Default)]
pub struct TuiArgs {
    /// Continue a session in the TUI (its chain is verified first); without
    /// ID, the workspace's latest that has a turn.
    #[arg(long, value_name = "ID", num_args = 0..=1, default_missing_value = "", add = clap_complete::engine::ArgValueCandidates::new(super::completers::session_ids))]
    pub resume: Option<String>,
    /// Continue the workspace's latest session (as `--resume` without an
    /// ID): in the TUI, and with `-p`.
    #[arg(short = 'c', long = "continue", conflicts_with = "resume")]
    pub continue_latest: bool,
    /// A provider preset for the session (see `amber providers list`), in
    /// the TUI and with `-p`.
    #[arg(long, add = clap_complete::engine::ArgValueCandidates::new(super::completers::presets))]
    pub provider: Option<String>,
    /// Another model than the preset's, in the TUI and with `-p`.
    #[arg(short = 'm', long, add = clap_complete::engine::ArgValueCandidates::new(super::completers::models))]
    pub model: Option<String>,
    /// Another base URL than the preset's, in the TUI and with `-p`.
    #[arg(long, value_name = "URL")]
    pub base_url: Option<String>,
    /// The policy mode of the session: plan, read, write or yolo (the TUI
    /// and `-p`).
    #[arg(long, value_parser = clap::value_parser!(ModeArg), conflicts_with = "plan")]
    pub mode: Option<ModeArg>,
    /// Plan mode (`--mode plan`): the model may only read, and proposes a
    /// plan for you to accept before anything changes (docs/plan-mode.md).
    #[arg(long)]
    pub plan: bool,
    /// Leave out the silent confirm turn (see `amber exec --help`).
    #[arg(long)]
    pub no_confirm: bool,
}

impl TuiArgs {
    /// The mode asked for: `--plan` is `--mode plan`.
    pub fn mode(&self) -> Option<Mode> {
        if self.plan {
            return Some(Mode::Plan);
        }
        self.mode.map(Mode::from)
    }

    /// Whether any of the session flags was given.
    pub fn any(&self) -> bool {
        self.resume.is_some()
            || self.continue_latest
            || self.provider.is_some()
            || self.model.is_some()
            || self.base_url.is_some()
            || self.mode.is_some()
            || self.plan
            || self.no_confirm
    }
}

/// The session `--resume [ID]` or `-c` names: an ID as given, or the
/// workspace's latest session that has a turn.
pub fn session_to_resume(
    host: &amber_app::host::Host,
    resume: Option<String>,
    continue_latest: bool,
    project: &ProjectRoot,
) -> Result<Option<String>> {
    match resume {
        Some(id) if !id.is_empty() => Ok(Some(id)),
        None if !continue_latest => Ok(None),
        _ => Ok(Some(
            amber_app::session::latest_in_workspace(&host.dirs, project)?.ok_or_else(|| {
                anyhow!(
                    "no session of the workspace {} to continue (amber sessions list shows every session)",
                    project.root.display()
                )
            })?,
        )),
    }
}

