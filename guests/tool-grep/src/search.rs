//! The grep path: the host walks (the `files` import: .gitignore honoured,
//! hidden files skipped, as ripgrep's `ignore` crate does) and reads the
//! files in batches, one crossing for many files; `grep-searcher` searches
//! each with line numbers and context, skipping binaries, and `grep-regex`
//! matches.

use std::fmt::Write as _;

use amber_sdk::files::EntryKind;
use amber_sdk::prelude::*;
use grep_regex::RegexMatcherBuilder;
use grep_searcher::{BinaryDetection, Searcher, SearcherBuilder, Sink, SinkContext, SinkMatch};

use crate::Query;

/// Files read per crossing: few at first, since a search with a low
/// `max_results` may stop early, then more.
const FIRST_BATCH: usize = 32;
const LAST_BATCH: usize = 256;
/// Larger files are searched as a stream rather than read whole.
const SLICE_MAX: u64 = 8 << 20;

/// Collects rg-style lines: `path:line:text` for matches, `path-line-text`
/// for context, `--` between groups that are not adjacent.
struct Collect<'a> {
    path: &'a str,
    out: &'a mut String,
    matches: &'a mut usize,
    max: usize,
    /// With context lines, groups are separated as rg does.
    separate: bool,
    last_line: &'a mut Option<(String, u64)>,
}

impl Collect<'_> {
    fn line(&mut self, sep: char, number: Option<u64>, bytes: &[u8]) {
        let number = number.unwrap_or(0);
        if let Some((path, last)) = self.last_line.as_ref().filter(|_| self.separate) {
            if path != self.path || number > last + 1 {
                self.out.push_str("--\n");
            }
        }
        let text = String::from_utf8_lossy(bytes);
        let text = text.trim_end_matches(['\n', '\r']);
        let _ = writeln!(self.out, "{}{sep}{number}{sep}{text}", self.path);
        *self.last_line = Some((self.path.to_string(), number));
    }
}

impl Sink for Collect<'_> {
    type Error = std::io::Error;

    fn matched(&mut self, _s: &Searcher, m: &SinkMatch<'_>) -> Result<bool, Self::Error> {
        if *self.matches >= self.max {
            return Ok(false);
        }
        *self.matches += 1;
        self.line(':', m.line_number(), m.bytes());
        Ok(*self.matches < self.max)
    }

    fn context(&mut self, _s: &Searcher, c: &SinkContext<'_>) -> Result<bool, Self::Error> {
        self.line('-', c.line_number(), c.bytes());
        Ok(true)
    }
}

pub fn grep(q: &Query<'_>) -> Result<ToolOutput, ToolError> {
    let matcher = RegexMatcherBuilder::new()
        .fixed_strings(q.literal)
        .build(q.pattern)
        .map_err(|e| {
            ToolError::InvalidArgs(format!(
                "bad pattern `{}`: {e} (use mode literal to search for the text as is)",
                q.pattern
            ))
        })?;
    let mut searcher = SearcherBuilder::new()
        .line_number(true)
        .before_context(q.context)
        .after_context(q.context)
        .binary_detection(BinaryDetection::quit(0))
        .build();
    let mut out = String::new();
    let mut matches = 0usize;
    let mut files = 0usize;
    let mut last_line = None;
    let mut walk = amber_sdk::files::walk(q.root).map_err(ToolError::Failed)?;
    let mut batch_size = FIRST_BATCH;
    let mut batch: Vec<(String, String)> = Vec::with_capacity(LAST_BATCH);
    while matches < q.max {
        batch.clear();
        for entry in walk.by_ref() {
            if entry.kind != EntryKind::File {
                continue;
            }
            let Some(shown) = q.selects(std::path::Path::new(&entry.path)) else {
                continue;
            };
            batch.push((entry.path, shown));
            if batch.len() == batch_size {
                break;
            }
        }
        if batch.is_empty() {
            break;
        }
        batch_size = (batch_size * 2).min(LAST_BATCH);
        let paths: Vec<&str> = batch.iter().map(|(path, _)| path.as_str()).collect();
        // The walk above needed the same grant, so only single files fail.
        let contents = amber_sdk::files::read_many(&paths, SLICE_MAX).map_err(ToolError::Failed)?;
        for ((path, shown), content) in batch.iter().zip(contents) {
            if matches >= q.max {
                break;
            }
            let before = matches;
            let sink = Collect {
                path: shown,
                out: &mut out,
                matches: &mut matches,
                max: q.max,
                separate: q.context > 0,
                last_line: &mut last_line,
            };
            // An unreadable file is skipped, as rg does. A file too large
            // for one read, or past the batch's budget, is streamed.
            let _ = match content {
                Ok(bytes) => searcher.search_slice(&matcher, &bytes, sink),
                Err(_) => searcher.search_path(&matcher, path, sink),
            };
            if matches > before {
                files += 1;
            }
        }
    }
    let truncated = matches >= q.max;
    if matches == 0 {
        out = format!("no matches for `{}` under {}\n", q.pattern, q.root);
    } else if truncated {
        let _ = writeln!(
            out,
            "[stopped at {} matches; narrow the pattern, path or glob, or raise max_results]",
            q.max
        );
    }
    Ok(ToolOutput::text(out)
        .with_meta(json!({"matches": matches, "files": files, "truncated": truncated})))
}
