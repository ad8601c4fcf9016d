//! The durable store (seed 004: "Durable engineering memory — records,
//! revisions, lifecycle history"). One SQLite file in WAL mode. Every
//! write is one immediate transaction that changes the record and appends
//! its history row together, so a crash leaves the whole change or none
//! of it, and nothing changes in place without a revision row.

use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use rusqlite::{params, Connection, OptionalExtension, Row, Transaction, TransactionBehavior};

use crate::error::{sql, MemoryError, Result};
use crate::model::{
    Applicability, ChangeKind, Draft, Edge, EdgeKind, Feedback, Provenance, Record, Revision,
    Status, Verdict,
};
use crate::schema::{self, Migration, SCHEMA_VERSION};
use crate::{tokens, validate};

/// The file name of the database inside amber's data dir.
pub const DATABASE_FILE: &str = "memory.db";

/// How long a writer waits for another process's write lock before it
/// reports [`MemoryError::Busy`].
pub const BUSY_TIMEOUT: Duration = Duration::from_secs(5);

/// The text of a memory as the compiler renders it; its token count is
/// stored at write time so compiling never re-counts unchanged records.
pub fn memory_text(title: &str, content: &str) -> String {
    format!("- {title}: {content}\n")
}

/// The columns of `records`, in the order [`record_from_row`] reads them.
pub(crate) const RECORD_COLUMNS: &str = "r.id, r.namespace, r.type, r.title, r.content, r.tags, \
    r.actor, r.session, r.model, r.confidence, r.status, r.valid_from, r.valid_until, r.paths, \
    r.languages, r.content_hash, r.evidence, r.tokens, r.revision, r.created_at, r.updated_at, \
    r.forgotten_at";

fn bad_column(index: usize, e: MemoryError) -> rusqlite::Error {
    rusqlite::Error::FromSqlConversionFailure(index, rusqlite::types::Type::Text, Box::new(e))
}

fn words(text: &str) -> Vec<String> {
    text.split_whitespace().map(str::to_string).collect()
}

fn json_list(index: usize, text: &str) -> rusqlite::Result<Vec<String>> {
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

/// Seconds since the epoch.
pub fn now() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs() as i64)
}

/// blake3 of a record's content: the deduplication key.
pub fn content_hash(content: &str) -> String {
    blake3::hash(content.as_bytes()).to_hex().to_string()
}

/// What [`Store::add`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct Added {
    pub id: i64,
    /// False when the content was already stored and only its evidence
    /// count went up.
    pub created: bool,
    pub evidence: i64,
}

/// Which records [`Store::list`] returns.
#[derive(Debug, Clone, Default)]
pub struct ListFilter {
    pub record_type: Option<crate::model::RecordType>,
    pub status: Option<Status>,
    pub tag: Option<String>,
    /// Include tombstones of forgotten records.
    pub forgotten: bool,
    pub limit: Option<usize>,
}

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

pub struct Store {
    pub(crate) conn: Connection,
    pub(crate) path: PathBuf,
}

impl Store {
    /// Opens (creating if needed) `memory.db` in `data_dir`.
    pub fn open_in(data_dir: &Path) -> Result<Store> {
        std::fs::create_dir_all(data_dir).map_err(|source| MemoryError::CreateDir {
            path: data_dir.to_path_buf(),
            source,
        })?;
        Store::open(&data_dir.join(DATABASE_FILE))
    }

    /// Opens (creating if needed) the database at `path`, in WAL mode
    /// with foreign keys on, and migrates it forward.
    pub fn open(path: &Path) -> Result<Store> {
        let open_err = |source| MemoryError::Open {
            path: path.to_path_buf(),
            source,
        };
        let mut conn = Connection::open(path).map_err(open_err)?;
        conn.busy_timeout(BUSY_TIMEOUT).map_err(open_err)?;
        // WAL lets readers go on while one process writes; NORMAL sync is
        // durable against a killed process (only power loss can drop the
        // newest commits), and keeps a store well under a millisecond.
        conn.pragma_update(None, "journal_mode", "WAL")
            .map_err(|e| sql(path, e))?;
        conn.pragma_update(None, "synchronous", "NORMAL")
            .map_err(|e| sql(path, e))?;
        conn.pragma_update(None, "foreign_keys", "ON")
            .map_err(|e| sql(path, e))?;
        match schema::migrate(&mut conn).map_err(|e| sql(path, e))? {
            Migration::TooNew { found } => {
                return Err(MemoryError::SchemaTooNew {
                    path: path.to_path_buf(),
                    found,
                    known: SCHEMA_VERSION,
                })
            }
            Migration::Current | Migration::Upgraded { .. } => {}
        }
        Ok(Store {
            conn,
            path: path.to_path_buf(),
        })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    pub(crate) fn sql(&self, e: rusqlite::Error) -> MemoryError {
        sql(&self.path, e)
    }

    fn write(&mut self) -> Result<Transaction<'_>> {
        let path = self.path.clone();
        self.conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(|e| sql(&path, e))
    }

    /// Stores `draft` in `namespace`. The same content again only bumps
    /// the existing record's evidence count (with a history row).
    pub fn add(&mut self, namespace: &str, draft: Draft) -> Result<Added> {
        let draft = validate::draft(draft)?;
        let hash = content_hash(&draft.content);
        let tokens = tokens::count(&memory_text(&draft.title, &draft.content))? as i64;
        let at = now();
        let path = self.path.clone();
        let tx = self.write()?;
        let added = add_in(&tx, namespace, &draft, &hash, tokens, at).map_err(|e| sql(&path, e))?;
        tx.commit().map_err(|e| sql(&path, e))?;
        Ok(added)
    }

    /// Stores many drafts in one transaction: all of them or none. What
    /// each did is returned in order; the first invalid draft stops the
    /// batch before anything is written.
    pub fn add_many(&mut self, namespace: &str, drafts: Vec<Draft>) -> Result<Vec<Added>> {
        let mut prepared = Vec::with_capacity(drafts.len());
        for draft in drafts {
            let draft = validate::draft(draft)?;
            let hash = content_hash(&draft.content);
            let tokens = tokens::count(&memory_text(&draft.title, &draft.content))? as i64;
            prepared.push((draft, hash, tokens));
        }
        let at = now();
        let path = self.path.clone();
        let tx = self.write()?;
        let mut out = Vec::with_capacity(prepared.len());
        for (draft, hash, tokens) in &prepared {
            out.push(add_in(&tx, namespace, draft, hash, *tokens, at).map_err(|e| sql(&path, e))?);
        }
        tx.commit().map_err(|e| sql(&path, e))?;
        Ok(out)
    }

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

    fn live(&self, id: i64) -> Result<Record> {
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
                 content_hash, actor, reason, at FROM revisions WHERE record_id = ?1 \
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
                })
            })
            .and_then(|rows| rows.collect::<rusqlite::Result<Vec<_>>>())
            .map_err(|e| self.sql(e))?;
        Ok(rows)
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

    /// Replaces the writable fields of `id` with `draft`, as a new
    /// revision; the old one stays in the history.
    pub fn revise(&mut self, id: i64, draft: Draft, reason: Option<&str>) -> Result<Record> {
        let draft = validate::draft(draft)?;
        let hash = content_hash(&draft.content);
        let tokens = tokens::count(&memory_text(&draft.title, &draft.content))? as i64;
        let current = self.live(id)?;
        let at = now();
        let path = self.path.clone();
        let tx = self.write()?;
        let clash: Option<i64> = tx
            .query_row(
                "SELECT id FROM records WHERE namespace = ?1 AND content_hash = ?2 AND id <> ?3",
                params![current.namespace, hash, id],
                |r| r.get(0),
            )
            .optional()
            .map_err(|e| sql(&path, e))?;
        if let Some(existing) = clash {
            return Err(MemoryError::DuplicateContent { existing });
        }
        let a = &draft.applicability;
        tx.execute(
            "UPDATE records SET type = ?2, title = ?3, content = ?4, tags = ?5, actor = ?6, \
             session = ?7, model = ?8, confidence = ?9, status = ?10, valid_from = ?11, \
             valid_until = ?12, paths = ?13, languages = ?14, content_hash = ?15, tokens = ?16, \
             revision = revision + 1, updated_at = ?17 WHERE id = ?1",
            params![
                id,
                draft.record_type.as_str(),
                draft.title,
                draft.content,
                draft.tags.join(" "),
                draft.provenance.actor,
                draft.provenance.session,
                draft.provenance.model,
                draft.confidence,
                draft.status.as_str(),
                draft.valid_from,
                draft.valid_until,
                json(&a.paths),
                json(&a.languages),
                hash,
                tokens,
                at,
            ],
        )
        .map_err(|e| sql(&path, e))?;
        snapshot(&tx, id, ChangeKind::Revised, reason, at).map_err(|e| sql(&path, e))?;
        tx.commit().map_err(|e| sql(&path, e))?;
        self.get(id)
    }

    /// Moves `id` to `status`, with a history row.
    pub fn set_status(&mut self, id: i64, status: Status, reason: Option<&str>) -> Result<Record> {
        self.live(id)?;
        let at = now();
        let path = self.path.clone();
        let tx = self.write()?;
        set_status_in(&tx, id, status, reason, at).map_err(|e| sql(&path, e))?;
        tx.commit().map_err(|e| sql(&path, e))?;
        self.get(id)
    }

    /// Links `from` to `to` with a typed edge. `supersedes` also marks
    /// `to` superseded, in the same transaction.
    pub fn link(&mut self, from: i64, to: i64, kind: EdgeKind) -> Result<Edge> {
        if from == to {
            return Err(MemoryError::invalid(
                "edge",
                "a record cannot link to itself",
            ));
        }
        self.live(from)?;
        self.live(to)?;
        let at = now();
        let path = self.path.clone();
        let tx = self.write()?;
        tx.execute(
            "INSERT OR IGNORE INTO edges (src, dst, kind, at) VALUES (?1, ?2, ?3, ?4)",
            params![from, to, kind.as_str(), at],
        )
        .map_err(|e| sql(&path, e))?;
        if kind == EdgeKind::Supersedes {
            let reason = format!("superseded by record {from}");
            set_status_in(&tx, to, Status::Superseded, Some(&reason), at)
                .map_err(|e| sql(&path, e))?;
        }
        tx.commit().map_err(|e| sql(&path, e))?;
        Ok(Edge { from, to, kind, at })
    }

    /// Forgets `id`: its title, content and tags are erased from the
    /// record and from every revision; the record, its history rows
    /// (with their hashes) and its edges stay as a tombstone.
    pub fn forget(&mut self, id: i64, reason: Option<&str>) -> Result<Record> {
        self.live(id)?;
        let at = now();
        let path = self.path.clone();
        let tx = self.write()?;
        (|| {
            tx.execute(
                "UPDATE records SET title = '', content = '', tags = '', content_hash = NULL, \
                 tokens = 0, status = 'retracted', forgotten_at = ?2, revision = revision + 1, \
                 updated_at = ?2 WHERE id = ?1",
                params![id, at],
            )?;
            tx.execute(
                "UPDATE revisions SET title = '', content = '', tags = '' WHERE record_id = ?1",
                [id],
            )?;
            snapshot(&tx, id, ChangeKind::Forgotten, reason, at)
        })()
        .map_err(|e| sql(&path, e))?;
        tx.commit().map_err(|e| sql(&path, e))?;
        self.get(id)
    }

    /// Records in `namespace`, newest first.
    pub fn list(&self, namespace: &str, filter: &ListFilter) -> Result<Vec<Record>> {
        let mut sql_text = format!(
            "SELECT {RECORD_COLUMNS} FROM records r WHERE r.namespace = ?1 \
             AND (?2 IS NULL OR r.type = ?2) AND (?3 IS NULL OR r.status = ?3) \
             AND (?4 IS NULL OR ' ' || r.tags || ' ' LIKE '% ' || ?4 || ' %')"
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

    /// Stores a verdict on a recall receipt. It changes no record and no
    /// ranking: it is evidence for a human to review.
    pub fn feedback(
        &mut self,
        receipt: i64,
        record: Option<i64>,
        verdict: Verdict,
        note: Option<&str>,
    ) -> Result<Feedback> {
        let known: Option<i64> = self
            .conn
            .query_row("SELECT id FROM receipts WHERE id = ?1", [receipt], |r| {
                r.get(0)
            })
            .optional()
            .map_err(|e| self.sql(e))?;
        if known.is_none() {
            return Err(MemoryError::NoSuchReceipt(receipt));
        }
        if let Some(id) = record {
            self.get(id)?;
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
            Err(e) => e.to_string(),
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

fn json(list: &[String]) -> String {
    serde_json::to_string(list).unwrap_or_else(|_| "[]".into())
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

fn add_in(
    tx: &Transaction<'_>,
    namespace: &str,
    draft: &Draft,
    hash: &str,
    tokens: i64,
    at: i64,
) -> rusqlite::Result<Added> {
    let existing: Option<i64> = tx
        .prepare_cached("SELECT id FROM records WHERE namespace = ?1 AND content_hash = ?2")?
        .query_row(params![namespace, hash], |r| r.get(0))
        .optional()?;
    if let Some(id) = existing {
        tx.prepare_cached(
            "UPDATE records SET evidence = evidence + 1, revision = revision + 1, updated_at = ?2 \
             WHERE id = ?1",
        )?
        .execute(params![id, at])?;
        snapshot(tx, id, ChangeKind::Evidence, None, at)?;
        let evidence = tx
            .prepare_cached("SELECT evidence FROM records WHERE id = ?1")?
            .query_row([id], |r| r.get(0))?;
        return Ok(Added {
            id,
            created: false,
            evidence,
        });
    }
    let a = &draft.applicability;
    tx.prepare_cached(
        "INSERT INTO records (namespace, type, title, content, tags, actor, session, model, \
         confidence, status, valid_from, valid_until, paths, languages, content_hash, evidence, \
         tokens, revision, created_at, updated_at) \
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, 1, ?16, 1, ?17, ?17)",
    )?
    .execute(params![
        namespace,
        draft.record_type.as_str(),
        draft.title,
        draft.content,
        draft.tags.join(" "),
        draft.provenance.actor,
        draft.provenance.session,
        draft.provenance.model,
        draft.confidence,
        draft.status.as_str(),
        draft.valid_from,
        draft.valid_until,
        json(&a.paths),
        json(&a.languages),
        hash,
        tokens,
        at,
    ])?;
    let id = tx.last_insert_rowid();
    snapshot(tx, id, ChangeKind::Created, None, at)?;
    Ok(Added {
        id,
        created: true,
        evidence: 1,
    })
}

fn set_status_in(
    tx: &Transaction<'_>,
    id: i64,
    status: Status,
    reason: Option<&str>,
    at: i64,
) -> rusqlite::Result<()> {
    tx.execute(
        "UPDATE records SET status = ?2, revision = revision + 1, updated_at = ?3 WHERE id = ?1",
        params![id, status.as_str(), at],
    )?;
    snapshot(tx, id, ChangeKind::StatusChanged, reason, at)
}

/// Appends the record's current state as history row `records.revision`.
fn snapshot(
    tx: &Transaction<'_>,
    id: i64,
    change: ChangeKind,
    reason: Option<&str>,
    at: i64,
) -> rusqlite::Result<()> {
    tx.prepare_cached(
        "INSERT INTO revisions (record_id, revision, change, title, content, tags, status, \
         confidence, content_hash, actor, reason, at) \
         SELECT id, revision, ?2, title, content, tags, status, confidence, content_hash, actor, ?3, ?4 \
         FROM records WHERE id = ?1",
    )?
    .execute(params![id, change.as_str(), reason, at])?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::RecordType;

    fn store() -> (tempfile::TempDir, Store) {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open_in(dir.path()).unwrap();
        (dir, store)
    }

    #[test]
    fn the_database_is_wal_with_foreign_keys_and_the_current_schema() {
        let (_dir, store) = store();
        let mode: String = store
            .conn
            .query_row("PRAGMA journal_mode", [], |r| r.get(0))
            .unwrap();
        let fk: i64 = store
            .conn
            .query_row("PRAGMA foreign_keys", [], |r| r.get(0))
            .unwrap();
        let version: i64 = store
            .conn
            .query_row("PRAGMA user_version", [], |r| r.get(0))
            .unwrap();
        assert_eq!((mode.as_str(), fk, version), ("wal", 1, SCHEMA_VERSION));
    }

    #[test]
    fn the_same_content_again_only_bumps_evidence_with_a_history_row() {
        let (_dir, mut store) = store();
        let d = Draft::new(RecordType::Gotcha, "flock", "Wrap cargo in flock.");
        let first = store.add("ns", d.clone()).unwrap();
        let again = store
            .add(
                "ns",
                Draft::new(RecordType::Decision, "other", "Wrap cargo in flock."),
            )
            .unwrap();
        assert_eq!(
            (again.id, again.created, again.evidence),
            (first.id, false, 2)
        );
        let history = store.history(first.id).unwrap();
        assert_eq!(
            history.iter().map(|r| r.change).collect::<Vec<_>>(),
            [ChangeKind::Created, ChangeKind::Evidence]
        );
        // Another namespace is another project: no deduplication across.
        assert!(store.add("other", d).unwrap().created);
    }

    #[test]
    fn add_many_writes_all_or_nothing() {
        let (_dir, mut store) = store();
        let good = Draft::new(RecordType::Gotcha, "a", "one");
        let bad = Draft::new(RecordType::Gotcha, "", "two");
        assert!(store.add_many("ns", vec![good.clone(), bad]).is_err());
        assert!(store.list("ns", &ListFilter::default()).unwrap().is_empty());
        let added = store.add_many("ns", vec![good.clone(), good]).unwrap();
        assert_eq!(
            (added[0].created, added[1].created, added[1].evidence),
            (true, false, 2)
        );
    }

    #[test]
    fn revise_keeps_the_old_revision() {
        let (_dir, mut store) = store();
        let id = store
            .add("ns", Draft::new(RecordType::Decision, "db", "Use SQLite."))
            .unwrap()
            .id;
        let mut d = Draft::new(RecordType::Decision, "db", "Use SQLite in WAL mode.");
        d.status = Status::Validated;
        let revised = store.revise(id, d, Some("more precise")).unwrap();
        assert_eq!(revised.revision, 2);
        let history = store.history(id).unwrap();
        assert_eq!(history[0].content, "Use SQLite.");
        assert_eq!(history[1].content, "Use SQLite in WAL mode.");
        assert_eq!(history[1].reason.as_deref(), Some("more precise"));
        assert_eq!(
            revised.tokens as usize,
            tokens::count(&memory_text("db", "Use SQLite in WAL mode.")).unwrap()
        );
    }

    #[test]
    fn revise_refuses_content_another_record_holds() {
        let (_dir, mut store) = store();
        let a = store
            .add("ns", Draft::new(RecordType::Gotcha, "a", "one"))
            .unwrap()
            .id;
        store
            .add("ns", Draft::new(RecordType::Gotcha, "b", "two"))
            .unwrap();
        let e = store
            .revise(a, Draft::new(RecordType::Gotcha, "a", "two"), None)
            .unwrap_err();
        assert!(
            matches!(e, MemoryError::DuplicateContent { existing: 2 }),
            "{e}"
        );
    }

    #[test]
    fn supersede_links_and_marks_the_old_record() {
        let (_dir, mut store) = store();
        let old = store
            .add("ns", Draft::new(RecordType::Decision, "a", "old way"))
            .unwrap()
            .id;
        let new = store
            .add("ns", Draft::new(RecordType::Decision, "a", "new way"))
            .unwrap()
            .id;
        store.link(new, old, EdgeKind::Supersedes).unwrap();
        assert_eq!(store.get(old).unwrap().draft.status, Status::Superseded);
        assert_eq!(store.edges(old).unwrap()[0].kind, EdgeKind::Supersedes);
        assert!(store.link(old, old, EdgeKind::Supports).is_err());
    }

    #[test]
    fn forget_erases_content_everywhere_and_keeps_the_lineage() {
        let (_dir, mut store) = store();
        let id = store
            .add("ns", Draft::new(RecordType::Gotcha, "key", "secret detail"))
            .unwrap()
            .id;
        store
            .revise(
                id,
                Draft::new(RecordType::Gotcha, "key", "secret detail 2"),
                None,
            )
            .unwrap();
        let other = store
            .add("ns", Draft::new(RecordType::Gotcha, "x", "y"))
            .unwrap()
            .id;
        store.link(other, id, EdgeKind::Contradicts).unwrap();
        let gone = store.forget(id, Some("asked to")).unwrap();
        assert!(
            gone.is_forgotten() && gone.draft.content.is_empty() && gone.content_hash.is_none()
        );
        let history = store.history(id).unwrap();
        assert_eq!(history.len(), 3);
        assert!(history
            .iter()
            .all(|r| r.content.is_empty() && r.title.is_empty()));
        assert_eq!(history[2].change, ChangeKind::Forgotten);
        assert_eq!(store.edges(id).unwrap().len(), 1);
        assert!(matches!(
            store.forget(id, None),
            Err(MemoryError::Forgotten(_))
        ));
        // The content may be stored again, as a new record.
        let again = store
            .add(
                "ns",
                Draft::new(RecordType::Gotcha, "key", "secret detail 2"),
            )
            .unwrap();
        assert!(again.created);
        assert!(store.check().unwrap().ok());
    }

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

    #[test]
    fn feedback_needs_a_real_receipt_and_changes_no_record() {
        let (_dir, mut store) = store();
        assert!(matches!(
            store.feedback(7, None, Verdict::Helpful, None),
            Err(MemoryError::NoSuchReceipt(7))
        ));
    }
}
