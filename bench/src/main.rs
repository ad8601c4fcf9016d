//! amber's benchmarks. `cargo xtask bench` builds this in release and runs
//! it; each figure is written as one JSON row to `$AMBER_BENCH_ROWS` (the
//! contract is in xtask/src/bench.rs), measured in the same run and the same
//! call mode as its baseline. Arguments filter benchmarks by substring.

mod measure;
mod runtime;

use anyhow::Result;

fn main() -> Result<()> {
    let filters: Vec<String> = std::env::args().skip(1).collect();
    let wanted =
        |name: &str| filters.is_empty() || filters.iter().any(|f| name.contains(f.as_str()));
    let mut rows = measure::Rows::from_env()?;
    if wanted("runtime") {
        runtime::run(&mut rows)?;
    }
    Ok(())
}
