//! Background processes end to end, through the real binary and the fake
//! LLM server: the model starts one, reads its output in a later turn
//! while it runs, lists it; and what is left running is gone when amber
//! exits, checked by its pid.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "a test fails by panicking, its helpers too"
)]

use std::time::{Duration, Instant};

use amber_tests::exec_env::{fake, Env};

const AMBER: &str = env!("CARGO_BIN_EXE_amber");

fn alive(pid: u64) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|stat| !stat.contains(") Z "))
}

#[test]
fn a_background_process_is_read_while_it_runs_and_gone_when_amber_exits() {
    let env = Env::without_confirm_turn(AMBER);
    let server = fake(
        r#"
[[turns]]
reply = { tool_calls = [{ id = "p1", name = "process_start", arguments = { command = "echo ready; sleep 60" } }] }
[[turns]]
reply = { tool_calls = [{ id = "s1", name = "shell", arguments = { command = "sleep 1" } }] }
[[turns]]
reply = { tool_calls = [{ id = "r1", name = "process_read", arguments = { id = 1 } }, { id = "l1", name = "process_list", arguments = {} }] }
[[turns]]
reply = { text = "It is up." }
"#,
    );
    let run = env.exec(&server, &["--yes"], "Start it and check.");
    run.assert_done("It is up.");
    let results = run.results();
    assert_eq!(results[0].1, "ok", "{results:?}");
    let started = run
        .of_type("tool.result")
        .into_iter()
        .find(|e| e["id"] == "p1")
        .unwrap()
        .clone();
    let pid = started["meta"]["job"]["pid"].as_u64().unwrap();
    let read = &results[2].2;
    assert!(read.contains("ready"), "{read}");
    assert!(read.contains("still running"), "{read}");
    assert!(results[3].2.contains("[1] running"), "{results:?}");
    // amber has exited: the process and its group are gone.
    let start = Instant::now();
    while alive(pid) && start.elapsed() < Duration::from_secs(10) {
        std::thread::sleep(Duration::from_millis(100));
    }
    assert!(!alive(pid), "pid {pid} outlived amber");
}

#[test]
fn an_interrupted_turn_leaves_a_job_running_and_jobs_stop_ends_it() {
    let env = Env::without_confirm_turn(AMBER);
    let server = fake(
        r#"
[[turns]]
reply = { tool_calls = [{ id = "p1", name = "process_start", arguments = { command = "echo serving; sleep 60" } }] }
[[turns]]
reply = { tool_calls = [{ id = "s1", name = "shell", arguments = { command = "sleep 20" } }] }
"#,
    );
    let tui =
        amber_tests::tmux::Tmux::start_sized(&env, &server, "amber-jobs", "--mode yolo", (100, 30));
    tui.wait_for("mode yolo");
    tui.type_line("Serve it.");
    tui.wait_for("sleep 20");
    tui.keys(&["Escape"]);
    tui.wait_for("interrupted");
    let screen = tui.wait_for("jobs 1");
    assert!(screen.contains("mode yolo · jobs 1"), "{screen}");
    tui.type_line("/jobs");
    let screen = tui.wait_for("[1] running");
    assert!(screen.contains("    serving"), "{screen}");
    tui.type_line("/jobs stop 1");
    tui.wait_for("[1] stopped");
    tui.wait_for_gone("jobs 1");
}

#[test]
fn a_background_server_approved_with_the_network_answers_a_later_command() {
    let env = Env::without_confirm_turn(AMBER);
    std::fs::write(env.ws.join("page.txt"), "served by the background\n").unwrap();
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let script = format!(
        r#"
[[turns]]
reply = {{ tool_calls = [{{ id = "p1", name = "process_start", arguments = {{ command = "python3 -m http.server {port} --bind 127.0.0.1" }} }}] }}
[[turns]]
reply = {{ tool_calls = [{{ id = "c1", name = "shell", arguments = {{ command = "curl -s --retry 20 --retry-connrefused --retry-delay 1 http://127.0.0.1:{port}/page.txt" }} }}] }}
[[turns]]
reply = {{ text = "Fetched." }}
"#
    );
    let server = fake(&script);
    // Each approved once, at the terminal.
    let shown = env.exec_on_a_tty(&server.openai_base(), "serve-and-fetch", "y\ny\n");
    let dialogs = shown.matches("in the sandbox, with network").count();
    assert_eq!(dialogs, 2, "{shown}");
    let fetched = shown
        .lines()
        // The dialog's question and the next event share a line.
        .filter_map(|l| l.find('{').map(|at| &l[at..]))
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .find(|e| e["type"] == "tool.result" && e["id"] == "c1")
        .unwrap_or_else(|| panic!("no result of the fetch: {shown}"));
    assert!(
        fetched["output"].to_string().contains("served by the background"),
        "{fetched}"
    );
}
