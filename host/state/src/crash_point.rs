//! Named points where a test may have amber killed, as by `kill -9`, to
//! prove that what is on disk survives a crash there. Set
//! `AMBER_CRASH_AT=NAME:N` and the process sends itself `SIGKILL` the
//! N-th time (from 1) it passes `NAME`. Unset, a point costs one check of
//! a value read once. The points (docs/sessions.md):
//! - `record`: after each record of a session is written, whatever it is;
//! - `rebuild-record`: after each record of a rebuild (a compaction's or
//!   a rewind's), the `clear` first and the closing `head` last;
//! - `atomic-write`: when a file replaced whole ([`crate::atomic`]) is
//!   written to its temporary but not yet renamed into place;
//! - `rewind-file`: after each file a code rewind wrote or deleted.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::OnceLock;

fn wanted() -> Option<&'static (String, u64)> {
    static WANTED: OnceLock<Option<(String, u64)>> = OnceLock::new();
    WANTED
        .get_or_init(|| {
            let value = std::env::var("AMBER_CRASH_AT").ok()?;
            let (name, n) = value.rsplit_once(':')?;
            Some((name.to_string(), n.parse().ok()?))
        })
        .as_ref()
}

/// Passes the point `name`; dies there if `AMBER_CRASH_AT` says so.
pub fn pass(name: &str) {
    static PASSED: AtomicU64 = AtomicU64::new(0);
    let Some((wanted, at)) = wanted() else {
        return;
    };
    if wanted != name {
        return;
    }
    if PASSED.fetch_add(1, Ordering::SeqCst) + 1 == *at {
        // SAFETY: raising a signal on ourselves; SIGKILL cannot be caught,
        // so nothing runs after it, exactly as with `kill -9`.
        unsafe {
            libc::raise(libc::SIGKILL);
        }
    }
}
