//! `grep` and `callers`, served by the index.
//!
//! grep rejects on raw bytes first and parses only the files that matched
//! (seed 003: "Search enters the parse side late"). callers is a separate
//! path: it skips every file whose text lacks the name, asks the parser for
//! call references (a second parse, macro bodies included), and borrows one
//! thing from the tree: symbol byte ranges, to say which symbol each call
//! is in.

use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};

use serde::Serialize;

use crate::indexer::{parallel, Index, Routed, Skipped};
use crate::source::{self, SourceFile};
use crate::tree::FileEntry;
use crate::IndexError;

/// One matching line.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct GrepHit {
    pub path: String,
    pub line: u32,
    pub text: String,
    /// The innermost symbol holding the match, when the file has a parser.
    pub symbol: Option<String>,
}

/// One call of a name.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CallSite {
    pub name: String,
    pub path: String,
    pub line: u32,
    pub text: String,
    /// The symbol the call is in; none for a call at the top level.
    pub caller: Option<String>,
}

/// What `callers` found, the files it could not search, and those its
/// parser searched only in part (each with why).
#[derive(Debug, Clone, Default, Serialize)]
pub struct Callers {
    pub sites: Vec<CallSite>,
    pub skipped: Vec<Skipped>,
    pub partial: Vec<Skipped>,
}

/// A matching line: its number, the match's offset and the line's text.
type LineHit = (u32, u32, String);

/// Lines shown are cut to this many bytes.
const MAX_LINE: usize = 400;

/// grep searches files up to this size; the index parses only those up to
/// [`source::MAX_FILE_BYTES`], so a hit in a larger file has no symbol.
const GREP_MAX_FILE_BYTES: u64 = 64 << 20;

/// grep keeps the bytes of matching files, for the index to hash and
/// parse, up to this many in all; past it, files are read again. A broad
/// pattern over a large tree would otherwise hold the whole tree.
const KEPT_BYTES: usize = 64 << 20;

impl Index<'_> {
    /// Lines matching `pattern` (a regex) in every walked file, each with
    /// its enclosing symbol, and the files that could not be searched.
    pub fn grep(
        &self,
        pattern: &str,
        ignore_case: bool,
    ) -> Result<(Vec<GrepHit>, Vec<Skipped>), IndexError> {
        let regex = regex::bytes::RegexBuilder::new(pattern)
            .case_insensitive(ignore_case)
            .multi_line(true)
            .crlf(true)
            .build()
            .map_err(|e| IndexError::Pattern(e.to_string()))?;
        let files = source::walk(self.root());
        let kept = AtomicUsize::new(0);
        let searched = parallel(&files, self.threads(), |file| {
            // Binary files are not searched; unreadable and huge ones are
            // reported.
            let bytes = match source::read_up_to(file, GREP_MAX_FILE_BYTES) {
                Ok(bytes) => bytes,
                Err(reason) => return Err((file.rel.clone(), reason)),
            };
            if source::is_binary(&bytes) || !regex.is_match(&bytes) {
                return Ok(None);
            }
            let lines = Lines::new(&bytes);
            let mut hits: Vec<LineHit> = Vec::new();
            for m in regex.find_iter(&bytes) {
                let line = lines.line_of(m.start());
                if hits.last().is_some_and(|(l, _, _)| *l == line) {
                    continue;
                }
                hits.push((line, m.start() as u32, lines.text(&bytes, line)));
            }
            // The symbols must be those of the bytes the hits are in.
            let keep = kept.fetch_add(bytes.len(), Ordering::Relaxed) + bytes.len() <= KEPT_BYTES;
            Ok(Some((file.clone(), hits, keep.then_some(bytes))))
        });
        let mut skipped = Vec::new();
        let mut matched: Vec<(SourceFile, Vec<LineHit>, Option<Vec<u8>>)> = Vec::new();
        for result in searched {
            match result {
                Ok(Some(found)) => matched.push(found),
                Ok(None) => {}
                Err((path, reason)) => skipped.push(Skipped { path, reason }),
            }
        }
        let entries = self.entries(
            matched
                .iter_mut()
                .map(|(file, _, bytes)| (file.clone(), bytes.take()))
                .collect(),
        );
        let hits = matched
            .into_iter()
            .flat_map(|(file, hits, _)| {
                let entry = entries.get(&file.rel);
                hits.into_iter().map(move |(line, offset, text)| GrepHit {
                    path: file.rel.clone(),
                    line,
                    text,
                    symbol: entry
                        .and_then(|e| e.enclosing(offset))
                        .map(|s| s.id.clone()),
                })
            })
            .collect();
        Ok((hits, skipped))
    }

    /// The calls of each name, each attributed to the symbol it is in.
    pub fn callers(&self, names: &[String]) -> Callers {
        let routed = self.route(source::walk(self.root()));
        // Rejected on raw bytes: a file without the name cannot call it,
        // so only a file holding it is worth reporting as unsearchable.
        let finders: Vec<memchr::memmem::Finder> = names
            .iter()
            .map(|n| memchr::memmem::Finder::new(n.as_bytes()))
            .collect();
        let read = parallel(&routed, self.threads(), |r| {
            let bytes = source::read(&r.file)?;
            if !finders.iter().any(|f| f.find(&bytes).is_some()) {
                return Ok(None);
            }
            let text = String::from_utf8(bytes).map_err(|_| "not UTF-8 text".to_string())?;
            Ok::<_, String>(Some(text))
        });
        let mut out = Callers::default();
        let mut candidates: Vec<(&Routed, String)> = Vec::new();
        for (r, text) in routed.iter().zip(read) {
            match text {
                Ok(Some(text)) => candidates.push((r, text)),
                Ok(None) => {}
                Err(reason) => out.skipped.push(Skipped {
                    path: r.file.rel.clone(),
                    reason,
                }),
            }
        }
        let found = parallel(&candidates, self.threads(), |(r, text)| {
            let mut calls = Vec::new();
            let mut incomplete = Vec::new();
            for name in names.iter().filter(|n| text.contains(n.as_str())) {
                let found = r.parser.references(text, name).map_err(|e| e.to_string())?;
                calls.extend(found.spans.into_iter().map(|s| (name.clone(), s)));
                incomplete.extend(found.incomplete);
            }
            Ok::<_, String>((calls, incomplete))
        });
        // The callers are found in the text the calls were found in.
        let with_calls: Vec<(SourceFile, Option<Vec<u8>>)> = candidates
            .iter()
            .zip(&found)
            .filter(|(_, f)| f.as_ref().is_ok_and(|(c, _)| !c.is_empty()))
            .map(|((r, text), _)| (r.file.clone(), Some(text.clone().into_bytes())))
            .collect();
        let entries = self.entries(with_calls);
        for ((r, text), calls) in candidates.iter().zip(found) {
            let entry = entries.get(&r.file.rel);
            let lines = Lines::new(text.as_bytes());
            let calls = match calls {
                Ok((calls, incomplete)) => {
                    if !incomplete.is_empty() {
                        out.partial.push(Skipped {
                            path: r.file.rel.clone(),
                            reason: incomplete.join("; "),
                        });
                    }
                    calls
                }
                Err(reason) => {
                    out.skipped.push(Skipped {
                        path: r.file.rel.clone(),
                        reason,
                    });
                    continue;
                }
            };
            for (name, span) in calls {
                out.sites.push(CallSite {
                    name,
                    path: r.file.rel.clone(),
                    line: span.line,
                    text: lines.text(text.as_bytes(), span.line),
                    caller: entry
                        .and_then(|e| e.enclosing(span.byte_start))
                        .map(|s| s.id.clone()),
                });
            }
        }
        out.sites
            .sort_by(|a, b| (&a.name, &a.path, a.line).cmp(&(&b.name, &b.path, b.line)));
        out
    }

    /// The index entries of some files, by path: cached or parsed now,
    /// from the bytes given or, without them, read from disk.
    fn entries(&self, files: Vec<(SourceFile, Option<Vec<u8>>)>) -> HashMap<String, FileEntry> {
        let routed = self.route_read(files);
        let (tree, _) = self.index(routed, false, &|_| {});
        tree.files
            .into_iter()
            .map(|f| (f.path.clone(), f))
            .collect()
    }
}

/// Line starts of a text, for offsets to lines and lines to text.
struct Lines {
    starts: Vec<usize>,
}

impl Lines {
    fn new(bytes: &[u8]) -> Self {
        let mut starts = vec![0];
        starts.extend(newline_ends(bytes));
        Lines { starts }
    }

    /// The 1-based line of an offset.
    fn line_of(&self, offset: usize) -> u32 {
        match self.starts.binary_search(&offset) {
            Ok(i) => i as u32 + 1,
            Err(i) => i as u32,
        }
    }

    /// A line's text without its newline, cut to [`MAX_LINE`] bytes.
    fn text(&self, bytes: &[u8], line: u32) -> String {
        let i = (line as usize).saturating_sub(1);
        let start = self.starts.get(i).copied().unwrap_or(bytes.len());
        let end = self.starts.get(i + 1).map_or(bytes.len(), |e| e - 1);
        let slice = &bytes[start.min(end)..end];
        let slice = &slice[..slice.len().min(MAX_LINE)];
        String::from_utf8_lossy(slice)
            .trim_end_matches('\r')
            .to_string()
    }
}

/// The offsets just after each `\n`: where the next line starts.
fn newline_ends(bytes: &[u8]) -> impl Iterator<Item = usize> + '_ {
    bytes
        .iter()
        .enumerate()
        .filter(|(_, b)| **b == b'\n')
        .map(|(i, _)| i + 1)
}
