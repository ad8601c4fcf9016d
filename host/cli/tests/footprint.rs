//! What a headless run loads, and the confirm turn's switch (issue 33),
//! through the real binary, the bundled plugins and the fake LLM server:
//! a run that neither reads code by symbol nor greps loads neither the
//! parsers nor the grep component (the runtime's own count of loaded
//! components, written to `AMBER_EXEC_REPORT`); a run that does loads
//! them; `--no-confirm` and `agent.confirm = false` leave out the silent
//! confirm turn, one model call fewer.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "a test fails by panicking, its helpers too"
)]

use amber_tests::exec_env::{fake, text, Env, Run};
use serde_json::Value;

const AMBER: &str = env!("CARGO_BIN_EXE_amber");

fn env(config: &str) -> Env {
    let env = Env::new(AMBER);
    std::fs::write(env.home.join("config.toml"), config).unwrap();
    std::fs::create_dir_all(env.ws.join("src")).unwrap();
    std::fs::write(
        env.ws.join("src/lib.rs"),
        "pub fn alpha() -> u32 {\n    1\n}\n",
    )
    .unwrap();
    env
}

/// `amber exec --json` with the run report written; the run and the
/// report.
fn exec_with_report(env: &Env, base: &str, extra: &[&str]) -> (Run, Value) {
    let report = env.home.join("run-report.json");
    let mut args = vec!["exec", "--json", "--base-url", base];
    args.extend_from_slice(extra);
    args.push("look at the workspace");
    let out = env
        .command(&args)
        .env("AMBER_EXEC_REPORT", &report)
        .output()
        .unwrap();
    let stderr = text(&out.stderr);
    let run = Run::from(out);
    let report = std::fs::read_to_string(&report)
        .unwrap_or_else(|e| panic!("no run report ({e}); stderr: {stderr}"));
    (run, serde_json::from_str(&report).unwrap())
}

fn plugins_loaded(report: &Value) -> Vec<String> {
    report["plugins_loaded"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p.as_str().unwrap().to_string())
        .collect()
}

#[test]
fn a_run_without_code_reading_or_grep_loads_neither_the_parsers_nor_grep() {
    let env = env("[agent]\nconfirm_turn = false\n");
    let server = fake(
        r#"
[[turns]]
expect_tools = ["read_file", "grep", "outline"]
reply = { tool_calls = [{ id = "r1", name = "read_file", arguments = { path = "a.txt" } }] }
[[turns]]
reply = { text = "a.txt says hi" }
"#,
    );
    let (run, report) = exec_with_report(&env, &server.openai_base(), &[]);
    run.assert_done("a.txt says hi");
    let loaded = plugins_loaded(&report);
    // The provider that served the requests, the prompt block every
    // request carries, and read_file's component: nothing else (no
    // parser, no grep, no shell, not the other provider, not the notes
    // plugin this home also has).
    assert_eq!(
        loaded,
        ["fs", "prompt-workspace", "provider-openai"],
        "the plugins this run loaded"
    );
    assert_eq!(
        report["components_loaded"].as_u64(),
        Some(loaded.len() as u64),
        "one component per loaded plugin: {report}"
    );
    assert!(report["peak_rss_kib"].as_u64().unwrap() >= report["rss_kib"].as_u64().unwrap());

    // The same run calling grep and outline loads them: the count can
    // tell the two apart.
    let server = fake(
        r#"
[[turns]]
reply = { tool_calls = [{ id = "g1", name = "grep", arguments = { pattern = "alpha" } }, { id = "o1", name = "outline", arguments = { path = "src/lib.rs" } }] }
[[turns]]
reply = { text = "alpha is in src/lib.rs" }
"#,
    );
    let (run, report) = exec_with_report(&env, &server.openai_base(), &[]);
    run.assert_done("alpha is in src/lib.rs");
    let loaded = plugins_loaded(&report);
    for present in ["grep", "parser-rust"] {
        assert!(
            loaded.iter().any(|p| p == present),
            "{present} was called, so it is loaded: {loaded:?}"
        );
    }
    assert!(
        !loaded.iter().any(|p| p == "parser-python"),
        "only the Rust file was outlined: {loaded:?}"
    );
}

/// The requests a default run, a `--no-confirm` run and a run under
/// `confirm = false` make for the same answer.
#[test]
fn no_confirm_and_confirm_false_leave_out_the_confirm_turn() {
    let answer = r#"
[[turns]]
reply = { text = "done" }
[[turns]]
reply = { text = "yes, finished" }
"#;
    let env = env("");
    let server = fake(answer);
    env.exec(&server, &[], "finish").assert_done("done");
    assert_eq!(server.received().len(), 2, "the default asks once more");

    let server = fake(answer);
    let run = env.exec(&server, &["--no-confirm"], "finish");
    run.assert_done("done");
    assert_eq!(server.received().len(), 1, "--no-confirm: one call");
    assert_eq!(run.one("session.completed")["turns"], 1);

    let env = Env::new(AMBER);
    std::fs::write(env.home.join("config.toml"), "[agent]\nconfirm = false\n").unwrap();
    let server = fake(answer);
    env.exec(&server, &[], "finish").assert_done("done");
    assert_eq!(
        server.received().len(),
        1,
        "agent.confirm = false: one call"
    );

    let help = env.run(&["exec", "--help"]);
    assert!(
        text(&help.stdout).contains("--no-confirm"),
        "exec --help names the flag"
    );
}
