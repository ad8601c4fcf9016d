//! The record model of seed 004's durable engineering memory: what a
//! record is, the lifecycle it moves through and the typed edges between
//! records. Every enum has one spelling on disk, on the CLI and in JSON.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

use crate::error::MemoryError;

/// Declares a closed vocabulary: its variants, their one spelling, parsing
/// that lists the allowed words on failure, and `Display`.
macro_rules! vocabulary {
    ($(#[$doc:meta])* $name:ident, $field:literal { $($variant:ident => $word:literal),+ $(,)? }) => {
        $(#[$doc])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
        pub enum $name {
            $(#[serde(rename = $word)] $variant),+
        }

        impl $name {
            pub const ALL: &'static [$name] = &[$($name::$variant),+];

            pub fn as_str(self) -> &'static str {
                match self {
                    $($name::$variant => $word),+
                }
            }
        }

        impl FromStr for $name {
            type Err = MemoryError;
            fn from_str(s: &str) -> Result<Self, MemoryError> {
                match s {
                    $($word => Ok($name::$variant),)+
                    _ => Err(MemoryError::invalid(
                        $field,
                        format!(
                            "`{s}` is not one of: {}",
                            [$($word),+].join(", ")
                        ),
                    )),
                }
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(self.as_str())
            }
        }
    };
}

vocabulary! {
    /// What kind of knowledge a record holds; it decides the compiler
    /// section the record lands in.
    RecordType, "record type" {
        Decision => "decision",
        Gotcha => "gotcha",
        Procedure => "procedure",
        Concept => "concept",
        Belief => "belief",
        DomainNote => "domain-note",
        Summary => "summary",
    }
}

vocabulary! {
    /// Where a record is in its lifecycle. Only candidate and validated
    /// records are eligible for recall by default.
    Status, "status" {
        Candidate => "candidate",
        Validated => "validated",
        Stale => "stale",
        Superseded => "superseded",
        Retracted => "retracted",
    }
}

vocabulary! {
    /// A typed edge from one record to another.
    EdgeKind, "edge kind" {
        Supports => "supports",
        Contradicts => "contradicts",
        Supersedes => "supersedes",
        DependsOn => "depends_on",
    }
}

vocabulary! {
    /// A user's verdict on a recall. Stored as evidence for review; it
    /// changes nothing automatically (seed: no autonomous learning).
    Verdict, "feedback" {
        Helpful => "helpful",
        Misleading => "misleading",
        Outdated => "outdated",
        NotUsed => "not_used",
    }
}

vocabulary! {
    /// Why a history row was written: every change to a record writes one.
    ChangeKind, "change kind" {
        Created => "created",
        Revised => "revised",
        Evidence => "evidence",
        StatusChanged => "status",
        Forgotten => "forgotten",
    }
}

/// Who wrote a record, in which session and with which model.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Provenance {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub actor: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
}

/// Where a record applies. Empty lists apply everywhere.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Applicability {
    /// Globs over workspace-relative paths, e.g. `host/**/*.rs`.
    #[serde(default)]
    pub paths: Vec<String>,
    /// Language names, compared case-insensitively, e.g. `rust`.
    #[serde(default)]
    pub languages: Vec<String>,
}

/// The writable fields of a record: what `add` takes and `revise` replaces.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Draft {
    #[serde(rename = "type")]
    pub record_type: RecordType,
    pub title: String,
    pub content: String,
    #[serde(default)]
    pub tags: Vec<String>,
    #[serde(default)]
    pub provenance: Provenance,
    #[serde(default = "default_confidence")]
    pub confidence: f64,
    #[serde(default = "default_status")]
    pub status: Status,
    /// Unix seconds; the record is not eligible before it.
    #[serde(default)]
    pub valid_from: Option<i64>,
    /// Unix seconds; the record has expired from it on.
    #[serde(default)]
    pub valid_until: Option<i64>,
    #[serde(default)]
    pub applicability: Applicability,
}

fn default_confidence() -> f64 {
    0.5
}

fn default_status() -> Status {
    Status::Candidate
}

impl Draft {
    /// A candidate with default confidence, applicable everywhere.
    pub fn new(record_type: RecordType, title: &str, content: &str) -> Self {
        Draft {
            record_type,
            title: title.to_string(),
            content: content.to_string(),
            tags: Vec::new(),
            provenance: Provenance::default(),
            confidence: default_confidence(),
            status: default_status(),
            valid_from: None,
            valid_until: None,
            applicability: Applicability::default(),
        }
    }
}

/// A stored record as it is now. A forgotten record keeps its id, type,
/// status and lineage; its title, content and tags are empty.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Record {
    pub id: i64,
    pub namespace: String,
    #[serde(flatten)]
    pub draft: Draft,
    /// blake3 of the content; `None` once forgotten.
    pub content_hash: Option<String>,
    /// How many times the same content was stored.
    pub evidence: i64,
    /// Tokens of the record's rendered form, counted when it was written.
    pub tokens: i64,
    /// The number of the newest history row.
    pub revision: i64,
    pub created_at: i64,
    pub updated_at: i64,
    pub forgotten_at: Option<i64>,
}

impl Record {
    pub fn is_forgotten(&self) -> bool {
        self.forgotten_at.is_some()
    }
}

/// One row of a record's history: a full snapshot after a change.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Revision {
    pub record_id: i64,
    pub revision: i64,
    pub change: ChangeKind,
    pub title: String,
    pub content: String,
    pub tags: Vec<String>,
    pub status: Status,
    pub confidence: f64,
    pub content_hash: Option<String>,
    pub actor: Option<String>,
    pub reason: Option<String>,
    pub at: i64,
    /// The rest of the snapshot. History written before schema 2 did not
    /// keep it: there `record_type`, `applicability` and these are None.
    pub record_type: Option<RecordType>,
    pub valid_from: Option<i64>,
    pub valid_until: Option<i64>,
    pub applicability: Option<Applicability>,
    pub session: Option<String>,
    pub model: Option<String>,
}

/// A typed edge between two records.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Edge {
    pub from: i64,
    pub to: i64,
    pub kind: EdgeKind,
    pub at: i64,
}

/// What one recall did, as its receipt keeps it: the ids it returned and
/// the ids it held back with their reasons, never the query's text.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Receipt {
    pub id: i64,
    pub namespace: String,
    pub returned: Vec<i64>,
    /// (id, reason) for each record held back.
    pub held_back: Vec<(i64, String)>,
    pub at: i64,
}

/// Feedback on a recall receipt.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Feedback {
    pub id: i64,
    pub receipt: i64,
    pub record: Option<i64>,
    pub verdict: Verdict,
    pub note: Option<String>,
    pub at: i64,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_word_parses_back_to_its_variant() {
        for t in RecordType::ALL {
            assert_eq!(t.as_str().parse::<RecordType>().unwrap(), *t);
        }
        for s in Status::ALL {
            assert_eq!(s.as_str().parse::<Status>().unwrap(), *s);
        }
    }

    #[test]
    fn an_unknown_word_lists_the_allowed_ones() {
        let e = "lemma".parse::<RecordType>().unwrap_err().to_string();
        assert!(e.contains("`lemma`") && e.contains("domain-note"), "{e}");
    }
}
