//! The context compiler (seed 004: "Context Compiler is a transient
//! derived-view layer"). It takes explicit inputs only, and within a token
//! budget:
//! 1. required state comes first and fails the compile closed when it
//!    cannot fit, or is invalid;
//! 2. then session-local items, task memory section by section
//!    (procedure, concept, belief, domain, support, corrective) and
//!    repository facts are selected greedily: an item that does not fit
//!    is skipped and later ones are still tried;
//! 3. every text is sanitised and secrets are redacted; duplicates (by
//!    digest of the sanitised text) are dropped.
//!
//! Every omission has an explicit reason. The rendered context is
//! returned, never stored; the manifest holds references, digests and
//! accounting only, and the same inputs give the same manifest digest.

pub mod input;
pub mod manifest;
pub mod sanitize;

use std::collections::HashSet;

use crate::error::MemoryError;
use crate::store::memory_text;
use crate::tokens;
use input::{CompileInput, Section, DERIVED_REPOSITORY};
use manifest::{ContextManifest, Counts, ItemKind, Omission, Selected, TokenAccount};
use sanitize::sanitize;

/// The first line of a non-empty context; it tells the model what the
/// notes are and how far to trust them.
const PREAMBLE: &str = "# Engineering memory\nNotes recalled for this task. They may be outdated: prefer what the code and the user say now.\n";

#[derive(Debug, thiserror::Error)]
pub enum CompileError {
    #[error(
        "required item {reference} needs {required_tokens} tokens but only {remaining} of the budget of {budget} remain"
    )]
    RequiredDoesNotFit {
        reference: String,
        required_tokens: usize,
        remaining: usize,
        budget: usize,
    },
    #[error("required item {reference} is unusable: {reason}")]
    RequiredUnusable { reference: String, reason: String },
    #[error(transparent)]
    Tokens(#[from] MemoryError),
}

/// The output: the context for this one prompt, and its manifest.
#[derive(Debug, Clone)]
pub struct Compiled {
    /// Kept in memory only; the caller may show it or put it in a prompt.
    pub rendered: String,
    pub manifest: ContextManifest,
}

/// One candidate, before selection.
struct Candidate {
    reference: String,
    kind: ItemKind,
    section: Option<Section>,
    /// A group of its own in the rendering (a heading), if any.
    heading: &'static str,
    /// Why the item is malformed, if it is.
    invalid: Option<String>,
    /// The item's rendered text, sanitised; empty when nothing is left.
    text: String,
    redacted: bool,
    /// Tokens already known for `text`.
    known_tokens: Option<usize>,
}

const STATE_HEADING: &str = "\n## Required state\n";
const SESSION_HEADING: &str = "\n## This session\n";
const REPOSITORY_HEADING: &str = "\n## Repository facts\n";

/// Renders a list item from sanitised parts; empty when `body` is.
fn item(prefix: &str, body: &str) -> String {
    if body.is_empty() {
        return String::new();
    }
    format!("- {prefix}{body}\n")
}

fn candidates(input: &CompileInput) -> Vec<Candidate> {
    let mut out = Vec::new();
    for s in &input.required {
        let value = sanitize(&s.value);
        out.push(Candidate {
            reference: format!("state:{}@{}/{}", s.key, s.version, s.epoch),
            kind: ItemKind::RequiredState,
            section: None,
            heading: STATE_HEADING,
            invalid: s.key.trim().is_empty().then(|| "it has no key".to_string()),
            text: item(&format!("{} (v{}): ", s.key, s.version), &value.text),
            redacted: value.redacted,
            known_tokens: None,
        });
    }
    for s in &input.session {
        let text = sanitize(&s.text);
        out.push(Candidate {
            reference: format!("session:{}", s.id),
            kind: ItemKind::Session,
            section: None,
            heading: SESSION_HEADING,
            invalid: s.id.trim().is_empty().then(|| "it has no id".to_string()),
            text: item("", &text.text),
            redacted: text.redacted,
            known_tokens: None,
        });
    }
    for section in Section::ORDER {
        for m in input.memory.items.iter().filter(|m| m.section == section) {
            let title = sanitize(&m.title);
            let content = sanitize(&m.content);
            let unchanged = title.text == m.title && content.text == m.content;
            let text = if content.text.is_empty() {
                String::new()
            } else {
                memory_text(&title.text, &content.text)
            };
            out.push(Candidate {
                reference: m.reference(),
                kind: ItemKind::TaskMemory,
                section: Some(section),
                heading: section.heading(),
                invalid: (m.record <= 0 || m.revision <= 0)
                    .then(|| "it has no record id or revision".to_string()),
                text,
                redacted: title.redacted || content.redacted,
                known_tokens: m.tokens.filter(|_| unchanged),
            });
        }
    }
    for f in &input.repository {
        let text = sanitize(&f.text);
        let invalid = if f.authority != DERIVED_REPOSITORY {
            Some(format!(
                "its authority is `{}`, not `{DERIVED_REPOSITORY}`",
                f.authority
            ))
        } else if f.source.trim().is_empty() || f.fingerprint.trim().is_empty() {
            Some("it has no source or fingerprint".to_string())
        } else {
            None
        };
        out.push(Candidate {
            reference: format!("repo:{}#{}", f.source, f.fingerprint),
            kind: ItemKind::Repository,
            section: None,
            heading: REPOSITORY_HEADING,
            invalid,
            text: item(&format!("[{}] ", f.source), &text.text),
            redacted: text.redacted,
            known_tokens: None,
        });
    }
    out
}

/// The tokens of `heading`, counted once per compile: candidates past
/// the budget ask again and again.
fn heading_tokens(
    counts: &mut Vec<(&'static str, usize)>,
    heading: &'static str,
) -> Result<usize, CompileError> {
    if let Some((_, n)) = counts.iter().find(|(h, _)| *h == heading) {
        return Ok(*n);
    }
    let n = tokens::count(heading)?;
    counts.push((heading, n));
    Ok(n)
}

/// Compiles `input` within its budget.
pub fn compile(input: &CompileInput) -> Result<Compiled, CompileError> {
    let budget = input.budget;
    let preamble_tokens = tokens::count(PREAMBLE)?;
    let mut rendered = String::new();
    let mut used = 0usize;
    let mut overhead = 0usize;
    let mut selected: Vec<Selected> = Vec::new();
    let mut omitted: Vec<Omission> = Vec::new();
    let mut seen: HashSet<blake3::Hash> = HashSet::new();
    let mut open_heading: Option<&'static str> = None;
    let mut heading_counts: Vec<(&'static str, usize)> = Vec::new();
    let all = candidates(input);
    let count = all.len() + input.memory.suppressed.len();

    for c in all {
        let required = c.kind == ItemKind::RequiredState;
        let omit = |reason: String, required_tokens: Option<usize>| Omission {
            reference: c.reference.clone(),
            kind: c.kind,
            section: c.section,
            reason,
            required_tokens,
        };
        if let Some(reason) = &c.invalid {
            if required {
                return Err(CompileError::RequiredUnusable {
                    reference: c.reference,
                    reason: reason.clone(),
                });
            }
            omitted.push(omit("invalid_item".into(), None));
            continue;
        }
        if c.text.is_empty() {
            if required {
                return Err(CompileError::RequiredUnusable {
                    reference: c.reference,
                    reason: "it is empty after sanitisation".into(),
                });
            }
            omitted.push(omit("empty_after_sanitization".into(), None));
            continue;
        }
        let digest = blake3::hash(c.text.as_bytes());
        if seen.contains(&digest) {
            omitted.push(omit("duplicate_item".into(), None));
            continue;
        }
        let item_tokens = match c.known_tokens {
            Some(n) => n,
            None => tokens::count(&c.text)?,
        };
        let mut extra = 0;
        if selected.is_empty() {
            extra += preamble_tokens;
        }
        let new_heading = open_heading != Some(c.heading);
        if new_heading {
            extra += heading_tokens(&mut heading_counts, c.heading)?;
        }
        let cost = item_tokens + extra;
        if used + cost > budget {
            if required {
                return Err(CompileError::RequiredDoesNotFit {
                    reference: c.reference,
                    required_tokens: cost,
                    remaining: budget - used,
                    budget,
                });
            }
            omitted.push(omit("budget_exceeded".into(), Some(cost)));
            continue;
        }
        if selected.is_empty() {
            rendered.push_str(PREAMBLE);
        }
        if new_heading {
            rendered.push_str(c.heading);
            open_heading = Some(c.heading);
        }
        rendered.push_str(&c.text);
        used += cost;
        overhead += extra;
        seen.insert(digest);
        selected.push(Selected {
            reference: c.reference,
            kind: c.kind,
            authority: c.kind.authority(),
            section: c.section,
            digest: digest.to_hex().to_string(),
            tokens: item_tokens,
            redacted: c.redacted,
        });
    }
    omitted.extend(input.memory.suppressed.iter().map(|s| Omission {
        reference: s.reference.clone(),
        kind: ItemKind::TaskMemory,
        section: None,
        reason: format!("governed_suppressed:{}", s.reason),
        required_tokens: None,
    }));
    let manifest = ContextManifest {
        schema: manifest::MANIFEST_SCHEMA,
        task_digest: blake3::hash(input.task.as_bytes()).to_hex().to_string(),
        tokens: TokenAccount {
            tokenizer: tokens::TOKENIZER,
            budget,
            used,
            remaining: budget - used,
            overhead,
        },
        counts: Counts {
            candidates: count,
            selected: selected.len(),
            omitted: omitted.len(),
        },
        rendered_digest: blake3::hash(rendered.as_bytes()).to_hex().to_string(),
        selected,
        omitted,
        digest: String::new(),
    }
    .seal();
    Ok(Compiled { rendered, manifest })
}

#[cfg(test)]
mod tests;
