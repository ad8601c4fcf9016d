//! The command system in one running process, end to end: the real
//! runtime, the real bundled command plugin and the hostile command
//! guest, a real session file. Enabling a plugin makes its subtree
//! dispatch at once; disabling it makes the command unknown; a trapping
//! handler gives `command error: …` and the next command works; `/set` in
//! a session changes the session and leaves the config file alone unless
//! `--save`; `/clear` starts a new session.
//!
//! amber reads its dirs from the environment, so these tests run one at a
//! time (a lock) and each points the environment at a scratch home.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "a test fails by panicking, its helpers too"
)]

use std::sync::{Mutex, MutexGuard};

use amber_app::host::{FrontEnd, Host};
use amber_app::session::SessionOptions;
use amber_app::App;
use amber_core::commands::{Effect, Outcome};
use amber_core::engine::Mode;
use amber_core::ports::dialect::{Message, Role};
use amber_core::project::{ProjectRoot, RootRule};
use amber_runtime::manager::{GrantChoice, NoTty};
use amber_tests::{guest, repo_root};

static ENV: Mutex<()> = Mutex::new(());

struct Scratch {
    _lock: MutexGuard<'static, ()>,
    _dir: tempfile::TempDir,
    home: std::path::PathBuf,
    project: ProjectRoot,
}

impl Scratch {
    fn new() -> Scratch {
        let lock = ENV.lock().unwrap_or_else(|e| e.into_inner());
        let dir = tempfile::tempdir().unwrap();
        let home = dir.path().join("home");
        let ws = dir.path().join("ws");
        std::fs::create_dir_all(ws.join(".git")).unwrap();
        std::fs::create_dir_all(&home).unwrap();
        // Safe here: every test of this binary holds ENV while it runs.
        std::env::set_var("AMBER_HOME", &home);
        std::env::set_var("AMBER_CACHE_DIR", repo_root().join("target/test-cache"));
        std::env::set_var("AMBER_BUNDLE_DIR", amber_tests::guests_dir());
        std::env::set_var("OPENAI_API_KEY", "sk-test");
        std::env::remove_var("AMBER_EMBEDDING_MODEL");
        let project = ProjectRoot {
            root: ws.canonicalize().unwrap(),
            rule: RootRule::Flag,
            subdir: Default::default(),
        };
        Scratch {
            _lock: lock,
            _dir: dir,
            home,
            project,
        }
    }

    /// The host a headless front end opens on this scratch home.
    fn host(&self) -> Host {
        Host::from_env(FrontEnd::headless())
    }

    fn config(&self) -> String {
        std::fs::read_to_string(self.home.join("config.toml")).unwrap_or_default()
    }

    /// The host without a session, as `amber /cmd` from the shell opens it.
    fn app(&self) -> App {
        App::open(
            &self.host(),
            self.project.clone(),
            SessionOptions::default(),
        )
        .unwrap()
    }

    /// The host with a new session open.
    fn session_app(&self) -> App {
        App::open_session(
            &self.host(),
            self.project.clone(),
            SessionOptions::default(),
        )
        .unwrap()
    }
}

fn ok(app: &mut App, line: &str) -> String {
    match app.dispatch(line) {
        Outcome::Ok { reply, .. } => reply.text,
        other => panic!("{line}: {other:?}"),
    }
}

#[test]
fn a_plugin_subtree_comes_and_goes_with_enable_and_disable_in_one_process() {
    let scratch = Scratch::new();
    let mut app = scratch.app();
    assert!(app.tree().child("git").is_some(), "bundled command-git");
    let before = app.tree().count();

    // Disabled while the process runs: gone from the tree, and unknown.
    let text = ok(&mut app, "/plugins disable git");
    assert!(text.starts_with("git is "), "{text}");
    assert!(app.tree().child("git").is_none());
    assert!(app.complete("/gi").is_empty());
    match app.dispatch("/git status") {
        Outcome::Unknown { message, .. } => {
            assert!(message.starts_with("unknown command: /git"), "{message}")
        }
        other => panic!("{other:?}"),
    }

    // Enabled again: the subtree is back and runs, no restart.
    ok(&mut app, "/plugins enable git");
    assert_eq!(app.tree().count(), before);
    let names: Vec<String> = app
        .complete("/git st")
        .into_iter()
        .map(|c| c.name)
        .collect();
    assert_eq!(names, ["status"]);
    match app.dispatch("/git status") {
        // Not a repository with commits: git's own error, through the
        // plugin, as a command error; the point is that it ran.
        Outcome::Ok { action, .. } | Outcome::Error { action, .. } => {
            assert_eq!(action, "plugin.git.git.status")
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_disabled_plugins_command_is_unknown_even_before_the_tree_is_rebuilt() {
    let scratch = Scratch::new();
    let mut app = scratch.app();
    let tree_had_git = app.tree().child("git").is_some();
    // Behind the App's back: the tree still shows /git, the registry not.
    app.manager().runtime().disable("git").unwrap();
    assert!(tree_had_git);
    match app.dispatch("/git log") {
        Outcome::Unknown { .. } => {}
        other => panic!("a stale call: {other:?}"),
    }
}

#[test]
fn a_trapping_handler_is_a_command_error_and_the_next_command_works() {
    let scratch = Scratch::new();
    let mut app = scratch.app();
    let choice = GrantChoice {
        explicit: Vec::new(),
        all: true,
    };
    let report = app
        .manager_mut()
        .add(&guest("command-hostile"), &choice, &mut NoTty)
        .unwrap();
    assert_eq!(report.id, "evil");
    assert!(app.complete("/ev").iter().any(|c| c.name == "evil"));
    match app.dispatch("/evil trap") {
        Outcome::Error { message, .. } => {
            assert!(message.starts_with("command error: "), "{message}");
            assert!(message.contains("evil"), "{message}");
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(ok(&mut app, "/evil ok"), "still here");
    assert!(ok(&mut app, "/status").contains("mode"));
}

#[test]
fn set_in_a_session_changes_the_session_and_save_writes_the_file() {
    let scratch = Scratch::new();
    let mut app = scratch.session_app();
    let first = app.live().unwrap().info.id.clone();
    // A session's file is made with its first message.
    said_something(&mut app);

    let text = ok(&mut app, "/set policy read");
    assert!(text.contains("for this session"), "{text}");
    assert_eq!(app.policy().mode(), Mode::Read);
    ok(&mut app, "/set temperature 0.3");
    ok(&mut app, "/set max_iterations 7");
    ok(&mut app, "/set compress_threshold 0.6");
    let live = app.live().unwrap();
    assert_eq!(live.agent.config().temperature, Some(0.3));
    assert_eq!(live.agent.config().max_tool_iterations, 7);
    assert_eq!(live.compression.threshold, 0.6);
    assert!(live.compression.enabled);

    // Compression: target and switch for the session; /compact asks the
    // front end to run the cycle, and says so when compression is off.
    ok(&mut app, "/set compress_target 0.4");
    ok(&mut app, "/set compress_enabled false");
    assert_eq!(
        (
            app.live().unwrap().compression.target,
            app.live().unwrap().compression.enabled
        ),
        (0.4, false)
    );
    match app.dispatch("/compact") {
        Outcome::Error { message, .. } => {
            assert!(message.contains("compression is off"), "{message}")
        }
        other => panic!("{other:?}"),
    }
    ok(&mut app, "/set compress_enabled true");
    match app.dispatch("/compact the parser") {
        Outcome::Ok { reply, .. } => assert_eq!(
            reply.effect,
            Effect::Compact {
                focus: Some("the parser".into())
            }
        ),
        other => panic!("{other:?}"),
    }
    assert!(ok(&mut app, "/get compress_target").contains("0.4"));
    assert_eq!(scratch.config(), "", "the file is untouched without --save");

    ok(&mut app, "/set model gpt-test --save");
    assert_eq!(app.live().unwrap().agent.config().model, "gpt-test");
    assert!(
        scratch.config().contains("model = \"gpt-test\""),
        "{}",
        scratch.config()
    );

    let status = ok(&mut app, "/status");
    assert!(
        status.contains("gpt-test") && status.contains("read"),
        "{status}"
    );

    // The sessions feed: this session's id completes, and shows verified.
    app.refresh_feeds();
    let ids: Vec<String> = app
        .complete("/sessions show ")
        .into_iter()
        .map(|c| c.name)
        .collect();
    assert!(ids.contains(&first), "{ids:?}");
    let shown = ok(&mut app, &format!("/sessions show {first}"));
    assert!(shown.contains("chain verified"), "{shown}");

    // /clear: a new session, the settings carried over.
    match app.dispatch("/clear") {
        Outcome::Ok { reply, .. } => assert_eq!(reply.effect, Effect::Clear),
        other => panic!("{other:?}"),
    }
    let live = app.live().unwrap();
    assert_ne!(live.info.id, first);
    assert_eq!(live.agent.config().model, "gpt-test");
    assert_eq!(live.agent.config().max_tool_iterations, 7);
    assert_eq!(app.policy().mode(), Mode::Read);
    match app.dispatch("/quit") {
        Outcome::Ok { reply, .. } => assert_eq!(reply.effect, Effect::Quit),
        other => panic!("{other:?}"),
    }
}

/// `--no-confirm` (SessionOptions::no_confirm) holds for every session the
/// process opens: the first, the one `/clear` starts, and one the picker
/// resumes; without it each has the confirm turn.
#[test]
fn no_confirm_holds_across_clear_and_a_resumed_session() {
    let scratch = Scratch::new();
    let options = SessionOptions {
        no_confirm: true,
        ..SessionOptions::default()
    };
    let mut app = App::open_session(&scratch.host(), scratch.project.clone(), options).unwrap();
    let first = app.live().unwrap().info.id.clone();
    // A session's file is made with its first message.
    said_something(&mut app);
    assert_eq!(app.live().unwrap().agent.config().confirm, None);
    app.new_session().unwrap();
    assert_eq!(
        app.live().unwrap().agent.config().confirm,
        None,
        "after /clear"
    );
    app.resume_session(&first).unwrap();
    assert_eq!(app.live().unwrap().info.id, first);
    assert_eq!(app.live().unwrap().agent.config().confirm, None, "resumed");
    drop(app);

    let mut app = scratch.session_app();
    assert!(app.live().unwrap().agent.config().confirm.is_some());
    app.new_session().unwrap();
    assert!(app.live().unwrap().agent.config().confirm.is_some());
}

/// One message recorded in the open session, so it has a file to list,
/// show and resume.
fn said_something(app: &mut App) {
    app.live_mut()
        .unwrap()
        .agent
        .record_turn(vec![Message::text(Role::User, "hello")])
        .unwrap();
}

/// `/permissions` changes the rules the config file holds now, under its
/// lock: a rule another amber (or a hand edit) stored since this session
/// opened is kept, and holds in this session at once.
#[test]
fn permissions_keep_a_rule_stored_elsewhere_since_the_session_opened() {
    let scratch = Scratch::new();
    let mut app = scratch.session_app();
    std::fs::write(
        scratch.home.join("config.toml"),
        "[[policy.rules]]\ntool = \"read_file\"\ndecision = \"allow\"\n",
    )
    .unwrap();
    ok(&mut app, "/permissions deny shell");
    let config = scratch.config();
    assert!(
        config.contains("read_file") && config.contains("shell"),
        "{config}"
    );
    let rules = app.policy().rules();
    assert_eq!(rules.len(), 2, "{rules:?}");
}
