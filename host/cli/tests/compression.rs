//! Compression end to end (docs/compression.md): the real `amber` binary,
//! the bundled OpenAI provider component, the notes test tool and the fake
//! LLM server. A session crosses the threshold; the server sees the
//! classify request, then the extract request on the same prefix; the next
//! turn sends the compacted set; the memories are in the real SQLite store
//! and the skill folder is on disk; the session resumes from the compacted
//! context. Each failure leaves the context as it was and the run going on.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "a test fails by panicking, its helpers too"
)]

use std::path::{Path, PathBuf};

use amber_tests::exec_env::{fake, text, Run};
use amber_tests::fake_llm::FakeLlm;
use serde_json::Value;

const AMBER: &str = env!("CARGO_BIN_EXE_amber");

type Env = amber_tests::exec_env::Env;

/// A window of 1000 tokens with compression's defaults, no confirm turn,
/// one attempt per model call and a short first-byte timeout, so a failure
/// of the fake server is one failure of the cycle. `agent` is more of the
/// `[agent]` table. Every tool is declared: in so small a window the test
/// plugin's would otherwise wait behind `tool_search`.
fn env(agent: &str) -> Env {
    let env = Env::new(AMBER);
    std::fs::write(
        env.home.join("config.toml"),
        format!(
            "[providers.openai]\ncontext_window = 1000\n\n[tools]\ndefer_over = 0\n\n\
             [agent]\nconfirm_turn = false\n{agent}\n\
             [wire]\nmax_attempts = 1\nfirst_byte_timeout_ms = 1500\n"
        ),
    )
    .unwrap();
    env
}

const CLASSIFY: &str =
    r#"{\"prune\": [1, 2], \"summary\": \"The user first asked for a greeting.\"}"#;
const EXTRACT: &str = r#"{\"memories\": [{\"type\": \"gotcha\", \"title\": \"notes are plain text\", \"content\": \"read_note returns the file as plain text, without a trailing newline check\", \"tags\": [\"notes\"]}], \"skills\": [{\"op\": \"upsert\", \"name\": \"reading-notes\", \"description\": \"how to read a note: with read_note\", \"trigger\": \"reading a note\", \"body\": \"Call read_note with the path.\"}]}"#;

/// The first run: a short exchange that stays under the threshold.
fn first_run(env: &Env) -> String {
    let server = fake(
        r#"
[[turns]]
reply = { text = "Hello there.", usage = { input = 100, output = 5 } }
"#,
    );
    let run = env.exec(&server, &[], "Say hello first.");
    run.assert_done("Hello there.");
    run.session_id()
}

/// The messages of an OpenAI chat request, as JSON values.
fn messages(body: &Value) -> Vec<Value> {
    body["messages"].as_array().cloned().unwrap_or_default()
}

fn all_text(body: &Value) -> String {
    body["messages"].to_string()
}

/// Every `SKILL.md` under the data dir's skills folder.
fn skill_files(home: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let mut stack = vec![home.join("data/skills")];
    while let Some(dir) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
            } else if path.file_name().is_some_and(|n| n == "SKILL.md") {
                found.push(path);
            }
        }
    }
    found
}

fn compaction_tags(run: &Run) -> Vec<String> {
    run.events
        .iter()
        .filter_map(|e| {
            let kind = e["type"].as_str()?;
            match kind {
                "compaction.started" | "compaction.completed" | "compaction.failed" => {
                    Some(kind.to_string())
                }
                "turn.started" => Some("turn".into()),
                "warning" => Some(format!("warning: {}", e["message"].as_str()?)),
                _ => None,
            }
        })
        .collect()
}

#[test]
fn a_session_over_the_threshold_is_compacted_learns_and_resumes_from_the_compacted_set() {
    let env = env("");
    let id = first_run(&env);
    let server = fake(&format!(
        r#"
[[turns]]
reply = {{ tool_calls = [{{ id = "c1", name = "read_note", arguments = {{ path = "a.txt" }} }}], usage = {{ input = 900, output = 5 }} }}
[[turns]]
check_tool_results = false
reply = {{ text = "{CLASSIFY}", usage = {{ input = 300, output = 20 }} }}
[[turns]]
check_tool_results = false
reply = {{ text = "{EXTRACT}", usage = {{ input = 320, output = 60, cached = 300 }} }}
[[turns]]
expect_tool_results = ["c1"]
reply = {{ text = "It says hi there.", usage = {{ input = 200, output = 5 }} }}
"#
    ));
    let run = env.exec(&server, &["--resume", &id], "Now read a.txt.");
    run.assert_done("It says hi there.");
    assert_eq!(
        compaction_tags(&run),
        ["turn", "compaction.started", "compaction.completed", "turn"],
        "{}",
        run.stderr
    );
    let started = run.one("compaction.started");
    assert_eq!(started["trigger"], "auto");
    assert_eq!(started["window"], 1000);
    let completed = run.one("compaction.completed");
    assert_eq!(
        (
            &completed["pruned"],
            &completed["memories"],
            &completed["skills"]
        ),
        (&Value::from(2), &Value::from(1), &Value::from(1)),
        "{completed}"
    );

    let received = server.received();
    assert_eq!(received.len(), 4, "{received:#?}");
    for r in &received {
        assert!(r.problems.is_empty(), "{:?}", r.problems);
    }
    // Classify, then extract on a byte-identical prefix: the same model,
    // no tools, the classify messages unchanged, one instruction appended.
    let (classify, extract) = (&received[1].body, &received[2].body);
    let (c, e) = (messages(classify), messages(extract));
    assert_eq!(c.len(), 3, "{classify:#}");
    assert_eq!(e.len(), 4, "{extract:#}");
    assert_eq!(e[..3], c[..], "the extract request's prefix differs");
    assert_eq!(classify["tools"], extract["tools"]);
    assert_eq!(classify["model"], extract["model"]);
    let transcript = c[1]["content"].as_str().unwrap();
    assert!(transcript.contains("Say hello first.") && transcript.contains("read_note"));
    assert!(e[3]["content"].as_str().unwrap().contains("\"memories\""));

    // The next turn sent the compacted set: the first exchange is gone,
    // the note says so, the request being worked on and the call with its
    // result are kept.
    let next = all_text(&received[3].body);
    assert!(!next.contains("Say hello first."), "{next}");
    assert!(!next.contains("Hello there."), "{next}");
    assert!(next.contains("was compacted"), "{next}");
    assert!(
        next.contains("The user first asked for a greeting."),
        "{next}"
    );
    assert!(next.contains("Now read a.txt."), "{next}");
    assert!(next.contains("hi there"), "{next}");

    // The memory is a candidate in the real store, at the promote threshold.
    let out = env.run(&["memory", "list", "--json"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let records: Value = serde_json::from_slice(&out.stdout).unwrap();
    let records = records
        .as_array()
        .cloned()
        .unwrap_or_else(|| records["records"].as_array().cloned().unwrap_or_default());
    assert_eq!(records.len(), 1, "{records:#?}");
    let memory = &records[0];
    assert_eq!(memory["type"], "gotcha");
    assert_eq!(memory["status"], "candidate");
    assert_eq!(memory["evidence"], 3);
    assert_eq!(memory["provenance"]["session"], id.as_str());

    // The skill folder, with its front matter.
    let skills = skill_files(&env.home);
    assert_eq!(skills.len(), 1, "{skills:?}");
    assert_eq!(
        skills[0].parent().unwrap().file_name().unwrap(),
        "reading-notes"
    );
    let skill = std::fs::read_to_string(&skills[0]).unwrap();
    assert!(skill.starts_with("---\n"), "{skill}");
    assert!(skill.contains("candidate: true"), "{skill}");
    assert!(skill.contains("reading a note"), "{skill}");
    assert!(skill.contains("Call read_note with the path."), "{skill}");

    // The chain verifies, and a resumed run continues from the compacted
    // context.
    assert_eq!(env.show(&id)["verified"], true);
    let server = fake(
        r#"
[[turns]]
reply = { text = "Still here.", usage = { input = 250, output = 3 } }
"#,
    );
    let run = env.exec(
        &server,
        &["--resume", &id],
        "Anything else about the notes?",
    );
    run.assert_done("Still here.");
    let body = all_text(&server.received()[0].body);
    assert!(!body.contains("Say hello first."), "{body}");
    assert!(
        body.contains("was compacted") && body.contains("Now read a.txt."),
        "{body}"
    );
    // Recall puts what was learned in the prompt of later requests.
    assert!(body.contains("notes are plain text"), "{body}");
}

#[test]
fn three_failures_leave_the_context_untouched_and_turn_compression_off_for_the_run() {
    let env = env("");
    let id = first_run(&env);
    // Each agent turn calls a tool and reports a full window; each cycle
    // fails differently: malformed classify JSON, extract 500, a timeout.
    let call = |n: u32| {
        format!(
            "reply = {{ tool_calls = [{{ id = \"c{n}\", name = \"read_note\", arguments = {{ path = \"n{n}.txt\" }} }}], usage = {{ input = 900, output = 5 }} }}"
        )
    };
    let script = format!(
        r#"
[[turns]]
{c1}
[[turns]]
check_tool_results = false
reply = {{ text = "Segment 1 looks like noise to me." }}
[[turns]]
expect_tool_results = ["c1"]
{c2}
[[turns]]
check_tool_results = false
reply = {{ text = "{{\"prune\": [1]}}" }}
[[turns]]
check_tool_results = false
only_faults = true
faults = [{{ kind = "status", status = 500, body = "overloaded" }}]
[[turns]]
expect_tool_results = ["c2"]
{c3}
[[turns]]
check_tool_results = false
only_faults = true
faults = [{{ kind = "slow_first_byte", delay_ms = 4000 }}]
[[turns]]
expect_tool_results = ["c3"]
{c4}
[[turns]]
expect_tool_results = ["c4"]
reply = {{ text = "All read.", usage = {{ input = 950, output = 3 }} }}
"#,
        c1 = call(1),
        c2 = call(2),
        c3 = call(3),
        c4 = call(4),
    );
    let server = fake(&script);
    let run = env.exec(&server, &["--resume", &id], "Read four notes.");
    run.assert_done("All read.");
    let off = "warning: compression failed 3 times in a row; it is off for the rest of this run (/compact still works)";
    assert_eq!(
        compaction_tags(&run),
        [
            "turn",
            "compaction.started",
            "compaction.failed",
            "turn",
            "compaction.started",
            "compaction.failed",
            "turn",
            "compaction.started",
            "compaction.failed",
            off,
            "turn",
            "turn",
        ],
        "{}",
        run.stderr
    );
    let reasons: Vec<String> = run
        .of_type("compaction.failed")
        .iter()
        .map(|e| e["reason"].as_str().unwrap().to_string())
        .collect();
    assert!(
        reasons[0].contains("the classify reply is not JSON"),
        "{reasons:?}"
    );
    assert!(
        reasons[1].contains("extract") && reasons[1].contains("500"),
        "{reasons:?}"
    );
    assert!(reasons[2].contains("classify"), "{reasons:?}");
    // Every agent turn sent the whole context: nothing was dropped.
    let received = server.received();
    let agent_turns: Vec<&Value> = received
        .iter()
        .map(|r| &r.body)
        .filter(|b| all_text(b).contains("Read four notes.") && b["tools"].is_array())
        .collect();
    assert_eq!(agent_turns.len(), 5, "{received:#?}");
    for body in &agent_turns {
        let body = all_text(body);
        assert!(body.contains("Say hello first.") && !body.contains("was compacted"));
    }
    // Nothing was learned, and the session verifies.
    assert!(skill_files(&env.home).is_empty());
    assert_eq!(env.show(&id)["verified"], true);
}

#[test]
fn a_compacted_set_over_the_target_fails_and_the_run_goes_on() {
    let env = env("");
    // Project instructions bigger than half the window: the system
    // message alone is over the target, so no classification can fit.
    std::fs::write(env.ws.join("AGENTS.md"), "Be thorough. ".repeat(200)).unwrap();
    let server = fake(
        r#"
[[turns]]
reply = { tool_calls = [{ id = "c1", name = "read_note", arguments = { path = "a.txt" } }], usage = { input = 900, output = 5 } }
[[turns]]
check_tool_results = false
reply = { text = "{\"prune\": [1]}" }
[[turns]]
check_tool_results = false
reply = { text = "{\"memories\": [], \"skills\": []}" }
[[turns]]
expect_tool_results = ["c1"]
reply = { text = "Done anyway.", usage = { input = 950, output = 3 } }
"#,
    );
    let run = env.exec(&server, &[], "Read a.txt.");
    run.assert_done("Done anyway.");
    let reason = run.one("compaction.failed")["reason"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(reason.contains("over the target of 500"), "{reason}");
    let last = all_text(&server.received()[3].body);
    assert!(last.contains("Read a.txt.") && !last.contains("was compacted"));
}

#[test]
fn compact_at_sets_the_threshold_for_one_run_and_compression_can_be_off() {
    // Off in config: over the threshold, one warning and no request.
    let env = env("compress_enabled = false");
    let server = fake(
        r#"
[[turns]]
reply = { tool_calls = [{ id = "c1", name = "read_note", arguments = { path = "a.txt" } }], usage = { input = 900, output = 5 } }
[[turns]]
reply = { text = "Done.", usage = { input = 950, output = 3 } }
"#,
    );
    let run = env.exec(&server, &[], "Read a.txt.");
    run.assert_done("Done.");
    let tags = compaction_tags(&run);
    assert_eq!(tags.len(), 3, "{tags:?}");
    assert!(
        tags[1].contains("compression is off; going on uncompressed"),
        "{tags:?}"
    );

    // --compact-at: 0.95 keeps a 900-token context uncompressed.
    let env = self::env("");
    let server = fake(
        r#"
[[turns]]
reply = { tool_calls = [{ id = "c1", name = "read_note", arguments = { path = "a.txt" } }], usage = { input = 900, output = 5 } }
[[turns]]
reply = { text = "Done.", usage = { input = 950, output = 3 } }
"#,
    );
    let run = env.exec(&server, &["--compact-at", "0.95"], "Read a.txt.");
    run.assert_done("Done.");
    assert_eq!(compaction_tags(&run), ["turn", "turn"]);
    // Out of (0, 1]: a usage error naming the flag.
    let out = env.run(&["exec", "--compact-at", "1.5", "hi"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("--compact-at"),
        "{}",
        text(&out.stderr)
    );
}

fn compact(env: &Env, server: &FakeLlm, args: &[&str]) -> std::process::Output {
    let base = server.openai_base();
    let mut cmd = env.command(&["/compact"]);
    cmd.args(args).env("OPENAI_BASE_URL", &base);
    cmd.output().unwrap()
}

#[test]
fn amber_compact_from_the_shell_compacts_the_latest_session_of_the_workspace() {
    let env = env("");
    let id = first_run(&env);
    let server = fake("[[turns]]\nreply = { text = \"Bye.\" }\n");
    env.exec(&server, &["--resume", &id], "And now goodbye.")
        .assert_done("Bye.");
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
    let out = compact(&env, &server, &["--json", "greetings"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let outcome: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(outcome["status"], "ok", "{outcome:#}");
    assert_eq!(outcome["data"]["session"], id.as_str());
    assert_eq!(outcome["data"]["focus"], "greetings");
    assert_eq!(outcome["data"]["stats"]["pruned"], 2, "{outcome:#}");
    // The focus words reached the classify instruction.
    let classify = messages(&server.received()[0].body);
    assert!(classify[2]["content"]
        .as_str()
        .unwrap()
        .contains("greetings"));
    // The session verifies and starts from the compacted set.
    assert_eq!(env.show(&id)["verified"], true);
    let server = fake("[[turns]]\nreply = { text = \"ok\" }\n");
    let run = env.exec(&server, &["--resume", &id], "Next?");
    run.assert_done("ok");
    let body = all_text(&server.received()[0].body);
    assert!(!body.contains("Say hello first.") && body.contains("A greeting was asked for."));

    // A failure says why, exits 1, and changes nothing.
    let server = fake("[[turns]]\ncheck_tool_results = false\nreply = { text = \"no\" }\n");
    let before = std::fs::read(env.session_file(&id)).unwrap();
    let out = compact(&env, &server, &["--session", &id]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    let stderr = text(&out.stderr);
    assert!(
        stderr.contains("compaction failed, the history is unchanged"),
        "{stderr}"
    );
    let after = std::fs::read(env.session_file(&id)).unwrap();
    assert!(after.starts_with(&before));
    assert_eq!(env.show(&id)["verified"], true);

    // No session in another workspace: a clear error.
    let other = tempfile::tempdir().unwrap();
    let out = env
        .command(&["-C", other.path().to_str().unwrap(), "/compact"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out.stderr).contains("no recorded session of the workspace"));
}
