//! The MCP host (issue 30): a tool call through amber's adapter (the
//! Tool port, the hub, its runtime) against a bare rmcp client calling
//! the same server the same way, in the same run, goal ≤ 1.2×; and what
//! three servers that answer at once add before the first model request
//! (the hub made, started and waited for), goal ≤ 5 ms.
//!
//! The calls go to `@modelcontextprotocol/server-everything` from npm
//! over stdio (the xtask installs it; `AMBER_BENCH_MCP_SERVERS`). The
//! start-up goal is measured against rmcp's own server, in this process
//! (src/mcp_quick.rs): server-everything takes about 9 ms to answer an
//! `initialize`, so a second row runs the same against three of it,
//! already listening on streamable HTTP. Both start-up rows set amber's
//! hub beside bare rmcp clients doing the same exchanges.

use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use amber_core::Ledger;
use amber_mcp::{HubSetup, McpConfig, McpHub, ServerConfig};
use anyhow::{bail, ensure, Context, Result};
use rmcp::model::CallToolRequestParams;
use rmcp::transport::streamable_http_client::{
    StreamableHttpClientTransport, StreamableHttpClientTransportConfig,
};
use rmcp::ServiceExt;
use serde_json::json;

use crate::mcp_quick::QuickServers;
use crate::measure::{median, pair_row, Figure, Rows};

fn everything() -> Result<String> {
    let dir = std::env::var_os("AMBER_BENCH_MCP_SERVERS")
        .map(PathBuf::from)
        .context("AMBER_BENCH_MCP_SERVERS: run through `cargo xtask bench`")?;
    let js = dir.join("@modelcontextprotocol/server-everything/dist/index.js");
    ensure!(js.is_file(), "{} is missing", js.display());
    Ok(js.display().to_string())
}

fn setup(home: &std::path::Path, ledger: &Arc<Ledger>) -> HubSetup {
    HubSetup {
        ledger: ledger.clone(),
        spawner: amber_sandbox::Spawner::detect(amber_sandbox::BackendChoice::Auto),
        workspace: home.to_path_buf(),
        data_dir: home.join("data"),
        base_env: ["PATH", "HOME"]
            .iter()
            .filter_map(|k| std::env::var_os(k).map(|v| (k.to_string(), v)))
            .collect(),
        walls: Default::default(),
    }
}

/// Calls per batch, and batches.
const CALLS: usize = 50;
const BATCHES: usize = 15;

pub fn run(rows: &mut Rows) -> Result<()> {
    let js = everything()?;
    let home = tempfile::tempdir()?;

    // amber: the hub and the tool the model would call.
    let ledger = Arc::new(Ledger::new());
    let config = McpConfig {
        servers: vec![ServerConfig::stdio("everything", "node", &[&js, "stdio"])],
    };
    let hub = McpHub::new(&config, setup(home.path(), &ledger))?;
    hub.connect("everything")?;
    let tool = ledger
        .tool("everything__echo")
        .context("the hub did not install everything__echo")?;
    let args = json!({"message": "bench"});
    ensure!(tool.call(&args)?.content == "Echo: bench");

    // The bare client: rmcp over the same pipes to its own server.
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()?;
    let bare = runtime.block_on(async {
        let mut child = tokio::process::Command::new("node")
            .args([&js, "stdio"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .kill_on_drop(true)
            .spawn()?;
        let (Some(stdout), Some(stdin)) = (child.stdout.take(), child.stdin.take()) else {
            bail!("no pipes");
        };
        let client = ().serve((stdout, stdin)).await?;
        Ok::<_, anyhow::Error>((client, child))
    })?;
    let (client, _child) = bare;
    let bare_call = || -> Result<()> {
        let mut params = CallToolRequestParams::new("echo");
        if let serde_json::Value::Object(map) = json!({"message": "bench"}) {
            params = params.with_arguments(map);
        }
        let result = runtime.block_on(client.peer().call_tool(params))?;
        std::hint::black_box(result);
        Ok(())
    };
    bare_call()?;

    let mut through_amber = Vec::new();
    let mut through_rmcp = Vec::new();
    for _ in 0..BATCHES {
        let start = Instant::now();
        for _ in 0..CALLS {
            std::hint::black_box(tool.call(&args)?);
        }
        through_amber.push(start.elapsed().as_secs_f64() * 1e6 / CALLS as f64);
        let start = Instant::now();
        for _ in 0..CALLS {
            bare_call()?;
        }
        through_rmcp.push(start.elapsed().as_secs_f64() * 1e6 / CALLS as f64);
    }
    hub.shutdown();
    rows.push(
        Figure {
            name: "mcp_tool_call_through_amber",
            unit: "us",
            value: median(through_amber),
            baseline: Some(("bare_rmcp_client_same_server", median(through_rmcp))),
            goal_value: None,
            goal_ratio: Some(1.2),
        }
        .row(),
    )?;

    // Start-up, against servers that answer at once: the goal.
    let quick = QuickServers::start(3)?;
    let (hub, bare) = startup_pairs(home.path(), quick.urls(), "tool_0")?;
    // With no servers no hub is made at all (amber-app's `mcp::hub` returns
    // None): nothing is added, and the whole figure is what servers add.
    let mut added = pair_row(
        ("mcp_three_servers_added_before_first_request", &hub),
        ("no_servers_configured", &[0.0]),
        "ms",
        None,
    );
    added["goal_value"] = json!(5.0);
    rows.push(added)?;
    rows.push(pair_row(
        ("mcp_three_quick_servers_started_by_the_hub", &hub),
        ("bare_rmcp_clients_same_servers", &bare),
        "ms",
        None,
    ))?;
    drop(quick);

    // The same against server-everything, already listening: node's
    // answering is most of it, and both sides wait for the same node.
    let servers: Vec<HttpServer> = (0..3)
        .map(|_| HttpServer::start(&js))
        .collect::<Result<_>>()?;
    let urls: Vec<String> = servers.iter().map(HttpServer::url).collect();
    // A home of its own: the quick servers' pins, under the same names,
    // would hold these servers' listings back.
    let everything_home = tempfile::tempdir()?;
    let (hub, bare) = startup_pairs(everything_home.path(), &urls, "echo")?;
    rows.push(pair_row(
        ("mcp_three_everything_servers_started_by_the_hub", &hub),
        ("bare_rmcp_clients_same_servers", &bare),
        "ms",
        None,
    ))
}

/// Start-up rounds, interleaved: amber's hub made, started and waited for
/// as the first request waits; then bare rmcp clients, on a runtime made
/// beforehand, each initializing and listing tools, resources and prompts
/// over the same HTTP exchanges (`amber_mcp::http::McpHttp`), all three at
/// once. Milliseconds, each side.
/// `tool` is one the last server lists, to see that its tools arrived.
fn startup_pairs(
    home: &std::path::Path,
    urls: &[String],
    tool: &str,
) -> Result<(Vec<f64>, Vec<f64>)> {
    let config = McpConfig {
        servers: urls
            .iter()
            .enumerate()
            .map(|(i, url)| ServerConfig::http(&format!("s{i}"), url))
            .collect(),
    };
    let last_tool = format!("s{}__{tool}", urls.len() - 1);
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()?;
    let (mut hub_ms, mut bare_ms) = (Vec::new(), Vec::new());
    for _ in 0..ROUNDS {
        let ledger = Arc::new(Ledger::new());
        let start = Instant::now();
        let hub = McpHub::new(&config, setup(home, &ledger))?;
        hub.start();
        let warnings = hub.wait_for_startup();
        hub_ms.push(start.elapsed().as_secs_f64() * 1e3);
        ensure!(warnings.is_empty(), "{warnings:?}");
        ensure!(
            ledger.tool(&last_tool).is_some(),
            "{last_tool} did not arrive"
        );
        hub.shutdown();

        let start = Instant::now();
        let clients = runtime.block_on(futures_util::future::try_join_all(
            urls.iter().map(|url| bare_start(url.clone())),
        ))?;
        bare_ms.push(start.elapsed().as_secs_f64() * 1e3);
        runtime.block_on(async {
            for client in clients {
                let _ = client.cancel().await;
            }
        });
    }
    Ok((hub_ms, bare_ms))
}

/// Start-up rounds per row.
const ROUNDS: usize = 15;

type BareClient = rmcp::service::RunningService<rmcp::RoleClient, ()>;

/// What any client must do before the first request: initialize, then
/// list each kind the server has.
async fn bare_start(url: String) -> Result<BareClient> {
    let http = amber_mcp::http::McpHttp::new().map_err(anyhow::Error::msg)?;
    let transport = StreamableHttpClientTransport::with_client(
        http,
        StreamableHttpClientTransportConfig::with_uri(url),
    );
    let client = ().serve(transport).await?;
    let peer = client.peer();
    let capabilities = peer.peer_info().map(|i| i.capabilities.clone());
    let capabilities = capabilities.context("no initialize result")?;
    if capabilities.tools.is_some() {
        std::hint::black_box(peer.list_all_tools().await?);
    }
    if capabilities.resources.is_some() {
        std::hint::black_box(peer.list_all_resources().await?);
    }
    if capabilities.prompts.is_some() {
        std::hint::black_box(peer.list_all_prompts().await?);
    }
    Ok(client)
}

/// server-everything on streamable HTTP, killed on drop.
struct HttpServer {
    child: Child,
    port: u16,
}

impl HttpServer {
    fn start(js: &str) -> Result<HttpServer> {
        let port = std::net::TcpListener::bind("127.0.0.1:0")?
            .local_addr()?
            .port();
        let child = Command::new("node")
            .args([js, "streamableHttp"])
            .env("PORT", port.to_string())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()?;
        let deadline = Instant::now() + Duration::from_secs(30);
        while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
            ensure!(
                Instant::now() < deadline,
                "server-everything did not listen"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
        Ok(HttpServer { child, port })
    }

    fn url(&self) -> String {
        format!("http://127.0.0.1:{}/mcp", self.port)
    }
}

impl Drop for HttpServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
