//! The ContextLedger (seed 003): symbol id → read depth, per agent. Each
//! entry remembers the hash the symbol had when it was read and the turn.
//! A read never lowers a depth; a deeper read of a changed symbol moves
//! the entry to the new hash. What changed since the last diff goes to the
//! journal at the end of each turn.

use std::collections::{BTreeMap, BTreeSet};

use serde::{Deserialize, Serialize};

use crate::depth::Depth;

/// The agent a read belongs to: `main`, or a sub-agent's id.
pub const MAIN: &str = "main";

/// One symbol read at a depth.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Read {
    pub path: String,
    pub symbol: String,
    pub depth: Depth,
    pub hash: String,
    /// Only part of it was shown (a line range over part of its body):
    /// a look at it, which never counts as having it in context.
    pub partial: bool,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Entry {
    pub path: String,
    pub depth: Depth,
    /// The symbol's hash when it was read at this depth.
    pub hash: String,
    pub turn: u32,
}

/// One line of the journal.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "t", rename_all = "snake_case")]
pub enum Record {
    /// An entry as it is now (the ledger's diff: new or deeper reads).
    Read {
        agent: String,
        symbol: String,
        #[serde(flatten)]
        entry: Entry,
    },
    /// The context was compacted after `turn`: reads before it are no
    /// longer in the model's context (the digest restores them).
    Compacted { turn: u32 },
    /// The session's context was cleared: nothing read is in it.
    Cleared { turn: u32 },
    /// A call of a tool no mapping covers (counted by `amber coverage`).
    Unmapped { tool: String, turn: u32 },
}

#[derive(Debug, Default, Clone)]
pub struct ContextLedger {
    agents: BTreeMap<String, BTreeMap<String, Entry>>,
    /// (agent, symbol) changed since the last diff.
    changed: BTreeSet<(String, String)>,
    /// Markers since the last diff, in order.
    markers: Vec<Record>,
    /// The turn of the last compaction: the main agent's reads after it
    /// are in its context. (Only the main agent compacts; a sub-agent's
    /// context is its own, and lives as long as its task.)
    compacted_after: Option<u32>,
}

impl ContextLedger {
    pub fn new() -> Self {
        Self::default()
    }

    /// Records `read` by `agent` in `turn`; returns whether the ledger
    /// changed. Never lowers a depth: a shallower read of a symbol that
    /// changed since keeps the deeper entry (which classify then calls
    /// stale).
    pub fn record(&mut self, agent: &str, read: &Read, turn: u32) -> bool {
        if read.depth == Depth::Unseen {
            return false;
        }
        let compacted = self.compaction_of(agent);
        let entries = self.agents.entry(agent.to_string()).or_default();
        let changed = match entries.get_mut(&read.symbol) {
            None => {
                entries.insert(
                    read.symbol.clone(),
                    Entry {
                        path: read.path.clone(),
                        depth: read.depth,
                        hash: read.hash.clone(),
                        turn,
                    },
                );
                true
            }
            Some(entry) if entry.hash == read.hash => {
                if read.depth > entry.depth {
                    entry.depth = read.depth;
                    entry.turn = turn;
                    true
                } else if read.depth == entry.depth && compacted.is_some_and(|c| entry.turn <= c) {
                    // Read again as deeply after a compaction: in the
                    // context again (a shallower look brings back no body).
                    entry.turn = turn;
                    true
                } else {
                    false
                }
            }
            Some(entry) => {
                // Changed since it was read: a read at least as deep is a
                // read of the new version.
                if read.depth >= entry.depth {
                    *entry = Entry {
                        path: read.path.clone(),
                        depth: read.depth,
                        hash: read.hash.clone(),
                        turn,
                    };
                    true
                } else {
                    false
                }
            }
        };
        if changed {
            self.changed
                .insert((agent.to_string(), read.symbol.clone()));
        }
        changed
    }

    /// A call of `tool`, which no mapping covers, in `turn`.
    pub fn unmapped(&mut self, tool: &str, turn: u32) {
        self.markers.push(Record::Unmapped {
            tool: tool.to_string(),
            turn,
        });
    }

    /// The context was compacted at the end of `turn`.
    pub fn compacted(&mut self, turn: u32) {
        self.compacted_after = Some(turn);
        self.markers.push(Record::Compacted { turn });
    }

    /// The context was cleared (a new context, same session): nothing is
    /// read any more.
    pub fn cleared(&mut self, turn: u32) {
        self.agents.clear();
        self.changed.clear();
        self.compacted_after = None;
        self.markers.push(Record::Cleared { turn });
    }

    pub fn get(&self, agent: &str, symbol: &str) -> Option<&Entry> {
        self.agents.get(agent)?.get(symbol)
    }

    /// Every agent's entries.
    pub fn agents(&self) -> &BTreeMap<String, BTreeMap<String, Entry>> {
        &self.agents
    }

    /// The compaction that bounds `agent`'s context: the main agent's.
    fn compaction_of(&self, agent: &str) -> Option<u32> {
        if agent == MAIN {
            self.compacted_after
        } else {
            None
        }
    }

    /// The turn of the last compaction, if any.
    pub fn compacted_after(&self) -> Option<u32> {
        self.compacted_after
    }

    /// Whether `agent` read `symbol` at `hash`, at least at `depth`, since
    /// the last compaction: the entry, when so (what an annotation says).
    pub fn read_in_context(
        &self,
        agent: &str,
        symbol: &str,
        hash: &str,
        depth: Depth,
    ) -> Option<&Entry> {
        let entry = self.get(agent, symbol)?;
        let in_context = self.compaction_of(agent).is_none_or(|c| entry.turn > c);
        (entry.hash == hash && entry.depth >= depth && in_context).then_some(entry)
    }

    /// What changed since the last diff, as journal records: markers
    /// first, then entries as they are now.
    pub fn diff(&mut self) -> Vec<Record> {
        let mut records = std::mem::take(&mut self.markers);
        for (agent, symbol) in std::mem::take(&mut self.changed) {
            if let Some(entry) = self.get(&agent, &symbol) {
                records.push(Record::Read {
                    agent,
                    symbol,
                    entry: entry.clone(),
                });
            }
        }
        records
    }

    /// Rebuilds from journal records (a resumed session), in order; the
    /// result has nothing left to diff.
    pub fn replay<'a>(records: impl IntoIterator<Item = &'a Record>) -> Self {
        let mut ledger = ContextLedger::new();
        for record in records {
            match record {
                Record::Read {
                    agent,
                    symbol,
                    entry,
                } => {
                    ledger
                        .agents
                        .entry(agent.clone())
                        .or_default()
                        .insert(symbol.clone(), entry.clone());
                }
                Record::Compacted { turn } => ledger.compacted_after = Some(*turn),
                Record::Cleared { .. } => {
                    ledger.agents.clear();
                    ledger.compacted_after = None;
                }
                Record::Unmapped { .. } => {}
            }
        }
        ledger
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(symbol: &str, depth: Depth, hash: &str) -> Read {
        Read {
            path: "src/a.rs".into(),
            symbol: symbol.into(),
            depth,
            hash: hash.into(),
            partial: false,
        }
    }

    #[test]
    fn a_read_never_lowers_a_depth() {
        let mut ledger = ContextLedger::new();
        assert!(ledger.record(MAIN, &read("f", Depth::NameOnly, "h1"), 1));
        assert!(ledger.record(MAIN, &read("f", Depth::FullBody, "h1"), 2));
        assert!(!ledger.record(MAIN, &read("f", Depth::NameOnly, "h1"), 3));
        let entry = ledger.get(MAIN, "f").unwrap();
        assert_eq!((entry.depth, entry.turn), (Depth::FullBody, 2));
    }

    #[test]
    fn a_changed_symbol_moves_only_with_a_read_as_deep() {
        let mut ledger = ContextLedger::new();
        ledger.record(MAIN, &read("f", Depth::FullBody, "h1"), 1);
        assert!(!ledger.record(MAIN, &read("f", Depth::NameOnly, "h2"), 2));
        assert_eq!(
            ledger.get(MAIN, "f").unwrap().hash,
            "h1",
            "still the old read"
        );
        assert!(ledger.record(MAIN, &read("f", Depth::FullBody, "h2"), 3));
        assert_eq!(ledger.get(MAIN, "f").unwrap().hash, "h2");
    }

    #[test]
    fn agents_are_tracked_apart() {
        let mut ledger = ContextLedger::new();
        ledger.record("task-1", &read("f", Depth::FullBody, "h1"), 1);
        assert!(ledger.get(MAIN, "f").is_none());
        assert_eq!(ledger.get("task-1", "f").unwrap().depth, Depth::FullBody);
    }

    #[test]
    fn the_diff_holds_what_changed_once_and_replay_rebuilds_the_ledger() {
        let mut ledger = ContextLedger::new();
        ledger.record(MAIN, &read("f", Depth::Overview, "h1"), 1);
        ledger.record(MAIN, &read("g", Depth::FullBody, "h2"), 1);
        let first = ledger.diff();
        assert_eq!(first.len(), 2);
        assert!(ledger.diff().is_empty(), "nothing changed since");
        ledger.record(MAIN, &read("f", Depth::FullBody, "h1"), 2);
        ledger.compacted(2);
        let second = ledger.diff();
        assert!(matches!(second[0], Record::Compacted { turn: 2 }));
        let all: Vec<Record> = first.into_iter().chain(second).collect();
        let replayed = ContextLedger::replay(&all);
        assert_eq!(replayed.agents(), ledger.agents());
        assert_eq!(replayed.compacted_after(), Some(2));
    }

    #[test]
    fn only_reads_since_the_last_compaction_are_in_context() {
        let mut ledger = ContextLedger::new();
        ledger.record(MAIN, &read("f", Depth::FullBody, "h1"), 1);
        assert!(ledger
            .read_in_context(MAIN, "f", "h1", Depth::Signature)
            .is_some());
        assert!(ledger
            .read_in_context(MAIN, "f", "h2", Depth::Signature)
            .is_none());
        ledger.compacted(1);
        assert!(ledger
            .read_in_context(MAIN, "f", "h1", Depth::Signature)
            .is_none());
        // A grep after the compaction brings back no body.
        ledger.record(MAIN, &read("f", Depth::NameOnly, "h1"), 2);
        assert!(ledger
            .read_in_context(MAIN, "f", "h1", Depth::NameOnly)
            .is_none());
        // Read again after the compaction: in context again.
        assert!(ledger.record(MAIN, &read("f", Depth::FullBody, "h1"), 2));
        assert!(ledger
            .read_in_context(MAIN, "f", "h1", Depth::FullBody)
            .is_some());
        // A sub-agent's reads are not in the main agent's compaction.
        ledger.record("task-1", &read("g", Depth::FullBody, "h9"), 1);
        assert!(ledger
            .read_in_context("task-1", "g", "h9", Depth::FullBody)
            .is_some());
        ledger.cleared(3);
        assert!(ledger.get(MAIN, "f").is_none());
    }
}
