//! Reads: one record, its history and edges, and filtered lists.

use rusqlite::{params, OptionalExtension};

use super::rows::{bad_column, edge_from_row, json_list, record_from_row, words, RECORD_COLUMNS};
use super::{ListFilter, Store};
use crate::error::{MemoryError, Result};
use crate::model::{Applicability, Edge, Record, Revision};
use crate::validate;

impl Store {
    /// Reads one record, forgotten or not.
    pub fn get(&self, id: i64) -> Result<Record> {
        self.conn
            .prepare_cached(&format!(
                "SELECT {RECORD_COLUMNS} FROM records r WHERE r.id = ?1"
            ))
            .and_then(|mut s| s.query_row([id], record_from_row).optional())
            .map_err(|e| self.sql(e))?
            .ok_or(MemoryError::NoSuchRecord(id))
    }

    pub(super) fn live(&self, id: i64) -> Result<Record> {
        let record = self.get(id)?;
        if record.is_forgotten() {
            return Err(MemoryError::Forgotten(id));
        }
        Ok(record)
    }

    /// The record's history, oldest first.
    pub fn history(&self, id: i64) -> Result<Vec<Revision>> {
        self.get(id)?;
        let mut stmt = self
            .conn
            .prepare_cached(
                "SELECT record_id, revision, change, title, content, tags, status, confidence, \
                 content_hash, actor, reason, at, type, valid_from, valid_until, paths, \
                 languages, session, model FROM revisions WHERE record_id = ?1 \
                 ORDER BY revision",
            )
            .map_err(|e| self.sql(e))?;
        let rows = stmt
            .query_map([id], |row| {
                let change: String = row.get(2)?;
                let status: String = row.get(6)?;
                Ok(Revision {
                    record_id: row.get(0)?,
                    revision: row.get(1)?,
                    change: change.parse().map_err(|e| bad_column(2, e))?,
                    title: row.get(3)?,
                    content: row.get(4)?,
                    tags: words(&row.get::<_, String>(5)?),
                    status: status.parse().map_err(|e| bad_column(6, e))?,
                    confidence: row.get(7)?,
                    content_hash: row.get(8)?,
                    actor: row.get(9)?,
                    reason: row.get(10)?,
                    at: row.get(11)?,
                    record_type: row
                        .get::<_, Option<String>>(12)?
                        .map(|t| t.parse().map_err(|e| bad_column(12, e)))
                        .transpose()?,
                    valid_from: row.get(13)?,
                    valid_until: row.get(14)?,
                    applicability: match (
                        row.get::<_, Option<String>>(15)?,
                        row.get::<_, Option<String>>(16)?,
                    ) {
                        (Some(paths), Some(languages)) => Some(Applicability {
                            paths: json_list(15, &paths)?,
                            languages: json_list(16, &languages)?,
                        }),
                        _ => None,
                    },
                    session: row.get(17)?,
                    model: row.get(18)?,
                })
            })
            .and_then(|rows| rows.collect::<rusqlite::Result<Vec<_>>>())
            .map_err(|e| self.sql(e))?;
        Ok(rows)
    }

    /// Reads one record of `namespace`. Ids are global to the database,
    /// so a command working in one project refuses another's record
    /// rather than read, revise, link or forget it by a mistyped id.
    pub fn get_in(&self, namespace: &str, id: i64) -> Result<Record> {
        let record = self.get(id)?;
        if record.namespace != namespace {
            return Err(MemoryError::OtherNamespace {
                what: "memory record",
                id,
                namespace: record.namespace,
                asked: namespace.to_string(),
            });
        }
        Ok(record)
    }

    /// Every edge into or out of `id`.
    pub fn edges(&self, id: i64) -> Result<Vec<Edge>> {
        let mut stmt = self
            .conn
            .prepare_cached(
                "SELECT src, dst, kind, at FROM edges WHERE src = ?1 OR dst = ?1 ORDER BY at, src, dst",
            )
            .map_err(|e| self.sql(e))?;
        let edges = stmt
            .query_map([id], edge_from_row)
            .and_then(|rows| rows.collect::<rusqlite::Result<Vec<_>>>())
            .map_err(|e| self.sql(e))?;
        Ok(edges)
    }

    /// Records in `namespace`, newest first.
    pub fn list(&self, namespace: &str, filter: &ListFilter) -> Result<Vec<Record>> {
        let mut sql_text = format!(
            "SELECT {RECORD_COLUMNS} FROM records r WHERE r.namespace = ?1 \
             AND (?2 IS NULL OR r.type = ?2) AND (?3 IS NULL OR r.status = ?3) \
             AND (?4 IS NULL OR instr(' ' || r.tags || ' ', ' ' || ?4 || ' ') > 0)"
        );
        if !filter.forgotten {
            sql_text.push_str(" AND r.forgotten_at IS NULL");
        }
        sql_text.push_str(" ORDER BY r.id DESC LIMIT ?5");
        let limit = filter.limit.map_or(-1, |l| l as i64);
        let tag = filter.tag.as_deref().map(validate::normal_tag);
        let mut stmt = self
            .conn
            .prepare_cached(&sql_text)
            .map_err(|e| self.sql(e))?;
        let records = stmt
            .query_map(
                params![
                    namespace,
                    filter.record_type.map(|t| t.as_str()),
                    filter.status.map(|s| s.as_str()),
                    tag,
                    limit
                ],
                record_from_row,
            )
            .and_then(|rows| rows.collect::<rusqlite::Result<Vec<_>>>())
            .map_err(|e| self.sql(e))?;
        Ok(records)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Draft, RecordType};

    use crate::store::scratch as store;

    #[test]
    fn list_filters_by_type_status_and_tag() {
        let (_dir, mut store) = store();
        let mut d = Draft::new(RecordType::Procedure, "release", "tag then push");
        d.tags = vec!["Release".into()];
        store.add("ns", d).unwrap();
        store
            .add("ns", Draft::new(RecordType::Gotcha, "g", "c"))
            .unwrap();
        let tagged = ListFilter {
            tag: Some("release".into()),
            ..ListFilter::default()
        };
        assert_eq!(store.list("ns", &tagged).unwrap().len(), 1);
        let typed = ListFilter {
            record_type: Some(RecordType::Gotcha),
            ..ListFilter::default()
        };
        assert_eq!(store.list("ns", &typed).unwrap()[0].draft.title, "g");
        assert!(store
            .list("elsewhere", &ListFilter::default())
            .unwrap()
            .is_empty());
    }
}
