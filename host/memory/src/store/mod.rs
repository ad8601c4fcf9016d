//! The durable store (seed 004: "Durable engineering memory — records,
//! revisions, lifecycle history"). One SQLite file in WAL mode. Every
//! write is one immediate transaction that changes the record and appends
//! its history row together, so a crash leaves the whole change or none
//! of it, and nothing changes in place without a revision row.
//!
//! `writes` changes records, `reads` reads them, `feedback` stores
//! verdicts on recalls, `check` verifies the file, and `rows` maps rows
//! to values.

use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use rusqlite::{Connection, Transaction, TransactionBehavior};

use crate::error::{sql, MemoryError, Result};
use crate::model::Status;
use crate::schema::{self, Migration, SCHEMA_VERSION};

mod check;
mod feedback;
mod reads;
pub(crate) mod rows;
mod vectors;
mod writes;

pub use check::Check;
pub(crate) use rows::edge_from_row;
pub use vectors::Refreshed;

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
    /// The record's status: a record stored again may be one recall holds
    /// back (stale, superseded, retracted), which the caller should say.
    pub status: Status,
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
        Store::open_waiting(path, BUSY_TIMEOUT)
    }

    /// [`Store::open`], waiting at most `busy` for another process's write
    /// lock, from the first statement on (the migration included).
    pub fn open_waiting(path: &Path, busy: Duration) -> Result<Store> {
        let open_err = |source| MemoryError::Open {
            path: path.to_path_buf(),
            source,
        };
        let mut conn = Connection::open(path).map_err(open_err)?;
        conn.busy_timeout(busy).map_err(open_err)?;
        // WAL lets readers go on while one process writes; NORMAL sync is
        // durable against a killed process (only power loss can drop the
        // newest commits), and keeps a store well under a millisecond.
        conn.pragma_update(None, "journal_mode", "WAL")
            .map_err(|e| sql(path, e))?;
        conn.pragma_update(None, "synchronous", "NORMAL")
            .map_err(|e| sql(path, e))?;
        conn.pragma_update(None, "foreign_keys", "ON")
            .map_err(|e| sql(path, e))?;
        // Freed pages are zeroed, so what `forget` erases is gone from the
        // file, not left in free space.
        conn.pragma_update(None, "secure_delete", "ON")
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

    /// Waits up to `timeout` for another process's write lock instead of
    /// [`BUSY_TIMEOUT`]; past it, a write fails with [`MemoryError::Busy`].
    pub fn set_busy_timeout(&self, timeout: Duration) -> Result<()> {
        self.conn.busy_timeout(timeout).map_err(|e| self.sql(e))
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
}

/// A store in a fresh temporary directory, for tests.
#[cfg(test)]
pub(crate) fn scratch() -> (tempfile::TempDir, Store) {
    let dir = tempfile::TempDir::new().expect("a temporary directory");
    let store = Store::open_in(dir.path()).expect("a new store opens");
    (dir, store)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_database_is_wal_with_foreign_keys_and_the_current_schema() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open_in(dir.path()).unwrap();
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
    fn opening_a_current_database_does_not_wait_for_a_writer() {
        let (dir, store) = scratch();
        drop(store);
        let writer = Connection::open(dir.path().join(DATABASE_FILE)).unwrap();
        writer.execute_batch("BEGIN IMMEDIATE").unwrap();
        let started = std::time::Instant::now();
        let store = Store::open_in(dir.path()).unwrap();
        assert!(started.elapsed() < BUSY_TIMEOUT / 2);
        store.set_busy_timeout(Duration::from_millis(20)).unwrap();
        // Reads go on; the index check, an insert, says it is busy.
        assert!(store.list("ns", &ListFilter::default()).unwrap().is_empty());
        assert!(matches!(store.check(), Err(MemoryError::Busy { .. })));
        writer.execute_batch("COMMIT").unwrap();
        assert!(store.check().unwrap().ok());
    }
}
