//! `amber /set policy read`, `amber /plugins list`: a slash command from
//! the shell. The same dispatch over the same tree as in a session (built
//! by amber-app), so it prints the same text; `--json` gives the outcome
//! for scripts. From the shell there is no session, so `/set` writes the
//! config file.

use std::process::ExitCode;

use amber_app::session::SessionOptions;
use amber_app::App;
use amber_core::project::ProjectRoot;
use anyhow::Result;

use super::outcome;

/// Runs the line `words` (the first starts with `/`). `--json` anywhere
/// among the words is amber's, not the command's.
pub fn run(
    host: &amber_app::host::Host,
    words: Vec<String>,
    json: bool,
    project: &ProjectRoot,
) -> Result<ExitCode> {
    let (json, words) = outcome::take_json(words, json);
    if super::compact::is_compact(&words) {
        return super::compact::run(host, words, json, project);
    }
    let mut app = App::open(host, project.clone(), SessionOptions::default())?;
    let done = app.dispatch(&outcome::line(&words));
    outcome::print(&done, json)?;
    Ok(outcome::exit_code(&done))
}
