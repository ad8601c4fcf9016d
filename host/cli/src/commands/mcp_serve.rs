//! `amber mcp serve`: amber as an MCP server for another agent, over
//! stdio (as Claude Code and Codex start one) or streamable HTTP on
//! loopback; and `--print-config`, the lines that tell those agents to
//! start it (docs/mcp.md, "Serving").

use std::net::SocketAddr;

use amber_app::served::{self, ServeMode};
use amber_core::project::ProjectRoot;
use amber_mcp::serve::ToolServer;
use anyhow::{bail, Context, Result};
use clap::{Args, ValueEnum};

/// `amber mcp serve`'s flags (its help is the subcommand's, in mcp.rs).
#[derive(Args)]
pub struct ServeArgs {
    /// read: only the tools that change nothing (no `store`); write: also
    /// `store`, which adds a candidate memory. Default: write over stdio
    /// (the agent that starts it is yours), read over HTTP (any local
    /// program can reach a port).
    #[arg(long, value_enum)]
    mode: Option<Mode>,
    /// Serve streamable HTTP at http://ADDR/mcp instead of stdio. ADDR is
    /// a loopback address and port (`127.0.0.1:7341`) or a port alone:
    /// the server has no authentication, so it never listens beyond this
    /// machine.
    #[arg(long, value_name = "ADDR")]
    http: Option<String>,
    /// Print what starts this server from Claude Code (`.mcp.json`) or
    /// Codex (`config.toml`), and exit.
    #[arg(long, value_enum, value_name = "AGENT")]
    print_config: Option<Agent>,
}

#[derive(Clone, Copy, ValueEnum)]
enum Mode {
    Read,
    Write,
}

#[derive(Clone, Copy, ValueEnum)]
enum Agent {
    Claude,
    Codex,
}

#[allow(
    clippy::print_stderr,
    reason = "over stdio, stdout is the protocol's: notes go to stderr"
)]
pub fn run(host: &amber_app::host::Host, args: ServeArgs, project: &ProjectRoot) -> Result<()> {
    let workspace = project.root.as_path();
    let chosen = args.mode.unwrap_or(if args.http.is_some() {
        Mode::Read
    } else {
        Mode::Write
    });
    let mode = match chosen {
        Mode::Read => ServeMode::Read,
        Mode::Write => ServeMode::Write,
    };
    if let Some(agent) = args.print_config {
        print!("{}", config_for(agent, workspace, chosen)?);
        return Ok(());
    }
    let address = args.http.as_deref().map(loopback).transpose()?;
    let served = served::tools(host, workspace, mode)?;
    for warning in &served.warnings {
        eprintln!("amber: {warning}");
    }
    let server = ToolServer::new(served.tools.clone());
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .context("cannot start the server's runtime")?;
    runtime.block_on(async move {
        match address {
            None => server.serve_stdio().await?,
            Some(address) => {
                let listener = tokio::net::TcpListener::bind(address)
                    .await
                    .with_context(|| format!("cannot listen on {address}"))?;
                let bound = listener.local_addr()?;
                eprintln!(
                    "amber: serving {} tools of {} at http://{bound}/mcp (Ctrl-C stops)",
                    server.names().len(),
                    workspace.display()
                );
                let stop = tokio_util::sync::CancellationToken::new();
                let on_signal = stop.clone();
                tokio::spawn(async move {
                    let _ = tokio::signal::ctrl_c().await;
                    on_signal.cancel();
                });
                server.serve_http(listener, stop).await?;
            }
        }
        anyhow::Ok(())
    })?;
    drop(served);
    Ok(())
}

/// `ADDR` as a loopback socket address: a port alone is 127.0.0.1's.
/// Only 127.0.0.1 and ::1: the server answers only requests whose `Host`
/// is a loopback name it knows (rmcp's guard against DNS rebinding), and
/// another 127.x address is not among them.
fn loopback(text: &str) -> Result<SocketAddr> {
    let address: SocketAddr = match text.parse::<u16>() {
        Ok(port) => SocketAddr::from(([127, 0, 0, 1], port)),
        Err(_) => text.parse().with_context(|| {
            format!("--http {text}: give a loopback address and port (127.0.0.1:7341) or a port")
        })?,
    };
    let known = [
        std::net::IpAddr::from([127, 0, 0, 1]),
        std::net::IpAddr::from(std::net::Ipv6Addr::LOCALHOST),
    ];
    if !known.contains(&address.ip()) {
        bail!(
            "--http {text}: amber serves MCP on loopback only (127.0.0.1 or ::1): the server has no authentication"
        );
    }
    Ok(address)
}

/// The lines that make `agent` start this server for `workspace`.
fn config_for(agent: Agent, workspace: &std::path::Path, mode: Mode) -> Result<String> {
    let exe = std::env::current_exe().context("cannot tell where amber is")?;
    let exe = exe.display().to_string();
    let ws = workspace.display().to_string();
    let mut args = vec!["-C".to_string(), ws, "mcp".into(), "serve".into()];
    if matches!(mode, Mode::Read) {
        args.extend(["--mode".into(), "read".into()]);
    }
    Ok(match agent {
        Agent::Claude => {
            let value = serde_json::json!({
                "mcpServers": {"amber": {"type": "stdio", "command": exe, "args": args}}
            });
            format!(
                "{}\n",
                serde_json::to_string_pretty(&value).context("writing the JSON")?
            )
        }
        Agent::Codex => {
            let quoted: Vec<String> = args.iter().map(|a| toml_string(a)).collect();
            format!(
                "[mcp_servers.amber]\ncommand = {}\nargs = [{}]\n",
                toml_string(&exe),
                quoted.join(", ")
            )
        }
    })
}

/// `text` as a TOML basic string.
fn toml_string(text: &str) -> String {
    toml::Value::String(text.to_string()).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_port_alone_is_loopback_and_an_outside_address_is_refused() {
        assert_eq!(loopback("7341").unwrap(), "127.0.0.1:7341".parse().unwrap());
        assert_eq!(loopback("[::1]:80").unwrap(), "[::1]:80".parse().unwrap());
        let refused = loopback("0.0.0.0:7341").unwrap_err().to_string();
        assert!(refused.contains("loopback only"), "{refused}");
        assert!(loopback("localhost:1").is_err());
        assert!(loopback("127.0.0.2:1").is_err());
    }

    #[test]
    fn codex_lines_are_toml_that_reads_back_to_the_same_command() {
        let text =
            config_for(Agent::Codex, std::path::Path::new("/w s/\"q\""), Mode::Read).unwrap();
        let parsed: toml::Value = toml::from_str(&text).unwrap();
        let args = parsed["mcp_servers"]["amber"]["args"].as_array().unwrap();
        let args: Vec<&str> = args.iter().filter_map(|a| a.as_str()).collect();
        assert_eq!(args, ["-C", "/w s/\"q\"", "mcp", "serve", "--mode", "read"]);
    }
}
