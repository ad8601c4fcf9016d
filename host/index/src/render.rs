//! Plain-text renderings, shared by the CLI and the agent's tools so a
//! person and the model read the same thing.

use crate::search::{CallSite, GrepHit};
use crate::show::Shown;
use crate::tree::FileEntry;

/// A file's outline, indented by nesting, each symbol with its lines and id.
pub fn outline(entry: &FileEntry) -> String {
    let mut depth: Vec<usize> = Vec::with_capacity(entry.symbols.len());
    let mut out = format!(
        "{} ({}, {} symbols)\n",
        entry.path,
        entry.language,
        entry.symbols.len()
    );
    for indexed in &entry.symbols {
        let symbol = &indexed.symbol;
        let level = symbol
            .parent
            .and_then(|p| depth.get(p as usize))
            .map_or(0, |d| d + 1);
        depth.push(level);
        out.push_str(&format!(
            "{}{} {}  L{}-{}  {}\n",
            "  ".repeat(level + 1),
            symbol.kind,
            symbol.name,
            symbol.line_start,
            symbol.line_end,
            indexed.id
        ));
    }
    out
}

/// A shown symbol: a header naming it, then its source.
pub fn shown(shown: &Shown) -> String {
    let mut out = format!(
        "// {} ({}:{}-{}, {})\n{}",
        shown.id, shown.path, shown.line_start, shown.line_end, shown.hash, shown.source
    );
    if !out.ends_with('\n') {
        out.push('\n');
    }
    if shown.truncated {
        out.push_str("// … cut at the byte limit\n");
    }
    out
}

/// Call sites, one a line: where, in which symbol, and the line.
pub fn callers(sites: &[CallSite]) -> String {
    let mut out = String::new();
    for site in sites {
        let caller = site.caller.as_deref().unwrap_or("(top level)");
        out.push_str(&format!(
            "{}:{}  {}  {}\n",
            site.path,
            site.line,
            caller,
            site.text.trim()
        ));
    }
    out
}

/// grep hits, one a line, each with its enclosing symbol when known.
pub fn grep(hits: &[GrepHit]) -> String {
    let mut out = String::new();
    for hit in hits {
        match &hit.symbol {
            Some(symbol) => out.push_str(&format!(
                "{}:{}: {}  [{}]\n",
                hit.path, hit.line, hit.text, symbol
            )),
            None => out.push_str(&format!("{}:{}: {}\n", hit.path, hit.line, hit.text)),
        }
    }
    out
}
