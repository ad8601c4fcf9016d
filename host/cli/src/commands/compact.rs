//! `amber /compact [--session ID] [focus words]`: compresses a recorded
//! session from the shell, so its next resume starts small. The session
//! is the workspace's newest unless `--session` names one; it is resumed
//! (its chain verified, locked against a second run), `/compact` runs
//! through the same dispatch as in a session, and the cycle's clear and
//! pushes are recorded in it like any other change.

use std::process::ExitCode;

use amber_app::compaction;
use amber_app::session::SessionOptions;
use amber_app::App;
use amber_core::commands::{Effect, Outcome, Reply};
use amber_core::engine::{AgentEvent, CompactionOutcome};
use amber_core::project::ProjectRoot;
use anyhow::{anyhow, Context, Result};
use serde_json::json;

use crate::render::Printer;

/// Whether the words are a `/compact` command that compacts: `/compact
/// --help` is its page, which the plain dispatch prints without opening
/// (and locking) any session.
pub fn is_compact(words: &[String]) -> bool {
    words.first().is_some_and(|w| w == "/compact")
        && !matches!(words.get(1).map(String::as_str), Some("--help" | "-h"))
}

/// Runs `/compact` from the shell. `words` start with `/compact`;
/// `--json` was already taken out.
pub fn run(
    host: &amber_app::host::Host,
    words: Vec<String>,
    json: bool,
    project: &ProjectRoot,
) -> Result<ExitCode> {
    let (session, words) = take_session(words)?;
    let dirs = &host.dirs;
    let id = match session {
        Some(id) => id,
        None => amber_app::session::latest_in_workspace(dirs, project)?.ok_or_else(|| {
            anyhow!(
                "no recorded session of the workspace {} to compact (amber sessions list shows every session; --session ID picks one)",
                project.root.display()
            )
        })?,
    };
    let options = SessionOptions {
        resume: Some(id.clone()),
        ..SessionOptions::default()
    };
    let mut app = App::open_session(host, project.clone(), options)
        .with_context(|| format!("cannot open session {id} to compact it"))?;
    let outcome = match app.dispatch(&super::outcome::line(&words)) {
        Outcome::Ok {
            reply:
                Reply {
                    effect: Effect::Compact { focus },
                    ..
                },
            ..
        } => compact(&mut app, focus.as_deref(), json, &id)?,
        other => other,
    };
    super::outcome::print(&outcome, json)?;
    Ok(super::outcome::exit_code(&outcome))
}

/// Runs the cycle on the open session; its events go to stderr as the
/// exec renderer draws them (not with `--json`, whose one object holds
/// the result).
fn compact(app: &mut App, focus: Option<&str>, json: bool, id: &str) -> Result<Outcome> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .context("cannot start the async runtime")?;
    let mut printer = Printer::new(false);
    let mut sink = |event: AgentEvent| {
        if !json {
            printer.event(&event);
        }
    };
    let outcome = runtime.block_on(app.compact(focus, &mut sink))?;
    let compression = app
        .live()
        .map(|live| live.compression)
        .context("the session closed while it was compacted")?;
    let text = compaction::describe(&outcome, &compression);
    Ok(match outcome {
        CompactionOutcome::Completed { stats, learned } => Outcome::Ok {
            action: "compact".into(),
            path: vec!["compact".into()],
            reply: Reply::text(text).with_data(json!({
                "session": id,
                "focus": focus,
                "stats": stats,
                "memories": learned.memories_written,
                "skills": learned.skills_written,
            })),
        },
        CompactionOutcome::Failed(_)
        | CompactionOutcome::Unavailable
        | CompactionOutcome::Skipped(_) => Outcome::Error {
            action: "compact".into(),
            message: text,
            usage: false,
        },
    })
}

/// Takes `--session ID` (or `--session=ID`) out of the words.
fn take_session(words: Vec<String>) -> Result<(Option<String>, Vec<String>)> {
    let mut session = None;
    let mut kept = Vec::with_capacity(words.len());
    let mut words = words.into_iter();
    while let Some(word) = words.next() {
        if word == "--session" {
            let id = words
                .next()
                .ok_or_else(|| anyhow!("--session needs a session id (amber sessions list)"))?;
            session = Some(id);
        } else if let Some(id) = word.strip_prefix("--session=") {
            session = Some(id.to_string());
        } else {
            kept.push(word);
        }
    }
    Ok((session, kept))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(s: &str) -> Vec<String> {
        s.split_whitespace().map(String::from).collect()
    }

    #[test]
    fn the_session_is_taken_out_wherever_it_stands() {
        let (id, rest) = take_session(words("/compact the parser --session s1 rewrite")).unwrap();
        assert_eq!(id.as_deref(), Some("s1"));
        assert_eq!(rest, words("/compact the parser rewrite"));
        let (id, _) = take_session(words("/compact --session=s2")).unwrap();
        assert_eq!(id.as_deref(), Some("s2"));
        let (id, rest) = take_session(words("/compact")).unwrap();
        assert_eq!((id, rest), (None, words("/compact")));
        let err = take_session(words("/compact --session")).unwrap_err();
        assert!(err.to_string().contains("--session needs a session id"));
    }
}
