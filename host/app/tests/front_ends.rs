//! Front ends are handed to the host, never installed process-wide: two
//! Apps in one process, each with its own approver, get their own
//! answers; and a command hook that waits on its process is interrupted
//! as a tool is, on a one-worker runtime, because hooks run through the
//! core's one helper for blocking calls. Real plugins from the bundle,
//! the real fake LLM server, real session files, a real command hook.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "a test fails by panicking, its helpers too"
)]

use std::path::Path;
use std::sync::{Arc, Once};
use std::time::{Duration, Instant};

use amber_app::host::{FrontEnd, Host};
use amber_app::session::SessionOptions;
use amber_app::App;
use amber_core::engine::{AgentEvent, Mode, Outcome};
use amber_core::ports::{ChannelApprover, Decision, Question};
use amber_core::project::{ProjectRoot, RootRule};
use amber_runtime::AmberDirs;
use amber_tests::fake_llm::{FakeLlm, Transcript};
use amber_tests::repo_root;

/// What every App of this binary finds in the environment: the bundle and
/// a key. Their dirs are never read from it: each test hands its own.
fn shared_environment() {
    static SET: Once = Once::new();
    SET.call_once(|| {
        std::env::set_var("AMBER_BUNDLE_DIR", amber_tests::guests_dir());
        std::env::set_var("OPENAI_API_KEY", "sk-test");
        std::env::remove_var("AMBER_EMBEDDING_MODEL");
    });
}

/// A home and a workspace of their own, and the host a front end opens
/// there.
struct Scratch {
    _dir: tempfile::TempDir,
    dirs: AmberDirs,
    project: ProjectRoot,
}

impl Scratch {
    fn new(config: &str) -> Scratch {
        shared_environment();
        let dir = tempfile::tempdir().unwrap();
        let home = dir.path().join("home");
        let ws = dir.path().join("ws");
        std::fs::create_dir_all(ws.join(".git")).unwrap();
        std::fs::create_dir_all(&home).unwrap();
        std::fs::write(home.join("config.toml"), config).unwrap();
        let dirs = AmberDirs {
            config: home.clone(),
            data: home.join("data"),
            // The compiled components every test shares.
            cache: repo_root().join("target/test-cache"),
        };
        let project = ProjectRoot {
            root: ws.canonicalize().unwrap(),
            rule: RootRule::Flag,
            subdir: Default::default(),
        };
        Scratch {
            _dir: dir,
            dirs,
            project,
        }
    }

    fn host(&self, front_end: FrontEnd) -> Host {
        Host {
            dirs: self.dirs.clone(),
            front_end,
        }
    }

    fn ws(&self) -> &Path {
        &self.project.root
    }
}

fn options(server: &FakeLlm, mode: Mode) -> SessionOptions {
    SessionOptions {
        provider: Some("openai".into()),
        model: Some("gpt-test".into()),
        base_url: Some(server.openai_base()),
        mode: Some(mode),
        no_confirm: true,
        ..SessionOptions::default()
    }
}

/// A front end whose approvals go to a loop of its own, which answers
/// every question with `answer`; what it was asked comes back through
/// the returned receiver.
fn answering(answer: Decision) -> (FrontEnd, std::sync::mpsc::Receiver<String>) {
    let (to_loop, mut questions) = tokio::sync::mpsc::unbounded_channel::<Question>();
    let (asked, seen) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        while let Some(question) = questions.blocking_recv() {
            let _ = asked.send(question.request.action.clone());
            let _ = question.reply.send(answer.clone());
        }
    });
    let front_end =
        FrontEnd::new(move |_yes| Arc::new(ChannelApprover::new(to_loop.clone(), None)));
    (front_end, seen)
}

const WRITE_THEN_DONE: &str = r#"
[[turns]]
reply = { tool_calls = [{ id = "w", name = "write_file", arguments = { path = "out.txt", content = "written" } }] }
[[turns]]
reply = { text = "done" }
"#;

fn run_turn(runtime: &tokio::runtime::Runtime, app: &mut App, prompt: &str) -> Vec<AgentEvent> {
    let live = app.live_mut().unwrap();
    let mut events = Vec::new();
    let mut sink = |event: AgentEvent| events.push(event);
    let report = runtime.block_on(live.agent.run(prompt, &mut sink)).unwrap();
    assert_eq!(report.outcome, Outcome::Done("done".into()), "{events:?}");
    events
}

fn tool_status(events: &[AgentEvent]) -> String {
    events
        .iter()
        .find_map(|e| match e {
            AgentEvent::ToolResult { status, output, .. } => Some(format!("{status:?}: {output}")),
            _ => None,
        })
        .unwrap()
}

#[test]
fn two_apps_in_one_process_each_ask_their_own_approver() {
    let (yes_scratch, no_scratch) = (Scratch::new(""), Scratch::new(""));
    let (yes_server, no_server) = (
        FakeLlm::start(Transcript::parse(WRITE_THEN_DONE).unwrap(), 0).unwrap(),
        FakeLlm::start(Transcript::parse(WRITE_THEN_DONE).unwrap(), 0).unwrap(),
    );
    let (approving, asked_yes) = answering(Decision::ApproveOnce);
    let (denying, asked_no) = answering(Decision::Deny);
    // Both open before either runs: nothing of one front end can leak
    // into the other.
    let mut yes_app = App::open_session(
        &yes_scratch.host(approving),
        yes_scratch.project.clone(),
        options(&yes_server, Mode::Write),
    )
    .unwrap();
    let mut no_app = App::open_session(
        &no_scratch.host(denying),
        no_scratch.project.clone(),
        options(&no_server, Mode::Write),
    )
    .unwrap();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();

    let denied = run_turn(&runtime, &mut no_app, "Write out.txt.");
    let approved = run_turn(&runtime, &mut yes_app, "Write out.txt.");

    assert!(tool_status(&denied).starts_with("Denied:"), "{denied:?}");
    assert!(!no_scratch.ws().join("out.txt").exists());
    assert!(tool_status(&approved).starts_with("Ok:"), "{approved:?}");
    assert_eq!(
        std::fs::read_to_string(yes_scratch.ws().join("out.txt")).unwrap(),
        "written"
    );
    // Each loop was asked exactly once, about its own App's call.
    assert_eq!(asked_no.try_iter().collect::<Vec<_>>(), ["write_file"]);
    assert_eq!(asked_yes.try_iter().collect::<Vec<_>>(), ["write_file"]);
}

#[test]
fn a_command_hook_waiting_on_its_process_is_interrupted_on_a_one_worker_runtime() {
    let scratch = Scratch::new(
        r#"
[[hooks.command]]
event = "UserPromptSubmit"
command = "echo started > hook.started; exec sleep 5.0417"
timeout_ms = 30000
"#,
    );
    // The model is never reached: the hook is interrupted first.
    let server = FakeLlm::start(
        Transcript::parse("[[turns]]\nreply = { text = \"unreached\" }\n").unwrap(),
        0,
    )
    .unwrap();
    let mut app = App::open_session(
        &scratch.host(FrontEnd::headless()),
        scratch.project.clone(),
        options(&server, Mode::Yolo),
    )
    .unwrap();
    let mut live = app.take_live().unwrap();
    let interrupt = live.agent.interrupt().clone();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .unwrap();
    // The run on the runtime's one worker.
    let running = runtime.spawn(async move {
        let mut sink = |_event: AgentEvent| {};
        live.agent.run("Hello.", &mut sink).await
    });
    // Found by its command line: in the OS sandbox the hook's own `$$`
    // is of another pid namespace.
    let hook_started = wait_for(|| {
        let started = scratch.ws().join("hook.started");
        let sleeping = amber_tests::processes::with_argument(HOOK_SLEEP);
        (started.exists() && !sleeping.is_empty()).then_some(sleeping)
    });
    // Ctrl-C, as a front end gives it: the interrupt first, so the turn's
    // answer cannot come from the hook's process dying.
    interrupt.fire();
    let report = runtime.block_on(running).unwrap().unwrap();
    let answered_after = hook_started.1.elapsed();
    assert_eq!(report.outcome, Outcome::Interrupted);
    assert!(
        answered_after < Duration::from_secs(5),
        "the interrupt's result came {answered_after:?} after the hook started, not before its sleep ended"
    );
    // And, as the front end does next, the commands it started are killed.
    amber_runtime::imports::exec::kill_running();
    for pid in hook_started.0 {
        assert!(
            !amber_tests::processes::still_runs(&pid.to_string()),
            "the hook's process {pid} outlived the interrupt"
        );
    }
    runtime.shutdown_background();
}

/// The hook's sleep, by an argument no other process has.
const HOOK_SLEEP: &str = "5.0417";

/// Polls `found` (every 10 ms, 60 s at most: a loaded CI machine) and returns what it found
/// with when.
fn wait_for<T>(found: impl Fn() -> Option<T>) -> (T, Instant) {
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        if let Some(value) = found() {
            return (value, Instant::now());
        }
        assert!(Instant::now() < deadline, "it never happened");
        std::thread::sleep(Duration::from_millis(10));
    }
}
