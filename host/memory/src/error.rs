//! What can go wrong in the memory store, as values a user can act on:
//! each names the database or record involved and what to do.

use std::path::PathBuf;

#[derive(Debug, thiserror::Error)]
pub enum MemoryError {
    #[error("cannot open the memory database {path}: {source}")]
    Open {
        path: PathBuf,
        source: rusqlite::Error,
    },
    #[error("cannot create the directory {path} for the memory database: {source}")]
    CreateDir {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error(
        "the memory database {path} is busy (another amber process holds its write lock); try again"
    )]
    Busy { path: PathBuf },
    #[error(
        "the memory database {path} has schema version {found}, newer than this amber knows ({known}); upgrade amber"
    )]
    SchemaTooNew {
        path: PathBuf,
        found: i64,
        known: i64,
    },
    #[error("memory database {path}: {source}")]
    Sql {
        path: PathBuf,
        source: rusqlite::Error,
    },
    #[error("{field} is {size} bytes; the limit is {limit} bytes")]
    TooLarge {
        field: &'static str,
        size: usize,
        limit: usize,
    },
    #[error("invalid {field}: {reason}")]
    Invalid { field: &'static str, reason: String },
    #[error("memory record {0} does not exist")]
    NoSuchRecord(i64),
    #[error("memory record {0} was forgotten; only its lineage remains")]
    Forgotten(i64),
    #[error("recall receipt {0} does not exist")]
    NoSuchReceipt(i64),
    #[error(
        "{what} {id} belongs to namespace `{namespace}`, not `{asked}`; pass --namespace {namespace} to work on it"
    )]
    OtherNamespace {
        what: &'static str,
        id: i64,
        namespace: String,
        asked: String,
    },
    #[error("the same content is already stored as record {existing}")]
    DuplicateContent { existing: i64 },
}

impl MemoryError {
    pub(crate) fn invalid(field: &'static str, reason: impl Into<String>) -> Self {
        MemoryError::Invalid {
            field,
            reason: reason.into(),
        }
    }
}

pub type Result<T, E = MemoryError> = std::result::Result<T, E>;

/// Turns a SQLite error into a [`MemoryError`] naming `path`; a locked
/// database becomes [`MemoryError::Busy`], so callers can tell it apart.
pub(crate) fn sql(path: &std::path::Path, source: rusqlite::Error) -> MemoryError {
    use rusqlite::ffi::ErrorCode;
    match source.sqlite_error_code() {
        Some(ErrorCode::DatabaseBusy | ErrorCode::DatabaseLocked) => MemoryError::Busy {
            path: path.to_path_buf(),
        },
        _ => MemoryError::Sql {
            path: path.to_path_buf(),
            source,
        },
    }
}
