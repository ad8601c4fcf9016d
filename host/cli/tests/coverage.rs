//! Read coverage end to end (docs/coverage.md): the real `amber` binary,
//! the bundled Rust parser, the real tools and the fake LLM server. Tool
//! calls become per-symbol reads, journaled per turn; `amber coverage`
//! reports them per file and agent; a compaction hands the model the
//! digest of what it had read; a re-read carries the annotation; a change
//! on disk makes a read stale.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "a test fails by panicking, its helpers too"
)]

use amber_tests::exec_env::{fake, Env};
use serde_json::Value;

const AMBER: &str = env!("CARGO_BIN_EXE_amber");

const LIB: &str =
    "pub fn alpha() -> u32 {\n    1\n}\n\npub fn beta() -> u32 {\n    alpha() + 1\n}\n";
const UTIL: &str = "pub fn gamma() -> u32 {\n    3\n}\n\npub fn delta() -> u32 {\n    4\n}\n";
const OTHER: &str = "pub fn epsilon() -> u32 {\n    5\n}\n";

fn env(extra: &str) -> Env {
    let env = Env::new(AMBER);
    std::fs::write(
        env.home.join("config.toml"),
        format!("[agent]\nconfirm_turn = false\n{extra}"),
    )
    .unwrap();
    std::fs::create_dir_all(env.ws.join("src")).unwrap();
    std::fs::write(env.ws.join("src/lib.rs"), LIB).unwrap();
    std::fs::write(env.ws.join("src/util.rs"), UTIL).unwrap();
    std::fs::write(env.ws.join("src/other.rs"), OTHER).unwrap();
    env
}

fn coverage(env: &Env, args: &[&str]) -> Value {
    let mut all = vec!["coverage", "--format", "json"];
    all.extend_from_slice(args);
    let out = env.run(&all);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

/// (seen, total, full_body) of `path` in a report.
fn row(report: &Value, path: &str) -> (u64, u64, u64) {
    let file = report["files"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["path"] == path)
        .unwrap_or_else(|| panic!("no {path} in {report}"));
    (
        file["seen"].as_u64().unwrap(),
        file["total"].as_u64().unwrap(),
        file["full_body"].as_u64().unwrap(),
    )
}

#[test]
fn tool_calls_become_per_symbol_reads_per_agent_and_a_change_makes_them_stale() {
    let env = env("");
    let server = fake(
        r#"
[[turns]]
reply = { tool_calls = [{ id = "g1", name = "grep", arguments = { pattern = "alpha" } }] }
[[turns]]
reply = { tool_calls = [{ id = "r1", name = "read_file", arguments = { path = "src/lib.rs" } }] }
[[turns]]
reply = { tool_calls = [{ id = "g2", name = "grep", arguments = { pattern = "alpha" } }] }
[[turns]]
reply = { tool_calls = [{ id = "s1", name = "show", arguments = { symbol = "src/util.rs::gamma" } }] }
[[turns]]
reply = { tool_calls = [{ id = "t1", name = "task", arguments = { prompt = "read other.rs", description = "other" } }] }
[[turns]]
expect_tool_results = []
reply = { tool_calls = [{ id = "o1", name = "read_file", arguments = { path = "src/other.rs" } }] }
[[turns]]
reply = { text = "other.rs returns 5" }
[[turns]]
expect_tool_results = ["t1"]
reply = { text = "Read everything." }
"#,
    );
    env.exec(&server, &[], "Read the code.")
        .assert_done("Read everything.");

    let all = coverage(&env, &[]);
    // `--json` is `--format json`, as for every command with JSON output.
    let out = env.run(&["coverage", "--json"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(serde_json::from_slice::<Value>(&out.stdout).unwrap(), all);
    // Read whole, grep before and after: every symbol full.
    assert_eq!(row(&all, "src/lib.rs"), (2, 2, 2));
    // One symbol shown: only it.
    assert_eq!(row(&all, "src/util.rs"), (1, 2, 1));
    let main = coverage(&env, &["--agent", "main"]);
    assert_eq!(
        row(&main, "src/other.rs"),
        (0, 1, 0),
        "the main agent never read it"
    );
    let task = coverage(&env, &["--agent", "task"]);
    assert_eq!(row(&task, "src/other.rs"), (1, 1, 1), "its sub-agent did");
    assert_eq!(row(&task, "src/lib.rs"), (0, 2, 0));

    // A change on disk after the read: stale.
    std::fs::write(
        env.ws.join("src/util.rs"),
        UTIL.replace("    3\n", "    33\n"),
    )
    .unwrap();
    let stale = coverage(&env, &["--stale"]);
    let ids: Vec<&str> = stale["stale"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|r| r["symbol"].as_str())
        .collect();
    assert_eq!(ids, ["src/util.rs::gamma"]);
}

#[test]
fn a_compacted_session_is_told_what_it_read_and_a_re_read_is_annotated() {
    // A window of 1000 tokens: the second read crosses the threshold.
    let env = env(
        "compress_target = 1.0\n[providers.openai]\ncontext_window = 1000\n[tools]\ndefer_over = 0\n",
    );
    let classify = r#"{\"prune\": [], \"summary\": \"The user asked to read two files.\"}"#;
    let extract = r#"{\"memories\": [], \"skills\": []}"#;
    let server = fake(&format!(
        r#"
[[turns]]
reply = {{ tool_calls = [{{ id = "r1", name = "read_file", arguments = {{ path = "src/lib.rs" }} }}], usage = {{ input = 300, output = 5 }} }}
[[turns]]
reply = {{ tool_calls = [{{ id = "r2", name = "read_file", arguments = {{ path = "src/util.rs" }} }}], usage = {{ input = 900, output = 5 }} }}
[[turns]]
check_tool_results = false
reply = {{ text = "{classify}", usage = {{ input = 300, output = 20 }} }}
[[turns]]
check_tool_results = false
reply = {{ text = "{extract}", usage = {{ input = 300, output = 20 }} }}
[[turns]]
expect_tool_results = ["r2"]
reply = {{ tool_calls = [{{ id = "r3", name = "read_file", arguments = {{ path = "src/util.rs", offset = 1, limit = 3 }} }}], usage = {{ input = 400, output = 5 }} }}
[[turns]]
reply = {{ tool_calls = [{{ id = "r4", name = "read_file", arguments = {{ path = "src/util.rs", offset = 1, limit = 4 }} }}], usage = {{ input = 420, output = 5 }} }}
[[turns]]
reply = {{ text = "Both read.", usage = {{ input = 450, output = 5 }} }}
"#
    ));
    env.exec(&server, &[], "Read lib.rs and util.rs.")
        .assert_done("Both read.");
    let received = server.received();
    // The request after the compaction carries the digest: both files,
    // their symbols, fresh.
    let after = received[4].body["messages"].to_string();
    assert!(after.contains("Already read in this session"), "{after}");
    assert!(
        after.contains("`src/lib.rs` (fresh)") && after.contains("`src/util.rs` (fresh)"),
        "{after}"
    );
    assert!(
        after.contains("`alpha` (full)") && after.contains("`gamma` (full)"),
        "{after}"
    );
    // The first re-read after the compaction (of `gamma`, lines 1-3) is
    // new to the context; the second (lines 1-4, `gamma` again) is
    // annotated. (The same call three times would be a loop.)
    let first = received[5].body["messages"].to_string();
    assert!(!first.contains("you already read this"), "{first}");
    let second = received[6].body["messages"].to_string();
    assert!(second.contains("you already read this in turn"), "{second}");

    // After a change on disk the digest calls it stale.
    std::fs::write(
        env.ws.join("src/lib.rs"),
        LIB.replace("    1\n", "    11\n"),
    )
    .unwrap();
    let out = env.run(&["coverage", "digest"]);
    let digest = String::from_utf8_lossy(&out.stdout);
    assert!(
        digest.contains("`src/lib.rs` (stale: changed since)"),
        "{digest}"
    );
    assert!(digest.contains("`src/util.rs` (fresh)"), "{digest}");
    // As a SessionStart hook's output, the session id read from stdin.
    let id = {
        let list: Value =
            serde_json::from_slice(&env.run(&["sessions", "list", "--json"]).stdout).unwrap();
        list["sessions"][0]["id"].as_str().unwrap().to_string()
    };
    let hook = env.run_with_stdin(
        &["coverage", "digest", "--format", "hook"],
        &format!("{{\"session_id\": \"{id}\", \"source\": \"compact\"}}"),
    );
    let hook: Value = serde_json::from_slice(&hook.stdout).unwrap();
    assert_eq!(hook["hookSpecificOutput"]["hookEventName"], "SessionStart");
    assert!(hook["hookSpecificOutput"]["additionalContext"]
        .as_str()
        .unwrap()
        .contains("src/util.rs"));
    // Another agent's session, which amber never saw: nothing to inject.
    let other = env.run_with_stdin(
        &["coverage", "digest", "--format", "hook"],
        "{\"session_id\": \"claude-abc\"}",
    );
    assert_eq!(String::from_utf8_lossy(&other.stdout).trim(), "{}");

    // A resumed session is told once, in its first prompt's message.
    let server = fake(
        r#"
[[turns]]
reply = { tool_calls = [{ id = "l1", name = "list_dir", arguments = { path = "src" } }] }
[[turns]]
reply = { text = "Resumed." }
"#,
    );
    env.exec(&server, &["--resume", &id], "Go on.")
        .assert_done("Resumed.");
    let received = server.received();
    let prompt = received[0].body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m.to_string())
        .find(|m| m.contains("Go on."))
        .unwrap();
    assert!(prompt.contains("Already read in this session"), "{prompt}");
    // Once: the next request of the run adds none.
    let count = |i: usize| {
        received[i].body["messages"]
            .to_string()
            .matches("Already read in this session")
            .count()
    };
    assert_eq!(count(0), count(1));
}
