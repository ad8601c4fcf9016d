//! Feedback on recall receipts: stored as evidence for review, never
//! acted on automatically (seed 004: no autonomous learning).

use rusqlite::{params, OptionalExtension};

use super::rows::bad_column;
use super::{now, Store};
use crate::error::{MemoryError, Result};
use crate::model::{Feedback, Receipt, Verdict};
use crate::validate;

impl Store {
    /// Stores a verdict on a recall receipt. It changes no record and no
    /// ranking: it is evidence for a human to review. A record named must
    /// be one the receipt returned or held back: feedback is about what a
    /// recall did.
    pub fn feedback(
        &mut self,
        receipt: i64,
        record: Option<i64>,
        verdict: Verdict,
        note: Option<&str>,
    ) -> Result<Feedback> {
        validate::note("note", note)?;
        let (returned, held) = self.receipt_lists(receipt)?;
        if let Some(id) = record {
            self.get(id)?;
            if !returned.contains(&id) && !held.contains(&id) {
                let list = |ids: &[i64]| {
                    ids.iter()
                        .map(|i| format!("#{i}"))
                        .collect::<Vec<_>>()
                        .join(", ")
                };
                return Err(MemoryError::invalid(
                    "record",
                    format!(
                        "memory #{id} was not in recall receipt {receipt}, which returned [{}] and held back [{}]",
                        list(&returned),
                        list(&held)
                    ),
                ));
            }
        }
        let at = now();
        self.conn
            .execute(
                "INSERT INTO feedback (receipt_id, record_id, verdict, note, at) VALUES (?1, ?2, ?3, ?4, ?5)",
                params![receipt, record, verdict.as_str(), note, at],
            )
            .map_err(|e| self.sql(e))?;
        Ok(Feedback {
            id: self.conn.last_insert_rowid(),
            receipt,
            record,
            verdict,
            note: note.map(str::to_string),
            at,
        })
    }

    /// The newest `limit` receipts of `namespace`, newest first: how a
    /// turn's recall (which the prompt block makes without printing) is
    /// found again to give it feedback.
    pub fn receipts(&self, namespace: &str, limit: usize) -> Result<Vec<Receipt>> {
        let mut stmt = self
            .conn
            .prepare_cached(
                "SELECT id, namespace, returned, suppressed, at FROM receipts \
                 WHERE namespace = ?1 ORDER BY id DESC LIMIT ?2",
            )
            .map_err(|e| self.sql(e))?;
        let rows = stmt
            .query_map(params![namespace, limit as i64], |row| {
                let returned: String = row.get(2)?;
                let held: String = row.get(3)?;
                let held: Vec<serde_json::Value> =
                    serde_json::from_str(&held).map_err(|e| bad_json(3, e))?;
                Ok(Receipt {
                    id: row.get(0)?,
                    namespace: row.get(1)?,
                    returned: serde_json::from_str(&returned).map_err(|e| bad_json(2, e))?,
                    held_back: held
                        .iter()
                        .filter_map(|s| {
                            Some((s["id"].as_i64()?, s["reason"].as_str()?.to_string()))
                        })
                        .collect(),
                    at: row.get(4)?,
                })
            })
            .and_then(|rows| rows.collect::<rusqlite::Result<Vec<_>>>())
            .map_err(|e| self.sql(e))?;
        Ok(rows)
    }

    /// The namespace a recall receipt was made in.
    pub fn receipt_namespace(&self, receipt: i64) -> Result<String> {
        self.conn
            .query_row(
                "SELECT namespace FROM receipts WHERE id = ?1",
                [receipt],
                |r| r.get(0),
            )
            .optional()
            .map_err(|e| self.sql(e))?
            .ok_or(MemoryError::NoSuchReceipt(receipt))
    }

    /// The ids a receipt returned, and those it held back.
    fn receipt_lists(&self, receipt: i64) -> Result<(Vec<i64>, Vec<i64>)> {
        let (returned, held): (String, String) = self
            .conn
            .query_row(
                "SELECT returned, suppressed FROM receipts WHERE id = ?1",
                [receipt],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .optional()
            .map_err(|e| self.sql(e))?
            .ok_or(MemoryError::NoSuchReceipt(receipt))?;
        let returned: Vec<i64> = serde_json::from_str(&returned).unwrap_or_default();
        let held: Vec<serde_json::Value> = serde_json::from_str(&held).unwrap_or_default();
        let held = held.iter().filter_map(|s| s["id"].as_i64()).collect();
        Ok((returned, held))
    }

    /// Feedback stored on `receipt`, oldest first.
    pub fn feedback_on(&self, receipt: i64) -> Result<Vec<Feedback>> {
        let mut stmt = self
            .conn
            .prepare_cached(
                "SELECT id, receipt_id, record_id, verdict, note, at FROM feedback \
                 WHERE receipt_id = ?1 ORDER BY id",
            )
            .map_err(|e| self.sql(e))?;
        let rows = stmt
            .query_map([receipt], |row| {
                let verdict: String = row.get(3)?;
                Ok(Feedback {
                    id: row.get(0)?,
                    receipt: row.get(1)?,
                    record: row.get(2)?,
                    verdict: verdict.parse().map_err(|e| bad_column(3, e))?,
                    note: row.get(4)?,
                    at: row.get(5)?,
                })
            })
            .and_then(|rows| rows.collect::<rusqlite::Result<Vec<_>>>())
            .map_err(|e| self.sql(e))?;
        Ok(rows)
    }
}

/// A receipt column that no longer holds the JSON list it was written as.
fn bad_json(index: usize, e: serde_json::Error) -> rusqlite::Error {
    rusqlite::Error::FromSqlConversionFailure(index, rusqlite::types::Type::Text, Box::new(e))
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::store::scratch as store;

    #[test]
    fn feedback_needs_a_real_receipt_and_changes_no_record() {
        let (_dir, mut store) = store();
        assert!(matches!(
            store.feedback(7, None, Verdict::Helpful, None),
            Err(MemoryError::NoSuchReceipt(7))
        ));
    }
}
