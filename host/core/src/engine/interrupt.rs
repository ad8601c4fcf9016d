//! Interrupting a run (Ctrl-C) in a session that outlives it. A
//! cancellation token stays cancelled once fired, so a front end with many
//! runs (the TUI) needs a fresh one for the run after an interrupted one,
//! and the `task` tool must hand its sub-agents the token of the run they
//! belong to. `Interrupt` is that shared "current token": the agent takes
//! it at the start of each run, the task tool when it starts a sub-agent,
//! and the front end fires it, then renews it between runs.

use std::sync::{Arc, Mutex};

use tokio_util::sync::CancellationToken;

#[derive(Debug, Clone, Default)]
pub struct Interrupt(Arc<Mutex<CancellationToken>>);

impl Interrupt {
    /// An interrupt whose current token is `token`.
    pub fn new(token: CancellationToken) -> Self {
        Interrupt(Arc::new(Mutex::new(token)))
    }

    /// The token of the current run.
    pub fn current(&self) -> CancellationToken {
        self.0.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }

    /// Interrupts the current run.
    pub fn fire(&self) {
        self.current().cancel();
    }

    /// A fresh token for the next run when the last one was interrupted;
    /// true when it was.
    pub fn renew(&self) -> bool {
        let mut token = self.0.lock().unwrap_or_else(|e| e.into_inner());
        if !token.is_cancelled() {
            return false;
        }
        *token = CancellationToken::new();
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_fired_interrupt_is_renewed_for_the_next_run_and_clones_share_it() {
        let interrupt = Interrupt::default();
        let shared = interrupt.clone();
        let first = interrupt.current();
        assert!(!interrupt.renew());
        shared.fire();
        assert!(first.is_cancelled());
        assert!(interrupt.renew());
        assert!(!shared.current().is_cancelled());
        assert!(first.is_cancelled());
    }
}
