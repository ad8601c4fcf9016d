//! What the coverage side needs of the parse side: a file's symbols with
//! ids, line spans and hashes. The host implements [`SymbolSource`] over
//! its project index; tests use a small table.

use std::borrow::Cow;

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SymbolInfo {
    /// `src/app.rs::App/new`: unique in the workspace.
    pub id: String,
    pub name: String,
    /// 1-based, inclusive.
    pub line_start: u32,
    pub line_end: u32,
    /// `b3:…` of the symbol's bytes.
    pub hash: String,
}

/// One file as the parse side sees it now.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileSymbols {
    /// Relative to the workspace root, `/`-separated.
    pub path: String,
    /// BLAKE3 of the file's bytes: a file without symbols (no parser for
    /// it) is covered as one unit with this hash.
    pub content_hash: String,
    pub symbols: Vec<SymbolInfo>,
}

impl FileSymbols {
    /// The units coverage counts in this file: its symbols (borrowed), or
    /// the file itself when it has none.
    pub fn units(&self) -> Cow<'_, [SymbolInfo]> {
        if !self.symbols.is_empty() {
            return Cow::Borrowed(&self.symbols);
        }
        Cow::Owned(vec![SymbolInfo {
            id: self.path.clone(),
            name: self.path.clone(),
            line_start: 1,
            line_end: u32::MAX,
            hash: self.content_hash.clone(),
        }])
    }

    /// The units whose lines overlap `start..=end`; the innermost only
    /// would miss the container the lines are also part of, so all.
    pub fn overlapping(&self, start: u32, end: u32) -> Vec<SymbolInfo> {
        self.units()
            .iter()
            .filter(|s| s.line_start <= end && start <= s.line_end)
            .cloned()
            .collect()
    }

    /// The innermost unit holding `line`: the one a grep hit belongs to.
    pub fn enclosing(&self, line: u32) -> Option<SymbolInfo> {
        self.units()
            .iter()
            .filter(|s| s.line_start <= line && line <= s.line_end)
            .min_by_key(|s| s.line_end.saturating_sub(s.line_start))
            .cloned()
    }
}

/// The current symbols of a workspace's files.
pub trait SymbolSource {
    /// `path`'s symbols now; `None` when the file does not exist (or is
    /// outside the workspace, or cannot be read).
    fn file(&self, path: &str) -> Option<FileSymbols>;

    /// The symbols a `show` selector names, with their files' paths. By
    /// default an id only (`src/app.rs::App/new` names its file): a bare
    /// name would need the whole tree, and `show`'s own output names the
    /// id it found.
    fn find(&self, selector: &str) -> Vec<(String, SymbolInfo)> {
        let Some((path, _)) = selector.split_once("::") else {
            return Vec::new();
        };
        let Some(file) = self.file(path) else {
            return Vec::new();
        };
        file.symbols
            .into_iter()
            .filter(|s| s.id == selector)
            .map(|s| (file.path.clone(), s))
            .collect()
    }
}
