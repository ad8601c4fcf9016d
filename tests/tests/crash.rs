//! The kill -9 matrix: amber killed at chosen moments, then what is on
//! disk checked through the real binary. Each moment is a named crash
//! point (`AMBER_CRASH_AT=NAME:N`, `amber_core::crash_point`), where amber
//! sends itself SIGKILL exactly as `kill -9` would. Later issues add their
//! points here.
//!
//! - `rebuild-record`: after each record of a compaction's rebuild (the
//!   `clear`, the new context's messages, the closing `head`). A resume
//!   sees the old context or the new one, never less.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "a test fails by panicking, its helpers too"
)]

use std::os::unix::process::ExitStatusExt;

use amber_tests::cli::amber_bin;
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
