//! classify (seed 003): journaled reads against the current tree. A
//! symbol is fresh (read at its current hash), stale (read, but changed
//! since, or gone from its file), and a file that no longer exists is
//! gone.

use std::collections::{BTreeMap, HashMap};

use serde::Serialize;

use crate::depth::Depth;
use crate::ledger::ContextLedger;
use crate::symbols::{FileSymbols, SymbolSource};

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Freshness {
    Fresh,
    Stale,
    /// Its file no longer exists.
    Gone,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Classified {
    pub agent: String,
    pub path: String,
    pub symbol: String,
    pub depth: Depth,
    pub turn: u32,
    pub freshness: Freshness,
}

/// Every read of the agents `agent` selects (all when `None`; a prefix
/// otherwise, so `task` selects every sub-agent), classified against
/// `source`. Each file is asked for once.
pub fn classify(
    ledger: &ContextLedger,
    agent: Option<&str>,
    source: &dyn SymbolSource,
) -> Vec<Classified> {
    // Each file asked for once, its units' hashes by id: a lookup per
    // read, not a walk of the file's symbols.
    let mut files: BTreeMap<String, Option<HashMap<String, String>>> = BTreeMap::new();
    let mut out = Vec::new();
    for (name, entries) in ledger.agents() {
        if agent.is_some_and(|prefix| !name.starts_with(prefix)) {
            continue;
        }
        for (symbol, entry) in entries {
            let file = files
                .entry(entry.path.clone())
                .or_insert_with(|| source.file(&entry.path).map(|f| hashes(&f)));
            let freshness = match file {
                None => Freshness::Gone,
                Some(hashes) => match hashes.get(symbol) {
                    Some(hash) if *hash == entry.hash => Freshness::Fresh,
                    _ => Freshness::Stale,
                },
            };
            out.push(Classified {
                agent: name.clone(),
                path: entry.path.clone(),
                symbol: symbol.clone(),
                depth: entry.depth,
                turn: entry.turn,
                freshness,
            });
        }
    }
    out
}

/// A file's units' hashes by id.
fn hashes(file: &FileSymbols) -> HashMap<String, String> {
    file.units()
        .iter()
        .map(|u| (u.id.clone(), u.hash.clone()))
        .collect()
}
