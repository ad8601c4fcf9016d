//! Read coverage (issue 28): one tool call's reads into the ledger, against
//! a bare map insert of the same ids in the same run; and classify plus the
//! digest over 10,000 symbols, against a goal of 10 ms.

use std::collections::{BTreeMap, HashMap};
use std::time::Instant;

use amber_coverage::{
    classify, ContextLedger, Depth, Digest, FileSymbols, Read, SymbolInfo, SymbolSource, MAIN,
};
use anyhow::{ensure, Result};

use crate::measure::{median, Figure, Rows};

const FILES: usize = 500;
const PER_FILE: usize = 20;
/// The reads of one call: a file read whole.
const READS_PER_CALL: usize = PER_FILE;

fn tree() -> Vec<FileSymbols> {
    (0..FILES)
        .map(|f| {
            let path = format!("src/module_{f:03}.rs");
            FileSymbols {
                symbols: (0..PER_FILE)
                    .map(|s| SymbolInfo {
                        id: format!("{path}::item_{s:02}"),
                        name: format!("item_{s:02}"),
                        line_start: s as u32 * 10 + 1,
                        line_end: s as u32 * 10 + 9,
                        hash: format!("b3:{f:03}{s:02}"),
                    })
                    .collect(),
                content_hash: format!("{f}"),
                path,
            }
        })
        .collect()
}

struct Table(BTreeMap<String, FileSymbols>);

impl SymbolSource for Table {
    fn file(&self, path: &str) -> Option<FileSymbols> {
        self.0.get(path).cloned()
    }
    fn find(&self, _selector: &str) -> Vec<(String, SymbolInfo)> {
        Vec::new()
    }
}

pub fn run(rows: &mut Rows) -> Result<()> {
    let files = tree();
    let calls: Vec<Vec<Read>> = files
        .iter()
        .map(|f| {
            f.symbols
                .iter()
                .map(|s| Read {
                    path: f.path.clone(),
                    symbol: s.id.clone(),
                    depth: Depth::FullBody,
                    hash: s.hash.clone(),
                    partial: false,
                })
                .collect()
        })
        .collect();
    ensure!(calls[0].len() == READS_PER_CALL);

    // One call's reads into the ledger, against inserting the same ids
    // into a bare map; both start empty each round, interleaved.
    let mut ledger_us = Vec::new();
    let mut map_us = Vec::new();
    for round in 0..20 {
        let mut ledger = ContextLedger::new();
        let mut map: HashMap<String, (Depth, String)> = HashMap::new();
        for (i, call) in calls.iter().enumerate() {
            let start = Instant::now();
            for read in call {
                ledger.record(MAIN, read, round * 1000 + i as u32);
            }
            ledger_us.push(start.elapsed().as_secs_f64() * 1e6);
            let start = Instant::now();
            for read in call {
                map.insert(read.symbol.clone(), (read.depth, read.hash.clone()));
            }
            map_us.push(start.elapsed().as_secs_f64() * 1e6);
        }
        ensure!(map.len() == FILES * PER_FILE);
    }
    rows.push(
        Figure {
            name: "coverage_ledger_update_one_tool_call",
            unit: "us",
            value: median(ledger_us),
            baseline: Some(("bare_hashmap_insert_same_ids", median(map_us))),
            goal_value: Some(20.0),
            goal_ratio: None,
        }
        .row(),
    )?;

    // classify and the digest over 10,000 read symbols.
    let mut ledger = ContextLedger::new();
    for (i, call) in calls.iter().enumerate() {
        for read in call {
            ledger.record(MAIN, read, i as u32);
        }
    }
    let source = Table(files.iter().map(|f| (f.path.clone(), f.clone())).collect());
    let mut samples = Vec::new();
    let mut walks = Vec::new();
    for _ in 0..15 {
        let start = Instant::now();
        let reads = classify(&ledger, Some(MAIN), &source);
        let digest = Digest::build(&reads, amber_coverage::digest::DEFAULT_BUDGET);
        let text = digest.markdown();
        samples.push(start.elapsed().as_secs_f64() * 1e3);
        ensure!(reads.len() == FILES * PER_FILE && !text.is_empty());
        // The baseline: the same entries copied out, nothing compared.
        let start = Instant::now();
        let copied: Vec<(String, String)> = ledger
            .agents()
            .values()
            .flat_map(|e| e.iter().map(|(id, entry)| (id.clone(), entry.hash.clone())))
            .collect();
        walks.push(start.elapsed().as_secs_f64() * 1e3);
        ensure!(copied.len() == FILES * PER_FILE);
    }
    rows.push(
        Figure {
            name: "coverage_classify_and_digest_10000_symbols",
            unit: "ms",
            value: median(samples),
            baseline: Some(("copy_of_the_same_entries", median(walks))),
            goal_value: Some(10.0),
            goal_ratio: None,
        }
        .row(),
    )
}
