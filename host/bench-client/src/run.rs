//! Playing one scenario: a scratch workspace and home, `amber exec
//! --json` as its own process against the fake LLM server (scripted
//! replies) or the chosen provider (a real model), its events read as
//! they come, then the workspace checked and the run judged.

use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde::Serialize;

use amber_protocol::AgentEvent;

use crate::fake_llm::FakeLlm;
use crate::judge::{judge, Observed, Verdict};
use crate::scenario::Scenario;
use crate::workspace;

/// How every scenario of a bench run is run.
#[derive(Debug, Clone)]
pub struct RunSettings {
    /// The `amber` binary to run (the bench's own, as a rule).
    pub amber: PathBuf,
    /// `--provider`: the dialect the fake server speaks to a scripted
    /// scenario, and the provider a real-model scenario runs against.
    /// None: scripted scenarios use openai and real-model ones are
    /// skipped.
    pub provider: Option<String>,
    pub model: Option<String>,
    /// The provider speaks Anthropic's messages API (its base URL then has
    /// no `/v1`).
    pub anthropic: bool,
    /// The user's `config.toml`, under the scenario's own config, for
    /// real-model runs (their provider settings); scripted runs start
    /// from an empty config.
    pub user_config: Option<PathBuf>,
    /// The compiled-component cache the runs share.
    pub cache_dir: Option<PathBuf>,
    /// A run still going after this long is killed and failed.
    pub timeout: Duration,
    /// Keep each run's scratch dir here instead of deleting it.
    pub keep: Option<PathBuf>,
    /// Variables a real-model run needs that amber took out of its own
    /// environment (the provider's key): given to that run alone.
    pub secrets: Vec<(String, String)>,
}

/// One run of one scenario, judged.
#[derive(Debug, Clone, Serialize)]
pub struct ScenarioRun {
    pub name: String,
    pub suite: String,
    pub path: PathBuf,
    /// 1-based, with `--repeat`.
    pub attempt: u32,
    pub scripted: bool,
    #[serde(flatten)]
    pub verdict: Verdict,
    pub observed: Observed,
    /// The end of amber's stderr, for a run that did not pass.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub stderr_tail: String,
}

impl ScenarioRun {
    fn new(scenario: &Scenario, attempt: u32, verdict: Verdict, observed: Observed) -> Self {
        ScenarioRun {
            name: scenario.name.clone(),
            suite: scenario.suite.clone(),
            path: scenario.path.clone(),
            attempt,
            scripted: scenario.scripted(),
            verdict,
            observed,
            stderr_tail: String::new(),
        }
    }

    fn skipped(scenario: &Scenario, attempt: u32, reason: String) -> ScenarioRun {
        ScenarioRun::new(
            scenario,
            attempt,
            Verdict::Skipped { reason },
            Observed::default(),
        )
    }
}

/// Runs `scenario` once.
pub fn run(scenario: &Scenario, settings: &RunSettings, attempt: u32) -> ScenarioRun {
    if !scenario.scripted() && settings.provider.is_none() {
        return ScenarioRun::skipped(
            scenario,
            attempt,
            "it has no scripted replies: it is for a real model; choose one with --provider".into(),
        );
    }
    let scratch = match tempfile::Builder::new().prefix("amber-bench-").tempdir() {
        Ok(dir) => dir,
        Err(e) => return failed(scenario, attempt, format!("cannot make a scratch dir: {e}")),
    };
    let outcome = run_in(scenario, settings, attempt, scratch.path());
    if let Some(keep) = &settings.keep {
        let into = keep.join(format!(
            "{}-{}-{attempt}",
            safe(&scenario.suite),
            safe(&scenario.name)
        ));
        let _ = std::fs::remove_dir_all(&into);
        let _ = std::fs::create_dir_all(keep);
        let kept = scratch.keep();
        if std::fs::rename(&kept, &into).is_err() {
            let _ = std::fs::remove_dir_all(&kept);
        }
    }
    outcome
}

fn safe(name: &str) -> String {
    name.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect()
}

fn failed(scenario: &Scenario, attempt: u32, reason: String) -> ScenarioRun {
    let verdict = Verdict::Failed {
        reasons: vec![reason],
    };
    ScenarioRun::new(scenario, attempt, verdict, Observed::default())
}

fn run_in(
    scenario: &Scenario,
    settings: &RunSettings,
    attempt: u32,
    scratch: &Path,
) -> ScenarioRun {
    let transcript = &scenario.transcript;
    let (home, ws) = (scratch.join("home"), scratch.join("ws"));
    for dir in [&home, &ws] {
        if let Err(e) = std::fs::create_dir_all(dir) {
            return failed(
                scenario,
                attempt,
                format!("cannot make {}: {e}", dir.display()),
            );
        }
    }
    if let Err(why) = workspace::set_up(transcript, &ws) {
        return failed(scenario, attempt, why);
    }
    let user = settings
        .user_config
        .as_deref()
        .filter(|_| !scenario.scripted());
    if let Err(why) = write_config(user, transcript.config.as_ref(), &home) {
        return failed(scenario, attempt, why);
    }
    let server = if scenario.scripted() {
        match FakeLlm::start(transcript.clone(), 0) {
            Ok(server) => Some(server),
            Err(e) => {
                return failed(
                    scenario,
                    attempt,
                    format!("cannot start the fake LLM server: {e}"),
                )
            }
        }
    } else {
        None
    };
    let mut cmd = Command::new(&settings.amber);
    if server.is_none() {
        cmd.envs(settings.secrets.iter().map(|(k, v)| (k, v)));
    }
    cmd.args(["exec", "--json", "--yes"]);
    if let Some(mode) = &transcript.run.mode {
        cmd.args(["--mode", mode]);
    }
    if transcript.run.no_confirm {
        cmd.arg("--no-confirm");
    }
    if let Some(x) = transcript.run.compact_at {
        cmd.args(["--compact-at", &x.to_string()]);
    }
    if let Some(provider) = &settings.provider {
        cmd.args(["--provider", provider]);
    }
    if let Some(model) = &settings.model {
        cmd.args(["--model", model]);
    }
    if let Some(server) = &server {
        let base = if settings.anthropic {
            server.anthropic_base()
        } else {
            server.openai_base()
        };
        cmd.args(["--base-url", &base])
            // The fake server wants a key, never a real one.
            .env("OPENAI_API_KEY", "sk-amber-bench-scripted")
            .env("ANTHROPIC_API_KEY", "sk-amber-bench-scripted")
            .env_remove("OPENAI_BASE_URL")
            .env_remove("ANTHROPIC_BASE_URL");
    }
    if let Some(cache) = &settings.cache_dir {
        cmd.env("AMBER_CACHE_DIR", cache);
    }
    cmd.arg("--")
        .arg(&transcript.prompt)
        .env("AMBER_HOME", &home)
        .env("AMBER_WORKSPACE", &ws)
        .current_dir(&ws)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let started = Instant::now();
    let exec = match watch(cmd, settings.timeout) {
        Ok(exec) => exec,
        Err(e) => {
            return failed(
                scenario,
                attempt,
                format!("cannot run {}: {e}", settings.amber.display()),
            )
        }
    };
    let wall = started.elapsed();
    // What `--keep` keeps beside the workspace, to look at after.
    let _ = std::fs::write(scratch.join("events.jsonl"), exec.lines.join("\n") + "\n");
    let _ = std::fs::write(scratch.join("stderr.txt"), &exec.stderr);
    let seen = Observed::from_events(&exec.events, wall);
    let mut misses = Vec::new();
    misses.extend(exec.unreadable.iter().take(3).cloned());
    if exec.timed_out {
        misses.push(format!(
            "the run was killed after {} s",
            settings.timeout.as_secs()
        ));
    }
    if let Some(server) = &server {
        for received in server.received() {
            for problem in received.problems {
                misses.push(format!("the scripted model refused a request: {problem}"));
            }
        }
    }
    misses.extend(workspace::check_files(transcript, &ws));
    misses.extend(workspace::check_commands(transcript, &ws));
    let verdict = judge(transcript, &seen, misses);
    let mut done = ScenarioRun::new(scenario, attempt, verdict, seen);
    if !done.verdict.passed() {
        done.stderr_tail = tail(&exec.stderr, 1200);
    }
    done
}

/// The run's config: the user's (for a real model), then the scenario's
/// tables over it.
fn write_config(user: Option<&Path>, own: Option<&toml::Table>, home: &Path) -> Result<(), String> {
    let mut config = match user {
        Some(path) if path.is_file() => {
            let text = std::fs::read_to_string(path)
                .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
            text.parse::<toml::Table>()
                .map_err(|e| format!("{}: {e}", path.display()))?
        }
        _ => toml::Table::new(),
    };
    if let Some(own) = own {
        merge(&mut config, own);
    }
    if config.is_empty() {
        return Ok(());
    }
    std::fs::write(home.join("config.toml"), config.to_string())
        .map_err(|e| format!("cannot write the run's config: {e}"))
}

/// `over`'s keys into `base`, tables merged key by key.
fn merge(base: &mut toml::Table, over: &toml::Table) {
    for (key, value) in over {
        match (base.get_mut(key), value) {
            (Some(toml::Value::Table(into)), toml::Value::Table(from)) => merge(into, from),
            _ => {
                base.insert(key.clone(), value.clone());
            }
        }
    }
}

struct Exec {
    /// Every line of stdout, as written.
    lines: Vec<String>,
    /// The lines that are amber events, typed.
    events: Vec<AgentEvent>,
    /// The lines that are not, with why: a run that wrote one is broken.
    unreadable: Vec<String>,
    stderr: String,
    timed_out: bool,
}

/// Runs `cmd`, reading its JSONL events until it exits or `timeout`
/// passes (then it is killed).
fn watch(mut cmd: Command, timeout: Duration) -> std::io::Result<Exec> {
    let mut child = cmd.spawn()?;
    let stdout = child.stdout.take();
    let stderr = child.stderr.take();
    let events = std::thread::spawn(move || {
        let mut read = (Vec::new(), Vec::new(), Vec::new());
        if let Some(stdout) = stdout {
            for (number, line) in BufReader::new(stdout).lines().enumerate() {
                let Ok(line) = line else { break };
                match amber_protocol::parse_line(&line) {
                    Ok(event) => read.1.push(event),
                    Err(e) => read.2.push(format!("stdout line {}: {e}", number + 1)),
                }
                read.0.push(line);
            }
        }
        read
    });
    let errors = std::thread::spawn(move || {
        let mut text = String::new();
        if let Some(mut stderr) = stderr {
            let _ = stderr.read_to_string(&mut text);
        }
        text
    });
    let deadline = Instant::now() + timeout;
    let mut timed_out = false;
    loop {
        if child.try_wait()?.is_some() {
            break;
        }
        if Instant::now() >= deadline {
            timed_out = true;
            let _ = child.kill();
            let _ = child.wait();
            break;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    let (lines, events, unreadable) = events.join().unwrap_or_default();
    Ok(Exec {
        lines,
        events,
        unreadable,
        stderr: errors.join().unwrap_or_default(),
        timed_out,
    })
}

/// The last `max` bytes of `text`, from a line start.
fn tail(text: &str, max: usize) -> String {
    if text.len() <= max {
        return text.trim_end().to_string();
    }
    let mut from = text.len() - max;
    while !text.is_char_boundary(from) {
        from += 1;
    }
    let cut = &text[from..];
    let cut = cut.find('\n').map(|at| &cut[at + 1..]).unwrap_or(cut);
    cut.trim_end().to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_scenarios_config_goes_over_the_users_table_by_table() {
        let dir = tempfile::tempdir().unwrap();
        let user = dir.path().join("user.toml");
        std::fs::write(
            &user,
            "[providers.ollama]\nbase_url = \"http://box:11434/v1\"\n[agent]\nconfirm_turn = false\nmax_tool_iterations = 50\n",
        )
        .unwrap();
        let own: toml::Table = "[agent]\nmax_tool_iterations = 3\n".parse().unwrap();
        write_config(Some(&user), Some(&own), dir.path()).unwrap();
        let written: toml::Table = std::fs::read_to_string(dir.path().join("config.toml"))
            .unwrap()
            .parse()
            .unwrap();
        assert_eq!(
            written["agent"]["max_tool_iterations"].as_integer(),
            Some(3)
        );
        assert_eq!(written["agent"]["confirm_turn"].as_bool(), Some(false));
        assert_eq!(
            written["providers"]["ollama"]["base_url"].as_str(),
            Some("http://box:11434/v1")
        );
        // Nothing to say, nothing written.
        let empty = tempfile::tempdir().unwrap();
        write_config(None, None, empty.path()).unwrap();
        assert!(!empty.path().join("config.toml").exists());
    }

    #[test]
    fn the_tail_starts_at_a_line() {
        let text = "first line\nsecond line\nthird\n";
        assert_eq!(tail(text, 100), "first line\nsecond line\nthird");
        assert_eq!(tail(text, 14), "third");
    }
}
