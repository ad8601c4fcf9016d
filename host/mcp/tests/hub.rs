//! The hub against a real server over stdio (`fixtures/mcp/listed-server.js`
//! under node) and a real ledger: a server's `notifications/tools/list_changed`
//! lists again and rebuilds its tools in the ledger, and a disconnect takes
//! them away.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "a test fails by panicking, its helpers too"
)]

use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use amber_core::Ledger;
use amber_mcp::{HubSetup, McpConfig, McpHub, ServerConfig, State};
use serde_json::json;

fn listed_server() -> String {
    let js = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/mcp/listed-server.js");
    js.canonicalize().unwrap().display().to_string()
}

fn hub(dir: &Path, ledger: &Arc<Ledger>) -> Arc<McpHub> {
    let list = dir.join("tools.json");
    std::fs::write(
        &list,
        json!({"tools": [{"name": "grow", "description": "Adds a tool.", "inputSchema": {"type": "object"}}]})
            .to_string(),
    )
    .unwrap();
    let config = McpConfig {
        servers: vec![ServerConfig::stdio(
            "w",
            "node",
            &[&listed_server(), list.to_str().unwrap()],
        )],
    };
    let setup = HubSetup {
        ledger: ledger.clone(),
        spawner: amber_sandbox::Spawner::detect(amber_sandbox::BackendChoice::Auto),
        workspace: dir.to_path_buf(),
        data_dir: dir.join("data"),
        base_env: vec![("PATH".into(), std::env::var_os("PATH").unwrap_or_default())],
        walls: Default::default(),
    };
    McpHub::new(&config, setup).unwrap()
}

#[test]
fn list_changed_rebuilds_the_servers_tools_in_the_ledger() {
    let dir = tempfile::tempdir().unwrap();
    let ledger = Arc::new(Ledger::new());
    let hub = hub(dir.path(), &ledger);
    let status = hub.connect("w").unwrap();
    assert_eq!(status.state, State::Ready);
    assert_eq!(status.tools, ["w__grow"]);
    assert!(status.protocol.is_some_and(|p| !p.is_empty()));
    assert!(ledger.tool("w__extra").is_none());

    let grow = ledger.tool("w__grow").unwrap();
    assert_eq!(grow.call(&json!({})).unwrap().content, "grown");
    // The server announces its new tool; the hub lists again.
    let deadline = Instant::now() + Duration::from_secs(10);
    while ledger.tool("w__extra").is_none() {
        assert!(Instant::now() < deadline, "w__extra never arrived");
        std::thread::sleep(Duration::from_millis(20));
    }
    let extra = ledger.tool("w__extra").unwrap();
    assert_eq!(
        extra.call(&json!({"a": 1})).unwrap().content,
        r#"extra: {"a":1}"#
    );
    assert_eq!(hub.status("w").unwrap().tools, ["w__grow", "w__extra"]);

    let pid = hub.pid("w").unwrap();
    hub.disconnect("w").unwrap();
    assert!(ledger.tool("w__grow").is_none() && ledger.tool("w__extra").is_none());
    assert_eq!(hub.status("w").unwrap().state, State::Stopped);
    // Its process group is gone with it.
    let deadline = Instant::now() + Duration::from_secs(5);
    while Path::new(&format!("/proc/{pid}")).exists() {
        assert!(
            Instant::now() < deadline,
            "the server outlived its disconnect"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn an_unknown_or_disabled_server_is_named() {
    let dir = tempfile::tempdir().unwrap();
    let ledger = Arc::new(Ledger::new());
    let hub = hub(dir.path(), &ledger);
    let err = hub.connect("nope").unwrap_err().to_string();
    assert_eq!(err, "no MCP server is named `nope` (configured: w)");
    let mut config = McpConfig::default();
    let mut off = ServerConfig::stdio("off", "node", &["x.js"]);
    off.enabled = false;
    config.servers.push(off);
    let setup = HubSetup {
        ledger: ledger.clone(),
        spawner: amber_sandbox::Spawner::detect(amber_sandbox::BackendChoice::Auto),
        workspace: dir.path().to_path_buf(),
        data_dir: dir.path().join("data"),
        base_env: Vec::new(),
        walls: Default::default(),
    };
    let hub = McpHub::new(&config, setup).unwrap();
    let err = hub.connect("off").unwrap_err().to_string();
    assert!(err.contains("MCP server `off` is disabled"), "{err}");
    let call = hub
        .call_tool("off", "t", &json!({}))
        .unwrap_err()
        .to_string();
    assert!(call.contains("is disabled"), "{call}");
}
