//! Daily work I in the TUI, in tmux, against the fake LLM server: plan
//! mode's "execute this plan?" (y runs the plan in write mode), Shift-Tab
//! cycling the mode, a sub-agent's card with its calls inside, and the
//! todo list above the prompt, whole on ctrl-g.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "a test fails by panicking, its helpers too"
)]

use amber_tests::exec_env::{fake, offered_tools, Env};
use amber_tests::tmux::Tmux;

const AMBER: &str = env!("CARGO_BIN_EXE_amber");

#[test]
fn a_proposed_plan_is_shown_and_yes_runs_it_in_write_mode() {
    let env = Env::without_confirm_turn(AMBER);
    let server = fake(
        r#"
[[turns]]
reply = { tool_calls = [{ id = "p1", name = "exit_plan", arguments = { plan = "1. Add **x.txt**\n2. Check it" } }] }
[[turns]]
reply = { text = "Carried out." }
"#,
    );
    let tui = Tmux::start_sized(&env, &server, "amber-plan", "--plan", (80, 24));
    tui.wait_for("mode plan");
    tui.type_line("Add x.txt");
    let screen = tui.wait_for("execute this plan?");
    assert!(screen.contains("Proposed plan"), "{screen}");
    assert!(screen.contains("Add x.txt"), "{screen}");
    assert!(screen.contains("y: yes, in write mode · a: yes, in yolo"), "{screen}");
    // The plan itself stays in view above the question.
    assert!(
        screen
            .lines()
            .any(|l| l.trim_end().ends_with("Check it") && !l.contains("plan=")),
        "{screen}"
    );
    assert!(offered_tools(&server, 0).iter().any(|t| t == "exit_plan"));
    tui.keys(&["y"]);
    let screen = tui.wait_for("Carried out.");
    assert!(screen.contains("mode write"), "{screen}");
    let received = server.received();
    assert_eq!(received.len(), 2);
    let sent = received[1].body["messages"].to_string();
    assert!(
        sent.contains("The plan is accepted; carry it out now"),
        "{sent}"
    );
    assert!(!sent.contains("You are in plan mode"), "{sent}");
    let tools = offered_tools(&server, 1);
    assert!(tools.iter().any(|t| t == "write_file"), "{tools:?}");
    assert!(!tools.iter().any(|t| t == "exit_plan"), "{tools:?}");

    // Shift-Tab cycles write → plan → read → write.
    tui.keys(&["BTab"]);
    tui.wait_for("mode plan");
    tui.keys(&["BTab"]);
    tui.wait_for("mode read");
    tui.keys(&["BTab"]);
    tui.wait_for("mode write");
}

#[test]
fn a_sub_agent_card_streams_its_calls_and_the_todo_list_sits_above_the_prompt() {
    let env = Env::without_confirm_turn(AMBER);
    let dir = env.ws.join(".amber/agents");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("reader.md"),
        "---\nname: reader\ndescription: Reads files.\ntools: read_file\nmode: read\n---\nRead.\n",
    )
    .unwrap();
    let server = fake(
        r#"
[[turns]]
reply = { tool_calls = [{ id = "t0", name = "todo_write", arguments = { todos = [{ id = "1", content = "read a.txt", status = "in_progress" }, { id = "2", content = "report", status = "pending" }] } }, { id = "t1", name = "task", arguments = { prompt = "Read a.txt.", description = "read a.txt", agent = "reader" } }] }
[[turns]]
expect_tool_results = []
reply = { tool_calls = [{ id = "r1", name = "read_file", arguments = { path = "a.txt" } }] }
[[turns]]
reply = { text = "It says hi there." }
[[turns]]
expect_tool_results = ["t0", "t1"]
reply = { text = "The reader read it." }
"#,
    );
    let tui = Tmux::start_sized(&env, &server, "amber-subagent", "", (100, 30));
    tui.wait_for("mode write");
    tui.type_line("Have the reader read a.txt");
    let screen = tui.wait_for("The reader read it.");
    assert!(
        screen.contains("sub-agent task-1 · agent reader (read mode) — read a.txt"),
        "{screen}"
    );
    assert!(screen.contains("done after 2 model calls"), "{screen}");
    assert!(screen.contains("read_file path=a.txt"), "{screen}");
    // The todo list: one line above the prompt, whole on ctrl-g.
    assert!(screen.contains("todo 0/2 · [~] read a.txt"), "{screen}");
    tui.keys(&["C-g"]);
    let screen = tui.wait_for("todo list: 0 of 2 done");
    assert!(screen.contains("[ ] report"), "{screen}");
    // ctrl-o expands the card to its session; /todos prints the list.
    tui.keys(&["C-o"]);
    tui.wait_for("amber sessions show");
    tui.type_line("/todos");
    tui.wait_for("[~] 1: read a.txt");
}
