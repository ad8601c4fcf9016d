//! amber as an MCP host (docs/mcp.md). Seed: "MCP session lifecycle".
//!
//! What is here so far is what every transport shares: the names amber
//! gives a server's tools ([`names`]), the cleaning of what a server says
//! before any model reads it ([`sanitize`]), and the pins that hold back a
//! tool whose description or schema changed since it was first seen
//! ([`pins`]). The transports and the lifecycle build on these.

pub mod names;
pub mod pins;
pub mod sanitize;
