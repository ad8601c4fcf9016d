//! SIGTERM and SIGHUP (the terminal closed), which both front ends take
//! over: the TUI quits as on a quit key and `amber exec` seals its turn,
//! each stopping the commands that run, so amber leaves through its way
//! out, which kills what its commands left behind (docs/sandbox.md).
//! Without a handler either signal would end amber on the spot.

use tokio::signal::unix::{signal, Signal, SignalKind};

/// Which of the two arrived.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stop {
    Terminated,
    HungUp,
}

pub struct StopSignals {
    term: Option<Signal>,
    hup: Option<Signal>,
}

impl StopSignals {
    /// Takes over both signals; one that cannot be taken keeps its
    /// default (ending amber). Within a tokio runtime.
    pub fn new() -> StopSignals {
        StopSignals {
            term: signal(SignalKind::terminate()).ok(),
            hup: signal(SignalKind::hangup()).ok(),
        }
    }

    /// Resolves when either arrives; never when neither was taken.
    pub async fn recv(&mut self) -> Stop {
        async fn one(signal: &mut Option<Signal>) {
            match signal {
                Some(signal) => {
                    signal.recv().await;
                }
                None => std::future::pending().await,
            }
        }
        tokio::select! {
            () = one(&mut self.term) => Stop::Terminated,
            () = one(&mut self.hup) => Stop::HungUp,
        }
    }
}

impl Default for StopSignals {
    fn default() -> Self {
        Self::new()
    }
}
