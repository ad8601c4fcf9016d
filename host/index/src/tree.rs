//! The ProjectTree: files, their symbols with ids, spans and hashes, and
//! the lookups `show`, `callers` and `grep` need.

use amber_core::ports::Symbol;
use serde::{Deserialize, Serialize};

use crate::IndexError;

/// One symbol of the index: the parser's symbol (its `parent` indexes the
/// file's `symbols`) with its id and hash.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct IndexedSymbol {
    pub id: String,
    #[serde(flatten)]
    pub symbol: Symbol,
    /// `b3:` and the BLAKE3 hash of the symbol's bytes, in hex.
    pub hash: String,
}

/// One indexed file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileEntry {
    /// Relative to the root, `/`-separated.
    pub path: String,
    pub language: String,
    /// BLAKE3 of the file's bytes, in hex.
    pub content_hash: String,
    pub symbols: Vec<IndexedSymbol>,
}

impl FileEntry {
    /// The innermost symbol whose bytes hold `offset`: the one a hit or a
    /// call belongs to. Outlines are pre-order, so the last container seen
    /// is the innermost.
    pub fn enclosing(&self, offset: u32) -> Option<&IndexedSymbol> {
        self.symbols
            .iter()
            .rev()
            .find(|s| s.symbol.byte_start <= offset && offset < s.symbol.byte_end)
    }
}

/// Every indexed file, sorted by path.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProjectTree {
    pub files: Vec<FileEntry>,
}

/// What `show` is asked for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Selector {
    /// `<path>::<name-path>`, exactly.
    Id(String),
    /// `b3:` and 8 or more hex digits of a symbol hash.
    Hash(String),
    /// A name alone (`new`) or the end of a name path (`App/new`): every
    /// symbol whose name path is it or ends with it, anywhere.
    Name(String),
}

impl Selector {
    pub fn parse(text: &str) -> Result<Selector, IndexError> {
        if let Some(hex) = text.strip_prefix("b3:") {
            let hex = hex.to_ascii_lowercase();
            if hex.len() < 8 || !hex.chars().all(|c| c.is_ascii_hexdigit()) {
                return Err(IndexError::Selector(format!(
                    "`{text}`: a hash selector is `b3:` and 8 or more hex digits"
                )));
            }
            return Ok(Selector::Hash(hex));
        }
        if !text.contains("::") {
            let name = text.trim().trim_matches('/');
            if name.is_empty() || name.contains(char::is_whitespace) {
                return Err(IndexError::Selector(format!(
                    "`{text}`: give a name (`new`, `App/new`), an id `<path>::<name>` (e.g. `src/app.rs::App/new`) or `b3:<hex>`"
                )));
            }
            return Ok(Selector::Name(name.to_string()));
        }
        Ok(Selector::Id(text.to_string()))
    }

    /// The file part of an id selector: which file to index for it.
    pub fn path(&self) -> Option<&str> {
        match self {
            Selector::Id(id) => id.split_once("::").map(|(path, _)| path),
            Selector::Hash(_) | Selector::Name(_) => None,
        }
    }
}

impl ProjectTree {
    pub fn file(&self, path: &str) -> Option<&FileEntry> {
        self.files
            .binary_search_by(|f| f.path.as_str().cmp(path))
            .ok()
            .map(|i| &self.files[i])
    }

    pub fn symbol_count(&self) -> usize {
        self.files.iter().map(|f| f.symbols.len()).sum()
    }

    /// The symbols a selector names. An id names at most one; a hash prefix
    /// may name several, and the caller says which are ambiguous.
    pub fn find(&self, selector: &Selector) -> Vec<(&FileEntry, &IndexedSymbol)> {
        match selector {
            Selector::Id(id) => selector
                .path()
                .and_then(|path| self.file(path))
                .and_then(|file| file.symbols.iter().find(|s| &s.id == id).map(|s| (file, s)))
                .into_iter()
                .collect(),
            Selector::Hash(prefix) => self
                .symbols()
                .filter(|(_, s)| s.hash[3..].starts_with(prefix.as_str()))
                .collect(),
            Selector::Name(name) => {
                let tail = format!("/{name}");
                self.symbols()
                    .filter(|(_, s)| {
                        let path = s.id.split_once("::").map_or("", |(_, p)| p);
                        path == name || path.ends_with(&tail)
                    })
                    .collect()
            }
        }
    }

    /// Every symbol of every file, with its file.
    fn symbols(&self) -> impl Iterator<Item = (&FileEntry, &IndexedSymbol)> {
        self.files
            .iter()
            .flat_map(|f| f.symbols.iter().map(move |s| (f, s)))
    }
}
