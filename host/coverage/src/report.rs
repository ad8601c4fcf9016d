//! `amber coverage`: per file, how many of its symbols were seen and how
//! many read whole, for the agents a prefix selects.

use std::collections::BTreeMap;

use serde::Serialize;

use crate::depth::Depth;
use crate::ledger::ContextLedger;
use crate::symbols::FileSymbols;

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FileCoverage {
    pub path: String,
    pub seen: usize,
    pub total: usize,
    pub full_body: usize,
}

impl FileCoverage {
    /// Seen symbols as a share of all, in percent.
    pub fn seen_percent(&self) -> f64 {
        percent(self.seen, self.total)
    }

    /// Symbols read whole, in percent.
    pub fn full_body_percent(&self) -> f64 {
        percent(self.full_body, self.total)
    }
}

fn percent(part: usize, whole: usize) -> f64 {
    if whole == 0 {
        0.0
    } else {
        part as f64 * 100.0 / whole as f64
    }
}

/// Coverage of every file of `tree` by the agents whose id starts with
/// `agent` (all when `None`), the deepest read of any of them counting;
/// sorted by coverage, most covered first (then by path).
pub fn report(
    ledger: &ContextLedger,
    tree: &[FileSymbols],
    agent: Option<&str>,
) -> Vec<FileCoverage> {
    let mut deepest: BTreeMap<&str, Depth> = BTreeMap::new();
    for (name, entries) in ledger.agents() {
        if agent.is_some_and(|prefix| !name.starts_with(prefix)) {
            continue;
        }
        for (symbol, entry) in entries {
            let depth = deepest.entry(symbol.as_str()).or_insert(Depth::Unseen);
            *depth = (*depth).max(entry.depth);
        }
    }
    let mut rows: Vec<FileCoverage> = tree
        .iter()
        .map(|file| {
            let units = file.units();
            let depth_of = |id: &str| deepest.get(id).copied().unwrap_or(Depth::Unseen);
            FileCoverage {
                path: file.path.clone(),
                seen: units
                    .iter()
                    .filter(|u| depth_of(&u.id) > Depth::Unseen)
                    .count(),
                total: units.len(),
                full_body: units
                    .iter()
                    .filter(|u| depth_of(&u.id) == Depth::FullBody)
                    .count(),
            }
        })
        .collect();
    rows.sort_by(|a, b| {
        b.seen_percent()
            .total_cmp(&a.seen_percent())
            .then_with(|| a.path.cmp(&b.path))
    });
    rows
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ledger::{Read, MAIN};
    use crate::symbols::SymbolInfo;

    fn file(path: &str, names: &[&str]) -> FileSymbols {
        FileSymbols {
            path: path.into(),
            content_hash: "c".into(),
            symbols: names
                .iter()
                .enumerate()
                .map(|(i, n)| SymbolInfo {
                    id: format!("{path}::{n}"),
                    name: n.to_string(),
                    line_start: i as u32 * 10 + 1,
                    line_end: i as u32 * 10 + 9,
                    hash: format!("b3:{n}"),
                })
                .collect(),
        }
    }

    #[test]
    fn a_read_file_is_whole_and_an_unread_one_is_zero() {
        let tree = [
            file("src/a.rs", &["one", "two"]),
            file("src/b.rs", &["three"]),
        ];
        let mut ledger = ContextLedger::new();
        for s in &tree[0].symbols {
            let read = Read {
                path: "src/a.rs".into(),
                symbol: s.id.clone(),
                depth: Depth::FullBody,
                hash: s.hash.clone(),
                partial: false,
            };
            ledger.record(MAIN, &read, 1);
        }
        let rows = report(&ledger, &tree, None);
        assert_eq!(
            (rows[0].path.as_str(), rows[0].seen_percent()),
            ("src/a.rs", 100.0)
        );
        assert_eq!(rows[0].full_body_percent(), 100.0);
        assert_eq!(
            (rows[1].path.as_str(), rows[1].seen_percent()),
            ("src/b.rs", 0.0)
        );
        assert_eq!(
            report(&ledger, &tree, Some("task"))[0].seen,
            0,
            "no sub-agent read it"
        );
    }
}
