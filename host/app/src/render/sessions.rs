//! Sessions as text: the list of `amber sessions list` and `/sessions`.

use std::fmt::Write;

use amber_core::session::{self, SessionState, SessionSummary};

/// Newest first, one line each: id, last change, size, provider, title.
pub fn list(sessions: &[SessionSummary]) -> String {
    if sessions.is_empty() {
        return "no sessions yet (start one with `amber exec \"...\"`)\n".into();
    }
    let mut out = String::new();
    for s in sessions {
        let state = match s.state {
            SessionState::Complete => "",
            SessionState::Interrupted => " (interrupted)",
            SessionState::Unreadable => " (unreadable)",
        };
        let mut family = match (&s.parent, s.children.len()) {
            (Some(parent), _) => format!(" (sub-agent of {parent})"),
            (None, 0) => String::new(),
            (None, n) => format!(" (+{})", amber_core::text::count(n, "sub-agent")),
        };
        if let Some(fork) = &s.fork {
            family.push_str(&format!(" (fork of {} at turn {})", fork.session, fork.turn));
        }
        let _ = writeln!(
            out,
            "{}  {}  {:>3} msgs  {:<10} {}{state}{family}",
            s.id,
            timestamp(s.updated),
            s.messages,
            s.provider,
            s.title
        );
    }
    out
}

/// UTC `YYYY-MM-DD HH:MM` of seconds since the epoch.
pub fn timestamp(secs: u64) -> String {
    let (y, m, d) = session::civil_date(secs / 86_400);
    let t = secs % 86_400;
    format!("{y:04}-{m:02}-{d:02} {:02}:{:02}", t / 3600, t / 60 % 60)
}
