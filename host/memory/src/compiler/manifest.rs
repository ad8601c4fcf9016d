//! The context manifest: what was selected and omitted, by reference and
//! digest, with the token accounting. It is the auditable record of a
//! compilation and deliberately holds no titles, bodies or task text, so
//! it can be stored or attested without becoming a prompt archive.

use serde::Serialize;

use super::input::Section;

/// The manifest format's name and version.
pub const MANIFEST_SCHEMA: &str = "amber.context-manifest/1";

/// Which input an item came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ItemKind {
    RequiredState,
    Session,
    TaskMemory,
    Repository,
}

impl ItemKind {
    /// The authority the item carries, as the seed names them.
    pub fn authority(self) -> &'static str {
        match self {
            ItemKind::RequiredState => "dynamic_state",
            ItemKind::Session => "session_local",
            ItemKind::TaskMemory => "durable_memory",
            ItemKind::Repository => "derived_repository",
        }
    }
}

/// A selected item, in rendering order.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Selected {
    pub reference: String,
    pub kind: ItemKind,
    pub authority: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub section: Option<Section>,
    /// blake3 of the item's sanitised text.
    pub digest: String,
    pub tokens: usize,
    pub redacted: bool,
}

/// Why an item is not in the context.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Omission {
    pub reference: String,
    pub kind: ItemKind,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub section: Option<Section>,
    /// `budget_exceeded`, `duplicate_item`, `empty_after_sanitization`,
    /// `governed_suppressed:<reason>` or `invalid_item`.
    pub reason: String,
    /// For `budget_exceeded`: the tokens the item would have needed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub required_tokens: Option<usize>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct TokenAccount {
    pub tokenizer: &'static str,
    pub budget: usize,
    /// The sum of the selected items' tokens and of the headings they
    /// brought in.
    pub used: usize,
    pub remaining: usize,
    /// Tokens of headings and the preamble, included in `used`.
    pub overhead: usize,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Counts {
    pub candidates: usize,
    pub selected: usize,
    pub omitted: usize,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ContextManifest {
    pub schema: &'static str,
    pub task_digest: String,
    pub tokens: TokenAccount,
    pub counts: Counts,
    pub selected: Vec<Selected>,
    pub omitted: Vec<Omission>,
    /// blake3 of the rendered context.
    pub rendered_digest: String,
    /// blake3 of this manifest's JSON with this field empty: the same
    /// inputs give the same digest.
    pub digest: String,
}

impl ContextManifest {
    /// Fills in [`ContextManifest::digest`].
    pub(crate) fn seal(mut self) -> Self {
        self.digest = String::new();
        let bytes = serde_json::to_vec(&self).unwrap_or_default();
        self.digest = blake3::hash(&bytes).to_hex().to_string();
        self
    }
}
