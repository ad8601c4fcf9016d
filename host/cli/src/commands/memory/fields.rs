//! The record fields `add` and `revise` take from the command line.

use amber_memory::{Draft, Provenance, RecordType, Status};
use anyhow::{bail, Result};
use clap::Args;

/// The fields a record is written with; `add` needs type, title and
/// content, `revise` keeps what is not given.
#[derive(Args, Default)]
pub struct RecordFields {
    /// decision, gotcha, procedure, concept, belief, domain-note or summary.
    #[arg(long = "type", value_name = "TYPE")]
    pub record_type: Option<RecordType>,
    /// A short title; recall weighs its words most.
    #[arg(long)]
    pub title: Option<String>,
    /// A tag (repeatable); replaces all tags on `revise`.
    #[arg(long = "tag", value_name = "TAG")]
    pub tags: Vec<String>,
    /// How sure the writer is, 0 to 1.
    #[arg(long)]
    pub confidence: Option<f64>,
    /// candidate, validated, stale, superseded or retracted.
    #[arg(long)]
    pub status: Option<Status>,
    /// A workspace path glob the record applies to (repeatable; none: everywhere).
    #[arg(long = "path", value_name = "GLOB")]
    pub paths: Vec<String>,
    /// A language the record applies to (repeatable; none: all).
    #[arg(long = "language", value_name = "LANG")]
    pub languages: Vec<String>,
    /// When the record becomes eligible: Unix seconds, a date
    /// (2026-12-01) or a UTC time (2026-12-01T12:00Z).
    #[arg(long, value_name = "WHEN", value_parser = amber_core::text::parse_moment)]
    pub valid_from: Option<i64>,
    /// When the record expires: Unix seconds, a date or a UTC time.
    #[arg(long, value_name = "WHEN", value_parser = amber_core::text::parse_moment)]
    pub valid_until: Option<i64>,
    /// Who wrote it.
    #[arg(long)]
    pub actor: Option<String>,
    /// The session it came from.
    #[arg(long)]
    pub session: Option<String>,
    /// The model that wrote it.
    #[arg(long)]
    pub model: Option<String>,
}

pub fn draft_from(fields: RecordFields, content: String) -> Result<Draft> {
    let (Some(record_type), Some(title)) = (fields.record_type, fields.title.clone()) else {
        bail!("a memory needs --type and --title");
    };
    let mut draft = Draft::new(record_type, &title, &content);
    apply(&mut draft, fields);
    if draft.provenance.actor.is_none() {
        draft.provenance.actor = Some("user".into());
    }
    Ok(draft)
}

/// Writes the given fields over `draft`.
pub fn apply(draft: &mut Draft, f: RecordFields) {
    if let Some(t) = f.record_type {
        draft.record_type = t;
    }
    if let Some(title) = f.title {
        draft.title = title;
    }
    if !f.tags.is_empty() {
        draft.tags = f.tags;
    }
    if let Some(c) = f.confidence {
        draft.confidence = c;
    }
    if let Some(s) = f.status {
        draft.status = s;
    }
    if !f.paths.is_empty() {
        draft.applicability.paths = f.paths;
    }
    if !f.languages.is_empty() {
        draft.applicability.languages = f.languages;
    }
    if f.valid_from.is_some() {
        draft.valid_from = f.valid_from;
    }
    if f.valid_until.is_some() {
        draft.valid_until = f.valid_until;
    }
    let p = &mut draft.provenance;
    let given = Provenance {
        actor: f.actor,
        session: f.session,
        model: f.model,
    };
    if given != Provenance::default() {
        *p = given;
    }
}
