//! The grep path: `ignore` walks (honouring .gitignore, skipping hidden
//! files and binaries), `grep-searcher` reads each file once with line
//! numbers and context, `grep-regex` matches.

use std::fmt::Write as _;

use amber_sdk::prelude::*;
use grep_regex::RegexMatcherBuilder;
use grep_searcher::{BinaryDetection, Searcher, SearcherBuilder, Sink, SinkContext, SinkMatch};

use crate::Query;

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
    for entry in q.walk() {
        if matches >= q.max {
            break;
        }
        if !entry.file_type().is_some_and(|t| t.is_file()) {
            continue;
        }
        let path = entry.path();
        let Some(shown) = q.selects(path) else {
            continue;
        };
        let before = matches;
        let sink = Collect {
            path: &shown,
            out: &mut out,
            matches: &mut matches,
            max: q.max,
            separate: q.context > 0,
            last_line: &mut last_line,
        };
        // An unreadable file is skipped, as rg does.
        let _ = searcher.search_path(&matcher, path, sink);
        if matches > before {
            files += 1;
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
