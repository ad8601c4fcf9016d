//! Rows to values: the one place that knows the column order of
//! `records` and `edges` and how lists are stored.

use rusqlite::Row;

use crate::error::MemoryError;
use crate::model::{Applicability, Draft, Edge, Provenance, Record};

/// The columns of `records`, in the order [`record_from_row`] reads them.
pub(crate) const RECORD_COLUMNS: &str = "r.id, r.namespace, r.type, r.title, r.content, r.tags, \
    r.actor, r.session, r.model, r.confidence, r.status, r.valid_from, r.valid_until, r.paths, \
    r.languages, r.content_hash, r.evidence, r.tokens, r.revision, r.created_at, r.updated_at, \
    r.forgotten_at";

pub(crate) fn bad_column(index: usize, e: MemoryError) -> rusqlite::Error {
    rusqlite::Error::FromSqlConversionFailure(index, rusqlite::types::Type::Text, Box::new(e))
}

pub(crate) fn words(text: &str) -> Vec<String> {
    text.split_whitespace().map(str::to_string).collect()
}

/// A column holding a JSON list, read as `Vec<T>`.
pub(crate) fn json_list<T: serde::de::DeserializeOwned>(
    index: usize,
    text: &str,
) -> rusqlite::Result<Vec<T>> {
    serde_json::from_str(text).map_err(|e| {
        rusqlite::Error::FromSqlConversionFailure(index, rusqlite::types::Type::Text, Box::new(e))
    })
}

pub(crate) fn record_from_row(row: &Row<'_>) -> rusqlite::Result<Record> {
    let parse = |index: usize| -> rusqlite::Result<String> { row.get(index) };
    Ok(Record {
        id: row.get(0)?,
        namespace: row.get(1)?,
        draft: Draft {
            record_type: parse(2)?.parse().map_err(|e| bad_column(2, e))?,
            title: row.get(3)?,
            content: row.get(4)?,
            tags: words(&parse(5)?),
            provenance: Provenance {
                actor: row.get(6)?,
                session: row.get(7)?,
                model: row.get(8)?,
            },
            confidence: row.get(9)?,
            status: parse(10)?.parse().map_err(|e| bad_column(10, e))?,
            valid_from: row.get(11)?,
            valid_until: row.get(12)?,
            applicability: Applicability {
                paths: json_list(13, &parse(13)?)?,
                languages: json_list(14, &parse(14)?)?,
            },
        },
        content_hash: row.get(15)?,
        evidence: row.get(16)?,
        tokens: row.get(17)?,
        revision: row.get(18)?,
        created_at: row.get(19)?,
        updated_at: row.get(20)?,
        forgotten_at: row.get(21)?,
    })
}

pub(crate) fn edge_from_row(row: &Row<'_>) -> rusqlite::Result<Edge> {
    let kind: String = row.get(2)?;
    Ok(Edge {
        from: row.get(0)?,
        to: row.get(1)?,
        kind: kind.parse().map_err(|e| bad_column(2, e))?,
        at: row.get(3)?,
    })
}

pub(crate) fn json(list: &[String]) -> String {
    serde_json::to_string(list).unwrap_or_else(|_| "[]".into())
}
