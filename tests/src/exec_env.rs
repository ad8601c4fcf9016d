//! `amber exec` runs for tests: a scratch home with the notes test tool
//! added, a workspace, the binary run with `--json`, and its events.

use std::path::PathBuf;
use std::process::{Child, Command, Output, Stdio};

use amber_protocol::{AgentEvent, Status};
use serde_json::Value;

use crate::cli::amber_command;
use crate::fake_llm::{FakeLlm, Transcript};
use crate::guest;

/// A scratch home with the notes plugin added (all its grants) and a
/// workspace holding `a.txt`.
pub struct Env {
    _dir: tempfile::TempDir,
    bin: String,
    pub home: PathBuf,
    pub ws: PathBuf,
}

impl Env {
    /// `bin` is the test's `env!("CARGO_BIN_EXE_amber")`.
    pub fn new(bin: &str) -> Env {
        let dir = tempfile::tempdir().unwrap();
        let home = dir.path().join("home");
        let ws = dir.path().join("ws");
        std::fs::create_dir_all(&home).unwrap();
        std::fs::create_dir_all(&ws).unwrap();
        std::fs::write(ws.join("a.txt"), "hi there\n").unwrap();
        let env = Env {
            _dir: dir,
            bin: bin.to_string(),
            home,
            ws,
        };
        let notes = guest("notes-tool");
        let out = env.run(&["plugin", "add", notes.to_str().unwrap(), "--yes"]);
        assert!(out.status.success(), "{}", text(&out.stderr));
        env
    }

    /// [`Env::new`] whose config leaves out the silent confirm turn, so
    /// a script's turns are the prompts' own (the TUI's tests).
    pub fn without_confirm_turn(bin: &str) -> Env {
        let env = Env::new(bin);
        std::fs::write(
            env.home.join("config.toml"),
            "[agent]\nconfirm_turn = false\n",
        )
        .unwrap();
        env
    }

    pub fn command(&self, args: &[&str]) -> Command {
        let mut cmd = amber_command(&self.bin, &self.home, &self.ws);
        cmd.args(args)
            .env("OPENAI_API_KEY", "sk-test")
            .env("ANTHROPIC_API_KEY", "sk-ant-test");
        cmd
    }

    /// The `amber` binary this environment runs.
    pub fn bin(&self) -> &str {
        &self.bin
    }

    pub fn run(&self, args: &[&str]) -> Output {
        self.command(args).output().unwrap()
    }

    /// `amber ARGS` with `input` on its standard input.
    pub fn run_with_stdin(&self, args: &[&str], input: &str) -> Output {
        use std::io::Write;
        let mut child = self
            .command(args)
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        if let Some(mut stdin) = child.stdin.take() {
            stdin.write_all(input.as_bytes()).unwrap();
        }
        child.wait_with_output().unwrap()
    }

    /// `amber exec --json PROMPT` on a terminal (util-linux `script`)
    /// against the server at `base_url`, with `answers` typed at it:
    /// what a person at a terminal sees of its dialogs and its output.
    pub fn exec_on_a_tty(&self, base_url: &str, prompt: &str, answers: &str) -> String {
        use std::io::Write;
        let amber = format!("{} exec --json --base-url {base_url} {prompt}", self.bin);
        let mut cmd = amber_command("script", &self.home, &self.ws);
        cmd.args(["-qec", &amber, "/dev/null"])
            .env("OPENAI_API_KEY", "sk-test")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped());
        let mut child = cmd.spawn().expect("`script` (util-linux) runs");
        let mut stdin = child.stdin.take().unwrap();
        stdin.write_all(answers.as_bytes()).unwrap();
        // Kept open until the run ends: an early EOF would end the session.
        let out = child.wait_with_output().unwrap();
        drop(stdin);
        text(&out.stdout).replace('\r', "")
    }

    /// `amber exec --json --provider PROVIDER` against `server` in that
    /// preset's wire format (Anthropic's base for `anthropic`, OpenAI's
    /// for the others), plus `extra`.
    pub fn exec_as(&self, provider: &str, server: &FakeLlm, extra: &[&str], prompt: &str) -> Run {
        let base = if provider == "anthropic" {
            server.anthropic_base()
        } else {
            server.openai_base()
        };
        let mut args = vec![
            "exec",
            "--json",
            "--provider",
            provider,
            "--base-url",
            &base,
        ];
        args.extend_from_slice(extra);
        args.push(prompt);
        Run::from(self.run(&args))
    }

    /// `amber exec --json` against `server` (OpenAI chat), plus `extra`.
    pub fn exec(&self, server: &FakeLlm, extra: &[&str], prompt: &str) -> Run {
        let base = server.openai_base();
        let mut args = vec!["exec", "--json", "--base-url", &base];
        args.extend_from_slice(extra);
        args.push(prompt);
        Run::from(self.run(&args))
    }

    pub fn spawn_exec(&self, server: &FakeLlm, prompt: &str) -> Child {
        let base = server.openai_base();
        self.command(&["exec", "--json", "--base-url", &base, prompt])
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap()
    }

    pub fn show(&self, id: &str) -> Value {
        let out = self.run(&["sessions", "show", id, "--json"]);
        assert!(out.status.success(), "{}", text(&out.stderr));
        serde_json::from_slice(&out.stdout).unwrap()
    }

    pub fn session_file(&self, id: &str) -> PathBuf {
        self.home.join("data/sessions").join(format!("{id}.jsonl"))
    }
}

/// What one `amber exec --json` wrote. Every line is parsed as a typed
/// event of the protocol (a line that is not one fails the test), and
/// kept as JSON too, for assertions on exactly what was written.
#[derive(Debug)]
pub struct Run {
    pub code: Option<i32>,
    pub events: Vec<Value>,
    pub typed: Vec<AgentEvent>,
    pub stderr: String,
}

impl From<Output> for Run {
    fn from(out: Output) -> Run {
        let stdout = text(&out.stdout);
        let mut events = Vec::new();
        let mut typed = Vec::new();
        for line in stdout.lines() {
            let event = amber_protocol::parse_line(line)
                .unwrap_or_else(|e| panic!("{e}: {line}\n{}", text(&out.stderr)));
            typed.push(event);
            events.push(
                serde_json::from_str(line).unwrap_or_else(|e| panic!("not JSON ({e}): {line}")),
            );
        }
        Run {
            code: out.status.code(),
            events,
            typed,
            stderr: text(&out.stderr),
        }
    }
}

impl Run {
    pub fn of_type(&self, kind: &str) -> Vec<&Value> {
        self.typed
            .iter()
            .zip(&self.events)
            .filter(|(event, _)| event.kind() == kind)
            .map(|(_, json)| json)
            .collect()
    }

    /// The typed events of `kind`.
    pub fn typed_of(&self, kind: &str) -> Vec<&AgentEvent> {
        self.typed.iter().filter(|e| e.kind() == kind).collect()
    }

    pub fn one(&self, kind: &str) -> &Value {
        let found = self.of_type(kind);
        assert_eq!(
            found.len(),
            1,
            "{kind} in {:#?}\n{}",
            self.events,
            self.stderr
        );
        found[0]
    }

    pub fn session_id(&self) -> String {
        self.one("session.started");
        self.typed
            .iter()
            .find_map(|e| match e {
                AgentEvent::SessionStarted { session_id, .. } => Some(session_id.clone()),
                _ => None,
            })
            .unwrap()
    }

    pub fn assert_done(&self, reply: &str) {
        assert_eq!(self.code, Some(0), "{:#?}\n{}", self.events, self.stderr);
        self.one("session.completed");
        let done = self.typed.iter().find_map(|e| match e {
            AgentEvent::SessionCompleted { reply, .. } => Some(reply.as_str()),
            _ => None,
        });
        assert_eq!(done, Some(reply));
    }

    /// The run ended right after a denial: status 4, the reply given, and
    /// `session.completed` saying what was denied; the reason, returned.
    pub fn assert_done_after_denial(&self, reply: &str) -> String {
        assert_eq!(self.code, Some(4), "{:#?}\n{}", self.events, self.stderr);
        let (done, denied) = self
            .typed
            .iter()
            .find_map(|e| match e {
                AgentEvent::SessionCompleted { reply, denied, .. } => {
                    Some((reply.clone(), denied.clone()))
                }
                _ => None,
            })
            .expect("a session.completed event");
        assert_eq!(done, reply);
        denied.expect("session.completed says what was denied")
    }

    /// Each tool result: its call id, status (`ok`, `error`, `denied`)
    /// and output.
    pub fn results(&self) -> Vec<(String, String, String)> {
        self.typed
            .iter()
            .filter_map(|e| match e {
                AgentEvent::ToolResult {
                    id, status, output, ..
                } => Some((id.clone(), status_name(*status), output.clone())),
                _ => None,
            })
            .collect()
    }
}

/// A status as the stream writes it: serde's name, the one definition.
fn status_name(status: Status) -> String {
    serde_json::to_value(status)
        .ok()
        .and_then(|name| name.as_str().map(String::from))
        .unwrap_or_default()
}

pub fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

pub fn fake(script: &str) -> FakeLlm {
    FakeLlm::start(Transcript::parse(script).unwrap(), 0).unwrap()
}

/// The names of the tools the `n`th request to `server` declared (OpenAI
/// chat).
pub fn offered_tools(server: &FakeLlm, n: usize) -> Vec<String> {
    server.received()[n].body["tools"]
        .as_array()
        .map(|tools| {
            tools
                .iter()
                .map(|t| {
                    t["function"]["name"]
                        .as_str()
                        .unwrap_or_default()
                        .to_string()
                })
                .collect()
        })
        .unwrap_or_default()
}

/// A fake-server script: one call of `tool` with `args` (a TOML inline
/// table), then a turn of `then` (the turn's TOML keys: `reply = {…}`,
/// and any check such as `expect_images = 1`).
pub fn one_call_then(tool: &str, args: &str, then: &str) -> String {
    format!(
        "[[turns]]\nreply = {{ tool_calls = [{{ id = \"c1\", name = \"{tool}\", arguments = {args} }}] }}\n[[turns]]\n{then}\n"
    )
}

/// The text of every message of an OpenAI chat request, role first.
pub fn sent_messages(body: &Value) -> Vec<String> {
    body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| {
            format!(
                "{}: {}",
                m["role"].as_str().unwrap_or(""),
                m["content"].as_str().unwrap_or("")
            )
        })
        .collect()
}
