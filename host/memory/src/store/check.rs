//! Verifying the database: SQLite's integrity check, the FTS5 index's,
//! and that every record is whole.

use super::{content_hash, Store};
use crate::error::{MemoryError, Result};

/// The result of [`Store::check`].
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Check {
    pub integrity: String,
    pub fts: String,
    pub records: i64,
    /// Records whose stored hash does not match their content, or that
    /// have no history row for their current revision.
    pub broken: Vec<i64>,
}

impl Check {
    pub fn ok(&self) -> bool {
        self.integrity == "ok" && self.fts == "ok" && self.broken.is_empty()
    }
}

impl Store {
    /// Checks the file (`PRAGMA integrity_check`), the FTS index, and that
    /// every record is whole: its hash matches its content and its current
    /// revision has a history row.
    pub fn check(&self) -> Result<Check> {
        let integrity: String = self
            .conn
            .query_row("PRAGMA integrity_check", [], |r| r.get(0))
            .map_err(|e| self.sql(e))?;
        let fts = match self.conn.execute(
            "INSERT INTO records_fts (records_fts, rank) VALUES ('integrity-check', 1)",
            [],
        ) {
            Ok(_) => "ok".to_string(),
            // The check is written as an insert, so it can meet a writer's
            // lock; that is not a broken index.
            Err(e) => match self.sql(e) {
                busy @ MemoryError::Busy { .. } => return Err(busy),
                other => other.to_string(),
            },
        };
        let records: i64 = self
            .conn
            .query_row("SELECT count(*) FROM records", [], |r| r.get(0))
            .map_err(|e| self.sql(e))?;
        let mut broken = Vec::new();
        let mut stmt = self
            .conn
            .prepare(
                "SELECT r.id, r.content, r.content_hash, \
                 EXISTS (SELECT 1 FROM revisions v WHERE v.record_id = r.id AND v.revision = r.revision) \
                 FROM records r",
            )
            .map_err(|e| self.sql(e))?;
        let mut rows = stmt.query([]).map_err(|e| self.sql(e))?;
        while let Some(row) = rows.next().map_err(|e| self.sql(e))? {
            let id: i64 = row.get(0).map_err(|e| self.sql(e))?;
            let content: String = row.get(1).map_err(|e| self.sql(e))?;
            let hash: Option<String> = row.get(2).map_err(|e| self.sql(e))?;
            let has_history: bool = row.get(3).map_err(|e| self.sql(e))?;
            let hash_ok = hash.is_none_or(|h| h == content_hash(&content));
            if !hash_ok || !has_history {
                broken.push(id);
            }
        }
        Ok(Check {
            integrity,
            fts,
            records,
            broken,
        })
    }
}
