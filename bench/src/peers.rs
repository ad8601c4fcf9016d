//! amber beside its peer agent, Codex CLI (issue 33): the same headless
//! task, run as a user runs it, against the same fake LLM server speaking
//! the OpenAI Responses wire format, in interleaved pairs.
//!
//! - amber is the installed binary (`cargo xtask install` into a scratch
//!   prefix, `$AMBER_BENCH_INSTALLED`) with its bundled plugins and their
//!   precompiled cache, `amber exec --provider openai-responses`.
//! - Codex is `@openai/codex` at a pinned version from npm, its native
//!   binary run directly (`$AMBER_BENCH_CODEX`), not through the node
//!   wrapper a user's `codex` goes through: the faster of the two ways,
//!   so the baseline is Codex at its best. `codex exec` with a
//!   `CODEX_HOME` whose config names the fake server as a custom provider
//!   (`wire_api = "responses"`).
//!
//! Two tasks: read a file and answer (one tool round trip: amber's
//! `read_file`, Codex's `exec_command` with `cat`, each in its default
//! sandbox), and a plain answer. Each run has a fresh server, so the
//! model calls are counted per side and printed: amber's silent confirm
//! turn is one call more than Codex makes. Rows: the median wall time and
//! the median peak RSS of the largest process of a run (from `wait4`'s
//! rusage, which covers the run's children, read by a small helper:
//! `rusage.rs` says why), Codex as the baseline, goals ≤ 0.1× and
//! ≤ 0.25×, with the spread of the pairs.

use std::path::{Path, PathBuf};
use std::process::Command;

use amber_tests::fake_llm::{FakeLlm, Reply, ScriptedCall, Transcript, Turn};
use anyhow::{bail, ensure, Context, Result};
use serde_json::json;

use crate::measure::{pair_row, Rows};
use crate::{pty, rusage};

/// Interleaved pairs per task, after one warm-up run of each side.
const PAIRS: usize = 10;
const NOTES: &str = "The release is on Thursday; ship the parser first.";
const ANSWER: &str = "The notes say the release is on Thursday and the parser ships first.";

/// What one run took.
struct Run {
    wall_ms: f64,
    peak_kib: u64,
    calls: usize,
    /// The size of each request's body, in bytes.
    request_bytes: Vec<usize>,
}

#[derive(Clone, Copy, PartialEq)]
enum Task {
    ReadAFile,
    PlainAnswer,
}

impl Task {
    fn slug(self) -> &'static str {
        match self {
            Task::ReadAFile => "one_tool",
            Task::PlainAnswer => "no_tool",
        }
    }

    fn prompt(self) -> &'static str {
        match self {
            Task::ReadAFile => "What do the notes in notes.txt say?",
            Task::PlainAnswer => "Say hello.",
        }
    }
}

#[derive(Clone, Copy, PartialEq)]
enum Agent {
    Amber,
    /// amber with `--no-confirm`: what the confirm turn costs.
    AmberNoConfirm,
    Codex,
}

/// The model's side of a run: the call of the agent's own file-reading
/// tool (when the task has one), the answer, and for amber the answer to
/// its silent confirm turn.
fn transcript(task: Task, agent: Agent) -> Transcript {
    let mut turns = Vec::new();
    if task == Task::ReadAFile {
        let (name, arguments) = match agent {
            Agent::Amber | Agent::AmberNoConfirm => ("read_file", json!({"path": "notes.txt"})),
            Agent::Codex => ("exec_command", json!({"cmd": "cat notes.txt"})),
        };
        turns.push(Turn {
            reply: Reply {
                tool_calls: vec![ScriptedCall {
                    id: "call_notes".into(),
                    name: name.into(),
                    arguments,
                    undeclared: false,
                }],
                ..Reply::default()
            },
            ..Turn::default()
        });
    }
    let text = match task {
        Task::ReadAFile => ANSWER,
        Task::PlainAnswer => "Hello.",
    };
    let answer = Turn {
        reply: Reply {
            text: text.into(),
            ..Reply::default()
        },
        ..Turn::default()
    };
    turns.push(answer.clone());
    if agent == Agent::Amber {
        // The confirm turn's answer: no tool calls, so the run ends.
        turns.push(answer);
    }
    Transcript {
        turns,
        ..Transcript::default()
    }
}

/// The folders of a bench: a home for each agent and one workspace, a git
/// repository with the notes (Codex wants a repository; amber finds its
/// project root there).
struct Scratch {
    _dir: tempfile::TempDir,
    home: PathBuf,
    amber_home: PathBuf,
    codex_home: PathBuf,
    workspace: PathBuf,
    out: PathBuf,
}

impl Scratch {
    /// Not under /tmp: Codex refuses to lay its helper binaries (the
    /// sandbox's launcher among them) under a temporary folder.
    fn new(root: &Path) -> Result<Scratch> {
        std::fs::create_dir_all(root)?;
        let dir = tempfile::tempdir_in(root)?;
        let path = dir.path().to_path_buf();
        let scratch = Scratch {
            home: path.join("home"),
            amber_home: path.join("amber-home"),
            codex_home: path.join("codex-home"),
            workspace: path.join("ws"),
            out: path.join("out"),
            _dir: dir,
        };
        for d in [
            &scratch.home,
            &scratch.amber_home,
            &scratch.codex_home,
            &scratch.workspace,
            &scratch.out,
        ] {
            std::fs::create_dir_all(d)?;
        }
        std::fs::write(scratch.workspace.join("notes.txt"), format!("{NOTES}\n"))?;
        let git = Command::new("git")
            .args(["init", "-q"])
            .current_dir(&scratch.workspace)
            .status()
            .context("cannot run git")?;
        ensure!(git.success(), "git init failed in the bench workspace");
        Ok(scratch)
    }
}

/// Codex starts an app-server daemon from a copy of itself in its home
/// (its default `daemon_auto_start`), detached, and it outlives the run:
/// its later runs in the same home find it warm. The bench ends the
/// daemons of its own scratch home when it is done.
impl Drop for Scratch {
    fn drop(&mut self) {
        let Ok(entries) = std::fs::read_dir("/proc") else {
            return;
        };
        for entry in entries.flatten() {
            let Ok(pid) = entry.file_name().to_string_lossy().parse::<libc::pid_t>() else {
                continue;
            };
            let started_here = std::fs::read_link(entry.path().join("exe"))
                .is_ok_and(|exe| exe.starts_with(&self.codex_home));
            if started_here {
                // SAFETY: kill with a pid read from /proc and a signal.
                unsafe { libc::kill(pid, libc::SIGKILL) };
            }
        }
    }
}

struct Peers {
    amber: PathBuf,
    codex: PathBuf,
    scratch: Scratch,
}

impl Peers {
    /// A clean environment for both: the same PATH and a scratch HOME
    /// (no shell start-up files of the machine's user).
    fn command(&self, program: &Path) -> Command {
        let mut cmd = Command::new(program);
        cmd.env_clear()
            .env("PATH", std::env::var_os("PATH").unwrap_or_default())
            .env("HOME", &self.scratch.home)
            .env("LANG", "C.UTF-8")
            .current_dir(&self.scratch.workspace);
        cmd
    }

    fn amber(&self, task: Task, base: &str, confirm: bool) -> Command {
        let mut cmd = self.command(&self.amber);
        cmd.arg("exec");
        if !confirm {
            cmd.arg("--no-confirm");
        }
        cmd.env("AMBER_HOME", &self.scratch.amber_home)
            .env("OPENAI_API_KEY", "sk-bench")
            .args([
                "--provider",
                "openai-responses",
                "--model",
                "fake-model",
                "--base-url",
                base,
                task.prompt(),
            ]);
        cmd
    }

    /// Codex's config: the fake server as its provider. Analytics and the
    /// update check off: they would only wait on a network this machine
    /// does not have. The workspace trusted, as after a user's first
    /// start there. Everything else is Codex's default.
    fn codex_config(&self, base: &str) -> Result<()> {
        let config = format!(
            "model = \"fake-model\"\nmodel_provider = \"fake\"\n\
             check_for_update_on_startup = false\n\n[analytics]\nenabled = false\n\n\
             [model_providers.fake]\nname = \"fake\"\nbase_url = \"{base}\"\n\
             wire_api = \"responses\"\nenv_key = \"FAKE_API_KEY\"\n\n\
             [projects.\"{}\"]\ntrust_level = \"trusted\"\n",
            self.scratch.workspace.display()
        );
        std::fs::write(self.scratch.codex_home.join("config.toml"), config)?;
        Ok(())
    }

    fn codex(&self, task: Task, base: &str) -> Result<Command> {
        self.codex_config(base)?;
        let mut cmd = self.command(&self.codex);
        cmd.env("CODEX_HOME", &self.scratch.codex_home)
            .env("FAKE_API_KEY", "sk-bench")
            .args(["exec", task.prompt()]);
        Ok(cmd)
    }

    /// Each agent's TUI in a terminal of its own, from spawn to its first
    /// usable frame, the prompt ready for typing (amber's key hints,
    /// Codex's composer placeholder), and to its session ready, the
    /// model's name on screen (amber's status line; Codex's footer, which
    /// it draws once its session is configured, after a first frame that
    /// still says "loading").
    fn tui(&self, agent: Agent) -> Result<pty::FirstFrame> {
        // No request is made before the first frame; the server is there
        // so a start that asks anything of the provider gets an answer.
        let server = FakeLlm::start(Transcript::default(), 0)?;
        let base = server.openai_base();
        let (mut cmd, markers) = match agent {
            Agent::Amber | Agent::AmberNoConfirm => {
                let mut cmd = self.command(&self.amber);
                cmd.env("AMBER_HOME", &self.scratch.amber_home)
                    .env("OPENAI_API_KEY", "sk-bench")
                    .env("OPENAI_BASE_URL", &base)
                    .args(["--provider", "openai-responses", "--model", "fake-model"]);
                (cmd, ["enter sends", "fake-model"])
            }
            Agent::Codex => {
                self.codex_config(&base)?;
                let mut cmd = self.command(&self.codex);
                cmd.env("CODEX_HOME", &self.scratch.codex_home)
                    .env("FAKE_API_KEY", "sk-bench");
                (cmd, ["Ask Codex to do anything", "fake-model"])
            }
        };
        cmd.env("TERM", "xterm-256color");
        pty::first_frame(&mut cmd, &markers, std::time::Duration::from_secs(20))
    }

    /// One run of `agent` on `task` against a fresh server, checked: the
    /// answer printed, and for the file task the file's text in the tool
    /// result the model got back.
    fn run(&self, agent: Agent, task: Task) -> Result<Run> {
        let server = FakeLlm::start(transcript(task, agent), 0)?;
        let base = server.openai_base();
        let (name, cmd) = match agent {
            Agent::Amber => ("amber", self.amber(task, &base, true)),
            Agent::AmberNoConfirm => ("amber --no-confirm", self.amber(task, &base, false)),
            Agent::Codex => ("codex", self.codex(task, &base)?),
        };
        let out = self.scratch.out.join(format!("{name}-{}.out", task.slug()));
        let rusage::Usage {
            wall_ms,
            peak_kib,
            code,
        } = rusage::measured(&cmd, &out)?;
        let stdout = std::fs::read_to_string(&out).unwrap_or_default();
        let stderr = std::fs::read_to_string(out.with_extension("err")).unwrap_or_default();
        ensure!(
            code == 0,
            "{name} exec exited with {code}: {stdout}\n{stderr}"
        );
        let received = server.received();
        for request in &received {
            ensure!(
                request.problems.is_empty(),
                "the fake server found {name}'s request off its script: {:?}",
                request.problems
            );
        }
        let expected = match task {
            Task::ReadAFile => ANSWER,
            Task::PlainAnswer => "Hello.",
        };
        ensure!(
            stdout.contains(expected),
            "{name} did not print the answer: {stdout}\n{stderr}"
        );
        if task == Task::ReadAFile {
            let fed_back = received
                .get(1)
                .is_some_and(|r| r.body.to_string().contains(NOTES));
            ensure!(
                fed_back,
                "{name}'s second request does not carry the file's text: the tool did not read it"
            );
        }
        Ok(Run {
            wall_ms,
            peak_kib,
            calls: received.len(),
            request_bytes: received.iter().map(|r| r.body.to_string().len()).collect(),
        })
    }
}

/// The bench's inputs, or why they are missing.
fn inputs() -> Option<(PathBuf, PathBuf, PathBuf)> {
    let amber = std::env::var_os("AMBER_BENCH_INSTALLED")?;
    let codex = std::env::var_os("AMBER_BENCH_CODEX")?;
    let scratch = std::env::var_os("AMBER_BENCH_SCRATCH")?;
    Some((amber.into(), codex.into(), scratch.into()))
}

pub fn run(rows: &mut Rows) -> Result<()> {
    let Some((amber, codex, scratch_root)) = inputs() else {
        eprintln!(
            "bench: peers skipped: AMBER_BENCH_INSTALLED, AMBER_BENCH_CODEX and \
             AMBER_BENCH_SCRATCH are set by `cargo xtask bench peers`"
        );
        return Ok(());
    };
    let peers = Peers {
        amber,
        codex,
        scratch: Scratch::new(&scratch_root)?,
    };
    exec_rows(rows, &peers)?;
    confirm_turn_row(rows, &peers)?;
    tui_rows(rows, &peers)
}

/// `measure` of `a` and of `b`, each once untimed (the page cache,
/// amber's AOT cache, Codex's databases), then in PAIRS rounds that
/// alternate which goes first, so a neighbour's burst lands on both.
fn interleaved<T>(
    a: Agent,
    b: Agent,
    mut measure: impl FnMut(Agent) -> Result<T>,
) -> Result<(Vec<T>, Vec<T>)> {
    measure(a)?;
    measure(b)?;
    let (mut of_a, mut of_b) = (Vec::with_capacity(PAIRS), Vec::with_capacity(PAIRS));
    for pair in 0..PAIRS {
        let order = if pair % 2 == 0 { [a, b] } else { [b, a] };
        for agent in order {
            let sample = measure(agent)?;
            if agent == a {
                of_a.push(sample);
            } else {
                of_b.push(sample);
            }
        }
    }
    Ok((of_a, of_b))
}

/// What amber's silent confirm turn costs a run, measured against the
/// same run with `--no-confirm`: one model call, the whole context sent
/// once more (its bytes, and roughly a quarter as many tokens), and the
/// wall time, here against the fake server, whose answer is instant: a
/// real model adds its prefill of that context and a short reply.
fn confirm_turn_row(rows: &mut Rows, peers: &Peers) -> Result<()> {
    let (with, without) = interleaved(Agent::Amber, Agent::AmberNoConfirm, |agent| {
        peers.run(agent, Task::ReadAFile)
    })?;
    let (calls_with, calls_without) = (with[0].calls, without[0].calls);
    ensure!(
        calls_with == calls_without + 1,
        "the confirm turn should be one call: {calls_with} with it, {calls_without} without"
    );
    let confirm_bytes = with[0].request_bytes.last().copied().unwrap_or(0);
    eprintln!(
        "bench: the confirm turn: +1 model call ({calls_with} vs {calls_without}), its request \
         {confirm_bytes} bytes (about {} tokens of input sent again)",
        confirm_bytes / 4
    );
    let wall = |runs: &[Run]| runs.iter().map(|r| r.wall_ms).collect::<Vec<_>>();
    let mut row = pair_row(
        ("amber_exec_one_tool_wall_with_confirm_turn", &wall(&with)),
        ("amber_exec_one_tool_wall_no_confirm", &wall(&without)),
        "ms",
        None,
    );
    row["model_calls"] = json!({"value": calls_with, "baseline": calls_without});
    rows.push(row)
}

/// Pushes the wall-time and peak-RSS rows of paired samples, Codex the
/// baseline: goals ≤ 0.1× and ≤ 0.25×.
fn push_pair_rows(
    rows: &mut Rows,
    prefix: &str,
    (wall_a, wall_b): (Vec<f64>, Vec<f64>),
    (rss_a, rss_b): (Vec<f64>, Vec<f64>),
    calls: Option<(usize, usize)>,
) -> Result<()> {
    let figures = [
        ("wall", "ms", 0.1, wall_a, wall_b),
        ("peak_rss", "MiB", 0.25, rss_a, rss_b),
    ];
    for (what, unit, goal, a, b) in figures {
        let name = format!("peers_{prefix}_{what}");
        let baseline = format!("codex_{prefix}_{what}");
        let mut row = pair_row((&name, &a), (&baseline, &b), unit, Some(goal));
        if let Some((ours, theirs)) = calls {
            row["model_calls"] = json!({"value": ours, "baseline": theirs});
        }
        rows.push(row)?;
    }
    Ok(())
}

/// Both TUIs to their first usable frame, in interleaved pairs.
fn tui_rows(rows: &mut Rows, peers: &Peers) -> Result<()> {
    let (ours, theirs) = interleaved(Agent::Amber, Agent::Codex, |agent| peers.tui(agent))?;
    let ms = |v: &[pty::FirstFrame], i: usize| v.iter().map(|f| f.ms[i]).collect::<Vec<_>>();
    let mib = |v: &[pty::FirstFrame]| {
        v.iter()
            .map(|f| f.peak_kib as f64 / 1024.0)
            .collect::<Vec<_>>()
    };
    push_pair_rows(
        rows,
        "tui_first_frame",
        (ms(&ours, 0), ms(&theirs, 0)),
        (mib(&ours), mib(&theirs)),
        None,
    )?;
    // The session ready: the wall time only (the memory is the row above,
    // read once both markers had shown).
    rows.push(pair_row(
        ("peers_tui_session_ready_wall", &ms(&ours, 1)),
        ("codex_tui_session_ready_wall", &ms(&theirs, 1)),
        "ms",
        Some(0.1),
    ))
}

/// Both headless runs of each task, in interleaved pairs.
fn exec_rows(rows: &mut Rows, peers: &Peers) -> Result<()> {
    for task in [Task::ReadAFile, Task::PlainAnswer] {
        let (ours, theirs) =
            interleaved(Agent::Amber, Agent::Codex, |agent| peers.run(agent, task))?;
        let calls = |runs: &[Run]| -> Result<usize> {
            let first = runs.first().map_or(0, |r| r.calls);
            if runs.iter().any(|r| r.calls != first) {
                bail!("the model calls of one agent differ between runs");
            }
            Ok(first)
        };
        let (our_calls, their_calls) = (calls(&ours)?, calls(&theirs)?);
        eprintln!(
            "bench: peers {}: model calls per run: amber {our_calls}, codex {their_calls} \
             (amber's silent confirm turn is one of its calls)",
            task.slug()
        );
        let wall = |runs: &[Run]| runs.iter().map(|r| r.wall_ms).collect::<Vec<_>>();
        let rss = |runs: &[Run]| {
            runs.iter()
                .map(|r| r.peak_kib as f64 / 1024.0)
                .collect::<Vec<_>>()
        };
        push_pair_rows(
            rows,
            &format!("exec_{}", task.slug()),
            (wall(&ours), wall(&theirs)),
            (rss(&ours), rss(&theirs)),
            Some((our_calls, their_calls)),
        )?;
    }
    Ok(())
}
