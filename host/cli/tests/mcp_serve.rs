//! `amber mcp serve` end to end: the real binary started as Claude Code
//! and Codex start a server (a child speaking MCP on its stdio), driven by
//! rmcp's client; over streamable HTTP, driven by amber's own MCP client
//! (`amber mcp add --url`, `amber mcp call`); the bundled parser
//! components and a real SQLite memory database behind it.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "a test fails by panicking, its helpers too"
)]

use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::Stdio;

use amber_tests::cli::amber_command;
use amber_tests::exec_env::text;
use rmcp::model::{CallToolRequestParams, CallToolResult};
use rmcp::service::RunningService;
use rmcp::{RoleClient, ServiceExt};
use serde_json::{json, Value};

const AMBER: &str = env!("CARGO_BIN_EXE_amber");

const LIB: &str =
    "pub fn alpha() -> u32 {\n    1\n}\n\npub fn beta() -> u32 {\n    alpha() + 1\n}\n";

/// A home with one memory, and a workspace with one Rust file.
struct Served {
    _dir: tempfile::TempDir,
    home: PathBuf,
    ws: PathBuf,
}

impl Served {
    fn new() -> Served {
        let dir = tempfile::tempdir().unwrap();
        let home = dir.path().join("home");
        let ws = dir.path().join("ws");
        std::fs::create_dir_all(ws.join("src")).unwrap();
        std::fs::create_dir_all(&home).unwrap();
        std::fs::write(ws.join("src/lib.rs"), LIB).unwrap();
        std::fs::write(dir.path().join("outside.rs"), "fn secret() {}\n").unwrap();
        let served = Served {
            _dir: dir,
            home,
            ws,
        };
        served.ok(&[
            "memory",
            "add",
            "--type",
            "gotcha",
            "--title",
            "beta counts on alpha returning one",
            "Change alpha and beta breaks.",
        ]);
        served
    }

    fn command(&self, args: &[&str]) -> std::process::Command {
        let mut cmd = amber_command(AMBER, &self.home, &self.ws);
        cmd.args(args);
        cmd
    }

    fn ok(&self, args: &[&str]) -> String {
        let out = self.command(args).output().unwrap();
        assert!(out.status.success(), "{args:?}: {}", text(&out.stderr));
        text(&out.stdout)
    }

    /// `amber mcp serve ARGS` as a child on pipes, with rmcp's client
    /// connected to it.
    async fn client(&self, args: &[&str]) -> RunningService<RoleClient, ()> {
        let cmd = self.command(&[&["mcp", "serve"], args].concat());
        let mut child = tokio::process::Command::from(cmd)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .kill_on_drop(true)
            .spawn()
            .unwrap();
        let stdout = child.stdout.take().unwrap();
        let stdin = child.stdin.take().unwrap();
        // The child is reaped when the client's transport closes it.
        tokio::spawn(async move {
            let _ = child.wait().await;
        });
        ().serve((stdout, stdin)).await.unwrap()
    }
}

async fn call(client: &RunningService<RoleClient, ()>, tool: &str, args: Value) -> CallToolResult {
    let mut params = CallToolRequestParams::new(tool.to_string());
    if let Value::Object(map) = args {
        params = params.with_arguments(map);
    }
    client.peer().call_tool(params).await.unwrap()
}

/// The names of the tools the server lists.
async fn tool_names(client: &RunningService<RoleClient, ()>) -> Vec<String> {
    client
        .peer()
        .list_all_tools()
        .await
        .unwrap()
        .iter()
        .map(|t| t.name.to_string())
        .collect()
}

fn text_of(result: &CallToolResult) -> String {
    let value = serde_json::to_value(result).unwrap();
    value["content"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|c| c["text"].as_str())
        .collect::<Vec<_>>()
        .join("\n")
}

fn is_error(result: &CallToolResult) -> bool {
    result.is_error == Some(true)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn another_agent_reads_by_symbol_recalls_and_stores_over_stdio() {
    let served = Served::new();
    let client = served.client(&[]).await;
    let tools = tool_names(&client).await;
    for name in [
        "outline",
        "show",
        "callers",
        "grep",
        "index_status",
        "coverage_report",
        "coverage_digest",
        "recall",
        "compile",
        "store",
    ] {
        assert!(tools.contains(&name.to_string()), "{name} in {tools:?}");
    }
    let info = client.peer().peer_info().unwrap();
    assert_eq!(info.server_info.as_ref().unwrap().name, "amber");

    let outline = call(&client, "outline", json!({"path": "src/lib.rs"})).await;
    let listed = text_of(&outline);
    assert!(!is_error(&outline), "{listed}");
    assert!(listed.contains("src/lib.rs::alpha"), "{listed}");

    let shown = text_of(&call(&client, "show", json!({"symbol": "src/lib.rs::beta"})).await);
    assert!(shown.contains("alpha() + 1"), "{shown}");
    let callers = text_of(&call(&client, "callers", json!({"name": "alpha"})).await);
    assert!(callers.contains("src/lib.rs::beta"), "{callers}");
    let grep = text_of(&call(&client, "grep", json!({"pattern": "\\+ 1"})).await);
    assert!(
        grep.contains("src/lib.rs:6:") && grep.contains("[src/lib.rs::beta]"),
        "{grep}"
    );
    let status = text_of(&call(&client, "index_status", json!({})).await);
    assert!(status.contains("rust 1"), "{status}");

    for outside in ["../outside.rs", "/etc/passwd"] {
        let refused = call(&client, "outline", json!({"path": outside})).await;
        assert!(is_error(&refused), "{outside}: {}", text_of(&refused));
        assert!(
            text_of(&refused).contains("outside"),
            "{}",
            text_of(&refused)
        );
    }

    let recalled = text_of(&call(&client, "recall", json!({"query": "alpha beta"})).await);
    assert!(
        recalled.contains("beta counts on alpha returning one"),
        "{recalled}"
    );
    let compiled = text_of(&call(&client, "compile", json!({"query": "alpha beta"})).await);
    assert!(
        compiled.contains("beta counts on alpha returning one")
            && compiled.contains("sources: memory:"),
        "{compiled}"
    );

    let stored = call(
        &client,
        "store",
        json!({"type": "decision", "title": "gamma waits for alpha", "content": "Keep the order."}),
    )
    .await;
    assert!(
        text_of(&stored).contains("as a candidate"),
        "{}",
        text_of(&stored)
    );
    let recalled = text_of(&call(&client, "recall", json!({"query": "gamma"})).await);
    assert!(recalled.contains("gamma waits for alpha"), "{recalled}");
    // Stored by another agent: a candidate, its actor saying where from.
    let listed = served.ok(&["memory", "recall", "gamma", "--json"]);
    let hit: Value = serde_json::from_str(&listed).unwrap();
    assert_eq!(hit["hits"][0]["record"]["status"], "candidate", "{hit}");
    assert_eq!(
        hit["hits"][0]["record"]["provenance"]["actor"], "mcp",
        "{hit}"
    );

    let bad = call(&client, "recall", json!({"query": 3})).await;
    assert!(
        is_error(&bad) && text_of(&bad).contains("`query`"),
        "{}",
        text_of(&bad)
    );
    client.cancel().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn read_mode_serves_no_store() {
    let served = Served::new();
    let client = served.client(&["--mode", "read"]).await;
    let tools = tool_names(&client).await;
    assert!(tools.contains(&"recall".to_string()), "{tools:?}");
    assert!(!tools.contains(&"store".to_string()), "{tools:?}");
    let mut params = CallToolRequestParams::new("store");
    params = params.with_arguments(serde_json::Map::new());
    let refused = client.peer().call_tool(params).await;
    assert!(refused.is_err(), "{refused:?}");
    client.cancel().await.unwrap();
}

#[test]
fn amber_as_a_client_calls_amber_served_over_http() {
    let served = Served::new();
    let mut server = served
        // Over HTTP it serves in read mode unless told otherwise.
        .command(&["mcp", "serve", "--http", "127.0.0.1:0"])
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut said = BufReader::new(server.stderr.take().unwrap());
    let mut line = String::new();
    let url = loop {
        line.clear();
        assert!(said.read_line(&mut line).unwrap() > 0, "the server ended");
        if let Some(at) = line.find("http://") {
            break line[at..].split_whitespace().next().unwrap().to_string();
        }
    };
    // A second home, as another person's amber would be.
    let client_home = served.home.with_file_name("client-home");
    std::fs::create_dir_all(&client_home).unwrap();
    let client = |args: &[&str]| {
        let out = amber_command(AMBER, &client_home, &served.ws)
            .args(args)
            .output()
            .unwrap();
        (out.status.success(), text(&out.stdout), text(&out.stderr))
    };
    let (ok, _, err) = client(&["mcp", "add", "served", "--url", &url]);
    assert!(ok, "{err}");
    let (ok, out, err) = client(&["mcp", "call", "served", "callers", r#"{"name": "alpha"}"#]);
    assert!(ok && out.contains("src/lib.rs::beta"), "{out}\n{err}");
    let (ok, out, err) = client(&["mcp", "tools", "served", "--json"]);
    assert!(ok, "{err}");
    assert!(
        out.contains("served__recall") && !out.contains("served__store"),
        "{out}"
    );
    let _ = server.kill();
    let _ = server.wait();
}

#[test]
fn print_config_gives_claude_code_and_codex_the_command() {
    let served = Served::new();
    let claude: Value =
        serde_json::from_str(&served.ok(&["mcp", "serve", "--print-config", "claude"])).unwrap();
    let entry = &claude["mcpServers"]["amber"];
    assert_eq!(entry["type"], "stdio");
    let command = std::path::Path::new(entry["command"].as_str().unwrap());
    assert_eq!(
        std::fs::canonicalize(command).unwrap(),
        std::fs::canonicalize(AMBER).unwrap()
    );
    let args: Vec<&str> = entry["args"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(Value::as_str)
        .collect();
    let ws = std::fs::canonicalize(&served.ws).unwrap();
    assert_eq!(args, ["-C", ws.to_str().unwrap(), "mcp", "serve"]);
    let codex = served.ok(&["mcp", "serve", "--print-config", "codex", "--mode", "read"]);
    let parsed: toml::Value = toml::from_str(&codex).unwrap();
    let command = parsed["mcp_servers"]["amber"]["command"].as_str().unwrap();
    assert_eq!(
        std::fs::canonicalize(command).unwrap(),
        std::fs::canonicalize(AMBER).unwrap()
    );
    let refused = served
        .command(&["mcp", "serve", "--http", "0.0.0.0:0"])
        .output()
        .unwrap();
    assert!(!refused.status.success());
    assert!(
        text(&refused.stderr).contains("loopback only"),
        "{}",
        text(&refused.stderr)
    );
}
