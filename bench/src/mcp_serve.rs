//! Serving MCP and deferring tools (issue 58):
//! - `outline` through `amber mcp serve`'s server (rmcp's client and
//!   server over an in-memory pipe, the server's start excluded) against
//!   the same `outline` tool called in-process, as `amber outline` runs
//!   it once started: the protocol's cost, goal ≤ 1.5×;
//! - the tokens of the tools a first request declares with 300 MCP tools
//!   configured, with deferral against without, goal ≤ 10 % of a 128k
//!   window (12,800 tokens). Both sides are the real built-in tools of a
//!   loaded host and the same 300 declarations the end-to-end test
//!   serves, arranged by the agent's own `Shelf`.

use std::sync::Arc;

use amber_app::host::{FrontEnd, Host};
use amber_app::served::{self, ServeMode};
use amber_core::engine::tool_search::{decl_tokens, DeferralSettings, Shelf};
use amber_core::ports::dialect::ToolDecl;
use amber_mcp::serve::ToolServer;
use amber_runtime::AmberDirs;
use anyhow::{Context, Result};
use rmcp::model::CallToolRequestParams;
use rmcp::ServiceExt;
use serde_json::json;

use crate::measure::{interleaved_ms, pair_row, Figure, Rows};

/// Outline calls per round, and rounds.
const CALLS: usize = 20;
const ROUNDS: usize = 15;

/// The file outlined: one of amber's own, a few hundred lines of Rust.
const FILE: &str = "host/mcp/src/serve.rs";

pub fn run(rows: &mut Rows) -> Result<()> {
    let guests = crate::measure::guest("tools-fs")?
        .parent()
        .context("the guests folder")?
        .to_path_buf();
    // The bundle the host loads its parsers from.
    std::env::set_var("AMBER_BUNDLE_DIR", &guests);
    let home = tempfile::tempdir()?;
    let workspace = std::env::current_dir()?;
    let host = Host::new(AmberDirs::under(home.path()), FrontEnd::headless());
    let served = served::tools(&host, &workspace, ServeMode::Read)?;
    let outline = served
        .tools
        .iter()
        .find(|t| t.spec().name == "outline")
        .cloned()
        .context("no outline tool served")?;
    let args = json!({"path": FILE});
    anyhow::ensure!(outline.call(&args)?.content.contains("ToolServer"));

    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()?;
    let server = ToolServer::new(served.tools.clone());
    let client = runtime.block_on(async {
        let (client_side, server_side) = tokio::io::duplex(1 << 20);
        tokio::spawn(async move {
            if let Ok(running) = server.serve(server_side).await {
                let _ = running.waiting().await;
            }
        });
        ().serve(client_side).await
    })?;
    let mut through_mcp = || -> Result<()> {
        for _ in 0..CALLS {
            let mut params = CallToolRequestParams::new("outline");
            if let serde_json::Value::Object(map) = json!({"path": FILE}) {
                params = params.with_arguments(map);
            }
            let result = runtime.block_on(client.peer().call_tool(params))?;
            anyhow::ensure!(result.is_error != Some(true), "{result:?}");
            std::hint::black_box(result);
        }
        Ok(())
    };
    let mut in_process = || -> Result<()> {
        for _ in 0..CALLS {
            std::hint::black_box(outline.call(&args)?);
        }
        Ok(())
    };
    let samples = interleaved_ms(ROUNDS, &mut [&mut through_mcp, &mut in_process])?;
    let per_call = |ms: f64| ms * 1e3 / CALLS as f64;
    rows.push(pair_row(
        ("mcp_serve_outline_call", &[per_call(samples[0])]),
        ("outline_tool_in_process", &[per_call(samples[1])]),
        "us",
        Some(1.5),
    ))?;
    drop(client);

    // First-request tool tokens with 300 MCP tools.
    let ledger = amber_app::host::loaded(&host, &workspace)?;
    let mut decls = amber_core::engine::declarations(&ledger.runtime().ledger().tools());
    for i in 0..300 {
        decls.push(ToolDecl {
            name: format!("many__op_{i}"),
            description: format!("Runs warehouse operation number {i} on the inventory: counts the pallets of aisle {i}, reconciles them with the ledger of stock, and reports every difference with its bin and its last movement."),
            input_schema: json!({"type": "object", "properties": {"aisle": {"type": "integer", "description": "The aisle to work on."}}}),
        });
    }
    let settings = DeferralSettings {
        defer_over: 0.10,
        may_defer: Arc::new(|names: &[&str]| {
            names
                .iter()
                .filter(|n| n.starts_with("many__"))
                .map(|n| n.to_string())
                .collect()
        }),
    };
    let shelf = Arc::new(Shelf::default());
    let offered = shelf
        .arrange(&decls, 128_000, &settings, None)
        .context("300 tools did not go behind tool_search")?;
    let search = amber_core::engine::tool_search::ToolSearchTool::new(shelf).decl();
    std::env::remove_var("AMBER_BUNDLE_DIR");
    let with: u64 = offered.iter().chain([&search]).map(decl_tokens).sum();
    let without: u64 = decls.iter().map(decl_tokens).sum();
    rows.push(
        Figure {
            name: "first_request_tool_tokens_300_mcp_tools",
            unit: "tokens",
            value: with as f64,
            baseline: Some(("same_tools_all_declared", without as f64)),
            goal_value: Some(12_800.0),
            goal_ratio: None,
        }
        .row(),
    )
}
