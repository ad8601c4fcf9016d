//! amber as an MCP host (docs/mcp.md). Seed: "MCP session lifecycle".
//!
//! [`hub::McpHub`] keeps every configured server ([`config`]), connects
//! over stdio or streamable HTTP ([`connection`], [`http`]), and puts each
//! server's tools, resources and prompts in the ledger as tools
//! ([`tools`]), under the names of [`names`], their descriptions cleaned
//! by [`sanitize`], and each tool pinned by [`pins`] so that a changed
//! description or schema is held back until the user approves it.
//!
//! [`serve`] is the other side: amber as an MCP server of the tools the
//! host gives it (`amber mcp serve`).

// A library reports what happened; its front end decides what to print.
#![deny(clippy::print_stdout, clippy::print_stderr)]

pub mod config;
pub mod connection;
pub mod http;
pub mod hub;
mod legacy;
pub mod names;
pub mod pins;
pub mod sanitize;
pub mod serve;
pub mod tools;

pub use config::{McpConfig, ServerConfig};
pub use connection::ServerWalls;
pub use hub::{HubSetup, McpHub, ServerStatus, State};

/// Why a server could not be reached or used. Each names the server.
#[derive(Debug, thiserror::Error)]
pub enum McpError {
    #[error("{0}")]
    Config(String),
    #[error("no MCP server is named `{server}` (configured: {known})")]
    Unknown { server: String, known: String },
    #[error("MCP server `{0}` is disabled (amber mcp enable {0})")]
    Disabled(String),
    #[error("cannot start MCP server `{server}`: {reason}")]
    Start { server: String, reason: String },
    #[error("MCP server `{server}` did not answer `initialize` within {ms} ms")]
    InitTimeout { server: String, ms: u64 },
    #[error("MCP server `{server}` failed to initialize: {reason}")]
    Initialize { server: String, reason: String },
    #[error(
        "MCP server `{server}` at {url} offers only the legacy HTTP+SSE transport (protocol 2024-11-05), which amber does not speak; use its streamable HTTP endpoint, or run it over stdio"
    )]
    LegacySse { server: String, url: String },
    #[error("MCP server `{server}` answered protocol version {version}, which amber does not speak (it speaks {known})")]
    Protocol {
        server: String,
        version: String,
        known: String,
    },
    #[error("MCP server `{server}` failed to list its {what}: {reason}")]
    List {
        server: String,
        what: String,
        reason: String,
    },
    #[error("MCP server `{server}` is not restarted again: {reason}")]
    GaveUp { server: String, reason: String },
    #[error(transparent)]
    Pins(#[from] pins::PinError),
    #[error("the MCP host cannot run: {0}")]
    Runtime(String),
    #[error("serving MCP failed: {0}")]
    Serve(String),
}
