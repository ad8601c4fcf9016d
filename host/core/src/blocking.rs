//! The one rule for calling a synchronous port from async code: a tool, a
//! prompt block, the learner, a hook or the policy's approval may block
//! for as long as a command or a person takes, so it runs on tokio's
//! blocking pool through [`run`], never on an async worker. Inline, it
//! would park a worker: the TUI has two, one of them drawing, and a
//! hook waiting on its process there once kept Ctrl-C from reaching the
//! turn. And its wait honours the run's cancel token, so an interrupt
//! ends the wait at once, for a hook as for a tool; what the job started
//! (a command) is killed by the interrupt's owner (the front end kills
//! every running command's process group), and the job's thread comes
//! back when its command is gone.
//!
//! The policy is synchronous (the `exec` import asks it from a guest's
//! thread), so a question to the [`crate::ports::Approver`], which is
//! async, is waited for there with [`wait`]: on a blocking thread, never
//! a worker.
//!
//! The dialect's decoder is the one port the wire calls inline, once per
//! batch of streamed events: it is a short pure function of its input,
//! and a thread hop per batch would cost every reply. Its adapter still
//! leaves the worker if a guest blocks (amber-runtime's instance.rs).

use std::future::Future;
use std::pin::pin;
use std::sync::Arc;
use std::task::{Context, Poll, Wake, Waker};

use tokio_util::sync::CancellationToken;

/// Why a blocking job gave no answer.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Blocked {
    /// The run was cancelled before the job finished (or before it began:
    /// a cancelled run starts nothing new).
    #[error("interrupted")]
    Interrupted,
    /// The job panicked; the message names it.
    #[error("it failed inside the host: {0}")]
    Panicked(String),
}

/// Runs `job` on the blocking pool and waits for it, or for `cancel`.
/// The job starts now, not when the answer is first awaited, so calls
/// started one after another run side by side. On a cancel the job keeps
/// its thread until it returns, and its answer is dropped. Outside any
/// runtime (a command run from the shell) the job runs here and now.
pub fn run<T: Send + 'static>(
    cancel: &CancellationToken,
    job: impl FnOnce() -> T + Send + 'static,
) -> impl Future<Output = Result<T, Blocked>> + Send + 'static {
    enum Started<T> {
        Cancelled,
        Done(T),
        Running(tokio::task::JoinHandle<T>),
    }
    let started = if cancel.is_cancelled() {
        Started::Cancelled
    } else {
        match tokio::runtime::Handle::try_current() {
            Ok(runtime) => Started::Running(runtime.spawn_blocking(job)),
            Err(_) => Started::Done(job()),
        }
    };
    let cancel = cancel.clone();
    async move {
        match started {
            Started::Cancelled => Err(Blocked::Interrupted),
            Started::Done(value) => Ok(value),
            Started::Running(mut handle) => tokio::select! {
                biased;
                joined = &mut handle => joined.map_err(|e| Blocked::Panicked(e.to_string())),
                _ = cancel.cancelled() => Err(Blocked::Interrupted),
            },
        }
    }
}

/// [`run`] for what must run to its end whatever the run's state: the
/// `session-end` hooks of an interrupted session.
pub fn run_to_end<T: Send + 'static>(
    job: impl FnOnce() -> T + Send + 'static,
) -> impl Future<Output = Result<T, Blocked>> + Send + 'static {
    run(&CancellationToken::new(), job)
}

/// Waits for `future` on this thread: a synchronous caller (the policy,
/// on a blocking thread or a guest's) waiting for an async answer (an
/// approval the front end resolves through a oneshot). Never call it on
/// an async worker: it parks the thread until the answer comes.
pub fn wait<F: Future>(future: F) -> F::Output {
    struct Unpark(std::thread::Thread);
    impl Wake for Unpark {
        fn wake(self: Arc<Self>) {
            self.0.unpark();
        }
        fn wake_by_ref(self: &Arc<Self>) {
            self.0.unpark();
        }
    }
    let waker = Waker::from(Arc::new(Unpark(std::thread::current())));
    let mut cx = Context::from_waker(&waker);
    let mut future = pin!(future);
    loop {
        match future.as_mut().poll(&mut cx) {
            Poll::Ready(value) => return value,
            // A spurious unpark polls again, which is harmless.
            Poll::Pending => std::thread::park(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::{Duration, Instant};

    #[tokio::test(flavor = "current_thread")]
    async fn a_cancel_ends_the_wait_while_the_job_still_blocks_even_on_one_thread() {
        let cancel = CancellationToken::new();
        let (tx, rx) = std::sync::mpsc::channel::<()>();
        let waiting = run(&cancel, move || rx.recv_timeout(Duration::from_secs(30)));
        let canceller = {
            let cancel = cancel.clone();
            async move {
                tokio::time::sleep(Duration::from_millis(20)).await;
                cancel.cancel();
            }
        };
        let started = Instant::now();
        let (got, ()) = tokio::join!(waiting, canceller);
        assert_eq!(got, Err(Blocked::Interrupted));
        assert!(started.elapsed() < Duration::from_secs(30));
        drop(tx);
        // A cancelled run starts nothing new.
        assert_eq!(run(&cancel, || 1).await, Err(Blocked::Interrupted));
        assert_eq!(run_to_end(|| 2).await, Ok(2));
    }

    #[test]
    fn outside_a_runtime_the_job_runs_at_once() {
        let got = wait(run(&CancellationToken::new(), || 3));
        assert_eq!(got, Ok(3));
    }

    #[tokio::test(flavor = "current_thread")]
    async fn a_panicking_job_is_an_error_not_a_crash() {
        let got = run(&CancellationToken::new(), || -> u32 { panic!("boom") }).await;
        assert!(matches!(got, Err(Blocked::Panicked(_))), "{got:?}");
    }

    #[test]
    fn wait_takes_an_answer_sent_from_another_thread() {
        let (tx, rx) = tokio::sync::oneshot::channel();
        std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(10));
            let _ = tx.send(7);
        });
        assert_eq!(wait(rx), Ok(7));
    }
}
