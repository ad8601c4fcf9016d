//! Governed task-memory assembly (seed 004: "Lifecycle-aware recall and
//! governed task memory"): turns one recall into the report the compiler
//! takes. Records go to the section of their type, except a record that
//! contradicts or supersedes a selected one, which goes to `corrective`
//! (pulled in even when the query did not match it, if it is eligible).
//! Suppression facts travel along so the manifest can say why a record
//! is absent. This is a derived view: it reads the store and writes
//! nothing.

use std::collections::HashSet;

use crate::compiler::input::{
    memory_reference, GovernedSuppression, MemoryItem, Section, TaskMemory,
};
use crate::eligibility::judge;
use crate::error::Result;
use crate::model::Record;
use crate::recall::{Recall, RecallQuery};
use crate::store::{edge_from_row, Store};

fn item(record: &Record, section: Section) -> MemoryItem {
    MemoryItem {
        record: record.id,
        revision: record.revision,
        section,
        title: record.draft.title.clone(),
        content: record.draft.content.clone(),
        tokens: usize::try_from(record.tokens).ok(),
    }
}

impl Store {
    /// The records whose edges contradict or supersede `id`.
    fn correcting(&self, id: i64) -> Result<Vec<i64>> {
        let mut stmt = self
            .conn
            .prepare_cached(
                "SELECT src, dst, kind, at FROM edges WHERE dst = ?1 \
                 AND kind IN ('contradicts', 'supersedes') ORDER BY src",
            )
            .map_err(|e| self.sql(e))?;
        let edges = stmt
            .query_map([id], edge_from_row)
            .and_then(|rows| rows.collect::<rusqlite::Result<Vec<_>>>())
            .map_err(|e| self.sql(e))?;
        Ok(edges.into_iter().map(|e| e.from).collect())
    }

    /// The governed task-memory report for `recall`, made under `query`.
    pub fn task_memory(&self, query: &RecallQuery, recall: &Recall) -> Result<TaskMemory> {
        let selected: HashSet<i64> = recall.hits.iter().map(|h| h.record.id).collect();
        let mut corrective_ids: Vec<i64> = Vec::new();
        for hit in &recall.hits {
            for by in self.correcting(hit.record.id)? {
                if !corrective_ids.contains(&by) {
                    corrective_ids.push(by);
                }
            }
        }
        let mut items: Vec<MemoryItem> = recall
            .hits
            .iter()
            .map(|h| {
                let section = if corrective_ids.contains(&h.record.id) {
                    Section::Corrective
                } else {
                    Section::for_type(h.record.draft.record_type)
                };
                item(&h.record, section)
            })
            .collect();
        let mut suppressed: Vec<GovernedSuppression> = recall
            .suppressed
            .iter()
            .map(|s| GovernedSuppression {
                reference: memory_reference(s.id, s.revision),
                reason: s.reason.to_string(),
            })
            .collect();
        let situation = query.situation();
        for id in corrective_ids
            .into_iter()
            .filter(|id| !selected.contains(id))
        {
            let record = self.get(id)?;
            if record.is_forgotten() || record.namespace != query.namespace {
                continue;
            }
            match judge(&record, self.superseded_by(id)?, &situation) {
                Ok(()) => items.push(item(&record, Section::Corrective)),
                Err(reason) => suppressed.push(GovernedSuppression {
                    reference: memory_reference(record.id, record.revision),
                    reason: reason.to_string(),
                }),
            }
        }
        Ok(TaskMemory { items, suppressed })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Draft, EdgeKind, RecordType};

    #[test]
    fn types_map_to_sections_and_contradictions_become_corrective() {
        let dir = tempfile::tempdir().unwrap();
        let mut store = Store::open_in(dir.path()).unwrap();
        let mut add = |t, title: &str, content: &str| {
            store.add("ns", Draft::new(t, title, content)).unwrap().id
        };
        let proc_id = add(
            RecordType::Procedure,
            "bench",
            "Run the bench with cargo xtask bench.",
        );
        let note = add(
            RecordType::DomainNote,
            "bench rows",
            "Bench rows go to AMBER_BENCH_ROWS.",
        );
        // Matches nothing in the query, but contradicts a selected record.
        let fix = add(
            RecordType::Gotcha,
            "correction",
            "Pass a filter to run one group only.",
        );
        store.link(fix, proc_id, EdgeKind::Contradicts).unwrap();
        let query = RecallQuery::new("ns", "bench rows xtask");
        let recall = store.recall(&query).unwrap();
        assert!(recall.hits.iter().all(|h| h.record.id != fix));
        let report = store.task_memory(&query, &recall).unwrap();
        let sections: Vec<(i64, Section)> =
            report.items.iter().map(|i| (i.record, i.section)).collect();
        assert!(sections.contains(&(proc_id, Section::Procedure)));
        assert!(sections.contains(&(note, Section::Domain)));
        assert!(
            sections.contains(&(fix, Section::Corrective)),
            "{sections:?}"
        );
        assert!(report.items.iter().all(|i| i.tokens.is_some()));
    }
}
