//! Per-instance limits: the memory cap and the guest-time deadline.
//!
//! The deadline counts guest execution only. Host imports (a long `exec`,
//! say) add their duration to `in_imports`; when the epoch deadline fires,
//! the callback subtracts it and either traps or re-arms for the time left.

use std::time::{Duration, Instant};

use wasmtime::{ResourceLimiter, UpdateDeadline};

use crate::engine::ticks;

/// Refuses memory growth past the cap, remembering that it did so the
/// error can say "memory limit" rather than a bare trap.
pub struct GuestLimiter {
    cap: usize,
    pub exceeded: bool,
}

impl GuestLimiter {
    pub fn new(cap: usize) -> Self {
        GuestLimiter {
            cap,
            exceeded: false,
        }
    }
}

impl ResourceLimiter for GuestLimiter {
    fn memory_growing(
        &mut self,
        _current: usize,
        desired: usize,
        _maximum: Option<usize>,
    ) -> wasmtime::Result<bool> {
        if desired > self.cap {
            self.exceeded = true;
            return Ok(false);
        }
        Ok(true)
    }

    fn table_growing(
        &mut self,
        _current: usize,
        desired: usize,
        _maximum: Option<usize>,
    ) -> wasmtime::Result<bool> {
        Ok(desired <= 1_000_000)
    }
}

/// Raised by the epoch callback when a call has used up its guest time.
#[derive(Debug, thiserror::Error)]
#[error("guest deadline exceeded")]
pub struct DeadlineExceeded;

/// Guest-time accounting for the call in progress.
pub struct GuestClock {
    started: Instant,
    in_imports: Duration,
    deadline: Duration,
}

impl GuestClock {
    pub fn new(deadline: Duration) -> Self {
        GuestClock {
            started: Instant::now(),
            in_imports: Duration::ZERO,
            deadline,
        }
    }

    /// Starts a new call; returns the epoch ticks to arm the store with.
    pub fn start_call(&mut self) -> u64 {
        self.started = Instant::now();
        self.in_imports = Duration::ZERO;
        ticks(self.deadline)
    }

    pub fn deadline(&self) -> Duration {
        self.deadline
    }

    /// Time spent in a host import; excluded from the guest's time.
    pub fn add_import_time(&mut self, spent: Duration) {
        self.in_imports += spent;
    }

    pub fn guest_time(&self) -> Duration {
        self.started.elapsed().saturating_sub(self.in_imports)
    }

    /// What the epoch callback answers: trap, or keep going for the rest.
    pub fn on_epoch_deadline(&self) -> wasmtime::Result<UpdateDeadline> {
        let used = self.guest_time();
        if used >= self.deadline {
            return Err(DeadlineExceeded.into());
        }
        Ok(UpdateDeadline::Continue(ticks(self.deadline - used)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn memory_growth_past_the_cap_is_refused_and_remembered() {
        let mut limiter = GuestLimiter::new(1 << 20);
        assert!(limiter.memory_growing(0, 1 << 20, None).unwrap());
        assert!(!limiter.exceeded);
        assert!(!limiter.memory_growing(0, (1 << 20) + 1, None).unwrap());
        assert!(limiter.exceeded);
    }

    #[test]
    fn import_time_does_not_count_toward_the_deadline() {
        let mut clock = GuestClock::new(Duration::from_millis(50));
        clock.start_call();
        std::thread::sleep(Duration::from_millis(60));
        clock.add_import_time(Duration::from_millis(60));
        assert!(clock.on_epoch_deadline().is_ok());
        clock.add_import_time(Duration::ZERO);
        let mut spent = GuestClock::new(Duration::from_millis(1));
        spent.start_call();
        std::thread::sleep(Duration::from_millis(5));
        assert!(spent.on_epoch_deadline().is_err());
    }
}
