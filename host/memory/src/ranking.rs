//! Ranking for recall: which FTS5 query to run and how, so that bm25
//! stays both good and fast from ten records to a hundred thousand.
//!
//! bm25 costs a few microseconds per matching record, and on a large
//! store a question's ordinary words ("run", "time", "build") each match
//! thousands of records. So a large store is ranked in two passes:
//! 1. records holding at least two of the question's rarest words,
//!    scored by bm25 over all of those words: far fewer records, and the
//!    ones that share more of the question;
//! 2. if that leaves fewer than the wanted number, records holding one of the rarest
//!    words, keeping words only while their records add up to
//!    [`SCORED_ROWS`] (words that common weigh almost nothing in bm25,
//!    so they act as stopwords learned from the data).
//!
//! A store whose words match few records is ranked in one pass over
//! every word, and so is a small namespace, whatever the size of the
//! database around it: one database holds every project, and a small
//! project's recall must not depend on a large one's words.

use rusqlite::{params_from_iter, types::Value};

use crate::error::Result;
use crate::fts_query::{any_of, at_least_two, phrase};
use crate::recall::RecallQuery;
use crate::schema::namespace_token;
use crate::store::Store;
use crate::validate::normal_tag;

/// bm25 column weights: a word in the title says more about what a record
/// is than one in its body; tags sit between.
const WEIGHTS: (f64, f64, f64) = (4.0, 1.0, 2.0);

/// About how many matching records one bm25 pass may score.
pub const SCORED_ROWS: usize = 2000;

/// How many of the rarest words the two-word pass pairs up (their pairs
/// grow quadratically).
const PAIRED_TERMS: usize = 5;

/// How a query's words are ranked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Plan {
    /// A namespace of at most [`SCORED_ROWS`] records: one pass over
    /// every word, among its records only. The index's namespace token
    /// is intersected with the words' lists, so the pass walks this
    /// namespace's few records, not every project's matches, and no word
    /// is dropped for being common in another project of the same
    /// database. (bm25's word weights stay those of the whole index.)
    Small(Vec<String>),
    /// One pass over these words.
    Every(Vec<String>),
    /// Two passes over `rarest`, which is in ascending order of how many
    /// records hold each word; the one-word pass takes the first
    /// `budgeted` of them.
    Large {
        rarest: Vec<String>,
        budgeted: usize,
    },
}

impl Store {
    /// Whether `namespace` holds at most [`SCORED_ROWS`] records. Counted
    /// up to one past the threshold: a large namespace costs no more to
    /// tell apart than a small one.
    pub(crate) fn namespace_is_small(&self, namespace: &str) -> Result<bool> {
        let records: i64 = self
            .conn
            .prepare_cached(
                "SELECT count(*) FROM (SELECT 1 FROM records WHERE namespace = ?1 LIMIT ?2)",
            )
            .and_then(|mut s| {
                s.query_row(rusqlite::params![namespace, SCORED_ROWS + 1], |r| r.get(0))
            })
            .map_err(|e| self.sql(e))?;
        Ok(records as usize <= SCORED_ROWS)
    }

    /// The plan for `terms`: words no record holds are dropped; on a
    /// large store the rest are counted (reading a word's doclist costs
    /// tens of nanoseconds a record, against microseconds for scoring).
    /// `small` is [`Store::namespace_is_small`] of the query's namespace,
    /// counted once per recall by the caller.
    pub(crate) fn plan(&self, small: bool, terms: Vec<String>) -> Result<Plan> {
        if small {
            return Ok(Plan::Small(terms));
        }
        if terms.len() < 2 {
            return Ok(Plan::Every(terms));
        }
        // A large namespace counts its words across the database: narrowing
        // each count to the namespace would walk the namespace's whole
        // list per word (a 100k-record recall went from 5 to 17 ms). Where
        // the namespace is most of the database, the counts barely differ.
        let mut counted = Vec::with_capacity(terms.len());
        for term in terms {
            let matching: i64 = self
                .conn
                .prepare_cached("SELECT count(*) FROM records_fts WHERE records_fts MATCH ?1")
                .and_then(|mut s| s.query_row([phrase(&term)], |r| r.get(0)))
                .map_err(|e| self.sql(e))?;
            if matching > 0 {
                counted.push((matching as usize, term));
            }
        }
        if counted.len() < 2 || counted.iter().map(|c| c.0).sum::<usize>() <= SCORED_ROWS {
            return Ok(Plan::Every(counted.into_iter().map(|c| c.1).collect()));
        }
        counted.sort();
        let mut total = 0;
        let budgeted = counted
            .iter()
            .take_while(|(matching, _)| {
                let keep = total == 0 || total + matching <= SCORED_ROWS;
                total += matching;
                keep
            })
            .count();
        Ok(Plan::Large {
            rarest: counted.into_iter().map(|c| c.1).collect(),
            budgeted,
        })
    }

    /// Candidate ids with their bm25 scores, best first (lower is
    /// better; scores compare within one pass). `small` as for
    /// [`Store::plan`].
    pub(crate) fn rank(&self, query: &RecallQuery, small: bool) -> Result<Vec<(i64, f64)>> {
        let window = query.window();
        // One pass over every word, within the namespace's token or not.
        let one_pass = |terms: &[String], scoped: bool| match any_of(terms) {
            Some(expression) if scoped => {
                self.ranked_by(query, &in_namespace(&query.namespace, &expression), window)
            }
            Some(expression) => self.ranked_by(query, &expression, window),
            None => Ok(Vec::new()),
        };
        match self.plan(small, crate::fts_query::terms(&query.text))? {
            Plan::Small(terms) => one_pass(&terms, true),
            Plan::Every(terms) => one_pass(&terms, false),
            Plan::Large { rarest, budgeted } => {
                let paired = &rarest[..rarest.len().min(PAIRED_TERMS)];
                let mut ranked = match at_least_two(paired) {
                    Some(expression) => self.ranked_by(query, &expression, window)?,
                    None => Vec::new(),
                };
                // Scoring single-word matches is the costly part; it is
                // only worth it when too few records share two words.
                if ranked.len() < query.limit {
                    if let Some(expression) = any_of(&rarest[..budgeted]) {
                        for (id, score) in self.ranked_by(query, &expression, window)? {
                            if ranked.len() == window {
                                break;
                            }
                            if !ranked.iter().any(|(seen, _)| *seen == id) {
                                ranked.push((id, score));
                            }
                        }
                    }
                }
                Ok(ranked)
            }
        }
    }

    /// The best `window` records of the namespace matching `expression`,
    /// after the type and tag filters. Only ids and scores go through the
    /// sort; whole records are read for the few that come out of it.
    fn ranked_by(
        &self,
        query: &RecallQuery,
        expression: &str,
        window: usize,
    ) -> Result<Vec<(i64, f64)>> {
        let (w_title, w_content, w_tags) = WEIGHTS;
        // The namespace token's column weighs nothing: it selects, and
        // never ranks.
        let mut sql = format!(
            "SELECT r.id, bm25(records_fts, {w_title:.1}, {w_content:.1}, {w_tags:.1}, 0.0) AS score \
             FROM records_fts JOIN records r ON r.id = records_fts.rowid \
             WHERE records_fts MATCH ?1 AND r.namespace = ?2"
        );
        let mut args: Vec<Value> = vec![
            Value::Text(expression.to_string()),
            Value::Text(query.namespace.clone()),
        ];
        sql.push_str(&filters(query, &mut args));
        args.push(Value::Integer(window as i64));
        sql.push_str(&format!(" ORDER BY score LIMIT ?{}", args.len()));
        let mut stmt = self.conn.prepare_cached(&sql).map_err(|e| self.sql(e))?;
        let ranked = stmt
            .query_map(params_from_iter(args), |row| {
                Ok((row.get::<_, i64>(0)?, row.get::<_, f64>(1)?))
            })
            .and_then(|rows| rows.collect::<rusqlite::Result<Vec<_>>>())
            .map_err(|e| self.sql(e))?;
        Ok(ranked)
    }
}

/// The SQL that keeps only records (`r`) of the query's types and with
/// all its tags, its arguments appended to `args`.
pub(crate) fn filters(query: &RecallQuery, args: &mut Vec<Value>) -> String {
    let mut sql = String::new();
    if !query.types.is_empty() {
        let marks: Vec<String> = query
            .types
            .iter()
            .map(|t| {
                args.push(Value::Text(t.as_str().to_string()));
                format!("?{}", args.len())
            })
            .collect();
        sql.push_str(&format!(" AND r.type IN ({})", marks.join(", ")));
    }
    for tag in &query.tags {
        args.push(Value::Text(normal_tag(tag)));
        sql.push_str(&format!(
            // instr, not LIKE: a tag's `_` or `%` is a character.
            " AND instr(' ' || r.tags || ' ', ' ' || ?{} || ' ') > 0",
            args.len()
        ));
    }
    sql
}

/// `expression` among the records of `namespace` only: FTS5 intersects
/// the namespace token's list with the words' lists, so only the
/// namespace's records are walked and scored (bm25's word weights stay
/// those of the whole index).
fn in_namespace(namespace: &str, expression: &str) -> String {
    format!(
        "ns_token : \"{}\" AND ({expression})",
        namespace_token(namespace)
    )
}
