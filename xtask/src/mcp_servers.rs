//! The real MCP servers the tests and benchmarks talk to, from npm:
//! `@modelcontextprotocol/server-everything` (every protocol feature,
//! over stdio and streamable HTTP) and `@modelcontextprotocol/server-filesystem`.
//! Installed once, at pinned versions, into `<target>/npm`.

use std::path::PathBuf;

use anyhow::Result;

/// (package, version): pinned, so a new release cannot change what the
/// tests see.
const PACKAGES: &[(&str, &str)] = &[
    ("@modelcontextprotocol/server-everything", "2026.8.31"),
    ("@modelcontextprotocol/server-filesystem", "2026.8.31"),
];

/// `<target>/npm/node_modules`, installing the servers first if missing.
pub fn ensure() -> Result<PathBuf> {
    crate::npm::ensure("npm", PACKAGES, "the MCP test servers")
}
