//! The TUI's approval handler. The policy asks on the thread of the turn
//! (a tool call's check); the question goes to the UI loop as a message,
//! and the thread waits for the answer the dialog sends back. The UI loop
//! runs on its own task, so it keeps drawing while the turn waits.

use std::sync::mpsc;
use std::sync::Arc;

use amber_core::ports::{ApprovalRequest, Approver, Decision, HeadlessApprover};
use tokio::sync::mpsc::UnboundedSender;

/// A question for the UI, with where its answer goes.
pub struct Ask {
    pub request: ApprovalRequest,
    pub reply: mpsc::Sender<Decision>,
}

pub struct TuiApprover {
    to_ui: UnboundedSender<Ask>,
}

/// The thread the UI loop runs on. A question asked there (a plugin's
/// slash command that runs a command) could never be answered, since the
/// loop that draws the dialog is the one waiting: it is denied instead.
static UI_THREAD: std::sync::OnceLock<std::thread::ThreadId> = std::sync::OnceLock::new();

/// Marks the calling thread as the UI loop's.
pub fn mark_ui_thread() {
    let _ = UI_THREAD.set(std::thread::current().id());
}

impl Approver for TuiApprover {
    fn approve(&self, request: &ApprovalRequest) -> Decision {
        if UI_THREAD.get() == Some(&std::thread::current().id()) {
            return Decision::Deny;
        }
        let (reply, answer) = mpsc::channel();
        let ask = Ask {
            request: request.clone(),
            reply,
        };
        if self.to_ui.send(ask).is_err() {
            return Decision::Deny;
        }
        let wait = || answer.recv().unwrap_or(Decision::Deny);
        // On a runtime worker, let the runtime move its other tasks (the
        // UI loop among them) elsewhere while this one waits.
        match tokio::runtime::Handle::try_current() {
            Ok(handle) if handle.runtime_flavor() == tokio::runtime::RuntimeFlavor::MultiThread => {
                tokio::task::block_in_place(wait)
            }
            _ => wait(),
        }
    }
}

static TO_UI: std::sync::OnceLock<UnboundedSender<Ask>> = std::sync::OnceLock::new();

/// Routes this process's approvals to the UI (once, before the host is
/// built); `--yes` still approves everything without asking.
pub fn install(to_ui: UnboundedSender<Ask>) {
    let _ = TO_UI.set(to_ui);
    amber_app::host::install_front_end(amber_app::host::FrontEnd {
        approver: |yes| match TO_UI.get() {
            Some(to_ui) if !yes => Arc::new(TuiApprover {
                to_ui: to_ui.clone(),
            }),
            _ => Arc::new(HeadlessApprover { yes }),
        },
        compile_progress: || None,
    });
}
