//! `amber providers list|check` end to end: the real binary, the bundled
//! provider components and the fake LLM server.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "a test fails by panicking, its helpers too"
)]

use std::path::Path;
use std::process::Output;

use amber_tests::cli::amber_command;
use amber_tests::fake_llm::{FakeLlm, Transcript};

fn amber(home: &Path, args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut cmd = amber_command(env!("CARGO_BIN_EXE_amber"), home, home);
    cmd.args(args);
    for (k, v) in env {
        cmd.env(k, v);
    }
    cmd.output().expect("amber runs")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn fake(script: &str) -> FakeLlm {
    FakeLlm::start(Transcript::parse(script).unwrap(), 0).unwrap()
}

const OK: &str = "[[turns]]\nreply = { text = \"ok\", usage = { input = 12, output = 1 } }\n";

#[test]
fn list_shows_every_preset_and_whether_its_key_is_set() {
    let home = tempfile::tempdir().unwrap();
    let out = amber(
        home.path(),
        &["providers", "list", "--json"],
        &[("OPENAI_API_KEY", "sk-x")],
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let rows = v["providers"].as_array().unwrap();
    assert_eq!(rows.len(), 12);
    let openai = rows.iter().find(|r| r["name"] == "openai").unwrap();
    assert_eq!(
        (openai["key_set"].as_bool(), openai["flavor"].as_str()),
        (Some(true), Some("openai-chat"))
    );
    let anthropic = rows.iter().find(|r| r["name"] == "anthropic").unwrap();
    assert_eq!(anthropic["key_set"], false);
}

#[test]
fn a_users_preset_from_config_is_listed_and_checked() {
    let home = tempfile::tempdir().unwrap();
    let server = fake(OK);
    let config = format!(
        "[providers.mine]\nflavor = \"openai-chat\"\nbase_url = \"{}\"\nmodel = \"m1\"\n",
        server.openai_base()
    );
    std::fs::write(home.path().join("config.toml"), config).unwrap();
    let out = amber(home.path(), &["providers", "check", "mine"], &[]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(
        text(&out.stdout).contains("ok: mine (m1) answered"),
        "{}",
        text(&out.stdout)
    );
}

#[test]
fn check_streams_the_reply_through_the_real_wire() {
    let home = tempfile::tempdir().unwrap();
    let server = fake(OK);
    let base = server.openai_base();
    let out = amber(
        home.path(),
        &[
            "providers",
            "check",
            "openai",
            "--base-url",
            &base,
            "--model",
            "m2",
        ],
        &[("OPENAI_API_KEY", "sk-check")],
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    assert!(
        stdout.starts_with("ok\nok: openai (m2) answered in"),
        "{stdout}"
    );
    let got = &server.received()[0];
    assert_eq!(got.authorization.as_deref(), Some("Bearer sk-check"));
    assert_eq!(got.body["model"], "m2");
}

#[test]
fn a_reasoning_model_that_spends_the_cap_thinking_still_passes_and_says_why() {
    let home = tempfile::tempdir().unwrap();
    let capped = "[[turns]]\nreply = { reasoning = \"Say ok.\", capped = true }\n";
    let server = fake(&format!("{capped}{capped}"));
    let base = server.openai_base();
    let args = |json: bool| {
        let mut args = vec![
            "providers",
            "check",
            "openai",
            "--base-url",
            base.as_str(),
            "--model",
            "o4-mini",
        ];
        if json {
            args.push("--json");
        }
        args
    };
    let key = [("OPENAI_API_KEY", "sk-check")];
    let out = amber(home.path(), &args(false), &key);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    assert!(
        stdout.contains("note: the reply reached its cap of 32 tokens before any text"),
        "{stdout}"
    );
    let out = amber(home.path(), &args(true), &key);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        (v["ok"].as_bool(), v["text"].as_str(), v["stop"].as_str()),
        (Some(true), Some(""), Some("max_tokens"))
    );
    // o-series models take the cap as max_completion_tokens.
    for got in server.received() {
        assert_eq!(got.body["max_completion_tokens"], 32);
        assert!(got.body.get("max_tokens").is_none());
    }
}

#[test]
fn the_vendors_base_url_variables_are_honoured() {
    let home = tempfile::tempdir().unwrap();
    let server = fake(OK);
    let base = server.anthropic_base();
    let env = [
        ("ANTHROPIC_API_KEY", "sk-ant"),
        ("ANTHROPIC_BASE_URL", base.as_str()),
    ];
    let out = amber(
        home.path(),
        &["providers", "check", "anthropic", "--json"],
        &env,
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        (v["ok"].as_bool(), v["text"].as_str()),
        (Some(true), Some("ok"))
    );
    let got = &server.received()[0];
    assert_eq!(
        (got.x_api_key.as_deref(), got.authorization.as_deref()),
        (Some("sk-ant"), None)
    );
}

#[test]
fn a_missing_key_says_which_variable_to_set() {
    let home = tempfile::tempdir().unwrap();
    let out = amber(home.path(), &["providers", "check", "openai"], &[]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        text(&out.stderr).contains("no API key: set OPENAI_API_KEY"),
        "{}",
        text(&out.stderr)
    );
    // With --json, the same failure is JSON on stdout as well.
    let out = amber(
        home.path(),
        &["providers", "check", "openai", "--json"],
        &[],
    );
    assert_eq!(out.status.code(), Some(1));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("not JSON ({e}): {}", text(&out.stdout)));
    assert_eq!(v["ok"], false);
    assert_eq!(v["provider"], "openai");
    assert!(
        v["error"].as_str().unwrap().contains("set OPENAI_API_KEY"),
        "{v}"
    );
    let out = amber(
        home.path(),
        &["providers", "check", "nosuch", "--json"],
        &[],
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["ok"], false);
    assert!(
        text(&out.stderr).contains("nosuch"),
        "{}",
        text(&out.stderr)
    );
}

#[test]
fn a_refused_key_is_reported_with_the_variable_and_not_retried() {
    let home = tempfile::tempdir().unwrap();
    let server = fake(
        "[[turns]]\nfaults = [{ kind = \"status\", status = 401 }]\nreply = { text = \"no\" }\n",
    );
    let base = server.openai_base();
    let out = amber(
        home.path(),
        &["providers", "check", "openai", "--base-url", &base],
        &[("OPENAI_API_KEY", "sk-bad")],
    );
    assert_eq!(out.status.code(), Some(1));
    assert!(
        text(&out.stderr).contains("check OPENAI_API_KEY"),
        "{}",
        text(&out.stderr)
    );
    assert_eq!(server.received().len(), 1);
}

#[test]
fn an_unreachable_server_says_what_to_check() {
    let home = tempfile::tempdir().unwrap();
    let out = amber(
        home.path(),
        &[
            "providers",
            "check",
            "ollama",
            "--base-url",
            "http://127.0.0.1:9/v1",
        ],
        &[],
    );
    assert_eq!(out.status.code(), Some(1));
    let err = text(&out.stderr);
    assert!(
        err.contains("cannot reach ollama") && err.contains("check the base URL"),
        "{err}"
    );
}
