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

/// The calls of a name a parser found in one file.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Calls {
    pub spans: Vec<Span>,
    /// Set when the parser searched only part of the file (it bounds the
    /// work one file may cost): why. The file is then reported as partly
    /// searched, never passed off as complete.
    pub incomplete: Option<String>,
}

pub trait Parser: Send + Sync {
    fn language(&self) -> &LanguageSpec;
    fn outline(&self, source: &str) -> Result<Vec<Symbol>, super::PortError>;
    fn references(&self, source: &str, name: &str) -> Result<Calls, super::PortError>;
}
