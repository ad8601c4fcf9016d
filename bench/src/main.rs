//! amber's benchmarks. `cargo xtask bench` builds this in release and runs
//! it; each figure is written as one JSON row to `$AMBER_BENCH_ROWS` (the
//! contract is in xtask/src/bench.rs), measured in the same run and the same
//! call mode as its baseline. Arguments filter benchmarks by substring.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "a benchmark whose setup fails has nothing to measure: it stops with the cause"
)]

mod authoring;
mod checkpoints;
mod commands;
mod compile;
mod compression;
mod context;
mod corpus;
mod coverage;
mod engine;
mod first_run;
mod hooks;
mod mcp;
mod mcp_quick;
mod mcp_serve;
mod measure;
mod memory;
mod parsers;
mod peers;
mod pty;
mod reload;
mod runtime;
mod rusage;
mod sandbox;
mod tools;
mod tui;
mod web;
mod wire;

// The OpenAI dialect's own decoder source, compiled natively: the baseline
// of the decode benchmark runs exactly the code the component runs.
#[allow(dead_code)]
#[path = "../../guests/provider-openai/src/chat_stream.rs"]
mod chat_stream;
#[allow(dead_code)]
#[path = "../../guests/provider-openai/src/errors.rs"]
mod errors;
#[allow(dead_code)]
#[path = "../../guests/provider-openai/src/tool_calls.rs"]
mod tool_calls;

use anyhow::Result;

/// One group of benchmarks: it writes its rows.
type Group = fn(&mut measure::Rows) -> Result<()>;

/// Each group of benchmarks, with the names a filter may match.
const GROUPS: &[(&[&str], Group)] = &[
    (&["runtime"], runtime::run),
    (&["compile"], compile::run),
    (&["context"], context::run),
    (&["commands"], commands::run),
    (&["compression", "compact"], compression::run),
    (&["wire"], wire::run),
    (&["engine", "loop"], engine::run),
    (&["tools", "grep", "read_file"], tools::run),
    (&["parse", "index"], parsers::run),
    (&["memory"], memory::run),
    (&["first_run"], first_run::run),
    (&["tui"], tui::run),
    (&["coverage"], coverage::run),
    (&["reload", "tui"], reload::run),
    (&["hooks"], hooks::run),
    (&["mcp"], mcp::run),
    (&["mcp_serve", "tool_search"], mcp_serve::run),
    (&["authoring"], authoring::run),
    (&["peers"], peers::run),
    (&["sandbox"], sandbox::run),
    (&["checkpoint", "rewind"], checkpoints::run),
    (&["web", "http", "image"], web::run),
];

fn main() -> Result<()> {
    if let Some(helped) = rusage::helper() {
        return helped;
    }
    let filters: Vec<String> = std::env::args().skip(1).collect();
    let wanted =
        |name: &str| filters.is_empty() || filters.iter().any(|f| name.contains(f.as_str()));
    let mut rows = measure::Rows::from_env()?;
    let mut ran = 0;
    for (names, run) in GROUPS {
        if names.iter().any(|n| wanted(n)) {
            run(&mut rows)?;
            ran += 1;
        }
    }
    if ran == 0 {
        let names: Vec<&str> = GROUPS.iter().flat_map(|(n, _)| n.iter().copied()).collect();
        anyhow::bail!(
            "no benchmark matched {filters:?}; a filter is a substring of a group's name: {}",
            names.join(", ")
        );
    }
    Ok(())
}
