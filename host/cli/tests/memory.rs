//! `amber memory` end to end: the real binary over a real SQLite file in a
//! scratch `AMBER_HOME`, including a process killed mid-write and two
//! processes writing at once.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "a test fails by panicking, its helpers too"
)]

use std::path::{Path, PathBuf};
use std::process::{Child, Output, Stdio};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use amber_tests::cli::amber_command;
use amber_tests::exec_env::{fake, sent_messages, Env, Run};
use serde_json::{json, Value};

const AMBER: &str = env!("CARGO_BIN_EXE_amber");

struct Home {
    _dir: tempfile::TempDir,
    home: PathBuf,
    ws: PathBuf,
}

impl Home {
    fn new() -> Home {
        let dir = tempfile::tempdir().unwrap();
        let home = dir.path().join("home");
        let ws = dir.path().join("project");
        std::fs::create_dir_all(&home).unwrap();
        std::fs::create_dir_all(&ws).unwrap();
        Home {
            _dir: dir,
            home,
            ws,
        }
    }

    fn db(&self) -> PathBuf {
        self.home.join("data/memory.db")
    }

    fn command(&self, args: &[&str]) -> std::process::Command {
        let mut cmd = amber_command(AMBER, &self.home, &self.ws);
        cmd.args(["memory"]).args(args);
        cmd
    }

    fn run(&self, args: &[&str]) -> Output {
        self.command(args).output().unwrap()
    }

    /// Runs and expects success; returns stdout.
    fn ok(&self, args: &[&str]) -> String {
        let out = self.run(args);
        assert!(
            out.status.success(),
            "amber memory {args:?} failed: {}",
            text(&out.stderr)
        );
        text(&out.stdout)
    }

    fn json(&self, args: &[&str]) -> Value {
        let mut args = args.to_vec();
        args.push("--json");
        let out = self.ok(&args);
        serde_json::from_str(&out).unwrap_or_else(|e| panic!("not JSON ({e}): {out}"))
    }

    fn add(&self, kind: &str, title: &str, content: &str) -> i64 {
        self.json(&["add", "--type", kind, "--title", title, content])["id"]
            .as_i64()
            .unwrap()
    }

    fn recall_ids(&self, query: &str) -> Vec<i64> {
        self.json(&["recall", query])["hits"]
            .as_array()
            .unwrap()
            .iter()
            .map(|h| h["record"]["id"].as_i64().unwrap())
            .collect()
    }

    fn spawn(&self, args: &[&str]) -> Child {
        self.command(args)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap()
    }
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn count(db: &Path, sql: &str) -> i64 {
    let conn = rusqlite::Connection::open(db).unwrap();
    conn.busy_timeout(Duration::from_secs(5)).unwrap();
    conn.query_row(sql, [], |r| r.get(0)).unwrap()
}

/// A JSON list of `n` records whose every field says which record it is,
/// so a half-written record would show.
fn records_file(dir: &Path, name: &str, n: usize) -> PathBuf {
    let records: Vec<Value> = (0..n)
        .map(|i| {
            json!({
                "type": "gotcha",
                "title": format!("{name} title {i}"),
                "content": format!("{name} body {i}: the build cache for crate {i} needs a clean after a toolchain bump. END-{i}"),
                "tags": [format!("{name}-{i}")],
            })
        })
        .collect();
    let path = dir.join(format!("{name}.json"));
    std::fs::write(&path, serde_json::to_string(&records).unwrap()).unwrap();
    path
}

/// Every record is whole: its title, content and tags belong to one
/// generated record, and it has its history row.
fn assert_whole(db: &Path) {
    let conn = rusqlite::Connection::open(db).unwrap();
    let integrity: String = conn
        .query_row("PRAGMA integrity_check", [], |r| r.get(0))
        .unwrap();
    assert_eq!(integrity, "ok");
    let mut stmt = conn
        .prepare(
            "SELECT r.title, r.content, r.tags, \
             (SELECT count(*) FROM revisions v WHERE v.record_id = r.id) FROM records r",
        )
        .unwrap();
    let rows = stmt
        .query_map([], |r| {
            Ok((
                r.get::<_, String>(0)?,
                r.get::<_, String>(1)?,
                r.get::<_, String>(2)?,
                r.get::<_, i64>(3)?,
            ))
        })
        .unwrap();
    for row in rows {
        let (title, content, tags, history) = row.unwrap();
        let (name, i) = title.split_once(" title ").unwrap();
        assert!(
            content.starts_with(&format!("{name} body {i}:"))
                && content.ends_with(&format!("END-{i}")),
            "half record: {title} / {content}"
        );
        assert_eq!(tags, format!("{name}-{i}"));
        assert_eq!(history, 1, "{title} has no history row");
    }
}

#[test]
fn add_recall_revise_and_forget_keep_a_durable_history() {
    let h = Home::new();
    let flock = h.add(
        "gotcha",
        "cargo needs flock",
        "Two cargo builds at once thrash the shared target dir; wrap each in flock.",
    );
    h.add(
        "decision",
        "SQLite in WAL mode",
        "The memory store runs SQLite in WAL mode so recall never waits for a writer.",
    );
    let recall = h.json(&["recall", "why wrap cargo in flock?"]);
    assert_eq!(recall["hits"][0]["record"]["id"], flock);
    assert!(recall["receipt"].as_i64().unwrap() > 0);

    let again = h.json(&[
        "add",
        "--type",
        "gotcha",
        "--title",
        "x",
        "Two cargo builds at once thrash the shared target dir; wrap each in flock.",
    ]);
    assert_eq!(
        (again["id"].as_i64(), again["created"].as_bool()),
        (Some(flock), Some(false))
    );
    assert_eq!(again["evidence"], 2);

    let flock_text = flock.to_string();
    h.ok(&[
        "revise",
        &flock_text,
        "--content",
        "Wrap every cargo command in flock on a shared target dir.",
        "--reason",
        "shorter",
    ]);
    let shown = h.json(&["show", &flock_text]);
    let history = shown["history"].as_array().unwrap();
    assert_eq!(history.len(), 3, "{shown:#}");
    assert_eq!(history[0]["change"], "created");
    assert!(history[0]["content"]
        .as_str()
        .unwrap()
        .starts_with("Two cargo builds"));
    assert_eq!(history[2]["change"], "revised");
    assert_eq!(history[2]["reason"], "shorter");

    h.ok(&["forget", &flock_text, "--reason", "no longer true"]);
    assert!(h.recall_ids("flock cargo").is_empty());
    let shown = h.json(&["show", &flock_text]);
    assert_eq!(shown["record"]["content"], "");
    assert!(shown["record"]["forgotten_at"].is_i64());
    let history = shown["history"].as_array().unwrap();
    assert_eq!(history.len(), 4);
    assert!(history.iter().all(|r| r["content"] == ""));
    let exported = h.ok(&["export", "--format", "json"]);
    assert!(!exported.contains("flock on a shared"), "{exported}");
}

#[test]
fn superseded_stale_and_expired_records_are_held_back_with_reasons() {
    let h = Home::new();
    let old = h.add("decision", "logging", "Log with the log crate.");
    let new = h.add("decision", "logging", "Log with tracing spans.");
    h.ok(&["link", &new.to_string(), "supersedes", &old.to_string()]);
    let stale = h.add("gotcha", "logging noise", "Logging floods test output.");
    h.ok(&["revise", &stale.to_string(), "--status", "stale"]);
    let expired = h.json(&[
        "add",
        "--type",
        "gotcha",
        "--title",
        "log freeze",
        "--valid-until",
        "1",
        "No logging changes during the freeze.",
    ])["id"]
        .as_i64()
        .unwrap();
    let scoped = h.json(&[
        "add",
        "--type",
        "gotcha",
        "--title",
        "python logging",
        "--path",
        "scripts/**",
        "Python scripts log with the logging module.",
    ])["id"]
        .as_i64()
        .unwrap();
    let recall = h.json(&[
        "recall",
        "logging log",
        "--path",
        "host/core/src/lib.rs",
        "--limit",
        "10",
    ]);
    let hits: Vec<i64> = recall["hits"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x["record"]["id"].as_i64().unwrap())
        .collect();
    assert_eq!(hits, [new]);
    let mut held: Vec<(i64, String)> = recall["suppressed"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            (
                s["id"].as_i64().unwrap(),
                s["reason"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    held.sort();
    assert_eq!(
        held,
        [
            (old, "superseded".to_string()),
            (stale, "stale".into()),
            (expired, "expired".into()),
            (scoped, "inapplicable_path".into()),
        ]
    );
    let plain = h.ok(&[
        "recall",
        "logging",
        "--path",
        "host/core/src/lib.rs",
        "--limit",
        "10",
    ]);
    assert!(
        plain.contains(&format!("held back: #{old} (superseded)")),
        "{plain}"
    );
}

#[test]
fn recall_judges_path_and_language_scopes() {
    let h = Home::new();
    let id = h.json(&[
        "add",
        "--type",
        "gotcha",
        "--title",
        "unsafe blocks",
        "--path",
        "src/*.rs",
        "--language",
        "rust",
        "Every unsafe block carries a SAFETY comment.",
    ])["id"]
        .as_i64()
        .unwrap();
    let judged = |extra: &[&str]| -> (Vec<i64>, Vec<String>) {
        let mut args = vec!["recall", "unsafe block"];
        args.extend_from_slice(extra);
        let recall = h.json(&args);
        let hits = recall["hits"]
            .as_array()
            .unwrap()
            .iter()
            .map(|x| x["record"]["id"].as_i64().unwrap())
            .collect();
        let held = recall["suppressed"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| s["reason"].as_str().unwrap().to_string())
            .collect();
        (hits, held)
    };
    // An absolute path inside the workspace is the same file.
    let absolute = h.ws.join("src/lib.rs").display().to_string();
    assert_eq!(judged(&["--path", &absolute]).0, [id]);
    assert_eq!(
        judged(&["--path", "src/lib.rs", "--language", "rust"]).0,
        [id]
    );
    // `*` stays in its folder.
    assert_eq!(
        judged(&["--path", "src/deep/lib.rs"]).1,
        ["inapplicable_path"]
    );
    assert_eq!(
        judged(&["--language", "python"]).1,
        ["inapplicable_language"]
    );
    // Asked in general, a scoped record still comes back.
    assert_eq!(judged(&[]).0, [id]);
}

#[test]
fn oversized_content_is_refused_naming_the_limit() {
    let h = Home::new();
    let big = "x".repeat(16 * 1024 + 1);
    let out = h.run(&["add", "--type", "gotcha", "--title", "big", &big]);
    assert!(!out.status.success());
    assert_eq!(
        text(&out.stderr).trim(),
        "amber: cannot store the memory: content is 16385 bytes; the limit is 16384 bytes"
    );
}

#[test]
fn fts_syntax_in_a_query_never_crashes() {
    let h = Home::new();
    h.add(
        "gotcha",
        "near",
        "The foo parser breaks NEAR the end of a file.",
    );
    for query in [
        "\"",
        "AND OR",
        "foo*(",
        "NEAR(",
        "NEAR(foo",
        "title:foo",
        "-foo",
        "(((",
        "^*",
        "'",
        "\u{1}",
        "foo AND",
        "OR foo OR",
        "{a b}",
        "a:b:c",
    ] {
        let out = h.run(&["recall", "--json", "--", query]);
        assert!(out.status.success(), "{query:?}: {}", text(&out.stderr));
        let out = h.run(&["compile", "--manifest", "--", query]);
        assert!(out.status.success(), "{query:?}: {}", text(&out.stderr));
    }
    assert_eq!(h.recall_ids("foo*(").len(), 1);
}

#[test]
fn feedback_is_stored_on_the_receipt_and_changes_nothing() {
    let h = Home::new();
    let id = h.add(
        "gotcha",
        "flaky exec test",
        "The exec test is flaky under load.",
    );
    let receipt = h.json(&["recall", "flaky exec"])["receipt"]
        .as_i64()
        .unwrap();
    let before = h.json(&["show", &id.to_string()]);
    let fb = h.json(&[
        "feedback",
        &receipt.to_string(),
        "outdated",
        "--record",
        &id.to_string(),
        "--note",
        "fixed in 25acc01",
    ]);
    assert_eq!(fb["verdict"], "outdated");
    assert_eq!(h.json(&["show", &id.to_string()]), before);
    assert_eq!(h.recall_ids("flaky exec"), [id]);
    let out = h.run(&["feedback", "999", "helpful"]);
    assert!(text(&out.stderr).contains("recall receipt 999 does not exist"));
    // Feedback is about what the recall did: a record it never saw is
    // refused, and so is a note past the limit.
    let unseen = h.add("gotcha", "unrelated", "Nothing about tests here.");
    let out = h.run(&[
        "feedback",
        &receipt.to_string(),
        "helpful",
        "--record",
        &unseen.to_string(),
    ]);
    assert!(
        text(&out.stderr).contains(&format!(
            "memory #{unseen} was not in recall receipt {receipt}, which returned [#{id}]"
        )),
        "{}",
        text(&out.stderr)
    );
    let long = "n".repeat(3000);
    let out = h.run(&["feedback", &receipt.to_string(), "helpful", "--note", &long]);
    assert!(
        text(&out.stderr).contains("note is 3000 bytes; the limit is 2048 bytes"),
        "{}",
        text(&out.stderr)
    );
}

#[test]
fn receipts_list_what_each_recall_returned_and_held_back() {
    let h = Home::new();
    assert_eq!(
        h.ok(&["receipts"]).trim(),
        "no recall receipts in this namespace"
    );
    let kept = h.add("gotcha", "flaky exec", "The exec test is flaky under load.");
    let stale = h.add("gotcha", "flaky grep", "The grep test was flaky once.");
    h.ok(&["revise", &stale.to_string(), "--status", "stale"]);
    let first = h.json(&["recall", "flaky"])["receipt"].as_i64().unwrap();
    let second = h.json(&["recall", "exec"])["receipt"].as_i64().unwrap();
    // Another namespace's recall is not listed here.
    h.json(&["--namespace", "project:elsewhere", "recall", "flaky"]);
    let listed = h.json(&["receipts"]);
    let receipts = listed["receipts"].as_array().unwrap();
    let ids: Vec<i64> = receipts.iter().map(|r| r["id"].as_i64().unwrap()).collect();
    assert_eq!(ids, [second, first], "newest first, this namespace only");
    assert_eq!(receipts[1]["returned"], json!([kept]));
    assert_eq!(receipts[1]["held_back"], json!([[stale, "stale"]]));
    assert!(
        !listed.to_string().contains("flaky"),
        "a receipt never keeps the query"
    );
    let plain = h.ok(&["receipts", "--limit", "1"]);
    assert_eq!(plain.lines().count(), 1, "{plain}");
    assert!(
        plain.contains(&format!("receipt {second} "))
            && plain.contains(&format!("returned #{kept}; held back -")),
        "{plain}"
    );
    // Storing a held-back record's content again says why recall skips it.
    let again = h.ok(&[
        "add",
        "--type",
        "gotcha",
        "--title",
        "flaky grep",
        "The grep test was flaky once.",
    ]);
    assert!(
        again.contains(&format!(
            "note: #{stale} is stale, so recall holds it back; to use it again: amber memory revise {stale} --status validated"
        )),
        "{again}"
    );
    let fresh = h.ok(&[
        "add",
        "--type",
        "gotcha",
        "--title",
        "flaky exec",
        "The exec test is flaky under load.",
    ]);
    assert!(!fresh.contains("note:"), "{fresh}");
}

#[test]
fn commands_by_id_refuse_another_namespaces_records() {
    let h = Home::new();
    let mine = h.add("gotcha", "mine", "A memory of this project.");
    let theirs = h.json(&[
        "--namespace",
        "project:elsewhere",
        "add",
        "--type",
        "gotcha",
        "--title",
        "theirs",
        "A memory of another project.",
    ])["id"]
        .as_i64()
        .unwrap();
    let (mine, theirs) = (mine.to_string(), theirs.to_string());
    let refusals: [&[&str]; 4] = [
        &["show", &theirs],
        &["revise", &theirs, "--title", "taken over"],
        &["forget", &theirs],
        &["link", &mine, "supersedes", &theirs],
    ];
    for args in refusals {
        let out = h.run(args);
        assert!(!out.status.success(), "{args:?} was refused");
        assert!(
            text(&out.stderr).contains(&format!(
                "memory record {theirs} belongs to namespace `project:elsewhere`"
            )) && text(&out.stderr).contains("pass --namespace project:elsewhere"),
            "{args:?}: {}",
            text(&out.stderr)
        );
    }
    // Untouched, and reachable from its own namespace.
    let record = h.json(&["--namespace", "project:elsewhere", "show", &theirs]);
    assert_eq!(record["record"]["title"], "theirs");
    assert_eq!(record["record"]["revision"], 1);
    // A receipt of another namespace takes no feedback here.
    let receipt = h.json(&["--namespace", "project:elsewhere", "recall", "memory"])["receipt"]
        .as_i64()
        .unwrap();
    let out = h.run(&["feedback", &receipt.to_string(), "helpful"]);
    assert!(
        text(&out.stderr).contains(&format!(
            "recall receipt {receipt} belongs to namespace `project:elsewhere`"
        )),
        "{}",
        text(&out.stderr)
    );
}

#[test]
fn tags_are_matched_whole_never_as_patterns() {
    let h = Home::new();
    let dash = h.json(&[
        "add",
        "--type",
        "gotcha",
        "--title",
        "dash",
        "--tag",
        "build-cache",
        "Dashed tag.",
    ])["id"]
        .as_i64()
        .unwrap();
    let under = h.json(&[
        "add",
        "--type",
        "gotcha",
        "--title",
        "under",
        "--tag",
        "build_cache",
        "Underscored tag.",
    ])["id"]
        .as_i64()
        .unwrap();
    let listed = |tag: &str| -> Vec<i64> {
        h.json(&["list", "--tag", tag])["records"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r["id"].as_i64().unwrap())
            .collect()
    };
    assert_eq!(listed("build_cache"), [under]);
    assert_eq!(listed("build-cache"), [dash]);
    assert!(listed("%").is_empty());
    let recalled = h.json(&["recall", "tag", "--tag", "build_cache"])["hits"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| h["record"]["id"].as_i64().unwrap())
        .collect::<Vec<_>>();
    assert_eq!(recalled, [under]);
}

#[test]
fn compile_prints_the_context_and_a_reproducible_manifest_without_bodies() {
    let h = Home::new();
    h.add(
        "procedure",
        "release steps",
        "Tag the release commit, then push the tag to trigger CI.",
    );
    h.add(
        "gotcha",
        "release key",
        "The release job reads token=abcdef0123456789 from CI secrets.",
    );
    let rendered = h.ok(&["compile", "how do I cut a release?", "--budget", "400"]);
    assert!(
        rendered.contains("## Procedures\n- release steps: Tag the release commit"),
        "{rendered}"
    );
    assert!(rendered.contains("token=[REDACTED]") && !rendered.contains("abcdef0123456789"));
    let a = h.ok(&[
        "compile",
        "how do I cut a release?",
        "--budget",
        "400",
        "--manifest",
    ]);
    let b = h.ok(&[
        "compile",
        "how do I cut a release?",
        "--budget",
        "400",
        "--manifest",
    ]);
    assert_eq!(a, b, "the same inputs give the same manifest");
    let manifest: Value = serde_json::from_str(&a).unwrap();
    assert_eq!(manifest["schema"], "amber.context-manifest/1");
    assert_eq!(manifest["counts"]["selected"], 2);
    for body in [
        "release steps",
        "Tag the release",
        "CI secrets",
        "cut a release",
    ] {
        assert!(!a.contains(body), "the manifest leaks `{body}`");
    }
    let tight: Value =
        serde_json::from_str(&h.ok(&["compile", "release", "--budget", "45", "--manifest"]))
            .unwrap();
    let omitted = tight["omitted"].as_array().unwrap();
    assert!(omitted.iter().any(|o| o["reason"] == "budget_exceeded" && o["required_tokens"].as_u64().unwrap() > 0), "{tight:#}");

    let out = h.run(&[
        "compile",
        "release",
        "--budget",
        "10",
        "--state",
        "branch=release/1.2 is frozen until the audit ends",
    ]);
    assert!(!out.status.success());
    assert!(
        text(&out.stderr)
            .contains("the compile failed closed: required item state:branch@1/cli needs"),
        "{}",
        text(&out.stderr)
    );
}

#[test]
fn the_markdown_export_keeps_applicability_provenance_and_history() {
    let h = Home::new();
    h.ok(&[
        "add",
        "--type",
        "gotcha",
        "--title",
        "flaky timer",
        "--path",
        "host/**/*.rs",
        "--language",
        "rust",
        // A date, as a person types it (Unix seconds work too).
        "--valid-until",
        "2100-01-01",
        "--actor",
        "alice",
        "--session",
        "s-42",
        "--model",
        "gpt-test",
        "The timer test fails under load.",
    ]);
    h.ok(&[
        "revise",
        "1",
        "--status",
        "validated",
        "--reason",
        "seen twice",
    ]);
    let markdown = h.ok(&["export"]);
    for expected in [
        "## #1 flaky timer",
        "- applies to paths: `host/**/*.rs`",
        "- applies to languages: rust",
        "- valid: - .. 2100-01-01 00:00Z",
        "- provenance: actor alice · session s-42 · model gpt-test",
        "The timer test fails under load.",
        "History:",
        " created by alice, candidate",
        "status changed by alice, validated: seen twice",
    ] {
        assert!(
            markdown.contains(expected),
            "no {expected:?} in\n{markdown}"
        );
    }
    let history = markdown.split("History:").nth(1).unwrap();
    assert!(
        history.contains("- r1 ") && history.contains("- r2 "),
        "{history}"
    );
}

#[test]
fn export_and_import_round_trip_into_another_namespace() {
    let h = Home::new();
    h.add(
        "concept",
        "ledger",
        "The ledger is the one record of what is installed.",
    );
    let gone = h.add("gotcha", "temp", "A note to forget.");
    h.ok(&["forget", &gone.to_string()]);
    let markdown = h.ok(&["export"]);
    assert!(
        markdown.contains("## #1 ledger") && markdown.contains(&format!("## #{gone} (forgotten)")),
        "{markdown}"
    );
    // The forgotten record keeps its lineage, not its content.
    assert!(markdown.contains(" forgotten by "), "{markdown}");
    assert!(!markdown.contains("A note to forget."), "{markdown}");
    let json_export = h.ok(&["export", "--format", "json"]);
    assert_eq!(
        h.ok(&["export", "--json"]),
        json_export,
        "--json is --format json"
    );
    let file = h.ws.join("export.json");
    std::fs::write(&file, &json_export).unwrap();
    let report = h.json(&["--namespace", "other", "import", file.to_str().unwrap()]);
    assert_eq!(
        (
            report["created"].as_i64(),
            report["skipped_forgotten"].as_i64()
        ),
        (Some(1), Some(1))
    );
    let listed = h.json(&["--namespace", "other", "list"]);
    assert_eq!(listed["records"][0]["title"], "ledger");
    std::fs::write(
        &file,
        "[{\"type\": \"lemma\", \"title\": \"t\", \"content\": \"c\"}]",
    )
    .unwrap();
    let out = h.run(&["import", file.to_str().unwrap()]);
    assert!(!out.status.success());
    assert!(
        text(&out.stderr).contains("export.json: record 1: unknown variant `lemma`"),
        "{}",
        text(&out.stderr)
    );
}

#[test]
fn namespaces_follow_the_workspace() {
    let h = Home::new();
    h.add("gotcha", "secret sauce", "This project pins wasmtime 48.");
    let elsewhere = h.ws.parent().unwrap().join("elsewhere");
    std::fs::create_dir_all(&elsewhere).unwrap();
    let out = h
        .command(&["recall", "wasmtime", "--json"])
        .env("AMBER_WORKSPACE", &elsewhere)
        .output()
        .unwrap();
    let recall: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(recall["hits"].as_array().unwrap().len(), 0);
    assert_eq!(h.recall_ids("wasmtime").len(), 1);
}

#[test]
fn a_kill_9_during_writes_leaves_only_whole_records() {
    let h = Home::new();
    // Opening the store creates the database, so it can be watched.
    h.ok(&["list"]);
    let file = records_file(&h.ws, "kill", 20_000);
    let mut child = h.spawn(&["import", file.to_str().unwrap()]);
    let start = Instant::now();
    while count(&h.db(), "SELECT count(*) FROM records") < 50 {
        assert!(
            start.elapsed() < Duration::from_secs(60),
            "the import never started"
        );
        std::thread::sleep(Duration::from_millis(5));
    }
    let jitter = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .subsec_nanos()
        % 150;
    std::thread::sleep(Duration::from_millis(u64::from(jitter)));
    let killed = std::process::Command::new("kill")
        .args(["-9", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(killed.success());
    let status = child.wait().unwrap();
    assert!(!status.success(), "the import finished before the kill");
    let stored = count(&h.db(), "SELECT count(*) FROM records");
    assert!(stored > 0 && stored < 20_000, "{stored}");
    assert_whole(&h.db());
    let check = h.json(&["check"]);
    assert_eq!(check["integrity"], "ok");
    assert_eq!(check["fts"], "ok");
    assert_eq!(check["broken"], json!([]));
    // The database is usable: a new write lands and recall finds it.
    let id = h.add(
        "gotcha",
        "after the crash",
        "The database opened fine after kill -9.",
    );
    assert_eq!(h.recall_ids("database opened fine")[0], id);
}

#[test]
fn two_processes_writing_at_once_lose_nothing() {
    let h = Home::new();
    h.ok(&["list"]);
    let a = records_file(&h.ws, "alpha", 400);
    let b = records_file(&h.ws, "beta", 400);
    let children = [
        h.spawn(&["import", a.to_str().unwrap(), "--json"]),
        h.spawn(&["import", b.to_str().unwrap(), "--json"]),
    ];
    let mut created = 0;
    let mut succeeded = 0;
    for child in children {
        let out = child.wait_with_output().unwrap();
        let stderr = text(&out.stderr);
        if out.status.success() {
            succeeded += 1;
            let report: Value = serde_json::from_slice(&out.stdout).unwrap();
            created += report["created"].as_i64().unwrap();
        } else {
            // The only acceptable failure is a clear busy error.
            assert!(stderr.contains("is busy"), "{stderr}");
            if let Ok(report) = serde_json::from_slice::<Value>(&out.stdout) {
                created += report["created"].as_i64().unwrap();
            }
        }
    }
    // Nothing lost: every record a process reported stored is there.
    assert_eq!(count(&h.db(), "SELECT count(*) FROM records"), created);
    assert!(
        succeeded >= 1 && created >= 400,
        "{succeeded} succeeded, {created} stored"
    );
    assert_whole(&h.db());
}

/// Stores an "a.txt must stay ASCII" gotcha, then asks `amber exec` about
/// a.txt (after `config`, when given, is written); returns the run and
/// what the model was sent.
fn ask_about_a_txt(env: &Env, config: Option<&str>) -> (Run, Vec<String>) {
    let out = env.run(&[
        "memory",
        "add",
        "--type",
        "gotcha",
        "--title",
        "a.txt encoding",
        "a.txt must stay ASCII; the fixture checker rejects UTF-8 there.",
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    if let Some(config) = config {
        std::fs::write(env.home.join("config.toml"), config).unwrap();
    }
    let server =
        fake("[[turns]]\nreply = { text = \"fine\" }\n[[turns]]\nreply = { text = \"DONE\" }\n");
    let run = env.exec(&server, &[], "may I put UTF-8 in a.txt?");
    run.assert_done("fine");
    let said = sent_messages(&server.received()[0].body);
    (run, said)
}

#[test]
fn the_recall_block_puts_relevant_memories_into_the_request() {
    let env = Env::new(AMBER);
    let (run, said) = ask_about_a_txt(&env, None);
    let block = said
        .iter()
        .find(|m| m.contains("# Engineering memory"))
        .unwrap_or_else(|| panic!("no memory block in {said:#?}"));
    assert!(
        block.starts_with("system: ") && block.contains("a.txt must stay ASCII"),
        "{block}"
    );
    // The block is in the request only, never in the session.
    let shown = env.show(&run.session_id());
    assert!(!shown.to_string().contains("must stay ASCII"));
}

#[test]
fn the_recall_block_can_be_switched_off_in_the_config() {
    let env = Env::new(AMBER);
    let (_, said) = ask_about_a_txt(&env, Some("[memory]\nrecall_block = false\n"));
    assert!(
        !said.iter().any(|m| m.contains("must stay ASCII")),
        "{said:#?}"
    );
}

/// The model `cargo xtask test` installs.
fn embedding_model() -> PathBuf {
    std::env::var_os("AMBER_TEST_EMBEDDING_MODEL")
        .map(PathBuf::from)
        .expect("AMBER_TEST_EMBEDDING_MODEL is not set: run the tests with `cargo xtask test`")
}

#[test]
fn with_a_model_recall_finds_a_memory_by_meaning_and_embed_covers_the_namespace() {
    let home = Home::new();
    let release = home.add(
        "procedure",
        "Cutting a release",
        "Bump the number in the workspace Cargo.toml, update CHANGELOG.md, commit, tag vX.Y.Z \
         and push the tag; the release workflow builds and uploads the binaries.",
    );
    home.add(
        "gotcha",
        "Flaky socket test",
        "The port test races the listener; retry once.",
    );
    let question = "how do we ship a new version to users?";
    assert!(home.recall_ids(question).is_empty(), "no word in common");
    assert_eq!(home.json(&["recall", question])["ranking"], "lexical");

    let with_model = |args: &[&str]| {
        let mut cmd = home.command(args);
        cmd.env("AMBER_EMBEDDING_MODEL", embedding_model());
        cmd.output().unwrap()
    };
    // Recall embeds the few records it finds new, then ranks by meaning too.
    let out = with_model(&["recall", question, "--json"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let hits: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(hits["ranking"], "fused", "{hits}");
    let ids: Vec<i64> = hits["hits"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| h["record"]["id"].as_i64().unwrap())
        .collect();
    assert_eq!(ids, vec![release], "the socket test is too far in meaning");
    assert_eq!(count(&home.db(), "SELECT count(*) FROM record_vectors"), 2);

    // The same through the config file, and `embed` on a revised record.
    // A relative path is read from the config file's folder.
    let linked = home.home.join("minilm");
    std::os::unix::fs::symlink(embedding_model(), &linked).unwrap();
    std::fs::write(
        home.home.join("config.toml"),
        "[memory]\nembedding_model = \"minilm\"\n",
    )
    .unwrap();
    home.ok(&[
        "revise",
        &release.to_string(),
        "--content",
        "Tag vX.Y.Z and push the tag.",
    ]);
    let embedded = home.json(&["embed"]);
    assert_eq!(embedded["embedded"], 1, "{embedded}");
    assert_eq!(embedded["remaining"], 0);
    let compiled = home.ok(&["compile", "steps to ship a new version"]);
    assert!(compiled.contains("Tag vX.Y.Z"), "{compiled}");

    // Forgetting the record takes its vector with its content.
    home.ok(&["forget", &release.to_string()]);
    assert_eq!(
        count(
            &home.db(),
            &format!("SELECT count(*) FROM record_vectors WHERE record_id = {release}")
        ),
        0
    );
}

#[test]
fn embed_without_a_model_or_with_a_broken_one_says_what_to_do() {
    let home = Home::new();
    home.add(
        "gotcha",
        "Flaky socket test",
        "The port test races the listener; retry once.",
    );
    let out = home.run(&["embed"]);
    assert!(!out.status.success());
    let err = text(&out.stderr);
    assert!(
        err.contains("no embedding model is configured") && err.contains("embedding_model"),
        "{err}"
    );

    let broken = home.home.join("broken-model");
    std::fs::create_dir_all(&broken).unwrap();
    std::fs::write(broken.join("config.json"), "{ not json").unwrap();
    let out = home
        .command(&["recall", "socket"])
        .env("AMBER_EMBEDDING_MODEL", &broken)
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = text(&out.stderr);
    assert!(
        err.contains("broken-model") && err.contains("config.json"),
        "{err}"
    );
}
