//! Checkpoints and rewind end to end, through the real binary, the fake
//! LLM server, the bundled file tools and a sandboxed shell command: a
//! run edits two files and a command writes a third; a rewind to turn 1
//! restores all three and the next request lacks the later turns; the
//! chain verifies after; a file changed outside amber blocks the code
//! rewind with its name until `--force`.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "a test fails by panicking, its helpers too"
)]

use amber_tests::edits::{edited, git};
use amber_tests::exec_env::{fake, text, Env};
use serde_json::Value;

const AMBER: &str = env!("CARGO_BIN_EXE_amber");

fn read(env: &Env, file: &str) -> Option<String> {
    std::fs::read_to_string(env.ws.join(file)).ok()
}

/// [`edited`], checked.
fn session(env: &Env) -> String {
    let id = edited(env);
    assert_eq!(read(env, "a.txt").as_deref(), Some("A2\n"));
    assert_eq!(read(env, "c.txt").as_deref(), Some("C\n"));
    id
}

#[test]
fn a_rewind_restores_the_files_and_the_conversation_and_the_chain_verifies() {
    let env = Env::without_confirm_turn(AMBER);
    let id = session(&env);
    let out = env.run(&["sessions", "rewind", &id, "--to", "1", "--json"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let done: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        done["files"]["restored"],
        serde_json::json!(["a.txt", "b.txt"])
    );
    assert_eq!(done["files"]["deleted"], serde_json::json!(["c.txt"]));
    assert_eq!(read(&env, "a.txt").as_deref(), Some("A1\n"));
    assert_eq!(read(&env, "b.txt").as_deref(), Some("B1\n"));
    assert_eq!(read(&env, "c.txt"), None);
    assert_eq!(env.show(&id)["verified"], true);
    // The next request has turn 1 and not what came after.
    let server = fake("[[turns]]\nreply = { text = \"ok\" }\n");
    env.exec(&server, &["--resume", &id], "again")
        .assert_done("ok");
    let sent = server.received()[0].body["messages"].to_string();
    assert!(sent.contains("hello"), "{sent}");
    assert!(
        !sent.contains("write them") && !sent.contains("A2"),
        "{sent}"
    );
    // A turn the session does not have changes nothing.
    let out = env.run(&["sessions", "rewind", &id, "--to", "40"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out.stderr).contains("no turn 40 to rewind to"));
}

#[test]
fn a_rewind_is_recorded_so_a_rewind_to_a_later_turn_undoes_it() {
    let env = Env::without_confirm_turn(AMBER);
    let id = session(&env);
    let out = env.run(&["sessions", "rewind", &id, "--to", "1", "--code"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(read(&env, "a.txt").as_deref(), Some("A1\n"));
    // The rewind's files are amber's: the next turn does not take them
    // for a person's edits.
    let server = fake(
        r#"
[[turns]]
reply = { tool_calls = [{ id = "s1", name = "shell", arguments = { command = "printf 'D\n' > d.txt" } }] }
[[turns]]
reply = { text = "d written." }
"#,
    );
    let run = env.exec(&server, &["--resume", &id, "--yes"], "one more");
    run.assert_done("d written.");
    let warnings: Vec<String> = run
        .of_type("warning")
        .iter()
        .map(|w| w["message"].to_string())
        .collect();
    assert!(
        !warnings.iter().any(|w| w.contains("changed outside amber")),
        "{warnings:?}"
    );
    // Back to the end of turn 4, before the rewind: its files return.
    let listed = env.run(&["sessions", "rewind", &id, "--to", "4", "--code", "--json"]);
    assert!(listed.status.success(), "{}", text(&listed.stderr));
    assert_eq!(read(&env, "a.txt").as_deref(), Some("A2\n"));
    assert_eq!(read(&env, "b.txt").as_deref(), Some("B2\n"));
    assert_eq!(read(&env, "c.txt").as_deref(), Some("C\n"));
    assert_eq!(read(&env, "d.txt"), None);
    assert_eq!(env.show(&id)["verified"], true);
}

/// Files under `dir`, at any depth.
fn count_files(dir: &std::path::Path) -> usize {
    std::fs::read_dir(dir)
        .map(|entries| {
            entries
                .flatten()
                .map(|e| match e.file_type() {
                    Ok(t) if t.is_dir() => count_files(&e.path()),
                    _ => 1,
                })
                .sum()
        })
        .unwrap_or(0)
}

#[test]
fn a_command_in_a_git_repository_keeps_only_what_git_cannot_give_back() {
    let env = Env::without_confirm_turn(AMBER);
    let git = |args: &[&str]| git(&env.ws, args);
    git(&["init", "-q"]);
    for n in 0..40 {
        std::fs::write(env.ws.join(format!("f{n}.rs")), format!("fn f{n}() {{}}\n")).unwrap();
    }
    git(&["add", "-A"]);
    git(&["commit", "-qm", "one"]);
    let server = fake("[[turns]]\nreply = { text = \"hi\" }\n");
    let run = env.exec(&server, &[], "hello");
    let id = run.session_id();
    let server = fake(
        r#"
[[turns]]
reply = { tool_calls = [{ id = "s1", name = "shell", arguments = { command = "printf 'changed\n' > f3.rs && rm f4.rs" } }] }
[[turns]]
reply = { text = "done" }
"#,
    );
    env.exec(&server, &["--resume", &id, "--yes"], "change them")
        .assert_done("done");
    // The 40 tracked files were not copied: only f3's and f4's content
    // before, read from git once the command had changed them.
    let store = env.home.join("data/checkpoints");
    let kept = count_files(&store) - count_files(&store.join("pending"));
    assert_eq!(kept, 2, "{kept} objects kept");
    let out = env.run(&["sessions", "rewind", &id, "--to", "1", "--code"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(read(&env, "f3.rs").as_deref(), Some("fn f3() {}\n"));
    assert_eq!(read(&env, "f4.rs").as_deref(), Some("fn f4() {}\n"));
}

/// The store's contents, each made older than the prune's grace.
fn age_store(env: &Env) -> usize {
    let store = env.home.join("data/checkpoints");
    let mut n = 0;
    for folder in std::fs::read_dir(&store).unwrap().flatten() {
        if folder.file_name().len() != 2 {
            continue;
        }
        for object in std::fs::read_dir(folder.path()).unwrap().flatten() {
            let file = std::fs::File::options().write(true).open(object.path()).unwrap();
            let old = std::time::SystemTime::now() - std::time::Duration::from_secs(7200);
            file.set_modified(old).unwrap();
            n += 1;
        }
    }
    n
}

#[test]
fn deleting_a_session_prunes_the_contents_only_it_named() {
    let env = Env::without_confirm_turn(AMBER);
    let id = session(&env);
    // The same again, from the same start.
    std::fs::remove_file(env.ws.join("c.txt")).unwrap();
    let other = session(&env);
    let objects = age_store(&env);
    assert!(objects >= 2, "{objects}");
    // The other session names the same contents: nothing goes.
    let out = env.run(&["sessions", "delete", &id, "--json"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let done: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(done["deleted"], serde_json::json!([id]));
    assert_eq!(done["checkpoints"]["objects"], 0, "{done}");
    assert!(!env.session_file(&id).exists());
    // Old enough and named by no session: all of it goes.
    let out = env.run(&["sessions", "prune", "--older-than", "0", "--dry-run"]);
    assert!(text(&out.stdout).contains(&other), "{}", text(&out.stdout));
    assert!(env.session_file(&other).exists());
    let out = env.run(&["sessions", "prune", "--older-than", "0", "--json"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let done: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(done["deleted"], serde_json::json!([other]));
    assert_eq!(done["checkpoints"]["objects"], objects, "{done}");
    // A session that is not there is named.
    let out = env.run(&["sessions", "delete", &id]);
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out.stderr).contains(&id), "{}", text(&out.stderr));
}

#[test]
fn a_session_resumed_in_another_workspace_keeps_no_checkpoints_there() {
    let env = Env::without_confirm_turn(AMBER);
    let id = session(&env);
    let file = env.session_file(&id);
    let records = |kind: &str| {
        std::fs::read_to_string(&file)
            .unwrap()
            .matches(&format!("\"type\":\"{kind}\""))
            .count()
    };
    let before = records("checkpoint");
    let other = env.home.join("other-ws");
    std::fs::create_dir_all(&other).unwrap();
    let server = fake(
        r#"
[[turns]]
check_tool_results = false
reply = { tool_calls = [{ id = "w9", name = "write_file", arguments = { path = "x.txt", content = "x" } }] }
[[turns]]
check_tool_results = false
reply = { text = "written there" }
"#,
    );
    let run = env.exec(
        &server,
        &["-C", other.to_str().unwrap(), "--resume", &id, "--yes"],
        "write there",
    );
    run.assert_done("written there");
    let started = run.one("session.started").to_string();
    assert!(started.contains("keep no checkpoints"), "{started}");
    assert_eq!(records("checkpoint"), before);
    // From there, the files are not rewound.
    let out = env.run(&["-C", other.to_str().unwrap(), "sessions", "rewind", &id, "--to", "1"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out.stderr).contains("belongs to the workspace"), "{}", text(&out.stderr));
}

/// An unforced code rewind to turn 1 is refused, naming b.txt (changed
/// outside amber) and not a.txt.
fn refused_for_b(env: &Env, id: &str) {
    let out = env.run(&["sessions", "rewind", id, "--to", "1", "--code"]);
    assert_eq!(out.status.code(), Some(1));
    let stderr = text(&out.stderr);
    assert!(
        stderr.contains("changed outside amber") && stderr.contains("b.txt"),
        "{stderr}"
    );
    assert!(!stderr.contains("a.txt"), "{stderr}");
}

#[test]
fn a_file_changed_outside_amber_blocks_the_code_rewind_with_its_name() {
    let env = Env::without_confirm_turn(AMBER);
    let id = session(&env);
    // The person edits b.txt after the run.
    std::fs::write(env.ws.join("b.txt"), "mine\n").unwrap();
    refused_for_b(&env, &id);
    // Nothing was changed.
    assert_eq!(read(&env, "a.txt").as_deref(), Some("A2\n"));
    assert_eq!(read(&env, "b.txt").as_deref(), Some("mine\n"));
    // --force writes over it, and says so.
    let out = env.run(&["sessions", "rewind", &id, "--to", "1", "--code", "--force"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(text(&out.stdout).contains("written over (--force): b.txt"));
    assert_eq!(read(&env, "b.txt").as_deref(), Some("B1\n"));
    assert_eq!(read(&env, "c.txt"), None);
    // The conversation was left as it was.
    assert_eq!(env.show(&id)["turns"], 4);
}

#[test]
fn esc_esc_lists_the_turns_and_rewind_in_the_tui_puts_both_back() {
    let env = Env::without_confirm_turn(AMBER);
    let id = session(&env);
    let server = fake("[[turns]]\nreply = { text = \"unused\" }\n");
    let tui = amber_tests::tmux::Tmux::start_sized(
        &env,
        &server,
        "amber-rewind",
        &format!("--resume {id}"),
        (100, 30),
    );
    tui.wait_for("All three written.");
    tui.keys(&["Escape"]);
    tui.keys(&["Escape"]);
    let screen = tui.wait_for("/rewind TURN");
    assert!(screen.contains("changed a.txt, b.txt"), "{screen}");
    assert!(screen.contains("changed c.txt"), "{screen}");
    tui.type_line("/rewind 1");
    let screen = tui.wait_for("rewound to turn 1");
    assert!(screen.contains("2 restored, 1 deleted"), "{screen}");
    assert!(screen.contains("hello"), "{screen}");
    assert!(!screen.contains("All three written."), "{screen}");
    assert_eq!(read(&env, "a.txt").as_deref(), Some("A1\n"));
    assert_eq!(read(&env, "c.txt"), None);
}

#[test]
fn a_change_made_between_turns_is_recorded_at_the_next_and_still_asks_for_force() {
    let env = Env::without_confirm_turn(AMBER);
    let id = session(&env);
    std::fs::write(env.ws.join("b.txt"), "mine\n").unwrap();
    let server = fake(
        r#"
[[turns]]
reply = { tool_calls = [{ id = "w3", name = "write_file", arguments = { path = "a.txt", content = "A3\n" } }] }
[[turns]]
reply = { text = "Rewritten." }
"#,
    );
    let run = env.exec(&server, &["--resume", &id, "--yes"], "rewrite a.txt");
    run.assert_done("Rewritten.");
    let warned = run.of_type("warning").iter().any(|w| {
        w["message"]
            .as_str()
            .unwrap()
            .contains("changed outside amber since the last turn: b.txt")
    });
    assert!(warned, "{:#?}", run.of_type("warning"));
    // b.txt is as the last record says, yet the person's edit is on the
    // way back to turn 1: the rewind asks for --force.
    refused_for_b(&env, &id);
    assert_eq!(read(&env, "b.txt").as_deref(), Some("mine\n"));
    // Forced, the files go back to turn 1, the person's edit included.
    let out = env.run(&["sessions", "rewind", &id, "--to", "1", "--code", "--force"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(read(&env, "a.txt").as_deref(), Some("A1\n"));
    assert_eq!(read(&env, "b.txt").as_deref(), Some("B1\n"));
}
