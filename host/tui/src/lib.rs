//! amber in a terminal (docs/tui.md): the second front end over the same
//! `App` as `amber exec`, the way codex-rs keeps `tui/` apart from `core/`
//! and `exec/`. One process, one App, one session, many turns.

// A library reports what happened; its front end decides what to print.
#![deny(clippy::print_stdout, clippy::print_stderr)]

mod approver;
pub mod cards;
pub mod choice_pane;
pub mod composer;
pub mod dialog;
pub mod drawer;
mod driver;
pub mod highlight;
pub mod history;
pub mod markdown;
pub mod pane;
pub mod pane_frame;
pub mod plugin_view;
pub mod replay;
pub mod session_picker;
pub mod subagent_card;
pub mod tabs;
pub mod todo_view;
mod terminal;
pub mod theme;
pub mod ui;
pub mod wrap;

use std::process::ExitCode;

use amber_app::session::SessionOptions;
use amber_app::App;
use amber_core::project::ProjectRoot;
use anyhow::{Context, Result};

pub use approver::front_end;

/// Opens the session (a resume is verified first), takes the terminal
/// and runs until the person quits; `first_prompt` is sent at once. The terminal is restored on every
/// way out.
pub fn run(
    host: &amber_app::host::Host,
    project: ProjectRoot,
    options: SessionOptions,
    asks: tokio::sync::mpsc::UnboundedReceiver<approver::Ask>,
    first_prompt: Option<String>,
) -> Result<ExitCode> {
    // Two workers: the loop and the turn's task; a tool waiting for an
    // approval blocks its own thread only.
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .context("cannot start the async runtime")?;
    let app = App::open_session(host, project, options)?;
    let (mut term, guard) = terminal::enter()?;
    let result = runtime.block_on(driver::Driver::new(app, asks, first_prompt).run(&mut term));
    drop(guard);
    // Commands a stopped turn started die with their process groups.
    amber_runtime::imports::exec::kill_running();
    // Tool calls abandoned by an interrupt may still hold threads.
    runtime.shutdown_background();
    result.map(|()| ExitCode::SUCCESS)
}

pub use approver::Ask;
