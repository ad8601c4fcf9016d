//! Custom agents and recorded sub-agents end to end, through the real
//! binary and the fake LLM server: an agent file's tools and mode narrow
//! its sub-agent; the sub-agent's session is linked both ways with its
//! parent's and verifies; its events reach `exec --json` tagged with its
//! id; `amber agents` lists the files and names a broken one.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "a test fails by panicking, its helpers too"
)]

use amber_tests::exec_env::{fake, offered_tools, text, Env};
use amber_tests::fake_llm::FakeLlm;
use serde_json::Value;

const AMBER: &str = env!("CARGO_BIN_EXE_amber");

fn agent_file(env: &Env, folder: &str, name: &str, text: &str) {
    let dir = env.ws.join(folder);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join(format!("{name}.md")), text).unwrap();
}

/// The `task` tool's description in the `n`th request.
fn task_description(server: &FakeLlm, n: usize) -> String {
    let received = server.received();
    let tools = received[n].body["tools"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    tools
        .iter()
        .find(|t| t["function"]["name"] == "task")
        .and_then(|t| t["function"]["description"].as_str())
        .unwrap_or_default()
        .to_string()
}

#[test]
fn a_custom_agent_limited_to_read_file_runs_in_a_linked_session_and_reports_tagged_events() {
    let env = Env::without_confirm_turn(AMBER);
    std::fs::write(env.ws.join("a.txt"), "alpha\n").unwrap();
    agent_file(
        &env,
        ".amber/agents",
        "reader",
        "---\nname: reader\ndescription: Reads files and reports what they say.\ntools: read_file\n---\nYou only read. Quote what you find.\n",
    );
    // Claude Code's layout and its comma-separated tools, read too.
    agent_file(
        &env,
        ".claude/agents",
        "tester",
        "---\nname: tester\ndescription: Runs the tests.\ntools: Read, Bash\nmodel: sonnet\n---\nRun them.\n",
    );
    agent_file(
        &env,
        ".amber/agents",
        "broken",
        "---\nname: broken\ndescription: Fast.\nmode: fast\n---\n",
    );
    let server = fake(
        r#"
[[turns]]
reply = { tool_calls = [{ id = "t1", name = "task", arguments = { prompt = "What does a.txt say?", description = "read a.txt", agent = "reader" } }] }
[[turns]]
expect_tool_results = []
reply = { tool_calls = [{ id = "s1", name = "shell", undeclared = true, arguments = { command = "cat a.txt" } }, { id = "s2", name = "read_file", arguments = { path = "a.txt" } }] }
[[turns]]
reply = { text = "It says alpha." }
[[turns]]
expect_tool_results = ["t1"]
reply = { text = "a.txt says alpha." }
"#,
    );
    let run = env.exec(&server, &["--yes"], "Ask the reader about a.txt.");
    run.assert_done("a.txt says alpha.");

    // The model sees the agents in the task tool's description.
    let (names, task) = (offered_tools(&server, 0), task_description(&server, 0));
    assert!(names.iter().any(|n| n == "task"), "{names:?}");
    assert!(
        task.contains("- reader: Reads files and reports what they say."),
        "{task}"
    );
    assert!(task.contains("- tester: Runs the tests."), "{task}");
    // The sub-agent's request offers only its tools, and carries its prompt.
    let child_tools = offered_tools(&server, 1);
    assert_eq!(child_tools, ["read_file"]);
    let child_system = server.received()[1].body["messages"][0]["content"].to_string();
    assert!(child_system.contains("named `reader`") && child_system.contains("You only read."));

    // Its events, tagged with its id, in order: started, its calls, done.
    let started = run.one("subagent.started");
    assert_eq!(started["agent"], "task-1");
    assert_eq!(started["profile"], "reader");
    assert_eq!(started["call_id"], "t1");
    let tagged: Vec<(String, String)> = run
        .of_type("subagent")
        .iter()
        .map(|e| {
            (
                e["agent"].as_str().unwrap().to_string(),
                e["event"]["type"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    assert!(
        tagged.iter().all(|(agent, _)| agent == "task-1"),
        "{tagged:?}"
    );
    let calls: Vec<&Value> = run
        .of_type("subagent")
        .into_iter()
        .filter(|e| e["event"]["type"] == "tool.result")
        .collect();
    assert_eq!(calls.len(), 2, "{tagged:?}");
    // shell is not among its tools: refused; read_file ran.
    assert_eq!(calls[0]["event"]["status"], "denied");
    assert!(calls[0]["event"]["output"]
        .as_str()
        .unwrap()
        .contains("tool not found: `shell`"));
    assert_eq!(calls[1]["event"]["status"], "ok");
    let finished = run.one("subagent.finished");
    assert_eq!(finished["outcome"], "done");
    assert_eq!(finished["text"], "It says alpha.");
    // The task's result is the sub-agent's reply.
    let results = run.results();
    assert_eq!(results.last().unwrap().2, "It says alpha.", "{results:?}");

    // Two sessions, linked both ways, each verified.
    let parent = run.session_id();
    let child = started["session_id"].as_str().unwrap().to_string();
    let shown = env.show(&parent);
    let subs = shown["sub_agents"].as_array().unwrap();
    assert_eq!(subs.len(), 1, "{shown:#}");
    assert_eq!(subs[0]["session"], child.as_str());
    assert_eq!(subs[0]["verified"], true, "{shown:#}");
    assert_eq!(subs[0]["profile"], "reader");
    let child_shown = env.show(&child);
    assert_eq!(child_shown["verified"], true);
    assert_eq!(child_shown["info"]["parent"]["session"], parent.as_str());
    assert_eq!(child_shown["info"]["parent"]["call_id"], "t1");
    let out = env.run(&["sessions", "show", &parent]);
    let shown_text = text(&out.stdout);
    assert!(
        shown_text.contains(&format!(
            "task-1 (call t1) → session {child} · verified, 2 turns"
        )),
        "{shown_text}"
    );
    // A sub-agent's session is its parent's part: `-c` goes on with the
    // parent, and the list says whose it is.
    let out = env.run(&["sessions", "list"]);
    assert!(text(&out.stdout).contains(&format!("(sub-agent of {parent})")));
    let server = fake("[[turns]]\nreply = { text = \"Again.\" }\n");
    let base = server.openai_base();
    let again = amber_tests::exec_env::Run::from(env.run(&[
        "exec",
        "--json",
        "--base-url",
        &base,
        "-c",
        "Once more.",
    ]));
    again.assert_done("Again.");
    assert_eq!(again.session_id(), parent);

    // `amber agents`: both layouts, the Claude names mapped, the broken
    // file named with its line and key.
    let out = env.run(&["agents", "list", "--json"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let list: Value = serde_json::from_slice(&out.stdout).unwrap();
    let agents = list["agents"].as_array().unwrap();
    let names: Vec<&str> = agents.iter().map(|a| a["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["reader", "tester"], "{list:#}");
    assert_eq!(
        agents[1]["tools"],
        serde_json::json!(["read_file", "shell"])
    );
    // Their names complete after `/agents show`, and a completed name
    // runs as the typed command would.
    let out = env.run(&[
        "complete", "--shell", "bash", "--index", "3", "--", "amber", "/agents", "show", "",
    ]);
    assert_eq!(
        text(&out.stdout).lines().collect::<Vec<_>>(),
        ["reader", "tester"]
    );
    let out = env.run(&["/agents", "show", "reader"]);
    assert!(
        text(&out.stdout).contains("You only read."),
        "{}",
        text(&out.stdout)
    );
    let skipped = list["skipped"].to_string();
    assert!(
        skipped.contains("broken.md") && skipped.contains("key `mode`"),
        "{skipped}"
    );
}

#[test]
fn a_read_only_agent_stays_read_only_under_a_yolo_parent() {
    let env = Env::without_confirm_turn(AMBER);
    agent_file(
        &env,
        ".amber/agents",
        "auditor",
        "---\nname: auditor\ndescription: Looks, never touches.\nmode: read\nmax_iterations: 3\n---\nAudit.\n",
    );
    let server = fake(
        r#"
[[turns]]
reply = { tool_calls = [{ id = "t1", name = "task", arguments = { prompt = "Write x.txt.", agent = "auditor" } }] }
[[turns]]
expect_tool_results = []
reply = { tool_calls = [{ id = "w1", name = "write_file", arguments = { path = "x.txt", content = "x" } }] }
[[turns]]
reply = { text = "I may not write." }
[[turns]]
expect_tool_results = ["t1"]
reply = { text = "The auditor could not write." }
"#,
    );
    let run = env.exec(
        &server,
        &["--mode", "yolo"],
        "Have the auditor write x.txt.",
    );
    run.assert_done("The auditor could not write.");
    assert_eq!(run.one("subagent.started")["mode"], "read");
    let write = run
        .of_type("subagent")
        .into_iter()
        .find(|e| e["event"]["type"] == "tool.result")
        .unwrap()
        .clone();
    assert_eq!(write["event"]["status"], "denied", "{write:#}");
    assert!(write["event"]["output"]
        .as_str()
        .unwrap()
        .contains("read mode"));
    assert!(!env.ws.join("x.txt").exists());
    // The parent is still yolo: its own write runs.
    let server = fake(
        r#"
[[turns]]
reply = { tool_calls = [{ id = "w2", name = "write_file", arguments = { path = "y.txt", content = "y" } }] }
[[turns]]
reply = { text = "Wrote it." }
"#,
    );
    env.exec(&server, &["--mode", "yolo", "-c"], "Write y.txt yourself.")
        .assert_done("Wrote it.");
    assert!(env.ws.join("y.txt").exists());
}

#[test]
fn hooks_hear_the_sub_agents_own_id() {
    let env = Env::without_confirm_turn(AMBER);
    std::fs::write(
        env.home.join("config.toml"),
        r#"[agent]
confirm_turn = false

[[hooks.command]]
event = "SubagentStop"
command = "cat > subagent-stop.json"

[[hooks.command]]
event = "PermissionRequest"
command = "cat > permission.json"
"#,
    )
    .unwrap();
    let server = fake(
        r#"
[[turns]]
reply = { tool_calls = [{ id = "t1", name = "task", arguments = { prompt = "Write x.txt." } }] }
[[turns]]
expect_tool_results = []
reply = { tool_calls = [{ id = "w1", name = "write_file", arguments = { path = "x.txt", content = "x" } }] }
[[turns]]
reply = { text = "Not approved." }
[[turns]]
expect_tool_results = ["t1"]
reply = { text = "It was not approved." }
"#,
    );
    let run = env.exec(&server, &[], "Have a sub-agent write x.txt.");
    run.assert_done("It was not approved.");
    let read = |file: &str| -> Value {
        let text = std::fs::read_to_string(env.ws.join(file))
            .unwrap_or_else(|e| panic!("{file}: {e}\n{}", run.stderr));
        serde_json::from_str(&text).unwrap()
    };
    let asked = read("permission.json");
    assert_eq!(asked["agent"], "task-1", "{asked:#}");
    assert_eq!(asked["hook_event_name"], "PermissionRequest");
    let stopped = read("subagent-stop.json");
    assert_eq!(stopped["agent"], "task-1", "{stopped:#}");
    assert_eq!(stopped["hook_event_name"], "SubagentStop");
}

#[test]
fn a_skill_a_sub_agent_loads_narrows_the_sub_agent_only() {
    let env = Env::without_confirm_turn(AMBER);
    let dir = env.ws.join(".amber/skills/look");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("SKILL.md"),
        "---\nname: look\ndescription: Look, do not touch.\nallowed-tools: read_file\n---\nOnly read.\n",
    )
    .unwrap();
    let server = fake(
        r#"
[[turns]]
reply = { tool_calls = [{ id = "t1", name = "task", arguments = { prompt = "Look around." } }] }
[[turns]]
expect_tool_results = []
reply = { tool_calls = [{ id = "k1", name = "skill", arguments = { name = "look" } }] }
[[turns]]
reply = { tool_calls = [{ id = "w1", name = "write_file", arguments = { path = "child.txt", content = "x" } }] }
[[turns]]
reply = { text = "Looked." }
[[turns]]
expect_tool_results = ["t1"]
reply = { tool_calls = [{ id = "w2", name = "write_file", arguments = { path = "parent.txt", content = "x" } }] }
[[turns]]
reply = { text = "Written." }
"#,
    );
    let run = env.exec(&server, &["--yes"], "Look, then write parent.txt.");
    run.assert_done("Written.");
    // The sub-agent's write is refused by its skill ...
    let child_write = run
        .of_type("subagent")
        .into_iter()
        .find(|e| e["event"]["type"] == "tool.result" && e["event"]["id"] == "w1")
        .unwrap()
        .clone();
    assert_eq!(child_write["event"]["status"], "denied", "{child_write:#}");
    assert!(child_write["event"]["output"]
        .as_str()
        .unwrap()
        .contains("skill `look` allows only"));
    assert!(!env.ws.join("child.txt").exists());
    // ... and the parent, which loaded no skill, still writes.
    assert!(env.ws.join("parent.txt").exists());
}

#[test]
fn an_agent_s_command_list_holds_its_shell_and_its_model_stays_on_the_provider() {
    let env = Env::without_confirm_turn(AMBER);
    agent_file(
        &env,
        ".claude/agents",
        "status",
        "---\nname: status\ndescription: Says what git says.\ntools: Bash(git status:*)\nmodel: anthropic\n---\nReport.\n",
    );
    let server = fake(
        r#"
[[turns]]
reply = { tool_calls = [{ id = "t1", name = "task", arguments = { prompt = "Status?", agent = "status" } }] }
[[turns]]
expect_tool_results = []
reply = { tool_calls = [{ id = "s1", name = "shell", arguments = { command = "rm -f a.txt" } }, { id = "s2", name = "shell", arguments = { command = "git status; rm -f a.txt" } }] }
[[turns]]
reply = { text = "Refused twice." }
[[turns]]
expect_tool_results = ["t1"]
reply = { text = "Done." }
"#,
    );
    let run = env.exec(&server, &["--mode", "yolo"], "Ask for the status.");
    run.assert_done("Done.");
    let refused: Vec<String> = run
        .of_type("subagent")
        .into_iter()
        .filter(|e| e["event"]["type"] == "tool.result")
        .map(|e| e["event"]["output"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(refused.len(), 2, "{refused:?}");
    for output in &refused {
        assert!(
            output.contains("is not among the commands `agent status` allows (git status:*)"),
            "{output}"
        );
    }
    assert!(
        env.ws.join("a.txt").exists(),
        "a command outside the list ran"
    );
    // `model: anthropic` names a preset, but a workspace file keeps the
    // sub-agent on its parent's provider: the same server got its calls.
    let received = server.received();
    assert_eq!(received.len(), 4);
    assert_eq!(received[1].body["model"], "anthropic");
}
