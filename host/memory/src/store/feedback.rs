//! Feedback on recall receipts: stored as evidence for review, never
//! acted on automatically (seed 004: no autonomous learning).

use rusqlite::{params, OptionalExtension};

use super::rows::{bad_column, json_list};
use super::{now, Store};
use crate::error::{MemoryError, Result};
use crate::model::{Feedback, Receipt, Verdict};
use crate::validate;
use serde::Deserialize;

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
        let found = self.receipt(receipt)?;
        let returned = found.returned;
        let held: Vec<i64> = found.held_back.iter().map(|(id, _)| *id).collect();
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
            .prepare_cached(&format!(
                "SELECT {RECEIPT_COLUMNS} FROM receipts \
                     WHERE namespace = ?1 ORDER BY id DESC LIMIT ?2"
            ))
            .map_err(|e| self.sql(e))?;
        let rows = stmt
            .query_map(params![namespace, limit as i64], receipt_from_row)
            .and_then(|rows| rows.collect::<rusqlite::Result<Vec<_>>>())
            .map_err(|e| self.sql(e))?;
        Ok(rows)
    }

    /// The namespace a recall receipt was made in.
    pub fn receipt_namespace(&self, receipt: i64) -> Result<String> {
        Ok(self.receipt(receipt)?.namespace)
    }

    /// One receipt, or [`MemoryError::NoSuchReceipt`].
    fn receipt(&self, receipt: i64) -> Result<Receipt> {
        self.conn
            .query_row(
                &format!("SELECT {RECEIPT_COLUMNS} FROM receipts WHERE id = ?1"),
                [receipt],
                receipt_from_row,
            )
            .optional()
            .map_err(|e| self.sql(e))?
            .ok_or(MemoryError::NoSuchReceipt(receipt))
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

/// The columns of `receipts`, in the order [`receipt_from_row`] reads them.
const RECEIPT_COLUMNS: &str = "id, namespace, returned, suppressed, at";

/// A held-back entry as recall stores it (its revision is not needed here).
#[derive(Deserialize)]
struct HeldBack {
    id: i64,
    reason: String,
}

fn receipt_from_row(row: &rusqlite::Row<'_>) -> rusqlite::Result<Receipt> {
    let held: Vec<HeldBack> = json_list(3, &row.get::<_, String>(3)?)?;
    Ok(Receipt {
        id: row.get(0)?,
        namespace: row.get(1)?,
        returned: json_list(2, &row.get::<_, String>(2)?)?,
        held_back: held.into_iter().map(|h| (h.id, h.reason)).collect(),
        at: row.get(4)?,
    })
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
