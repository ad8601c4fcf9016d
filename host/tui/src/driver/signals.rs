//! SIGTERM and SIGHUP (the terminal closed): the TUI quits as it does on
//! a quit key, stopping the turn and the commands it runs, so amber
//! leaves through its way out, which kills what its commands left behind
//! (docs/sandbox.md). Without a handler either signal would end amber on
//! the spot.

use tokio::signal::unix::{signal, Signal, SignalKind};

pub struct StopSignals {
    term: Option<Signal>,
    hup: Option<Signal>,
}

impl StopSignals {
    /// Takes over both signals; one that cannot be taken keeps its
    /// default (ending amber).
    pub fn new() -> StopSignals {
        StopSignals {
            term: signal(SignalKind::terminate()).ok(),
            hup: signal(SignalKind::hangup()).ok(),
        }
    }

    /// Resolves when either arrives; never when neither was taken.
    pub async fn recv(&mut self) {
        async fn one(signal: &mut Option<Signal>) {
            match signal {
                Some(signal) => {
                    signal.recv().await;
                }
                None => std::future::pending().await,
            }
        }
        tokio::select! {
            () = one(&mut self.term) => {}
            () = one(&mut self.hup) => {}
        }
    }
}
