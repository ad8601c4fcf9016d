//! Recall: FTS5 with bm25 over title, content and tags, filtered by type
//! and tags, then judged for eligibility. Every recall leaves a receipt
//! (what came back and what was held back, never the query text), which
//! feedback can later refer to.

use rusqlite::OptionalExtension;
use serde::Serialize;

use crate::eligibility::{judge, Situation, Suppression};
use crate::error::Result;
use crate::model::{Record, RecordType, Status};
use crate::semantic::{fuse, Embed};
use crate::store::{now, Store};

/// How many candidates a ranking reads per wanted hit: enough that
/// suppressed records rarely starve a recall, few enough to stay fast.
const CANDIDATES_PER_HIT: usize = 4;

/// The default number of records a recall returns.
pub const DEFAULT_LIMIT: usize = 5;

#[derive(Debug, Clone)]
pub struct RecallQuery {
    pub namespace: String,
    pub text: String,
    pub limit: usize,
    /// Only these types; empty means all.
    pub types: Vec<RecordType>,
    /// Records must carry every one of these tags.
    pub tags: Vec<String>,
    /// Admitted statuses; empty means candidate and validated.
    pub statuses: Vec<Status>,
    /// A workspace-relative path the work is about.
    pub path: Option<String>,
    pub language: Option<String>,
    /// Whether a record scoped to paths (or languages) needs the query to
    /// name one it applies to. Off, a query without a path admits scoped
    /// records (a person asking in general); on, they stay out (a prompt
    /// turn that is not about their files).
    pub scope_must_match: bool,
    /// Unix seconds, for validity windows.
    pub now: i64,
}

impl RecallQuery {
    pub fn new(namespace: &str, text: &str) -> Self {
        RecallQuery {
            namespace: namespace.to_string(),
            text: text.to_string(),
            limit: DEFAULT_LIMIT,
            types: Vec::new(),
            tags: Vec::new(),
            statuses: Vec::new(),
            path: None,
            language: None,
            scope_must_match: false,
            now: now(),
        }
    }

    /// How many candidates a ranking reads for this query.
    pub(crate) fn window(&self) -> usize {
        self.limit.max(1) * CANDIDATES_PER_HIT + 16
    }

    pub(crate) fn situation(&self) -> Situation<'_> {
        Situation {
            statuses: &self.statuses,
            path: self.path.as_deref(),
            language: self.language.as_deref(),
            scope_must_match: self.scope_must_match,
            now: self.now,
        }
    }
}

/// A record that came back, best first. Lower scores are better: bm25's,
/// or with semantic recall the negated fused score (see
/// [`crate::semantic::fuse`]).
#[derive(Debug, Clone, Serialize)]
pub struct Hit {
    pub record: Record,
    pub score: f64,
}

/// A record that matched but was held back, and why.
#[derive(Debug, Clone, Serialize)]
pub struct Suppressed {
    pub id: i64,
    pub revision: i64,
    pub reason: Suppression,
}

/// How a recall's hits were ranked, and so what their scores are.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Ranking {
    /// bm25 over the words; scores are bm25's.
    Lexical,
    /// Words and meaning fused; scores are the negated fused score.
    Fused,
}

#[derive(Debug, Clone, Serialize)]
pub struct Recall {
    pub receipt: i64,
    pub ranking: Ranking,
    pub hits: Vec<Hit>,
    pub suppressed: Vec<Suppressed>,
    /// With a model, in a namespace within the bound: its records still
    /// without a current vector after this recall's embedding (they took
    /// part by their words only). `None` when recall ignored the model:
    /// none was given, or the namespace is past the bound.
    #[serde(skip)]
    pub unembedded: Option<usize>,
}

/// Semantic recall's part in one recall: the encoder, and how many of
/// the namespace's records without a current vector it embeds before
/// ranking (0 embeds none and only counts them).
#[derive(Clone, Copy)]
pub struct Semantic<'a> {
    pub model: &'a dyn Embed,
    pub embed_first: usize,
}

impl Store {
    /// Recalls the records that match `query` and may be used now.
    pub fn recall(&mut self, query: &RecallQuery) -> Result<Recall> {
        self.recall_with(query, None)
    }

    /// Whether [`Store::recall_with`] ranks `namespace` by meaning too
    /// (given a model): only a namespace of at most 2,000 records.
    pub fn semantic_applies(&self, namespace: &str) -> Result<bool> {
        self.namespace_is_small(namespace)
    }

    /// Recalls as [`Store::recall`] does, with `semantic`'s model fused
    /// into the lexical ranking when the namespace is small enough to
    /// scan (at most 2,000 records, the small plan's bound; a larger one
    /// stays lexical, and nothing is embedded). Within the bound it first
    /// embeds up to `embed_first` records without a current vector (see
    /// [`Store::refresh_vectors`]); the rest take part by their words
    /// only, and [`Recall::unembedded`] says how many they are.
    pub fn recall_with(
        &mut self,
        query: &RecallQuery,
        semantic: Option<Semantic<'_>>,
    ) -> Result<Recall> {
        // Counted once: it decides both the lexical plan and whether
        // meaning is scanned.
        let small = self.namespace_is_small(&query.namespace)?;
        let semantic = semantic.filter(|_| small);
        let unembedded = semantic
            .map(|s| self.refresh_vectors(s.model, &query.namespace, s.embed_first))
            .transpose()?
            .map(|refreshed| refreshed.remaining);
        let lexical = self.rank(query, small)?;
        let mut ranking = Ranking::Lexical;
        let ranked = match semantic {
            Some(Semantic { model: embed, .. })
                if query.text.chars().any(char::is_alphanumeric) =>
            {
                let vector = embed.embed(&query.text);
                let nearest = self.semantic_rank(query, embed.model(), &vector)?;
                ranking = Ranking::Fused;
                // Negated, so that lower stays better for every hit.
                fuse(&lexical, &nearest, query.window())
                    .into_iter()
                    .map(|(id, score)| (id, -score))
                    .collect()
            }
            _ => lexical,
        };
        let (hits, suppressed) = self.judge_ranked(query, ranked)?;
        let receipt = self.write_receipt(query, &hits, &suppressed)?;
        Ok(Recall {
            receipt,
            ranking,
            hits,
            suppressed,
            unembedded,
        })
    }

    /// Judges ranked candidates in order until `limit` are eligible.
    fn judge_ranked(
        &self,
        query: &RecallQuery,
        ranked: Vec<(i64, f64)>,
    ) -> Result<(Vec<Hit>, Vec<Suppressed>)> {
        let situation = query.situation();
        let mut hits = Vec::new();
        let mut suppressed = Vec::new();
        for (id, score) in ranked {
            if hits.len() == query.limit {
                break;
            }
            let record = self.get(id)?;
            let by = self.superseded_by(record.id)?;
            match judge(&record, by, &situation) {
                Ok(()) => hits.push(Hit { record, score }),
                Err(reason) => suppressed.push(Suppressed {
                    id: record.id,
                    revision: record.revision,
                    reason,
                }),
            }
        }
        Ok((hits, suppressed))
    }

    /// An eligible-status, live record that supersedes `id`, if any.
    pub(crate) fn superseded_by(&self, id: i64) -> Result<Option<i64>> {
        self.conn
            .prepare_cached(
                "SELECT e.src FROM edges e JOIN records s ON s.id = e.src \
                 WHERE e.dst = ?1 AND e.kind = 'supersedes' AND s.forgotten_at IS NULL \
                 AND s.status IN ('candidate', 'validated') ORDER BY e.src LIMIT 1",
            )
            .and_then(|mut s| s.query_row([id], |r| r.get(0)).optional())
            .map_err(|e| self.sql(e))
    }

    fn write_receipt(
        &self,
        query: &RecallQuery,
        hits: &[Hit],
        suppressed: &[Suppressed],
    ) -> Result<i64> {
        let returned: Vec<i64> = hits.iter().map(|h| h.record.id).collect();
        let returned = serde_json::to_string(&returned).unwrap_or_else(|_| "[]".into());
        let held = serde_json::to_string(suppressed).unwrap_or_else(|_| "[]".into());
        // The receipt keeps a digest of the query, not its text: the seed
        // keeps prompt-facing material out of durable storage.
        let digest = blake3::hash(query.text.as_bytes()).to_hex().to_string();
        self.conn
            .prepare_cached(
                "INSERT INTO receipts (namespace, query_digest, returned, suppressed, at) \
                 VALUES (?1, ?2, ?3, ?4, ?5)",
            )
            .and_then(|mut s| {
                s.execute(rusqlite::params![
                    query.namespace,
                    digest,
                    returned,
                    held,
                    now()
                ])
            })
            .map_err(|e| self.sql(e))?;
        Ok(self.conn.last_insert_rowid())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Draft, EdgeKind, Verdict};
    use crate::ranking::Plan;

    use crate::store::scratch as store;

    fn add(store: &mut Store, t: RecordType, title: &str, content: &str) -> i64 {
        store.add("ns", Draft::new(t, title, content)).unwrap().id
    }

    fn ids(recall: &Recall) -> Vec<i64> {
        recall.hits.iter().map(|h| h.record.id).collect()
    }

    #[test]
    fn the_best_match_comes_first() {
        let (_dir, mut store) = store();
        add(
            &mut store,
            RecordType::Gotcha,
            "cargo lock",
            "Two builds at once fight over the target dir; wrap cargo in flock.",
        );
        let wal = add(
            &mut store,
            RecordType::Decision,
            "SQLite in WAL mode",
            "The memory store uses WAL so readers never block the writer.",
        );
        add(
            &mut store,
            RecordType::Procedure,
            "release",
            "Tag the commit, then push the tag.",
        );
        let recall = store
            .recall(&RecallQuery::new("ns", "why is sqlite in WAL mode?"))
            .unwrap();
        assert_eq!(ids(&recall)[0], wal);
        assert!(recall.receipt > 0);
    }

    #[test]
    fn on_a_large_store_the_commonest_words_are_dropped() {
        let (_dir, mut store) = store();
        let drafts = (0..crate::ranking::SCORED_ROWS + 10)
            .map(|i| {
                Draft::new(
                    RecordType::Gotcha,
                    "common",
                    &format!("common words number {i}"),
                )
            })
            .collect();
        store.add_many("ns", drafts).unwrap();
        let rare = add(
            &mut store,
            RecordType::Gotcha,
            "rare",
            "a zeppelin note with common words",
        );
        let small = store.namespace_is_small("ns").unwrap();
        let plan = |q: &str| store.plan(small, crate::fts_query::terms(q)).unwrap();
        assert_eq!(
            plan("common zeppelin"),
            Plan::Large {
                rarest: vec!["zeppelin".into(), "common".into()],
                budgeted: 1
            }
        );
        assert_eq!(plan("common unheard"), Plan::Every(vec!["common".into()]));
        assert_eq!(
            ids(&store
                .recall(&RecallQuery::new("ns", "common zeppelin"))
                .unwrap())[0],
            rare
        );
    }

    #[test]
    fn words_are_weighed_within_the_namespace_not_across_the_database() {
        let (_dir, mut store) = store();
        // A large project where "alpha" is everywhere and "omega" rare...
        let drafts: Vec<Draft> = (0..2100)
            .map(|i| Draft::new(RecordType::Gotcha, "filler", &format!("alpha filler {i}")))
            .collect();
        store.add_many("big", drafts).unwrap();
        store
            .add(
                "big",
                Draft::new(RecordType::Gotcha, "rare", "omega only here"),
            )
            .unwrap();
        // ...and a small one, in the same database, where "alpha" is the
        // one word of the question its record holds.
        let small = store
            .add(
                "small",
                Draft::new(
                    RecordType::Decision,
                    "release",
                    "alpha builds ship on Fridays",
                ),
            )
            .unwrap()
            .id;
        let recall = store
            .recall(&RecallQuery::new("small", "alpha omega"))
            .unwrap();
        assert_eq!(ids(&recall), [small]);
        // The large project still ranks its own rare word first.
        let big = store
            .recall(&RecallQuery::new("big", "alpha omega"))
            .unwrap();
        assert_eq!(big.hits[0].record.draft.title, "rare");
    }

    #[test]
    fn fts_syntax_in_a_query_is_never_an_error() {
        let (_dir, mut store) = store();
        add(&mut store, RecordType::Gotcha, "near", "foo bar NEAR baz");
        for q in [
            "\"",
            "AND OR",
            "foo*(",
            "NEAR(",
            "title:foo",
            "-foo",
            "a\"b",
            "(((",
            "^",
            "*",
            "",
        ] {
            store.recall(&RecallQuery::new("ns", q)).unwrap();
        }
        let r = store.recall(&RecallQuery::new("ns", "NEAR(foo")).unwrap();
        assert_eq!(r.hits.len(), 1);
    }

    #[test]
    fn lifecycle_suppression_is_reported_with_reasons() {
        let (_dir, mut store) = store();
        let old = add(
            &mut store,
            RecordType::Decision,
            "logging crate",
            "Use log for logging.",
        );
        let new = add(
            &mut store,
            RecordType::Decision,
            "logging crate",
            "Use tracing for logging.",
        );
        store.link(new, old, EdgeKind::Supersedes).unwrap();
        let stale = add(
            &mut store,
            RecordType::Gotcha,
            "logging noise",
            "Logging is noisy in tests.",
        );
        store.set_status(stale, Status::Stale, None).unwrap();
        let mut expired = Draft::new(
            RecordType::Gotcha,
            "logging freeze",
            "No logging changes this week.",
        );
        expired.valid_until = Some(1);
        let expired = store.add("ns", expired).unwrap().id;
        let recall = store.recall(&RecallQuery::new("ns", "logging")).unwrap();
        assert_eq!(ids(&recall), [new]);
        let mut reasons: Vec<(i64, String)> = recall
            .suppressed
            .iter()
            .map(|s| (s.id, s.reason.to_string()))
            .collect();
        reasons.sort();
        assert_eq!(
            reasons,
            [
                (old, "superseded".to_string()),
                (stale, "stale".to_string()),
                (expired, "expired".to_string())
            ]
        );
    }

    #[test]
    fn an_edge_alone_suppresses_the_superseded_record_when_its_status_is_admitted() {
        let (_dir, mut store) = store();
        let old = add(&mut store, RecordType::Decision, "a", "old parser choice");
        let new = add(&mut store, RecordType::Decision, "b", "new parser choice");
        store.link(new, old, EdgeKind::Supersedes).unwrap();
        let mut q = RecallQuery::new("ns", "parser choice");
        q.statuses = vec![Status::Superseded, Status::Candidate];
        let recall = store.recall(&q).unwrap();
        assert_eq!(ids(&recall), [new]);
        assert_eq!(recall.suppressed[0].reason, Suppression::SupersededBy(new));
    }

    #[test]
    fn filters_narrow_by_type_tag_and_path() {
        let (_dir, mut store) = store();
        let mut d = Draft::new(RecordType::Gotcha, "tests", "Tests need AMBER_HOME set.");
        d.tags = vec!["testing".into()];
        d.applicability.paths = vec!["tests/**".into()];
        let tagged = store.add("ns", d).unwrap().id;
        add(
            &mut store,
            RecordType::Procedure,
            "tests",
            "Run tests with cargo xtask test.",
        );
        let mut q = RecallQuery::new("ns", "tests");
        q.types = vec![RecordType::Gotcha];
        assert_eq!(ids(&store.recall(&q).unwrap()), [tagged]);
        let mut q = RecallQuery::new("ns", "tests");
        q.tags = vec!["Testing".into()];
        assert_eq!(ids(&store.recall(&q).unwrap()), [tagged]);
        let mut q = RecallQuery::new("ns", "tests");
        q.path = Some("host/cli/src/main.rs".into());
        let recall = store.recall(&q).unwrap();
        assert_eq!(recall.hits.len(), 1);
        assert_eq!(recall.suppressed[0].reason, Suppression::InapplicablePath);
    }

    #[test]
    fn forgotten_records_never_come_back_and_namespaces_stay_apart() {
        let (_dir, mut store) = store();
        let id = add(
            &mut store,
            RecordType::Gotcha,
            "token",
            "rotate the deploy token monthly",
        );
        store
            .add(
                "elsewhere",
                Draft::new(RecordType::Gotcha, "token", "deploy token elsewhere"),
            )
            .unwrap();
        store.forget(id, None).unwrap();
        let recall = store
            .recall(&RecallQuery::new("ns", "deploy token"))
            .unwrap();
        assert!(recall.hits.is_empty() && recall.suppressed.is_empty());
    }

    #[test]
    fn feedback_is_stored_on_the_receipt_and_changes_nothing() {
        let (_dir, mut store) = store();
        let id = add(
            &mut store,
            RecordType::Gotcha,
            "flaky",
            "the exec test is flaky under load",
        );
        let recall = store.recall(&RecallQuery::new("ns", "flaky test")).unwrap();
        let before = store.get(id).unwrap();
        store
            .feedback(recall.receipt, Some(id), Verdict::Misleading, Some("fixed"))
            .unwrap();
        assert_eq!(store.get(id).unwrap(), before);
        let again = store.recall(&RecallQuery::new("ns", "flaky test")).unwrap();
        assert_eq!(ids(&again), [id]);
        let stored = store.feedback_on(recall.receipt).unwrap();
        assert_eq!(stored[0].verdict, Verdict::Misleading);
    }
}
