//! The Parser port. Seed 003 (ambits): outlines with spans, and references.

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LanguageSpec {
    pub name: String,
    pub extensions: Vec<String>,
}

/// One symbol of a flat pre-order outline; `parent` indexes the same list.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Symbol {
    pub kind: String,
    pub name: String,
    pub parent: Option<u32>,
    pub byte_start: u32,
    pub byte_end: u32,
    pub line_start: u32,
    pub line_end: u32,
    pub signature_end: u32,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Span {
    pub byte_start: u32,
    pub byte_end: u32,
    pub line: u32,
}

pub trait Parser: Send + Sync {
    fn language(&self) -> &LanguageSpec;
    fn outline(&self, source: &str) -> Result<Vec<Symbol>, super::PortError>;
    fn references(&self, source: &str, name: &str) -> Result<Vec<Span>, super::PortError>;
}
