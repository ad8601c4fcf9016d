//! The embedding view: vectors for semantic recall, kept beside the
//! records and never instead of them (see [`crate::semantic`]).
//!
//! Embedding a record takes tens of milliseconds, far past what a store
//! may cost, so writes never embed: [`Store::refresh_vectors`] brings a
//! namespace's view up to date when a model is at hand (`amber memory
//! embed`, or a recall that finds a few records new since the last one).

use rusqlite::{params, params_from_iter, types::Value};
use serde::Serialize;

use crate::error::{sql, Result};
use crate::recall::RecallQuery;
use crate::semantic::{record_text, similarity, to_blob, Embed};
use crate::store::Store;

/// What [`Store::refresh_vectors`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Refreshed {
    /// Records embedded by this call.
    pub embedded: usize,
    /// Live records of the namespace still without a current vector.
    pub remaining: usize,
}

const MISSING: &str = "FROM records r LEFT JOIN record_vectors v \
     ON v.record_id = r.id AND v.model = ?2 AND v.revision = r.revision \
     WHERE r.namespace = ?1 AND r.forgotten_at IS NULL AND v.record_id IS NULL";

impl Store {
    /// Embeds up to `max` live records of `namespace` that have no vector
    /// of `embed`'s model for their current revision.
    pub fn refresh_vectors(
        &mut self,
        embed: &dyn Embed,
        namespace: &str,
        max: usize,
    ) -> Result<Refreshed> {
        let model = embed.model().to_string();
        let stale: Vec<(i64, i64, String)> = self
            .conn
            .prepare_cached(&format!(
                "SELECT r.id, r.revision, r.title, r.content, r.tags {MISSING} ORDER BY r.id LIMIT ?3"
            ))
            .and_then(|mut s| {
                s.query_map(params![namespace, model, max as i64], |r| {
                    Ok((
                        r.get(0)?,
                        r.get(1)?,
                        record_text(&r.get::<_, String>(2)?, &r.get::<_, String>(3)?, &r.get::<_, String>(4)?),
                    ))
                })?
                .collect()
            })
            .map_err(|e| self.sql(e))?;
        // Embedding happens outside the write lock; the insert below only
        // lands if the record is still at that revision and not forgotten,
        // so a change made meanwhile is never paired with an old vector.
        let vectors: Vec<(i64, i64, Vec<u8>)> = stale
            .into_iter()
            .map(|(id, revision, text)| (id, revision, to_blob(&embed.embed(&text))))
            .collect();
        let mut embedded = 0;
        // Nothing to write takes no write lock.
        if !vectors.is_empty() {
            let path = self.path.clone();
            let tx = self.write()?;
            for (id, revision, blob) in &vectors {
                embedded += tx
                    .execute(
                        "INSERT OR REPLACE INTO record_vectors (record_id, model, revision, vector) \
                         SELECT ?1, ?2, ?3, ?4 WHERE EXISTS (SELECT 1 FROM records \
                         WHERE id = ?1 AND revision = ?3 AND forgotten_at IS NULL)",
                        params![id, model, revision, blob],
                    )
                    .map_err(|e| sql(&path, e))?;
            }
            tx.commit().map_err(|e| sql(&path, e))?;
        }
        let remaining: i64 = self
            .conn
            .prepare_cached(&format!("SELECT count(*) {MISSING}"))
            .and_then(|mut s| s.query_row(params![namespace, model], |r| r.get(0)))
            .map_err(|e| self.sql(e))?;
        Ok(Refreshed {
            embedded,
            remaining: remaining as usize,
        })
    }

    /// The namespace's records with a current vector of `model`, after the
    /// query's type and tag filters, with their cosine similarity to
    /// `vector`, most similar first.
    pub(crate) fn semantic_rank(
        &self,
        query: &RecallQuery,
        model: &str,
        vector: &[f32],
    ) -> Result<Vec<(i64, f32)>> {
        let mut args = vec![
            Value::Text(query.namespace.clone()),
            Value::Text(model.to_string()),
        ];
        let sql = format!(
            "SELECT r.id, v.vector FROM record_vectors v JOIN records r \
             ON r.id = v.record_id AND v.revision = r.revision \
             WHERE r.namespace = ?1 AND v.model = ?2 AND r.forgotten_at IS NULL{}",
            crate::ranking::filters(query, &mut args)
        );
        let mut stmt = self.conn.prepare_cached(&sql).map_err(|e| self.sql(e))?;
        let mut scored: Vec<(f32, i64)> = stmt
            .query_map(params_from_iter(args), |row| {
                Ok((row.get::<_, i64>(0)?, row.get::<_, Vec<u8>>(1)?))
            })
            .and_then(|rows| rows.collect::<rusqlite::Result<Vec<_>>>())
            .map_err(|e| self.sql(e))?
            .into_iter()
            .filter_map(|(id, blob)| similarity(vector, &blob).map(|s| (s, id)))
            .collect();
        scored.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
        Ok(scored.into_iter().map(|(s, id)| (id, s)).collect())
    }
}

#[cfg(test)]
mod tests {
    use crate::model::{Draft, RecordType};
    use crate::recall::{RecallQuery, Semantic};
    use crate::semantic::Embed;
    use crate::store::scratch;

    /// Two directions of meaning: releases, and everything else. Counts
    /// its calls, to show what a refresh embeds.
    struct Toy(std::cell::Cell<usize>);

    impl Embed for Toy {
        fn model(&self) -> &str {
            "toy"
        }
        fn embed(&self, text: &str) -> Vec<f32> {
            self.0.set(self.0.get() + 1);
            let lower = text.to_lowercase();
            if ["release", "publish", "version"]
                .iter()
                .any(|w| lower.contains(w))
            {
                vec![1.0, 0.0]
            } else {
                vec![0.0, 1.0]
            }
        }
    }

    /// Semantic recall through `model`, embedding nothing first: these
    /// tests refresh the view themselves.
    fn first(model: &dyn Embed) -> Semantic<'_> {
        Semantic {
            model,
            embed_first: 0,
        }
    }

    fn gotcha(title: &str, content: &str) -> Draft {
        Draft::new(RecordType::Gotcha, title, content)
    }

    #[test]
    fn a_refresh_embeds_what_is_new_or_revised_and_forget_takes_the_vector() {
        let (_dir, mut store) = scratch();
        let toy = Toy(Default::default());
        let a = store
            .add("ns", gotcha("Cutting a release", "tag and push"))
            .unwrap()
            .id;
        let b = store
            .add("ns", gotcha("Flaky socket test", "retry once"))
            .unwrap()
            .id;
        store
            .add("other", gotcha("Elsewhere", "not this namespace"))
            .unwrap();

        let first = store.refresh_vectors(&toy, "ns", 1).unwrap();
        assert_eq!((first.embedded, first.remaining), (1, 1));
        let second = store.refresh_vectors(&toy, "ns", 10).unwrap();
        assert_eq!((second.embedded, second.remaining), (1, 0));
        assert_eq!(toy.0.get(), 2);
        // Nothing new: nothing embedded.
        assert_eq!(store.refresh_vectors(&toy, "ns", 10).unwrap().embedded, 0);

        store
            .revise(b, gotcha("Flaky socket test", "retry twice"), None)
            .unwrap();
        assert_eq!(store.refresh_vectors(&toy, "ns", 10).unwrap().embedded, 1);

        // More evidence and a status change keep the text: the vector
        // follows the revision, and nothing is embedded again.
        store
            .add("ns", gotcha("Flaky socket test", "retry twice"))
            .unwrap();
        store
            .set_status(b, crate::model::Status::Validated, None)
            .unwrap();
        let calls = toy.0.get();
        let again = store.refresh_vectors(&toy, "ns", 10).unwrap();
        assert_eq!(
            (again.embedded, again.remaining, toy.0.get()),
            (0, 0, calls)
        );

        store.forget(a, None).unwrap();
        let left: i64 = store
            .conn
            .query_row(
                "SELECT count(*) FROM record_vectors WHERE record_id = ?1",
                [a],
                |r| r.get(0),
            )
            .unwrap();
        assert_eq!(left, 0, "a forgotten record keeps no vector of its content");
        assert_eq!(
            store.refresh_vectors(&toy, "ns", 10).unwrap(),
            super::Refreshed {
                embedded: 0,
                remaining: 0
            }
        );
    }

    #[test]
    fn recall_with_a_model_finds_a_record_that_shares_no_word_and_respects_filters() {
        let (_dir, mut store) = scratch();
        let toy = Toy(Default::default());
        let release = store
            .add("ns", gotcha("Cutting a release", "tag and push"))
            .unwrap()
            .id;
        store
            .add("ns", gotcha("New laptop", "install the toolchain first"))
            .unwrap();
        store.refresh_vectors(&toy, "ns", 10).unwrap();

        let query = RecallQuery::new("ns", "how to publish");
        assert!(
            store.recall(&query).unwrap().hits.is_empty(),
            "no shared word"
        );
        let hits = store.recall_with(&query, Some(first(&toy))).unwrap().hits;
        assert_eq!(hits[0].record.id, release);

        // The type filter holds for semantic candidates too.
        let mut decisions = query.clone();
        decisions.types = vec![RecordType::Decision];
        assert!(store
            .recall_with(&decisions, Some(first(&toy)))
            .unwrap()
            .hits
            .is_empty());
        // A vector of another model is never compared.
        struct Other;
        impl Embed for Other {
            fn model(&self) -> &str {
                "other"
            }
            fn embed(&self, _: &str) -> Vec<f32> {
                vec![1.0, 0.0]
            }
        }
        assert!(store
            .recall_with(&query, Some(first(&Other)))
            .unwrap()
            .hits
            .is_empty());
        // Each model keeps its own vectors: refreshing one leaves the
        // other's in place.
        store.refresh_vectors(&Other, "ns", 10).unwrap();
        assert_eq!(store.refresh_vectors(&toy, "ns", 10).unwrap().embedded, 0);
    }

    #[test]
    fn the_real_model_finds_a_paraphrase_that_words_miss() {
        let (_dir, mut store) = scratch();
        let model = crate::semantic::minilm::tests::installed();
        let release = store
            .add(
                "ns",
                gotcha(
                    "Cutting a release",
                    "Bump the number in the workspace Cargo.toml, update CHANGELOG.md, commit, \
                     tag vX.Y.Z and push the tag; the release workflow builds and uploads the binaries.",
                ),
            )
            .unwrap()
            .id;
        store
            .add(
                "ns",
                gotcha(
                    "Flaky socket test",
                    "The port test races the listener; retry once.",
                ),
            )
            .unwrap();
        store
            .add(
                "ns",
                gotcha(
                    "Slow debug builds",
                    "Set opt-level 2 for dependencies in the dev profile.",
                ),
            )
            .unwrap();
        store.refresh_vectors(&model, "ns", 10).unwrap();
        let query = RecallQuery::new("ns", "how do we ship a new version to users?");
        assert!(store.recall(&query).unwrap().hits.is_empty());
        let hits = store.recall_with(&query, Some(first(&model))).unwrap().hits;
        assert_eq!(hits.len(), 1, "the other two are too far in meaning");
        assert_eq!(hits[0].record.id, release);
        let off_topic = RecallQuery::new("ns", "a banana bread recipe with walnuts");
        assert!(store
            .recall_with(&off_topic, Some(first(&model)))
            .unwrap()
            .hits
            .is_empty());
    }
}
