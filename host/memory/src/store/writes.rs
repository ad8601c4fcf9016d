//! Writes: every change to a record is one immediate transaction that
//! updates the record and appends its history row.

use rusqlite::types::Value;
use rusqlite::{params, params_from_iter, OptionalExtension, Transaction};

use super::rows::json;
use super::{content_hash, memory_text, now, Added, Store};
use crate::error::{sql, MemoryError, Result};
use crate::model::{ChangeKind, Draft, Edge, EdgeKind, Record, Status};
use crate::{tokens, validate};

impl Store {
    /// Stores `draft` in `namespace`. The same content again only bumps
    /// the existing record's evidence count (with a history row).
    pub fn add(&mut self, namespace: &str, draft: Draft) -> Result<Added> {
        self.add_many(namespace, vec![draft])?
            .pop()
            .ok_or_else(|| MemoryError::invalid("draft", "nothing was stored"))
    }

    /// Stores many drafts in one transaction: all of them or none. What
    /// each did is returned in order; the first invalid draft stops the
    /// batch before anything is written.
    pub fn add_many(&mut self, namespace: &str, drafts: Vec<Draft>) -> Result<Vec<Added>> {
        self.add_many_with_evidence(namespace, drafts, 1)
    }

    /// [`Store::add_many`], where a *new* record starts with
    /// `initial_evidence` instead of 1. Compression's learner stores what
    /// it extracts at the promote threshold (seed: "upsert, evidence
    /// starts at promote_threshold"): the model's judgement counts as that
    /// much evidence. Content already stored still gains one, as always.
    pub fn add_many_with_evidence(
        &mut self,
        namespace: &str,
        drafts: Vec<Draft>,
        initial_evidence: u32,
    ) -> Result<Vec<Added>> {
        if initial_evidence == 0 {
            return Err(MemoryError::invalid(
                "initial evidence",
                "a new record has at least 1",
            ));
        }
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
            out.push(
                add_in(&tx, namespace, draft, hash, *tokens, initial_evidence, at)
                    .map_err(|e| sql(&path, e))?,
            );
        }
        tx.commit().map_err(|e| sql(&path, e))?;
        Ok(out)
    }

    /// Replaces the writable fields of `id` with `draft`, as a new
    /// revision; the old one stays in the history.
    pub fn revise(&mut self, id: i64, draft: Draft, reason: Option<&str>) -> Result<Record> {
        validate::note("reason", reason)?;
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
        tx.execute(
            "UPDATE records SET type = ?2, title = ?3, content = ?4, tags = ?5, actor = ?6, \
             session = ?7, model = ?8, confidence = ?9, status = ?10, valid_from = ?11, \
             valid_until = ?12, paths = ?13, languages = ?14, content_hash = ?15, tokens = ?16, \
             revision = revision + 1, updated_at = ?17 WHERE id = ?1",
            params_from_iter(draft_values(Value::Integer(id), &draft, &hash, tokens, at)),
        )
        .map_err(|e| sql(&path, e))?;
        snapshot(&tx, id, ChangeKind::Revised, reason, at).map_err(|e| sql(&path, e))?;
        tx.commit().map_err(|e| sql(&path, e))?;
        self.get(id)
    }

    /// Moves `id` to `status`, with a history row.
    pub fn set_status(&mut self, id: i64, status: Status, reason: Option<&str>) -> Result<Record> {
        validate::note("reason", reason)?;
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
    /// (with their hashes) and its edges stay as a tombstone. The erased
    /// text leaves the file too: freed pages are zeroed (`secure_delete`),
    /// the full-text index drops its words at once (FTS5 secure-delete),
    /// and the write-ahead log is checkpointed and truncated, unless
    /// another process is reading, when the next checkpoint does it.
    pub fn forget(&mut self, id: i64, reason: Option<&str>) -> Result<Record> {
        validate::note("reason", reason)?;
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
            // A vector is derived from the content, so it goes with it.
            tx.execute("DELETE FROM record_vectors WHERE record_id = ?1", [id])?;
            snapshot(&tx, id, ChangeKind::Forgotten, reason, at)
        })()
        .map_err(|e| sql(&path, e))?;
        tx.commit().map_err(|e| sql(&path, e))?;
        // Best effort: a reader elsewhere keeps the log until it is done.
        let _ = self
            .conn
            .query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |_| Ok(()));
        self.get(id)
    }
}

fn add_in(
    tx: &Transaction<'_>,
    namespace: &str,
    draft: &Draft,
    hash: &str,
    tokens: i64,
    initial_evidence: u32,
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
        let (evidence, status): (i64, String) = tx
            .prepare_cached("SELECT evidence, status FROM records WHERE id = ?1")?
            .query_row([id], |r| Ok((r.get(0)?, r.get(1)?)))?;
        return Ok(Added {
            id,
            created: false,
            evidence,
            status: status.parse().map_err(|e| super::rows::bad_column(1, e))?,
        });
    }
    tx.prepare_cached(
        "INSERT INTO records (namespace, type, title, content, tags, actor, session, model, \
         confidence, status, valid_from, valid_until, paths, languages, content_hash, evidence, \
         tokens, revision, created_at, updated_at) \
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?18, ?16, 1, ?17, ?17)",
    )?
    .execute(params_from_iter(
        draft_values(
            Value::Text(namespace.to_string()),
            draft,
            hash,
            tokens,
            at,
        )
        .into_iter()
        .chain([Value::Integer(i64::from(initial_evidence))]),
    ))?;
    let id = tx.last_insert_rowid();
    snapshot(tx, id, ChangeKind::Created, None, at)?;
    Ok(Added {
        id,
        created: true,
        evidence: i64::from(initial_evidence),
        status: draft.status,
    })
}

/// The values both writes of a draft bind, numbered as their statements
/// number them: `?1` is the key (the namespace on insert, the id on
/// update), then the draft's columns, the hash, the tokens and the time.
/// The insert binds its starting evidence after them, as `?18`.
fn draft_values(key: Value, draft: &Draft, hash: &str, tokens: i64, at: i64) -> Vec<Value> {
    let text = |s: &str| Value::Text(s.to_string());
    let maybe_text = |s: &Option<String>| s.clone().map_or(Value::Null, Value::Text);
    let maybe_int = |n: Option<i64>| n.map_or(Value::Null, Value::Integer);
    let (p, a) = (&draft.provenance, &draft.applicability);
    vec![
        key,
        text(draft.record_type.as_str()),
        text(&draft.title),
        text(&draft.content),
        Value::Text(draft.tags.join(" ")),
        maybe_text(&p.actor),
        maybe_text(&p.session),
        maybe_text(&p.model),
        Value::Real(draft.confidence),
        text(draft.status.as_str()),
        maybe_int(draft.valid_from),
        maybe_int(draft.valid_until),
        Value::Text(json(&a.paths)),
        Value::Text(json(&a.languages)),
        text(hash),
        Value::Integer(tokens),
        Value::Integer(at),
    ]
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
         confidence, content_hash, actor, reason, at, type, valid_from, valid_until, paths, \
         languages, session, model) \
         SELECT id, revision, ?2, title, content, tags, status, confidence, content_hash, actor, \
         ?3, ?4, type, valid_from, valid_until, paths, languages, session, model \
         FROM records WHERE id = ?1",
    )?
    .execute(params![id, change.as_str(), reason, at])?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::RecordType;
    use crate::store::ListFilter;

    use crate::store::scratch as store;

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
    fn new_records_start_at_the_given_evidence_and_a_repeat_adds_one() {
        let (_dir, mut store) = store();
        let mut d = Draft::new(RecordType::Gotcha, "flock", "Wrap cargo in flock.");
        d.provenance.session = Some("s1".into());
        let added = store
            .add_many_with_evidence("ns", vec![d.clone(), d.clone()], 3)
            .unwrap();
        assert_eq!(
            added
                .iter()
                .map(|a| (a.created, a.evidence))
                .collect::<Vec<_>>(),
            [(true, 3), (false, 4)]
        );
        let again = store.add_many_with_evidence("ns", vec![d], 3).unwrap();
        assert_eq!((again[0].created, again[0].evidence), (false, 5));
        let record = store.get(added[0].id).unwrap();
        assert_eq!(
            (record.evidence, record.draft.status),
            (5, Status::Candidate)
        );
        let history = store.history(added[0].id).unwrap();
        assert_eq!(
            history.iter().map(|r| r.change).collect::<Vec<_>>(),
            [
                ChangeKind::Created,
                ChangeKind::Evidence,
                ChangeKind::Evidence
            ]
        );
        assert_eq!(history[0].session.as_deref(), Some("s1"));
        assert!(store.check().unwrap().ok());
    }

    #[test]
    fn zero_initial_evidence_is_refused() {
        let (_dir, mut store) = store();
        let d = Draft::new(RecordType::Gotcha, "t", "c");
        assert!(store.add_many_with_evidence("ns", vec![d], 0).is_err());
        assert!(store.list("ns", &ListFilter::default()).unwrap().is_empty());
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
    fn every_revision_is_a_full_snapshot() {
        let (_dir, mut store) = store();
        let mut first = Draft::new(RecordType::Gotcha, "lint", "Run clippy.");
        first.valid_from = Some(100);
        first.valid_until = Some(200);
        first.applicability.paths = vec!["host/**".into()];
        first.applicability.languages = vec!["rust".into()];
        first.provenance.session = Some("s1".into());
        first.provenance.model = Some("m1".into());
        let id = store.add("ns", first).unwrap().id;
        // A revision that changes every field but the content's subject.
        let mut second = Draft::new(RecordType::Procedure, "lint", "Run clippy -D warnings.");
        second.provenance.session = Some("s2".into());
        store.revise(id, second, None).unwrap();
        let history = store.history(id).unwrap();
        let old = &history[0];
        assert_eq!(old.record_type, Some(RecordType::Gotcha));
        assert_eq!((old.valid_from, old.valid_until), (Some(100), Some(200)));
        let scope = old.applicability.as_ref().expect("kept");
        assert_eq!(scope.paths, ["host/**"]);
        assert_eq!(scope.languages, ["rust"]);
        assert_eq!(old.session.as_deref(), Some("s1"));
        assert_eq!(old.model.as_deref(), Some("m1"));
        let new = &history[1];
        assert_eq!(new.record_type, Some(RecordType::Procedure));
        assert_eq!((new.valid_from, new.valid_until), (None, None));
        assert!(new
            .applicability
            .as_ref()
            .is_some_and(|a| a.paths.is_empty()));
        assert_eq!(new.session.as_deref(), Some("s2"));
    }

    #[test]
    fn forgotten_text_leaves_the_database_files() {
        let (dir, mut store) = store();
        let marker = "zebra quokka 4711 pangolin";
        let id = store
            .add("ns", Draft::new(RecordType::Gotcha, "animals", marker))
            .unwrap()
            .id;
        // Many records, so the forgotten one shares pages with live ones.
        for i in 0..200 {
            let text = format!("filler record number {i} about nothing in particular");
            store
                .add("ns", Draft::new(RecordType::Gotcha, "filler", &text))
                .unwrap();
        }
        let on_disk = |dir: &std::path::Path| -> Vec<u8> {
            let mut bytes = Vec::new();
            for entry in std::fs::read_dir(dir).unwrap().flatten() {
                bytes.extend(std::fs::read(entry.path()).unwrap_or_default());
            }
            bytes
        };
        let holds =
            |bytes: &[u8], word: &str| bytes.windows(word.len()).any(|w| w == word.as_bytes());
        assert!(holds(&on_disk(dir.path()), marker), "stored before");
        store.forget(id, None).unwrap();
        let bytes = on_disk(dir.path());
        assert!(!holds(&bytes, marker), "the content left the files");
        assert!(!holds(&bytes, "pangolin"), "and the index's words");
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
    fn a_write_lock_held_too_long_is_a_clear_busy_error_and_nothing_half_written() {
        let (dir, mut store) = store();
        let other = rusqlite::Connection::open(store.path()).unwrap();
        other.execute_batch("BEGIN IMMEDIATE").unwrap();
        store
            .set_busy_timeout(std::time::Duration::from_millis(50))
            .unwrap();
        let e = store
            .add("ns", Draft::new(RecordType::Gotcha, "t", "c"))
            .unwrap_err();
        assert!(matches!(e, MemoryError::Busy { .. }), "{e}");
        let text = e.to_string();
        assert!(
            text.contains(&dir.path().join("memory.db").display().to_string())
                && text.contains("is busy"),
            "{text}"
        );
        other.execute_batch("COMMIT").unwrap();
        assert!(store.list("ns", &ListFilter::default()).unwrap().is_empty());
        store
            .add("ns", Draft::new(RecordType::Gotcha, "t", "c"))
            .unwrap();
    }
}
