//! Nothing amber starts outlives it, through the real `amber exec` with
//! the bundled shell tool and the fake LLM server: what a command leaves
//! behind when amber is stopped, killed with `kill -9` (and what the next
//! start does about it, on each setup), an MCP server that never answers
//! `initialize`, a command over the process limit, and command hooks on a
//! machine without a sandbox. "Gone" is checked in `/proc` after a bounded
//! wait, never by timing.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "a test fails by panicking, its helpers too"
)]

use std::process::{Child, Stdio};

use amber_tests::exec_env::{fake, text, Env, Run};
use amber_tests::fake_llm::FakeLlm;
use amber_tests::tmux::Tmux;

#[path = "../../sandbox/tests/common/processes.rs"]
mod processes;

use processes::{alive_with, gone, kill_all, marker_for, until, FORK_LOOP};

const AMBER: &str = env!("CARGO_BIN_EXE_amber");

/// One test at a time: every amber that starts kills what a killed amber
/// left in its cgroups, which one test here looks for.
static ONE_AT_A_TIME: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn alone() -> std::sync::MutexGuard<'static, ()> {
    ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner())
}

/// A grandchild that leaves the session, one whose parent exits at once,
/// and a foreground sleep that keeps the command running.
fn leavers_then_wait(marker: &str) -> String {
    format!("setsid sleep {marker}1 & (sleep {marker}2 &); sleep {marker}3")
}

/// A TOML basic string.
fn toml_str(s: &str) -> String {
    format!("\"{}\"", s.replace('\\', "\\\\").replace('"', "\\\""))
}

/// One turn calling `shell` with `command`, then an answer.
fn shell_then_done(command: &str) -> String {
    format!(
        "[[turns]]\nreply = {{ tool_calls = [{{ id = \"s1\", name = \"shell\", arguments = {{ command = {} }} }}] }}\n[[turns]]\nreply = {{ text = \"done\" }}\n",
        toml_str(command)
    )
}

/// A home whose config has `extra`, commands sandboxed in yolo too (so
/// they run without a question, and in the sandbox).
fn env_with(extra: &str) -> Env {
    let env = Env::new(AMBER);
    std::fs::write(
        env.home.join("config.toml"),
        format!("[agent]\nconfirm_turn = false\n[sandbox]\nalways = true\n{extra}"),
    )
    .unwrap();
    env
}

/// `amber exec --json --mode yolo go` against `server`.
fn yolo_exec(env: &Env, server: &FakeLlm) -> std::process::Command {
    let base = server.openai_base();
    env.command(&[
        "exec",
        "--json",
        "--base-url",
        &base,
        "--mode",
        "yolo",
        "go",
    ])
}

fn spawn_yolo(env: &Env, server: &FakeLlm) -> Child {
    yolo_exec(env, server)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

fn signal(child: &Child, signal: i32) {
    // SAFETY: kill(2) of the amber this test started.
    unsafe {
        libc::kill(child.id() as i32, signal);
    }
}

#[test]
fn what_a_command_left_behind_is_gone_when_amber_is_stopped() {
    let _alone = alone();
    let mut n = 0;
    for setup in [
        "backend = \"bubblewrap\"",
        "backend = \"landlock\"",
        "backend = \"landlock\"\ncgroups = false",
    ] {
        n += 1;
        let marker = marker_for(n);
        let env = env_with(setup);
        let server = fake(&shell_then_done(&leavers_then_wait(&marker)));
        let amber = spawn_yolo(&env, &server);
        assert!(
            until(&marker, |n| n >= 3),
            "{setup}: the command never started"
        );
        signal(&amber, libc::SIGTERM);
        let out = amber.wait_with_output().unwrap();
        assert_eq!(
            out.status.code(),
            Some(143),
            "{setup}: {}",
            text(&out.stderr)
        );
        assert!(
            gone(&marker),
            "{setup}: still running: {:?}",
            alive_with(&marker)
        );
    }
}

#[test]
fn after_a_kill_9_of_amber_what_survives_is_what_the_documentation_says() {
    let _alone = alone();
    // bubblewrap: its PID namespace dies with the command's first process.
    let marker = marker_for(10);
    let env = env_with("backend = \"bubblewrap\"");
    let server = fake(&shell_then_done(&leavers_then_wait(&marker)));
    let mut amber = spawn_yolo(&env, &server);
    assert!(until(&marker, |n| n >= 3), "bubblewrap: never started");
    signal(&amber, libc::SIGKILL);
    amber.wait().unwrap();
    assert!(gone(&marker), "bubblewrap: {:?}", alive_with(&marker));

    // Landlock with cgroups: what left the command's group survives amber,
    // in its cgroup, until the next amber starts and kills it.
    let marker = marker_for(11);
    let env = env_with("backend = \"landlock\"");
    let doctor: serde_json::Value =
        serde_json::from_slice(&env.run(&["doctor", "--json"]).stdout).unwrap();
    if doctor["processes"]["cgroups"] == "none" {
        eprintln!("no cgroup amber may make here: {}", doctor["processes"]);
        return;
    }
    let server = fake(&shell_then_done(&leavers_then_wait(&marker)));
    let mut amber = spawn_yolo(&env, &server);
    assert!(until(&marker, |n| n >= 3), "landlock: never started");
    signal(&amber, libc::SIGKILL);
    amber.wait().unwrap();
    assert!(
        until(&marker, |n| n >= 1),
        "landlock: nothing survived, but the documentation says it does"
    );
    let next = env.run(&["doctor", "--json"]);
    assert!(
        text(&next.stderr).contains("process(es) an earlier amber left running"),
        "{}",
        text(&next.stderr)
    );
    assert!(
        gone(&marker),
        "landlock: the next start left {:?}",
        alive_with(&marker)
    );

    // Landlock without cgroups: nothing finds them; they outlive amber.
    let marker = marker_for(12);
    let env = env_with("backend = \"landlock\"\ncgroups = false");
    let server = fake(&shell_then_done(&leavers_then_wait(&marker)));
    let mut amber = spawn_yolo(&env, &server);
    assert!(until(&marker, |n| n >= 3), "no cgroups: never started");
    signal(&amber, libc::SIGKILL);
    amber.wait().unwrap();
    let survived = until(&marker, |n| n >= 1);
    kill_all(&marker);
    assert!(survived, "no cgroups: the documentation says they survive");
}

#[test]
fn an_mcp_server_that_never_answers_initialize_is_gone_after_exec() {
    let _alone = alone();
    let marker = marker_for(20);
    let env = Env::new(AMBER);
    let server_command = format!("setsid sleep {marker}1 & sleep {marker}2");
    std::fs::write(
        env.home.join("config.toml"),
        format!(
            "[agent]\nconfirm_turn = false\n[[mcp.servers]]\nname = \"silent\"\ncommand = \"sh\"\nargs = [\"-c\", {}]\nstartup_timeout_ms = 300\n",
            toml_str(&server_command)
        ),
    )
    .unwrap();
    let server = fake("[[turns]]\nreply = { text = \"done\" }\n");
    let run = env.exec(&server, &[], "hello");
    run.assert_done("done");
    assert!(
        run.stderr.contains("silent") || format!("{:?}", run.events).contains("silent"),
        "the late server is named: {}",
        run.stderr
    );
    assert!(gone(&marker), "still running: {:?}", alive_with(&marker));
}

#[test]
fn a_command_over_the_process_limit_says_so_in_its_tool_result() {
    let _alone = alone();
    let env = env_with("max_processes = 64");
    let doctor = env.run(&["doctor", "--json"]);
    let report: serde_json::Value = serde_json::from_slice(&doctor.stdout).unwrap();
    let limit = &report["processes"]["max_processes"];
    if limit["enforced"] != true {
        let detail = limit["detail"].as_str().unwrap();
        assert!(detail.starts_with("not enforced: "), "{detail}");
        eprintln!("the process limit is {detail}; not tried");
        return;
    }
    let server = fake(&shell_then_done(FORK_LOOP));
    let run = Run::from(yolo_exec(&env, &server).output().unwrap());
    run.assert_done("done");
    let results = run.results();
    assert!(results[0].2.contains("refused after"), "{results:?}");
    assert!(
        results[0]
            .2
            .contains("[amber: the command hit the process limit (64)"),
        "{results:?}"
    );
}

/// A config whose only sandbox is none, and a command hook of the user's
/// own that leaves a mark.
const NO_SANDBOX_HOOK: &str = r#"[agent]
confirm_turn = false
[sandbox]
backend = "none"
[[hooks.command]]
event = "PreToolUse"
matcher = "read_note"
command = "touch hook-ran"
"#;

const READ_THEN_DONE: &str = r#"
[[turns]]
reply = { tool_calls = [{ id = "r1", name = "read_note", arguments = { path = "a.txt" } }] }
[[turns]]
reply = { text = "done" }
"#;

#[test]
fn a_command_hook_without_a_sandbox_is_skipped_without_a_terminal_and_asked_at_one() {
    let _alone = alone();
    let env = Env::new(AMBER);
    std::fs::write(env.home.join("config.toml"), NO_SANDBOX_HOOK).unwrap();
    // No terminal: skipped, with a warning naming it and the way to allow it.
    let server = fake(READ_THEN_DONE);
    let run = env.exec(&server, &[], "Read a.txt.");
    run.assert_done("done");
    let said = format!("{}{:?}", run.stderr, run.events);
    assert!(
        said.contains("config#1") && said.contains("amber hooks trust --unsandboxed"),
        "{said}"
    );
    assert!(!env.ws.join("hook-ran").exists());

    // At a terminal: asked, and once allowed it runs and is remembered.
    let server = fake(READ_THEN_DONE);
    let tmux = Tmux::start(&env, &server, "hook-unsandboxed", "exec 'Read a.txt.'");
    let screen = tmux.wait_for("Run it unsandboxed? [y/N]");
    assert!(
        screen.contains("this machine has no OS sandbox"),
        "{screen}"
    );
    assert!(screen.contains("touch hook-ran"), "{screen}");
    tmux.type_line("y");
    tmux.wait_for("amber exited 0");
    assert!(env.ws.join("hook-ran").exists());
    std::fs::remove_file(env.ws.join("hook-ran")).unwrap();
    let server = fake(READ_THEN_DONE);
    let run = env.exec(&server, &[], "Read a.txt.");
    run.assert_done("done");
    assert!(env.ws.join("hook-ran").exists(), "{}", run.stderr);
}

/// The parent of a process, from its stat.
fn parent_of(pid: u32) -> Option<u32> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    stat[stat.rfind(')')? + 1..]
        .split_whitespace()
        .nth(1)?
        .parse()
        .ok()
}

#[test]
fn the_tui_stopped_by_sigterm_leaves_nothing_of_its_commands_running() {
    let _alone = alone();
    let marker = marker_for(30);
    let env = env_with("backend = \"landlock\"");
    let server = fake(&shell_then_done(&leavers_then_wait(&marker)));
    let tmux = Tmux::start(&env, &server, "tui-sigterm", "--mode yolo");
    tmux.wait_for("yolo");
    tmux.type_line("go");
    assert!(until(&marker, |n| n >= 3), "the command never started");
    // amber is an ancestor of the foreground sleep (its parent, or the
    // parent of the command's `sh`).
    let own_line = format!("sleep\0{marker}3\0");
    // The third marked process may be its `sh` a moment before it execs
    // the sleep: look again for a few seconds on a loaded machine.
    let find_sleeper = || {
        alive_with(&marker).into_iter().find(|pid| {
            std::fs::read(format!("/proc/{pid}/cmdline")).is_ok_and(|c| c == own_line.as_bytes())
        })
    };
    let started = std::time::Instant::now();
    let sleeper = loop {
        if let Some(pid) = find_sleeper() {
            break pid;
        }
        assert!(
            started.elapsed() < std::time::Duration::from_secs(10),
            "the foreground sleep runs"
        );
        std::thread::sleep(std::time::Duration::from_millis(50));
    };
    let is_amber = |pid: &u32| {
        std::fs::read_link(format!("/proc/{pid}/exe")).is_ok_and(|exe| exe.ends_with("amber"))
    };
    let amber = std::iter::successors(parent_of(sleeper), |pid| parent_of(*pid))
        .take(4)
        .find(is_amber)
        .expect("amber runs");
    // SAFETY: kill(2) of the amber this test started in tmux.
    unsafe {
        libc::kill(amber as i32, libc::SIGTERM);
    }
    tmux.wait_for("amber exited");
    assert!(gone(&marker), "still running: {:?}", alive_with(&marker));
}
