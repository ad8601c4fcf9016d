//! The limits a draft must meet before it is written, and the one
//! normal form of tags. Memory is small, deliberate knowledge: a record
//! that needs more than [`MAX_CONTENT_BYTES`] is a document, not a memory.

use crate::error::{MemoryError, Result};
use crate::model::Draft;

pub const MAX_TITLE_BYTES: usize = 512;
pub const MAX_CONTENT_BYTES: usize = 16 * 1024;
pub const MAX_TAGS: usize = 32;
pub const MAX_TAG_BYTES: usize = 64;
pub const MAX_APPLICABILITY_ENTRIES: usize = 64;
/// A feedback note, or the reason given for a change.
pub const MAX_NOTE_BYTES: usize = 2048;

/// Checks a note or reason against [`MAX_NOTE_BYTES`].
pub fn note(field: &'static str, text: Option<&str>) -> Result<()> {
    match text {
        Some(text) if text.len() > MAX_NOTE_BYTES => Err(MemoryError::TooLarge {
            field,
            size: text.len(),
            limit: MAX_NOTE_BYTES,
        }),
        _ => Ok(()),
    }
}

fn limit(field: &'static str, size: usize, limit: usize) -> Result<()> {
    if size > limit {
        return Err(MemoryError::TooLarge { field, size, limit });
    }
    Ok(())
}

/// Lowercase, with inner whitespace turned into `-`, so `Build Cache` and
/// `build-cache` are one tag and tags stay single FTS tokens apart.
pub fn normal_tag(tag: &str) -> String {
    tag.split_whitespace()
        .collect::<Vec<_>>()
        .join("-")
        .to_lowercase()
}

/// Checks `draft` and puts its tags and languages in normal form.
pub fn draft(mut draft: Draft) -> Result<Draft> {
    draft.title = draft.title.trim().to_string();
    draft.content = draft.content.trim().to_string();
    if draft.title.is_empty() {
        return Err(MemoryError::invalid("title", "it is empty"));
    }
    if draft.content.is_empty() {
        return Err(MemoryError::invalid("content", "it is empty"));
    }
    limit("title", draft.title.len(), MAX_TITLE_BYTES)?;
    limit("content", draft.content.len(), MAX_CONTENT_BYTES)?;
    let mut tags: Vec<String> = draft
        .tags
        .iter()
        .map(|t| normal_tag(t))
        .filter(|t| !t.is_empty())
        .collect();
    tags.sort();
    tags.dedup();
    if tags.len() > MAX_TAGS {
        return Err(MemoryError::invalid(
            "tags",
            format!("{} tags; the limit is {MAX_TAGS}", tags.len()),
        ));
    }
    for tag in &tags {
        limit("a tag", tag.len(), MAX_TAG_BYTES)?;
    }
    draft.tags = tags;
    if !draft.confidence.is_finite() || !(0.0..=1.0).contains(&draft.confidence) {
        return Err(MemoryError::invalid(
            "confidence",
            format!("{} is not between 0 and 1", draft.confidence),
        ));
    }
    if let (Some(from), Some(until)) = (draft.valid_from, draft.valid_until) {
        if from >= until {
            return Err(MemoryError::invalid(
                "validity window",
                format!("valid_from ({from}) is not before valid_until ({until})"),
            ));
        }
    }
    let applicability = &mut draft.applicability;
    if applicability.paths.len() > MAX_APPLICABILITY_ENTRIES
        || applicability.languages.len() > MAX_APPLICABILITY_ENTRIES
    {
        return Err(MemoryError::invalid(
            "applicability",
            format!("more than {MAX_APPLICABILITY_ENTRIES} paths or languages"),
        ));
    }
    for glob in &applicability.paths {
        crate::eligibility::path_glob(glob)
            .map_err(|e| MemoryError::invalid("path glob", format!("`{glob}`: {e}")))?;
    }
    applicability.languages = applicability
        .languages
        .iter()
        .map(|l| l.trim().to_lowercase())
        .filter(|l| !l.is_empty())
        .collect();
    Ok(draft)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::RecordType;

    #[test]
    fn oversized_content_names_the_limit() {
        let big = "x".repeat(MAX_CONTENT_BYTES + 1);
        let e = draft(Draft::new(RecordType::Gotcha, "t", &big)).unwrap_err();
        assert_eq!(
            e.to_string(),
            format!(
                "content is {} bytes; the limit is {MAX_CONTENT_BYTES} bytes",
                MAX_CONTENT_BYTES + 1
            )
        );
    }

    #[test]
    fn tags_are_normalised_and_deduplicated() {
        let mut d = Draft::new(RecordType::Gotcha, "t", "c");
        d.tags = vec!["Build Cache".into(), "build-cache".into(), " ".into()];
        assert_eq!(draft(d).unwrap().tags, ["build-cache"]);
    }

    #[test]
    fn a_bad_glob_and_an_empty_window_are_refused() {
        let mut d = Draft::new(RecordType::Gotcha, "t", "c");
        d.applicability.paths = vec!["src/[".into()];
        assert!(draft(d).unwrap_err().to_string().contains("src/["));
        let mut d = Draft::new(RecordType::Gotcha, "t", "c");
        d.valid_from = Some(10);
        d.valid_until = Some(10);
        assert!(draft(d).is_err());
    }
}
