//! amber's benchmarks. `cargo xtask bench` builds this in release and runs
//! it; each figure is written as one JSON row to `$AMBER_BENCH_ROWS` (the
//! contract is in xtask/src/bench.rs), measured in the same run and the same
//! call mode as its baseline. Arguments filter benchmarks by substring.

mod compile;
mod context;
mod corpus;
mod engine;
mod measure;
mod memory;
mod parsers;
mod runtime;
mod tools;
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

fn main() -> Result<()> {
    let filters: Vec<String> = std::env::args().skip(1).collect();
    let wanted =
        |name: &str| filters.is_empty() || filters.iter().any(|f| name.contains(f.as_str()));
    let mut rows = measure::Rows::from_env()?;
    if wanted("runtime") {
        runtime::run(&mut rows)?;
    }
    if wanted("compile") {
        compile::run(&mut rows)?;
    }
    if wanted("context") {
        context::run(&mut rows)?;
    }
    if wanted("wire") {
        wire::run(&mut rows)?;
    }
    if wanted("engine") || wanted("loop") {
        engine::run(&mut rows)?;
    }
    if wanted("tools") || wanted("grep") || wanted("read_file") {
        tools::run(&mut rows)?;
    }
    if wanted("parse") || wanted("index") {
        parsers::run(&mut rows)?;
    }
    if wanted("memory") {
        memory::run(&mut rows)?;
    }
    Ok(())
}
