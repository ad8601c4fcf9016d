//! The plugin contract's compatibility fixtures (`fixtures/wit-compat/`):
//! frozen components built by the SDKs of each supported `amber:plugin`
//! version (a Rust probe of every export kind and import, a Python tool,
//! a JavaScript tool, the C example). Each loads through the real
//! binary, says which version it speaks and whether through an adapter,
//! and answers through `amber tool call` and through the model. A WIT
//! change that breaks one of them fails here.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "a test fails by panicking, its helpers too"
)]

use std::path::PathBuf;

use amber_tests::exec_env::{fake, sent_messages, text, Env};
use amber_tests::repo_root;
use serde_json::Value;

const AMBER: &str = env!("CARGO_BIN_EXE_amber");

/// The host's own version: its fixtures need no adapter.
const LATEST: &str = "0.3.0";

/// Each fixture: its file, plugin id, tool, and the arguments and answer
/// of one call.
const FIXTURES: [(&str, &str, &str, &str, &str); 4] = [
    (
        "compat-rust",
        "compat-rust",
        "compat_probe",
        r#"{"op":"echo","text":"a b c"}"#,
        "a b c",
    ),
    (
        "compat-python",
        "compat-python",
        "compat_python",
        r#"{"text":"a b c"}"#,
        "3 words",
    ),
    (
        "compat-js",
        "compat-js",
        "compat_js",
        r#"{"text":"a b c"}"#,
        "3 words",
    ),
    (
        "c-word-count",
        "c-word-count",
        "c_word_count",
        r#"{"text":"a b c"}"#,
        "3 words",
    ),
];

/// Every version with fixtures, oldest first.
fn versions() -> Vec<(String, PathBuf)> {
    let root = repo_root().join("fixtures/wit-compat");
    let mut found: Vec<(String, PathBuf)> = std::fs::read_dir(&root)
        .unwrap()
        .filter_map(|e| e.ok())
        .map(|e| (e.file_name().to_string_lossy().into_owned(), e.path()))
        .filter(|(name, path)| name != "src" && path.is_dir())
        .collect();
    // By version, not by text: 0.10.0 comes after 0.2.0.
    found.sort_by_key(|(name, _)| {
        name.split('.')
            .map(|n| n.parse::<u32>().unwrap())
            .collect::<Vec<_>>()
    });
    found
}

fn ok(env: &Env, args: &[&str]) -> String {
    let out = env.run(args);
    assert!(
        out.status.success(),
        "amber {args:?}: {}{}",
        text(&out.stdout),
        text(&out.stderr)
    );
    text(&out.stdout)
}

/// An env with every fixture of `version` added, each checked to speak
/// that version (through an adapter when older than the host's).
fn env_with(version: &str, dir: &std::path::Path) -> Env {
    let env = Env::without_confirm_turn(AMBER);
    for (file, id, ..) in FIXTURES {
        let wasm = dir.join(format!("{file}.wasm"));
        assert!(wasm.is_file(), "{} is missing", wasm.display());
        ok(&env, &["plugin", "add", wasm.to_str().unwrap(), "--yes"]);
        let info: Value =
            serde_json::from_str(&ok(&env, &["plugin", "info", id, "--json"])).unwrap();
        assert_eq!(info["state"], "active", "{version} {id}: {info:#}");
        assert_eq!(info["api"], version, "{id}");
        assert_eq!(info["adapter"], version != LATEST, "{version} {id}");
        let shown = ok(&env, &["plugin", "info", id]);
        let adapter = format!("amber:plugin@{version} (through the ");
        assert_eq!(shown.contains(&adapter), version != LATEST, "{shown}");
    }
    env
}

#[test]
fn every_supported_version_has_fixtures() {
    let names: Vec<String> = versions().into_iter().map(|(v, _)| v).collect();
    assert_eq!(names, ["0.1.0", "0.2.0", LATEST]);
}

#[test]
fn every_fixture_loads_and_answers_through_tool_call_and_the_model() {
    for (version, dir) in versions() {
        let env = env_with(&version, &dir);
        for (_, _, tool, args, answer) in FIXTURES {
            let out = ok(&env, &["tool", "call", tool, args]);
            assert_eq!(out.trim(), answer, "{version} {tool}");
        }

        // The model calls all four in one turn.
        let calls: Vec<String> = FIXTURES
            .iter()
            .enumerate()
            .map(|(i, (_, _, tool, args, _))| {
                format!(
                    r#"{{ id = "c{i}", name = "{tool}", arguments = {} }}"#,
                    toml_inline(args)
                )
            })
            .collect();
        let server = fake(&format!(
            "[[turns]]\nreply = {{ tool_calls = [{}] }}\n[[turns]]\nreply = {{ text = \"All answered.\" }}\n",
            calls.join(", ")
        ));
        // `--yes`: the probe's tool writes, so it needs approval.
        let run = env.exec(&server, &["--yes"], "Call each tool.");
        run.assert_done("All answered.");
        let results = run.results();
        assert_eq!(results.len(), FIXTURES.len(), "{version}: {results:?}");
        for (i, (_, _, tool, _, answer)) in FIXTURES.iter().enumerate() {
            let (_, status, output) = &results[i];
            assert_eq!(
                (status.as_str(), output.as_str()),
                ("ok", *answer),
                "{version} {tool}"
            );
        }
    }
}

/// A JSON object as a TOML inline table, for the fake server's script.
fn toml_inline(json: &str) -> String {
    let value: serde_json::Map<String, Value> = serde_json::from_str(json).unwrap();
    let fields: Vec<String> = value.iter().map(|(k, v)| format!("{k} = {v}")).collect();
    format!("{{ {} }}", fields.join(", "))
}

/// The 0.1 probe on the 0.2 host: every import answers through the
/// adapter, and every export kind is reached through its own front door.
#[test]
fn a_0_1_component_uses_every_import_and_export_through_the_adapter() {
    let (_, dir) = versions().into_iter().find(|(v, _)| v == "0.1.0").unwrap();
    let env = env_with("0.1.0", &dir);
    std::fs::write(
        env.home.join("config.toml"),
        "[agent]\nconfirm_turn = false\n[plugins.compat-rust.settings]\ncolour = \"amber\"\n",
    )
    .unwrap();
    std::fs::create_dir_all(env.ws.join("d/sub")).unwrap();
    std::fs::write(env.ws.join("d/a.txt"), "alpha\n").unwrap();
    std::fs::write(env.ws.join("d/sub/b.txt"), "beta\n").unwrap();
    let probe = |args: &str| ok(&env, &["tool", "call", "compat_probe", args, "--yes"]);

    // What initialize was told: the version the adapter speaks to it.
    assert_eq!(
        probe(r#"{"op":"init"}"#).trim(),
        "api 0.1.0; granted exec,workspace-write"
    );
    assert_eq!(probe(r#"{"op":"setting","key":"colour"}"#).trim(), "amber");
    assert_eq!(probe(r#"{"op":"read","path":"d/a.txt"}"#).trim(), "alpha");
    assert_eq!(
        probe(r#"{"op":"walk","root":"d"}"#).trim(),
        "d\nd/a.txt\nd/sub\nd/sub/b.txt"
    );
    assert_eq!(
        probe(r#"{"op":"write","path":"d/new.txt","text":"hello"}"#).trim(),
        "wrote 5 bytes"
    );
    assert_eq!(
        std::fs::read_to_string(env.ws.join("d/new.txt")).unwrap(),
        "hello"
    );
    assert_eq!(
        probe(r#"{"op":"exec","command":"cat d/new.txt"}"#).trim(),
        "hello"
    );
    assert_eq!(
        probe(r#"{"op":"log","text":"from the past"}"#).trim(),
        "logged"
    );
    let logs = ok(&env, &["plugin", "logs", "compat-rust"]);
    assert!(logs.contains("from the past"), "{logs}");
    // A tool error crosses the adapter as the same variant.
    let out = env.run(&["tool", "call", "compat_probe", r#"{"op":"nope"}"#, "--json"]);
    let answer: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(answer["status"], "error", "{answer}");
    assert!(
        answer["output"]
            .as_str()
            .unwrap()
            .contains("unknown op `nope`"),
        "{answer}"
    );

    // The command subtree, and the parser through the index.
    assert_eq!(
        ok(&env, &["/probe", "echo", "hi", "there"]).trim(),
        "hi there"
    );
    std::fs::write(
        env.ws.join("x.probe"),
        "fn main() {\n  helper();\n}\nfn helper() {}\n",
    )
    .unwrap();
    let outline = ok(&env, &["outline", "x.probe"]);
    assert!(
        outline.contains("function main  L1-1") && outline.contains("function helper  L4-4"),
        "{outline}"
    );

    // The prompt block and both hooks, through the model: the block and
    // the prompt hook's context reach the request; the pre-tool hook
    // refuses a call.
    let server = fake(
        r#"
[[turns]]
reply = { tool_calls = [{ id = "c1", name = "compat_probe", arguments = { op = "echo", text = "fine" } }, { id = "c2", name = "compat_probe", arguments = { op = "echo", text = "forbidden" } }] }
[[turns]]
reply = { text = "One was refused." }
"#,
    );
    let run = env.exec(&server, &["--yes"], "probe-context: call it twice");
    run.assert_done_after_denial("One was refused.");
    let results = run.results();
    assert_eq!(
        (results[0].1.as_str(), results[0].2.as_str()),
        ("ok", "fine")
    );
    assert_eq!(results[1].1, "denied", "{results:?}");
    assert!(
        results[1].2.contains("the probe refuses forbidden"),
        "{results:?}"
    );
    let sent = sent_messages(&server.received()[0].body).join("\n");
    assert!(sent.contains("probe block for"), "{sent}");
    assert!(sent.contains("probe saw the prompt"), "{sent}");
}

#[test]
fn a_component_of_a_newer_major_version_is_refused_naming_both() {
    let env = Env::new(AMBER);
    let wrong = amber_tests::guest("wrong-api");
    let out = env.run(&["plugin", "add", wrong.to_str().unwrap(), "--yes"]);
    assert_eq!(out.status.code(), Some(1));
    let err = text(&out.stderr);
    assert!(err.contains("built for amber:plugin@9.0.0"), "{err}");
    assert!(
        err.contains("this host speaks @0.3.0, and @0.2.0, @0.1.0 through adapters"),
        "{err}"
    );
    assert!(err.contains("upgrade amber"), "{err}");
}
