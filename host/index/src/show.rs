//! `show`: a symbol's source by id or hash prefix.

use serde::Serialize;

use crate::indexer::Index;
use crate::tree::{ProjectTree, Selector};
use crate::IndexError;

/// A symbol's source, as shown.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Shown {
    pub id: String,
    pub path: String,
    pub kind: String,
    pub line_start: u32,
    pub line_end: u32,
    pub hash: String,
    /// The source: the whole symbol, or its signature alone.
    pub source: String,
    /// Whether `source` was cut to the byte limit.
    pub truncated: bool,
}

/// How much of a symbol to show.
#[derive(Debug, Clone, Copy, Default)]
pub struct ShowOptions {
    /// Only the signature (up to where the body starts).
    pub no_body: bool,
    /// Cut the source to this many bytes.
    pub max_bytes: Option<usize>,
}

impl Index<'_> {
    /// The symbols a selector names: an id is looked up in its file alone;
    /// a hash prefix needs the whole index (cached), and one naming several
    /// symbols is refused with their ids.
    pub fn show(&self, selector: &str, options: ShowOptions) -> Result<Shown, IndexError> {
        let parsed = Selector::parse(selector)?;
        let (tree, parsed) = match &parsed {
            Selector::Id(id) => {
                let (path, name) = id.split_once("::").unwrap_or((id, ""));
                let entry = self.file(std::path::Path::new(path))?;
                // `./src/a.rs::f` names what `src/a.rs::f` names.
                let id = Selector::Id(format!("{}::{name}", entry.path));
                (ProjectTree { files: vec![entry] }, id)
            }
            Selector::Hash(_) | Selector::Name(_) => (self.build(&|_| {}).0, parsed.clone()),
        };
        let found = tree.find(&parsed);
        let (file, indexed) = match found.as_slice() {
            [] if matches!(parsed, Selector::Name(_)) => {
                return Err(IndexError::Selector(format!(
                    "no symbol is named `{selector}`; give a name as `amber outline <file>` prints it, an id `<path>::<name>` or `b3:<hex>`"
                )))
            }
            [] => return Err(IndexError::NoSymbol(selector.to_string())),
            [one] => *one,
            many => {
                let ids: Vec<&str> = many.iter().map(|(_, s)| s.id.as_str()).collect();
                // Symbols with the same bytes have the same hash: no
                // prefix tells them apart, only their ids do.
                let advice = match (&parsed, many.iter().all(|(_, s)| s.hash == many[0].1.hash)) {
                    (Selector::Name(_), _) => "show one by its id",
                    (_, true) => "their bytes are identical; show one by its id",
                    (_, false) => "give more hex digits, or an id",
                };
                return Err(IndexError::Selector(format!(
                    "`{selector}` names {} symbols: {}; {advice}",
                    ids.len(),
                    ids.join(", ")
                )));
            }
        };
        let symbol = &indexed.symbol;
        let abs = self.root().join(&file.path);
        let bytes = std::fs::read(&abs).map_err(|e| IndexError::Read {
            path: file.path.clone(),
            reason: e.to_string(),
        })?;
        let end = if options.no_body {
            symbol.signature_end
        } else {
            symbol.byte_end
        };
        let start = line_start_if_indent(&bytes, (symbol.byte_start as usize).min(bytes.len()));
        let end = (end as usize).clamp(start, bytes.len());
        let mut text = String::from_utf8_lossy(&bytes[start..end]).into_owned();
        if options.no_body {
            text = text.trim_end().to_string();
        }
        let mut truncated = false;
        if let Some(max) = options.max_bytes {
            if text.len() > max {
                let mut cut = max;
                while !text.is_char_boundary(cut) {
                    cut -= 1;
                }
                text.truncate(cut);
                truncated = true;
            }
        }
        Ok(Shown {
            id: indexed.id.clone(),
            path: file.path.clone(),
            kind: symbol.kind.clone(),
            line_start: symbol.line_start,
            line_end: symbol.line_end,
            hash: indexed.hash.clone(),
            source: text,
            truncated,
        })
    }
}

/// The start of the symbol's first line when only indentation precedes the
/// symbol there, so a method shows at its own indentation like its body.
fn line_start_if_indent(bytes: &[u8], start: usize) -> usize {
    let line = bytes[..start]
        .iter()
        .rposition(|&b| b == b'\n')
        .map_or(0, |i| i + 1);
    match bytes[line..start].iter().all(|b| *b == b' ' || *b == b'\t') {
        true => line,
        false => start,
    }
}
