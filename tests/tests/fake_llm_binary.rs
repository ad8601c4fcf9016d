//! `amber-fake-llm --script F --port 0` as a process: it prints its port
//! and serves the script as real SSE.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "a test fails by panicking, its helpers too"
)]

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};

use amber_tests::repo_root;

#[test]
fn the_binary_prints_its_port_and_serves_the_script() {
    let script = repo_root().join("fixtures/scripts/hello.toml");
    let mut child = Command::new(env!("CARGO_BIN_EXE_amber-fake-llm"))
        .args(["--script", script.to_str().unwrap(), "--port", "0"])
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let port: u16 = line.trim().parse().expect("the first line is the port");
    let body = serde_json::json!({"model": "m", "messages": [{"role": "user", "content": "hi"}], "stream": true});
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let text = runtime.block_on(async {
        let response = reqwest::Client::new()
            .post(format!("http://127.0.0.1:{port}/v1/chat/completions"))
            .body(body.to_string())
            .send()
            .await
            .unwrap();
        assert_eq!(response.headers()["content-type"], "text/event-stream");
        response.text().await.unwrap()
    });
    child.kill().unwrap();
    let _ = child.wait();
    assert!(text.contains(r#""content":"Hello from t"#), "{text}");
    assert!(text.trim_end().ends_with("data: [DONE]"), "{text}");
}

#[test]
fn a_bad_script_is_refused_naming_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let script = dir.path().join("bad.toml");
    std::fs::write(&script, "[[turns]]\nreply = { txt = \"typo\" }\n").unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_amber-fake-llm"))
        .args(["--script", script.to_str().unwrap()])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("bad.toml") && err.contains("txt"), "{err}");
}
