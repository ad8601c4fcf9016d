//! The kill -9 matrix: amber killed at chosen moments, then what is on
//! disk checked through the real binary. Each moment is a named crash
//! point (`AMBER_CRASH_AT=NAME:N`, `amber_core::crash_point`), where amber
//! sends itself SIGKILL exactly as `kill -9` would. Later issues add their
//! points here.
//!
//! - `rebuild-record`: after each record of a compaction's rebuild (the
//!   `clear`, the new context's messages, the closing `head`). A resume
//!   sees the old context or the new one, never less.
//! - `record` and `atomic-write`: after each record of a session, and
//!   before each file replaced whole is renamed into place, through a run
//!   whose tools edit a file and whose command makes another. The session
//!   verifies, each file is as it was or as the run left it, and a rewind
//!   to the turn before puts both back: a turn killed before its changes
//!   were recorded is recovered from its checkpoint journal, by a resume
//!   (every other kill) or by the rewind.
//! - `rewind-file`, `record` and `atomic-write` through a rewind of code
//!   and conversation: killed anywhere, the session verifies, each file
//!   is whole, and the same rewind run again finishes the job.
//! - `atomic-write` through a fork: no fork, or a whole one that
//!   verifies with the turns asked for.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "a test fails by panicking, its helpers too"
)]

use std::os::unix::process::ExitStatusExt;

use amber_tests::cli::amber_bin;
use amber_tests::edits::{edited, hello};
use amber_tests::exec_env::{fake, text, Env};
use serde_json::Value;

/// A session of two turns, over a window small enough to compact.
fn session(env: &Env) -> String {
    std::fs::write(
        env.home.join("config.toml"),
        "[providers.openai]\ncontext_window = 1000\n\n[agent]\nconfirm_turn = false\n\n\
         [wire]\nmax_attempts = 1\nfirst_byte_timeout_ms = 1500\n",
    )
    .unwrap();
    let server = fake("[[turns]]\nreply = { text = \"Hello there.\" }\n");
    let run = env.exec(&server, &[], "Say hello first.");
    run.assert_done("Hello there.");
    let id = run.session_id();
    let server = fake("[[turns]]\nreply = { text = \"Bye.\" }\n");
    env.exec(&server, &["--resume", &id], "And now goodbye.")
        .assert_done("Bye.");
    id
}

/// `amber /compact` of the latest session, dying at the `n`-th record of
/// the rebuild (never, for 0).
fn compact(env: &Env, n: usize) -> std::process::Output {
    let server = fake(
        r#"
[[turns]]
check_tool_results = false
reply = { text = "{\"context\": [3], \"prune\": [1, 2], \"summary\": \"A greeting was asked for.\"}" }
[[turns]]
check_tool_results = false
reply = { text = "{\"memories\": [], \"skills\": []}" }
"#,
    );
    let mut cmd = env.command(&["/compact"]);
    cmd.env("OPENAI_BASE_URL", server.openai_base());
    if n > 0 {
        cmd.env("AMBER_CRASH_AT", format!("rebuild-record:{n}"));
    }
    cmd.output().unwrap()
}

fn messages(shown: &Value) -> Vec<Value> {
    shown["messages"].as_array().cloned().unwrap_or_default()
}

#[test]
fn a_kill_at_each_record_of_a_rebuild_resumes_the_old_context_or_the_new() {
    let env = Env::new(&amber_bin());
    let id = session(&env);
    let file = env.session_file(&id);
    let original = std::fs::read(&file).unwrap();
    let old = messages(&env.show(&id));
    assert!(old.len() >= 5, "{old:?}");

    // The rebuild whole, to know the new context and its length.
    let out = compact(&env, 0);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let new = messages(&env.show(&id));
    assert_ne!(new, old);
    let records = std::fs::read(&file).unwrap()[original.len()..]
        .split(|b| *b == b'\n')
        .filter(|line| !line.is_empty())
        .count();
    // The clear, each message, the head (and the hook records, if any).
    assert!(
        records >= new.len() + 2,
        "{records} records for {} messages",
        new.len()
    );

    let mut killed_before_the_head = 0;
    for n in 1..=records {
        std::fs::write(&file, &original).unwrap();
        let out = compact(&env, n);
        if out.status.signal() != Some(libc::SIGKILL) {
            // Past the rebuild's last record: it ran to the end.
            assert!(out.status.success(), "{n}: {}", text(&out.stderr));
            assert_eq!(messages(&env.show(&id)), new, "{n}");
            break;
        }
        let shown = env.show(&id);
        assert_eq!(shown["verified"], true, "{n}");
        let now = messages(&shown);
        assert!(now == old || now == new, "killed at record {n}: {now:?}");
        if now == old {
            killed_before_the_head += 1;
            let warnings = shown["warnings"].to_string();
            assert!(
                warnings.contains("an unfinished compaction was discarded"),
                "{n}: {warnings}"
            );
        }
    }
    assert!(
        killed_before_the_head > new.len(),
        "{killed_before_the_head}"
    );

    // Killed mid-rebuild, the session goes on from the old context, and
    // what the rebuild wrote is cut off before the next turn's records.
    std::fs::write(&file, &original).unwrap();
    let out = compact(&env, 2);
    assert_eq!(out.status.signal(), Some(libc::SIGKILL));
    let server = fake("[[turns]]\nreply = { text = \"Still here.\" }\n");
    env.exec(&server, &["--resume", &id], "Are you there?")
        .assert_done("Still here.");
    let sent = server.received()[0].body["messages"].to_string();
    assert!(
        sent.contains("Say hello first.") && sent.contains("And now goodbye."),
        "{sent}"
    );
    let shown = env.show(&id);
    assert_eq!(shown["verified"], true);
    assert!(
        shown["warnings"].as_array().unwrap().is_empty(),
        "{shown:#}"
    );
}

fn read(env: &Env, file: &str) -> Option<String> {
    std::fs::read_to_string(env.ws.join(file)).ok()
}

/// amber's temporary files left in the workspace.
fn temporaries(env: &Env) -> Vec<String> {
    std::fs::read_dir(&env.ws)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|name| name.contains(".amber-tmp-"))
        .collect()
}

/// Runs `args` with amber killed at the `n`-th pass of `point`; whether
/// it was killed.
fn killed_at(env: &Env, args: &[&str], base: Option<&str>, point: &str, n: usize) -> bool {
    let mut cmd = env.command(args);
    if let Some(base) = base {
        cmd.env("OPENAI_BASE_URL", base);
    }
    cmd.env("AMBER_CRASH_AT", format!("{point}:{n}"));
    let out = cmd.output().unwrap();
    if out.status.signal() == Some(libc::SIGKILL) {
        return true;
    }
    assert!(out.status.success(), "{point}:{n}: {}", text(&out.stderr));
    false
}

/// The tools' turn: `write_file` changes a.txt, a command makes c.txt.
const ONE_EDIT: &str = r#"
[[turns]]
reply = { tool_calls = [{ id = "w1", name = "write_file", arguments = { path = "a.txt", content = "A2\n" } }] }
[[turns]]
reply = { tool_calls = [{ id = "s1", name = "shell", arguments = { command = "printf 'C\n' > c.txt" } }] }
[[turns]]
reply = { text = "Both written." }
"#;

#[test]
fn a_kill_anywhere_in_an_editing_turn_leaves_whole_files_that_a_rewind_puts_back() {
    let env = Env::without_confirm_turn(&amber_bin());
    let id = hello(&env);
    let file = env.session_file(&id);
    let original = std::fs::read(&file).unwrap();
    let journal = env
        .home
        .join("data/checkpoints/pending")
        .join(format!("{id}.json"));
    let mut kills = 0;
    for point in ["record", "atomic-write"] {
        for n in 1.. {
            std::fs::write(&file, &original).unwrap();
            std::fs::write(env.ws.join("a.txt"), "A1\n").unwrap();
            let _ = std::fs::remove_file(env.ws.join("c.txt"));
            let _ = std::fs::remove_file(&journal);
            let server = fake(ONE_EDIT);
            let base = server.openai_base();
            let args = ["exec", "--json", "--resume", &id, "--yes", "write them"];
            if !killed_at(&env, &args, Some(&base), point, n) {
                assert_eq!(read(&env, "a.txt").as_deref(), Some("A2\n"));
                assert_eq!(read(&env, "c.txt").as_deref(), Some("C\n"));
                break;
            }
            kills += 1;
            let at = format!("{point}:{n}");
            let shown = env.show(&id);
            assert_eq!(shown["verified"], true, "{at}");
            let a = read(&env, "a.txt");
            assert!(matches!(a.as_deref(), Some("A1\n" | "A2\n")), "{at}: {a:?}");
            let c = read(&env, "c.txt");
            assert!(matches!(c.as_deref(), None | Some("C\n")), "{at}: {c:?}");
            // Every other kill, the session is resumed first: the resume
            // recovers the journal (the rest, the rewind itself does).
            if n % 2 == 1 {
                // The killed turn's calls are answered "interrupted".
                let server = fake(
                    "[[turns]]\ncheck_tool_results = false\nreply = { text = \"ok\" }\n",
                );
                env.exec(&server, &["--resume", &id], "go on")
                    .assert_done("ok");
                assert!(!journal.exists(), "{at}");
            }
            // Back to turn 1: whatever the killed turn did is undone.
            let out = env.run(&["sessions", "rewind", &id, "--to", "1", "--code"]);
            assert!(out.status.success(), "{at}: {}", text(&out.stderr));
            assert_eq!(read(&env, "a.txt").as_deref(), Some("A1\n"), "{at}");
            assert_eq!(read(&env, "c.txt"), None, "{at}");
            assert_eq!(temporaries(&env), Vec::<String>::new(), "{at}");
            assert!(!journal.exists(), "{at}");
            assert_eq!(env.show(&id)["verified"], true, "{at}");
        }
    }
    // The records of three model turns and the writes of the file tool,
    // the store and the journal.
    assert!(kills >= 12, "{kills}");
}

#[test]
fn a_kill_anywhere_in_a_rewind_leaves_whole_files_and_the_rewind_run_again_finishes() {
    let env = Env::without_confirm_turn(&amber_bin());
    let id = edited(&env);
    let file = env.session_file(&id);
    let original = std::fs::read(&file).unwrap();
    let after = [("a.txt", "A2\n"), ("b.txt", "B2\n"), ("c.txt", "C\n")];
    let reset = || {
        std::fs::write(&file, &original).unwrap();
        for (name, content) in after {
            std::fs::write(env.ws.join(name), content).unwrap();
        }
    };
    // The rewind whole, for what it leaves.
    let rewind = ["sessions", "rewind", &id, "--to", "1"];
    let out = env.run(&rewind);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let turn_one = messages(&env.show(&id));
    assert_eq!(turn_one.len(), 3, "{turn_one:?}");
    let mut kills = 0;
    for point in ["rewind-file", "record", "atomic-write"] {
        for n in 1.. {
            reset();
            if !killed_at(&env, &rewind, None, point, n) {
                break;
            }
            kills += 1;
            let at = format!("{point}:{n}");
            assert_eq!(env.show(&id)["verified"], true, "{at}");
            for (name, before, later) in [
                ("a.txt", Some("A1\n"), Some("A2\n")),
                ("b.txt", Some("B1\n"), Some("B2\n")),
                ("c.txt", None, Some("C\n")),
            ] {
                let now = read(&env, name);
                assert!(
                    now.as_deref() == before || now.as_deref() == later,
                    "{at}: {name} is {now:?}"
                );
            }
            // Run again, unforced: the files it already wrote are its own.
            let out = env.run(&rewind);
            assert!(out.status.success(), "{at}: {}", text(&out.stderr));
            assert_eq!(read(&env, "a.txt").as_deref(), Some("A1\n"), "{at}");
            assert_eq!(read(&env, "b.txt").as_deref(), Some("B1\n"), "{at}");
            assert_eq!(read(&env, "c.txt"), None, "{at}");
            assert_eq!(temporaries(&env), Vec::<String>::new(), "{at}");
            let shown = env.show(&id);
            assert_eq!(shown["verified"], true, "{at}");
            assert_eq!(messages(&shown), turn_one, "{at}");
        }
    }
    // Three files, and the checkpoint, clear, messages and head records.
    assert!(kills >= 9, "{kills}");
}

#[test]
fn a_kill_anywhere_in_a_fork_leaves_no_fork_or_a_whole_one() {
    let env = Env::without_confirm_turn(&amber_bin());
    let id = edited(&env);
    let sessions = env.home.join("data/sessions");
    // Session files and temporaries (a lock file stays, as every lock's).
    let count = || {
        std::fs::read_dir(&sessions)
            .unwrap()
            .flatten()
            .filter(|e| !e.file_name().to_string_lossy().ends_with(".lock"))
            .count()
    };
    let before = count();
    for n in 1.. {
        let fork = ["sessions", "fork", &id, "--at", "2", "--json"];
        let killed = killed_at(&env, &fork, None, "atomic-write", n);
        let files: Vec<_> = std::fs::read_dir(&sessions)
            .unwrap()
            .flatten()
            .map(|e| e.path())
            .collect();
        let made: Vec<_> = files
            .iter()
            .filter(|p| p.extension().is_some_and(|e| e == "jsonl"))
            .filter(|p| !p.ends_with(format!("{id}.jsonl")))
            .collect();
        for path in &made {
            let fork_id = path.file_stem().unwrap().to_string_lossy().into_owned();
            let shown = env.show(&fork_id);
            assert_eq!(shown["verified"], true, "{n}");
            assert_eq!(shown["turns"], 2, "{n}");
        }
        if !killed {
            assert_eq!(made.len(), 1, "{files:?}");
            break;
        }
        assert!(made.is_empty(), "killed at {n}: {made:?}");
    }
    // What the killed forks left was removed by the one that finished.
    assert_eq!(count(), before + 1);
}
