//! The schema and its forward migrations. The version lives in SQLite's
//! `user_version`; each migration runs once, in order, inside the
//! transaction that bumps the version, so a crash leaves either the old
//! schema or the new one.

use rusqlite::Connection;

/// One migration per schema version, starting at version 1.
const MIGRATIONS: &[&str] = &[V1, V2, V3, V4];

/// The schema version this code writes.
pub const SCHEMA_VERSION: i64 = MIGRATIONS.len() as i64;

/// Records are the current state; `revisions` is the durable history
/// (every change writes a full snapshot there); `records_fts` is a
/// rebuildable index kept in step by triggers.
const V1: &str = r#"
CREATE TABLE records (
    id INTEGER PRIMARY KEY,
    namespace TEXT NOT NULL,
    type TEXT NOT NULL CHECK (type IN ('decision','gotcha','procedure','concept','belief','domain-note','summary')),
    title TEXT NOT NULL,
    content TEXT NOT NULL,
    tags TEXT NOT NULL,
    actor TEXT,
    session TEXT,
    model TEXT,
    confidence REAL NOT NULL CHECK (confidence >= 0 AND confidence <= 1),
    status TEXT NOT NULL CHECK (status IN ('candidate','validated','stale','superseded','retracted')),
    valid_from INTEGER,
    valid_until INTEGER,
    paths TEXT NOT NULL,
    languages TEXT NOT NULL,
    content_hash TEXT,
    evidence INTEGER NOT NULL DEFAULT 1,
    tokens INTEGER NOT NULL,
    revision INTEGER NOT NULL,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL,
    forgotten_at INTEGER
);
CREATE UNIQUE INDEX records_live_hash ON records (namespace, content_hash)
    WHERE content_hash IS NOT NULL;
CREATE INDEX records_namespace ON records (namespace, id);

CREATE TABLE revisions (
    record_id INTEGER NOT NULL REFERENCES records (id),
    revision INTEGER NOT NULL,
    change TEXT NOT NULL CHECK (change IN ('created','revised','evidence','status','forgotten')),
    title TEXT NOT NULL,
    content TEXT NOT NULL,
    tags TEXT NOT NULL,
    status TEXT NOT NULL,
    confidence REAL NOT NULL,
    content_hash TEXT,
    actor TEXT,
    reason TEXT,
    at INTEGER NOT NULL,
    PRIMARY KEY (record_id, revision)
) WITHOUT ROWID;

CREATE TABLE edges (
    src INTEGER NOT NULL REFERENCES records (id),
    dst INTEGER NOT NULL REFERENCES records (id),
    kind TEXT NOT NULL CHECK (kind IN ('supports','contradicts','supersedes','depends_on')),
    at INTEGER NOT NULL,
    PRIMARY KEY (src, dst, kind),
    CHECK (src <> dst)
) WITHOUT ROWID;
CREATE INDEX edges_dst ON edges (dst, kind);

CREATE TABLE receipts (
    id INTEGER PRIMARY KEY,
    namespace TEXT NOT NULL,
    query_digest TEXT NOT NULL,
    returned TEXT NOT NULL,
    suppressed TEXT NOT NULL,
    at INTEGER NOT NULL
);

CREATE TABLE feedback (
    id INTEGER PRIMARY KEY,
    receipt_id INTEGER NOT NULL REFERENCES receipts (id),
    record_id INTEGER REFERENCES records (id),
    verdict TEXT NOT NULL CHECK (verdict IN ('helpful','misleading','outdated','not_used')),
    note TEXT,
    at INTEGER NOT NULL
);

CREATE VIRTUAL TABLE records_fts USING fts5 (
    title, content, tags,
    content = 'records', content_rowid = 'id',
    tokenize = 'porter unicode61'
);
CREATE TRIGGER records_fts_insert AFTER INSERT ON records BEGIN
    INSERT INTO records_fts (rowid, title, content, tags)
        VALUES (new.id, new.title, new.content, new.tags);
END;
CREATE TRIGGER records_fts_delete AFTER DELETE ON records BEGIN
    INSERT INTO records_fts (records_fts, rowid, title, content, tags)
        VALUES ('delete', old.id, old.title, old.content, old.tags);
END;
CREATE TRIGGER records_fts_update AFTER UPDATE OF title, content, tags ON records BEGIN
    INSERT INTO records_fts (records_fts, rowid, title, content, tags)
        VALUES ('delete', old.id, old.title, old.content, old.tags);
    INSERT INTO records_fts (rowid, title, content, tags)
        VALUES (new.id, new.title, new.content, new.tags);
END;
"#;

/// History rows become full snapshots: a revision also keeps the type,
/// validity window, applicability and the rest of the provenance, which
/// `revise` can change. Rows written before this have them NULL.
///
/// And FTS5's secure delete: a forgotten record's words are removed from
/// the index's segments at once, not left there until a merge (SQLite
/// 3.44; `secure_delete` on the connection clears the freed pages).
const V2: &str = r#"
ALTER TABLE revisions ADD COLUMN type TEXT;
ALTER TABLE revisions ADD COLUMN valid_from INTEGER;
ALTER TABLE revisions ADD COLUMN valid_until INTEGER;
ALTER TABLE revisions ADD COLUMN paths TEXT;
ALTER TABLE revisions ADD COLUMN languages TEXT;
ALTER TABLE revisions ADD COLUMN session TEXT;
ALTER TABLE revisions ADD COLUMN model TEXT;
INSERT INTO records_fts (records_fts, rank) VALUES ('secure-delete', 1);
"#;

/// The search index knows each record's namespace, as one token in a
/// column of its own (`ns_token`, bm25 weight 0), so a recall counts and
/// ranks the words of its own namespace. One database serves every
/// project; before this, a word common in a large project counted as
/// common in a small one too, and ranking could drop it there. The token
/// is `ns` and the namespace's bytes in hex: one alphanumeric run the
/// tokenizer keeps whole (see [`namespace_token`]). The index is rebuilt
/// from `records`, which is its content table.
const V3: &str = r#"
ALTER TABLE records ADD COLUMN ns_token TEXT GENERATED ALWAYS AS ('ns' || hex(namespace)) VIRTUAL;
DROP TRIGGER records_fts_insert;
DROP TRIGGER records_fts_delete;
DROP TRIGGER records_fts_update;
DROP TABLE records_fts;
CREATE VIRTUAL TABLE records_fts USING fts5 (
    title, content, tags, ns_token,
    content = 'records', content_rowid = 'id',
    tokenize = 'porter unicode61'
);
INSERT INTO records_fts (records_fts) VALUES ('rebuild');
INSERT INTO records_fts (records_fts, rank) VALUES ('secure-delete', 1);
CREATE TRIGGER records_fts_insert AFTER INSERT ON records BEGIN
    INSERT INTO records_fts (rowid, title, content, tags, ns_token)
        VALUES (new.id, new.title, new.content, new.tags, new.ns_token);
END;
CREATE TRIGGER records_fts_delete AFTER DELETE ON records BEGIN
    INSERT INTO records_fts (records_fts, rowid, title, content, tags, ns_token)
        VALUES ('delete', old.id, old.title, old.content, old.tags, old.ns_token);
END;
CREATE TRIGGER records_fts_update AFTER UPDATE OF title, content, tags, namespace ON records BEGIN
    INSERT INTO records_fts (records_fts, rowid, title, content, tags, ns_token)
        VALUES ('delete', old.id, old.title, old.content, old.tags, old.ns_token);
    INSERT INTO records_fts (rowid, title, content, tags, ns_token)
        VALUES (new.id, new.title, new.content, new.tags, new.ns_token);
END;
"#;

/// The embedding view (semantic recall): one vector per record and
/// model, of the revision named beside it. Derived data, rebuilt by
/// `Store::refresh_vectors`; a vector whose revision is not the record's
/// is stale and ignored. A new revision that keeps the embedded text
/// (more evidence, a status change) carries the vector along, in the
/// same transaction.
const V4: &str = r#"
CREATE TABLE record_vectors (
    record_id INTEGER NOT NULL REFERENCES records(id) ON DELETE CASCADE,
    model TEXT NOT NULL,
    revision INTEGER NOT NULL,
    vector BLOB NOT NULL,
    PRIMARY KEY (record_id, model)
);
CREATE TRIGGER record_vectors_follow AFTER UPDATE OF revision ON records
WHEN new.title = old.title AND new.content = old.content AND new.tags = old.tags
    AND new.forgotten_at IS NULL
BEGIN
    UPDATE record_vectors SET revision = new.revision
        WHERE record_id = new.id AND revision = old.revision;
END;
"#;

/// The index token of `namespace`, as V3's `ns_token` column writes it:
/// `ns` and the bytes in upper-case hex (SQLite's `hex`). The tokenizer
/// lowercases both sides alike, and the Porter stemmer can at most drop a
/// final `e`, which no other namespace's token can then equal (hex runs
/// have even length).
pub fn namespace_token(namespace: &str) -> String {
    let mut token = String::with_capacity(2 + namespace.len() * 2);
    token.push_str("ns");
    for byte in namespace.bytes() {
        token.push_str(&format!("{byte:02X}"));
    }
    token
}

/// What [`migrate`] found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Migration {
    /// Upgraded from this version (0 is a new database).
    Upgraded {
        from: i64,
    },
    Current,
    /// The file was written by a newer amber.
    TooNew {
        found: i64,
    },
}

/// Brings the schema up to [`SCHEMA_VERSION`] in one immediate
/// transaction that reads the version again, so two processes opening a
/// new database do not both migrate it.
pub fn migrate(conn: &mut Connection) -> rusqlite::Result<Migration> {
    // Reading the version takes no write lock, so opening a current
    // database never waits for another process's writes.
    let seen: i64 = conn.query_row("PRAGMA user_version", [], |r| r.get(0))?;
    if seen > SCHEMA_VERSION {
        return Ok(Migration::TooNew { found: seen });
    }
    if seen == SCHEMA_VERSION {
        return Ok(Migration::Current);
    }
    let tx = conn.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
    let found: i64 = tx.query_row("PRAGMA user_version", [], |r| r.get(0))?;
    if found > SCHEMA_VERSION {
        return Ok(Migration::TooNew { found });
    }
    if found == SCHEMA_VERSION {
        return Ok(Migration::Current);
    }
    for step in &MIGRATIONS[found as usize..] {
        tx.execute_batch(step)?;
    }
    tx.pragma_update(None, "user_version", SCHEMA_VERSION)?;
    tx.commit()?;
    Ok(Migration::Upgraded { from: found })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_new_database_migrates_once_and_then_is_current() {
        let mut conn = Connection::open_in_memory().unwrap();
        assert_eq!(migrate(&mut conn).unwrap(), Migration::Upgraded { from: 0 });
        assert_eq!(migrate(&mut conn).unwrap(), Migration::Current);
    }

    #[test]
    fn a_version_1_database_keeps_its_history_through_the_upgrade() {
        let dir = tempfile::TempDir::new().unwrap();
        let path = dir.path().join("memory.db");
        {
            let conn = Connection::open(&path).unwrap();
            conn.execute_batch(V1).unwrap();
            conn.pragma_update(None, "user_version", 1).unwrap();
            conn.execute_batch(
                "INSERT INTO records (id, namespace, type, title, content, tags, confidence, \
                 status, paths, languages, tokens, revision, created_at, updated_at) \
                 VALUES (1, 'ns', 'gotcha', 't', 'old words', '', 0.5, 'candidate', '[]', '[]', \
                 3, 1, 0, 0); \
                 INSERT INTO revisions (record_id, revision, change, title, content, tags, \
                 status, confidence, at) \
                 VALUES (1, 1, 'created', 't', 'old words', '', 'candidate', 0.5, 0);",
            )
            .unwrap();
        }
        let mut store = crate::Store::open(&path).unwrap();
        let old = &store.history(1).unwrap()[0];
        assert_eq!(old.content, "old words");
        assert!(old.record_type.is_none() && old.applicability.is_none());
        // Written after the upgrade: the whole snapshot.
        store.forget(1, None).unwrap();
        let history = store.history(1).unwrap();
        assert_eq!(history[1].record_type, Some(crate::RecordType::Gotcha));
    }

    #[test]
    fn a_version_2_index_is_rebuilt_with_namespaces_and_stays_in_step() {
        let mut conn = Connection::open_in_memory().unwrap();
        conn.execute_batch(V1).unwrap();
        conn.execute_batch(V2).unwrap();
        conn.pragma_update(None, "user_version", 2).unwrap();
        conn.execute_batch(
            "INSERT INTO records (id, namespace, type, title, content, tags, confidence, \
             status, paths, languages, tokens, revision, created_at, updated_at) \
             VALUES (1, 'project:/a', 'gotcha', 'flock', 'wrap cargo', '', 0.5, 'candidate', \
             '[]', '[]', 3, 1, 0, 0), (2, 'project:/b', 'gotcha', 'flock', 'wrap cargo', '', \
             0.5, 'candidate', '[]', '[]', 3, 1, 0, 0);",
        )
        .unwrap();
        assert_eq!(migrate(&mut conn).unwrap(), Migration::Upgraded { from: 2 });
        let matching = |conn: &Connection, namespace: &str, word: &str| -> Vec<i64> {
            let query = format!(
                "ns_token : \"{}\" AND \"{word}\"",
                namespace_token(namespace)
            );
            let mut stmt = conn
                .prepare("SELECT rowid FROM records_fts WHERE records_fts MATCH ?1 ORDER BY rowid")
                .unwrap();
            stmt.query_map([query], |r| r.get(0))
                .unwrap()
                .map(Result::unwrap)
                .collect()
        };
        assert_eq!(matching(&conn, "project:/a", "cargo"), [1]);
        assert_eq!(matching(&conn, "project:/b", "cargo"), [2]);
        // The triggers keep the new column in step.
        conn.execute("UPDATE records SET content = 'wrap make' WHERE id = 2", [])
            .unwrap();
        assert!(matching(&conn, "project:/b", "cargo").is_empty());
        assert_eq!(matching(&conn, "project:/b", "make"), [2]);
        conn.execute("DELETE FROM records WHERE id = 1", [])
            .unwrap();
        assert!(matching(&conn, "project:/a", "cargo").is_empty());
        let check = conn.execute(
            "INSERT INTO records_fts (records_fts, rank) VALUES ('integrity-check', 1)",
            [],
        );
        assert!(check.is_ok(), "{check:?}");
    }

    #[test]
    fn namespace_tokens_match_sqlite_hex() {
        let conn = Connection::open_in_memory().unwrap();
        for namespace in ["project:/tmp/ws", "ünïcode ns", ""] {
            let sqlite: String = conn
                .query_row("SELECT 'ns' || hex(?1)", [namespace], |r| r.get(0))
                .unwrap();
            assert_eq!(namespace_token(namespace), sqlite);
        }
    }

    #[test]
    fn a_newer_schema_is_reported_not_touched() {
        let mut conn = Connection::open_in_memory().unwrap();
        conn.pragma_update(None, "user_version", SCHEMA_VERSION + 1)
            .unwrap();
        assert_eq!(
            migrate(&mut conn).unwrap(),
            Migration::TooNew {
                found: SCHEMA_VERSION + 1
            }
        );
    }
}
