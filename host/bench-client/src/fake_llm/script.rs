//! The transcript format (TOML), shared with the bench client that runs
//! scenarios (docs/bench-client.md): `setup.files`, `prompt`, the scripted
//! model `turns`, an `oracle` of expected tool calls, `checks` on the
//! reply and the workspace, and a `budget`. The fake server reads only
//! `turns`; the rest is the bench client's.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Deserialize;

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Transcript {
    #[serde(default)]
    pub name: String,
    /// The suite the scenario counts in; unset, its folder's name.
    #[serde(default)]
    pub suite: Option<String>,
    /// What the scenario is about, for the report.
    #[serde(default)]
    pub description: String,
    /// The user's request, for clients that run the scenario.
    #[serde(default)]
    pub prompt: String,
    #[serde(default)]
    pub setup: Setup,
    /// amber's config for the run (`config.toml`'s tables), e.g.
    /// `[config.agent] max_tool_iterations = 3`.
    #[serde(default)]
    pub config: Option<toml::Table>,
    /// How `amber exec` is run.
    #[serde(default)]
    pub run: RunOptions,
    /// The scripted model. None: the scenario is for a real model.
    #[serde(default)]
    pub turns: Vec<Turn>,
    #[serde(default)]
    pub oracle: Vec<OracleCall>,
    /// The oracle's calls must come in its order (other calls may come
    /// between them).
    #[serde(default)]
    pub oracle_ordered: bool,
    #[serde(default)]
    pub checks: Checks,
    #[serde(default)]
    pub budget: Budget,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Setup {
    /// Path in the workspace → content.
    #[serde(default)]
    pub files: BTreeMap<String, String>,
}

/// One model reply, and what the request for it must carry.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Turn {
    /// Tools that must be declared in the request.
    #[serde(default)]
    pub expect_tools: Vec<String>,
    /// Ids of the previous turn's tool results, in order. Unset, the
    /// server expects the ids of the tool calls it sent in the reply
    /// before (none after a reply without calls); `[]` checks there are
    /// none.
    #[serde(default)]
    pub expect_tool_results: Option<Vec<String>>,
    /// `false` turns the tool-result check off for this turn's requests:
    /// the one way to say that a request on purpose does not answer the
    /// calls before it (a run killed after them, a new session).
    #[serde(default = "yes")]
    pub check_tool_results: bool,
    /// Images the request must carry, each in the vendor's shape
    /// (images a request has in a wrong shape are refused either way).
    #[serde(default)]
    pub expect_images: Option<usize>,
    /// Served first, one per request, before the reply itself.
    #[serde(default)]
    pub faults: Vec<Fault>,
    /// The turn is only its faults: once they are served the next turn
    /// comes, and `reply` (left out) is never sent. For a failing request
    /// between two turns of the conversation, e.g. a compression request.
    #[serde(default)]
    pub only_faults: bool,
    #[serde(default)]
    pub reply: Reply,
}

impl Default for Turn {
    fn default() -> Self {
        Turn {
            expect_tools: Vec::new(),
            expect_tool_results: None,
            check_tool_results: true,
            expect_images: None,
            faults: Vec::new(),
            only_faults: false,
            reply: Reply::default(),
        }
    }
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Reply {
    #[serde(default)]
    pub text: String,
    #[serde(default)]
    pub reasoning: String,
    #[serde(default)]
    pub tool_calls: Vec<ScriptedCall>,
    #[serde(default)]
    pub usage: ScriptedUsage,
    /// The reply ends at the request's token cap: finish `length`, stop
    /// `max_tokens`, or an incomplete response.
    #[serde(default)]
    pub capped: bool,
    /// A recorded `text/event-stream` body served byte for byte instead of
    /// one written from the fields above; a relative path is read from
    /// the script's folder (or the working directory for a parsed script).
    #[serde(default)]
    pub recorded: Option<PathBuf>,
    /// Serve the body in pieces of this many bytes rather than an event a
    /// piece, so events straddle the client's reads (fault counts then
    /// count pieces).
    #[serde(default)]
    pub split_bytes: Option<usize>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScriptedCall {
    pub id: String,
    pub name: String,
    /// Any JSON value; sent as its JSON text, split across deltas.
    #[serde(default = "empty_object")]
    pub arguments: serde_json::Value,
    /// The call names a tool the request does not declare, on purpose
    /// (a model calling a tool that does not exist); otherwise the server
    /// refuses to send a call of a tool it was not offered.
    #[serde(default)]
    pub undeclared: bool,
}

fn empty_object() -> serde_json::Value {
    serde_json::json!({})
}

fn yes() -> bool {
    true
}

#[derive(Debug, Clone, Copy, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScriptedUsage {
    #[serde(default)]
    pub input: u64,
    #[serde(default)]
    pub output: u64,
    #[serde(default)]
    pub cached: u64,
}

/// A fault served instead of (or while serving) a reply.
#[derive(Debug, Clone, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum Fault {
    /// An HTTP error status, e.g. 429 with Retry-After, 500, 401.
    Status {
        status: u16,
        #[serde(default)]
        retry_after_s: Option<u64>,
        /// A `retry-after` header as written, e.g. an HTTP date.
        #[serde(default)]
        retry_after: Option<String>,
        /// A `retry-after-ms` header, as OpenAI and Anthropic send.
        #[serde(default)]
        retry_after_ms: Option<u64>,
        #[serde(default)]
        body: Option<String>,
    },
    /// The stream breaks off after this many events.
    Cut { after_events: usize },
    /// A malformed event after this many events; the stream then goes on.
    Malformed { after_events: usize },
    /// Headers at once, then nothing for this long before the first event.
    SlowFirstByte { delay_ms: u64 },
    /// This many events, then nothing for this long, then the rest: a
    /// server that stalls mid-reply.
    Stall { after_events: usize, delay_ms: u64 },
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OracleCall {
    pub tool: String,
    /// A subset the call's arguments must contain.
    #[serde(default)]
    pub args: serde_json::Value,
    /// Argument → a regular expression its value must match (a string as
    /// it is, anything else as its JSON text).
    #[serde(default)]
    pub matches: BTreeMap<String, String>,
}

/// How the run ends when it goes as planned.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum End {
    /// `session.completed`.
    #[default]
    Completed,
    /// The loop stops itself (`session.failed`, kind `hard_stop`), e.g. at
    /// `agent.max_tool_iterations`.
    HardStop,
    /// The run fails (`session.failed`, kind `error`).
    Error,
}

/// The `amber exec` options a scenario sets.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RunOptions {
    /// `read`, `write` or `yolo`; unset, write with every approval given
    /// (`--yes`).
    #[serde(default)]
    pub mode: Option<String>,
    /// `--no-confirm`: no silent confirm turn after the answer.
    #[serde(default)]
    pub no_confirm: bool,
    /// `--compact-at`.
    #[serde(default)]
    pub compact_at: Option<f64>,
    #[serde(default)]
    pub end: End,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Checks {
    /// On the final answer.
    #[serde(default)]
    pub must_contain: Vec<String>,
    #[serde(default)]
    pub must_not_contain: Vec<String>,
    /// On the workspace after the run.
    #[serde(default)]
    pub files: Vec<FileCheck>,
    /// Commands run in the workspace after the run.
    #[serde(default)]
    pub commands: Vec<CommandCheck>,
    /// Event types (`amber exec --json`, docs/exec-json.md) the run must
    /// have reported, e.g. `compaction.completed`, `stream.retry`.
    #[serde(default)]
    pub events: Vec<String>,
}

/// A file of the workspace after the run.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FileCheck {
    /// Relative to the workspace.
    pub path: String,
    /// `false`: the file must not be there.
    #[serde(default)]
    pub exists: Option<bool>,
    /// As `setup.files` wrote it (or still absent, if it wrote none).
    #[serde(default)]
    pub unchanged: bool,
    #[serde(default)]
    pub equals: Option<String>,
    #[serde(default)]
    pub contains: Vec<String>,
    #[serde(default)]
    pub not_contains: Vec<String>,
}

/// `sh -c RUN` in the workspace after the run.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CommandCheck {
    pub run: String,
    /// The exit status it must end with.
    #[serde(default)]
    pub exit: i32,
    #[serde(default)]
    pub stdout_contains: Vec<String>,
    /// Killed and failed after this long.
    #[serde(default = "command_timeout")]
    pub timeout_ms: u64,
}

fn command_timeout() -> u64 {
    60_000
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Budget {
    /// Model calls (`turns` of the run's end event).
    #[serde(default)]
    pub max_steps: Option<u32>,
    #[serde(default)]
    pub max_wall_ms: Option<u64>,
    /// Input and output tokens together, as the provider reported them.
    #[serde(default)]
    pub max_tokens: Option<u64>,
    #[serde(default)]
    pub max_tool_calls: Option<u32>,
}

/// The largest script read; its replies are inline.
const SCRIPT_MAX: u64 = 64 << 20;

impl Transcript {
    pub fn parse(text: &str) -> Result<Transcript, String> {
        toml::from_str(text).map_err(|e| e.to_string())
    }

    pub fn load(path: &Path) -> Result<Transcript, String> {
        let text = amber_core::bounded::read_text(path, SCRIPT_MAX)
            .map_err(|e| e.to_string())?
            .ok_or_else(|| format!("cannot read {}: no such file or directory", path.display()))?;
        let transcript =
            Transcript::parse(&text).map_err(|e| format!("{}: {e}", path.display()))?;
        Ok(transcript.resolved_beside(path))
    }

    /// Recorded bodies named relative to the script `path` found beside it.
    pub fn resolved_beside(mut self, path: &Path) -> Transcript {
        let folder = path.parent().unwrap_or(Path::new("."));
        for turn in &mut self.turns {
            if let Some(recorded) = &mut turn.reply.recorded {
                if recorded.is_relative() {
                    *recorded = folder.join(&*recorded);
                }
            }
        }
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_recorded_body_is_found_beside_the_script() {
        let dir = tempfile::tempdir().unwrap();
        let script = dir.path().join("s.toml");
        std::fs::write(
            &script,
            "[[turns]]\nreply = { recorded = \"streams/a.sse\", split_bytes = 5 }\n[[turns]]\nreply = { recorded = \"/abs/b.sse\" }\n",
        )
        .unwrap();
        let transcript = Transcript::load(&script).unwrap();
        let recorded: Vec<_> = transcript
            .turns
            .iter()
            .map(|t| t.reply.recorded.clone().unwrap())
            .collect();
        assert_eq!(
            recorded,
            [
                dir.path().join("streams/a.sse"),
                PathBuf::from("/abs/b.sse")
            ]
        );
        assert_eq!(transcript.turns[0].reply.split_bytes, Some(5));
    }
}
