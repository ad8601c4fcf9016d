//! The TUI's approvals. The policy asks on the turn's blocking thread;
//! the question comes to the UI loop as a [`Question`] with a oneshot for
//! the answer, and the loop keeps drawing while the turn waits: it opens
//! the dialog, and the dialog's key sends the answer (closing it
//! unanswered denies). Everything is the App's own: the channel is made
//! here and handed to the host the TUI opens, so nothing is process-wide.

use std::sync::Arc;

use amber_app::host::FrontEnd;
use amber_core::ports::{ChannelApprover, HeadlessApprover, Question};
use tokio::sync::mpsc::{unbounded_channel, UnboundedReceiver};

/// A question for the UI, with where its answer goes.
pub type Ask = Question;

/// The TUI's front end and the questions its loop answers. Called on the
/// thread the loop will run on (the TUI's main thread, which drives the
/// loop with `block_on`): a question asked there, by a plugin's slash
/// command the loop runs, could never be drawn, and is denied. `--yes`
/// still approves everything without asking.
pub fn front_end() -> (FrontEnd, UnboundedReceiver<Ask>) {
    let (to_ui, asks) = unbounded_channel();
    let ui_thread = std::thread::current().id();
    let front_end = FrontEnd::new(move |yes| {
        if yes {
            Arc::new(HeadlessApprover { yes })
        } else {
            Arc::new(ChannelApprover::new(to_ui.clone(), Some(ui_thread)))
        }
    });
    (front_end, asks)
}
