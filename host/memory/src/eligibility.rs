//! Lifecycle-aware eligibility (seed 004: "Lifecycle-aware recall"):
//! which records may be used as context now, and, for each that may
//! not, the reason, so a user can see why a record did not come back.

use std::fmt;

use serde::{Serialize, Serializer};

use crate::model::{Record, Status};

/// Why an otherwise matching record was held back.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Suppression {
    /// Its status is not one the recall admits (stale, superseded,
    /// retracted by default).
    Status(Status),
    /// An eligible record supersedes it through an edge.
    SupersededBy(i64),
    /// Its validity window ended.
    Expired,
    /// Its validity window has not begun.
    NotYetValid,
    /// None of its path globs matches the path in question.
    InapplicablePath,
    /// Its languages do not include the language in question.
    InapplicableLanguage,
}

impl fmt::Display for Suppression {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Suppression::Status(s) => f.write_str(s.as_str()),
            Suppression::SupersededBy(id) => write!(f, "superseded_by:{id}"),
            Suppression::Expired => f.write_str("expired"),
            Suppression::NotYetValid => f.write_str("not_yet_valid"),
            Suppression::InapplicablePath => f.write_str("inapplicable_path"),
            Suppression::InapplicableLanguage => f.write_str("inapplicable_language"),
        }
    }
}

impl Serialize for Suppression {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

/// The statuses recall admits unless asked for others.
pub const DEFAULT_STATUSES: &[Status] = &[Status::Candidate, Status::Validated];

/// What a record is judged against.
#[derive(Debug, Clone, Default)]
pub struct Situation<'a> {
    /// Admitted statuses; empty means [`DEFAULT_STATUSES`].
    pub statuses: &'a [Status],
    /// A workspace-relative path the work is about.
    pub path: Option<&'a str>,
    /// The language the work is in.
    pub language: Option<&'a str>,
    /// Scoped records need a path (language) named above that they apply
    /// to; see [`crate::RecallQuery::scope_must_match`].
    pub scope_must_match: bool,
    /// Unix seconds.
    pub now: i64,
}

/// Whether `record` is eligible; `superseded_by` is an eligible record
/// that supersedes it, if any.
pub fn judge(
    record: &Record,
    superseded_by: Option<i64>,
    situation: &Situation<'_>,
) -> Result<(), Suppression> {
    let d = &record.draft;
    let statuses = if situation.statuses.is_empty() {
        DEFAULT_STATUSES
    } else {
        situation.statuses
    };
    if !statuses.contains(&d.status) {
        return Err(Suppression::Status(d.status));
    }
    if let Some(by) = superseded_by {
        return Err(Suppression::SupersededBy(by));
    }
    if d.valid_until.is_some_and(|until| situation.now >= until) {
        return Err(Suppression::Expired);
    }
    if d.valid_from.is_some_and(|from| situation.now < from) {
        return Err(Suppression::NotYetValid);
    }
    let a = &d.applicability;
    match situation.path {
        Some(path) => {
            let path = path.trim_start_matches("./");
            // Globs were checked when the record was written; one that no
            // longer compiles matches nothing rather than everything.
            let applies = a.paths.is_empty()
                || a.paths
                    .iter()
                    .any(|g| path_glob(g).is_ok_and(|g| g.compile_matcher().is_match(path)));
            if !applies {
                return Err(Suppression::InapplicablePath);
            }
        }
        None if situation.scope_must_match && !a.paths.is_empty() => {
            return Err(Suppression::InapplicablePath)
        }
        None => {}
    }
    match situation.language {
        Some(language) => {
            let applies = a.languages.is_empty()
                || a.languages.iter().any(|l| l.eq_ignore_ascii_case(language));
            if !applies {
                return Err(Suppression::InapplicableLanguage);
            }
        }
        None if situation.scope_must_match && !a.languages.is_empty() => {
            return Err(Suppression::InapplicableLanguage)
        }
        None => {}
    }
    Ok(())
}

/// A record's path glob, read as gitignore reads one: `*` stays inside a
/// folder and `**` crosses folders, so `src/*.rs` is not `src/a/b.rs`.
pub(crate) fn path_glob(glob: &str) -> Result<globset::Glob, globset::Error> {
    globset::GlobBuilder::new(glob)
        .literal_separator(true)
        .build()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Draft, RecordType};

    fn record(draft: Draft) -> Record {
        Record {
            id: 1,
            namespace: "ns".into(),
            draft,
            content_hash: None,
            evidence: 1,
            tokens: 1,
            revision: 1,
            created_at: 0,
            updated_at: 0,
            forgotten_at: None,
        }
    }

    fn at(now: i64) -> Situation<'static> {
        Situation {
            now,
            ..Situation::default()
        }
    }

    #[test]
    fn lifecycle_states_are_suppressed_with_their_reason() {
        let mut d = Draft::new(RecordType::Gotcha, "t", "c");
        assert_eq!(judge(&record(d.clone()), None, &at(5)), Ok(()));
        d.status = Status::Stale;
        assert_eq!(
            judge(&record(d.clone()), None, &at(5))
                .unwrap_err()
                .to_string(),
            "stale"
        );
        let admitted = [Status::Stale];
        let situation = Situation {
            statuses: &admitted,
            ..at(5)
        };
        assert_eq!(judge(&record(d.clone()), None, &situation), Ok(()));
        d.status = Status::Validated;
        assert_eq!(
            judge(&record(d.clone()), Some(9), &at(5))
                .unwrap_err()
                .to_string(),
            "superseded_by:9"
        );
        d.valid_until = Some(5);
        assert_eq!(
            judge(&record(d.clone()), None, &at(5)),
            Err(Suppression::Expired)
        );
        d.valid_until = None;
        d.valid_from = Some(6);
        assert_eq!(
            judge(&record(d), None, &at(5)),
            Err(Suppression::NotYetValid)
        );
    }

    #[test]
    fn applicability_is_judged_only_when_the_situation_names_it() {
        let mut d = Draft::new(RecordType::Gotcha, "t", "c");
        d.applicability.paths = vec!["host/**/*.rs".into()];
        d.applicability.languages = vec!["rust".into()];
        let r = record(d);
        assert_eq!(judge(&r, None, &at(0)), Ok(()));
        let inside = Situation {
            path: Some("./host/core/src/lib.rs"),
            language: Some("Rust"),
            ..at(0)
        };
        assert_eq!(judge(&r, None, &inside), Ok(()));
        let outside = Situation {
            path: Some("guests/x.py"),
            ..at(0)
        };
        assert_eq!(
            judge(&r, None, &outside),
            Err(Suppression::InapplicablePath)
        );
        let python = Situation {
            language: Some("python"),
            ..at(0)
        };
        assert_eq!(
            judge(&r, None, &python),
            Err(Suppression::InapplicableLanguage)
        );
    }

    #[test]
    fn a_star_stays_inside_its_folder() {
        let mut d = Draft::new(RecordType::Gotcha, "t", "c");
        d.applicability.paths = vec!["src/*.rs".into()];
        let r = record(d);
        let at_path = |path| Situation {
            path: Some(path),
            ..at(0)
        };
        assert_eq!(judge(&r, None, &at_path("src/lib.rs")), Ok(()));
        assert_eq!(
            judge(&r, None, &at_path("src/deep/lib.rs")),
            Err(Suppression::InapplicablePath)
        );
    }

    #[test]
    fn scoped_records_need_a_match_when_the_query_says_so() {
        let mut d = Draft::new(RecordType::Gotcha, "t", "c");
        d.applicability.paths = vec!["host/**".into()];
        let by_path = record(d);
        let mut d = Draft::new(RecordType::Gotcha, "t", "c");
        d.applicability.languages = vec!["rust".into()];
        let by_language = record(d);
        let general = record(Draft::new(RecordType::Gotcha, "t", "c"));
        let strict = Situation {
            scope_must_match: true,
            ..at(0)
        };
        assert_eq!(
            judge(&by_path, None, &strict),
            Err(Suppression::InapplicablePath)
        );
        assert_eq!(
            judge(&by_language, None, &strict),
            Err(Suppression::InapplicableLanguage)
        );
        assert_eq!(judge(&general, None, &strict), Ok(()));
        let about_host = Situation {
            path: Some("host/a.rs"),
            language: Some("rust"),
            ..strict
        };
        assert_eq!(judge(&by_path, None, &about_host), Ok(()));
        assert_eq!(judge(&by_language, None, &about_host), Ok(()));
    }
}
