//! The restore digest (seed 003's restore-context): what a session has
//! already read, told to the model after a compaction (and once on
//! resume) so it does not re-read unchanged files. Files and symbols with
//! their depth, fresh or stale, the freshest and deepest first, within a
//! token budget, ending with what was left out. As markdown for the
//! model, JSON for scripts, or a SessionStart hook's output for other
//! agents.

use std::collections::BTreeMap;

use serde::Serialize;

use crate::classify::{Classified, Freshness};
use crate::depth::Depth;

/// The digest's default budget, in tokens.
pub const DEFAULT_BUDGET: usize = 1_500;

/// The first line of the digest's message: how a reader (and a test)
/// knows it.
pub const HEADING: &str = "## Already read in this session";

/// What the model is told the list is, under the heading.
const INTRO: &str = "Earlier in this session you read these files and symbols; the context \
     no longer holds them. Fresh ones are unchanged since: rely on what you learned and \
     read them again only if you need their exact text. Stale ones changed since you \
     read them.";

/// Room kept for the closing line that says what was left out.
const CLOSING_TOKENS: usize = 30;

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DigestFile {
    pub path: String,
    pub freshness: Freshness,
    /// (symbol id, depth, fresh), deepest first.
    pub symbols: Vec<DigestSymbol>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DigestSymbol {
    pub id: String,
    pub depth: Depth,
    pub freshness: Freshness,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Digest {
    pub files: Vec<DigestFile>,
    /// Symbols and files that did not fit the budget.
    pub left_out_symbols: usize,
    pub left_out_files: usize,
}

fn tokens(text: &str) -> usize {
    text.len().div_ceil(4)
}

/// The short name of a symbol in its file's line: the id after `::`.
fn short(id: &str) -> &str {
    id.rsplit_once("::").map_or(id, |(_, name)| name)
}

impl Digest {
    /// The digest of `reads` (one agent's, classified) within `budget`
    /// tokens of markdown.
    pub fn build(reads: &[Classified], budget: usize) -> Digest {
        let mut by_file: BTreeMap<&str, Vec<&Classified>> = BTreeMap::new();
        for read in reads {
            by_file.entry(read.path.as_str()).or_default().push(read);
        }
        let mut files: Vec<DigestFile> = by_file
            .into_iter()
            .map(|(path, reads)| {
                let mut symbols: Vec<DigestSymbol> = reads
                    .iter()
                    .map(|r| DigestSymbol {
                        id: r.symbol.clone(),
                        depth: r.depth,
                        freshness: r.freshness,
                    })
                    .collect();
                symbols.sort_by(|a, b| {
                    (a.freshness, std::cmp::Reverse(a.depth), &a.id).cmp(&(
                        b.freshness,
                        std::cmp::Reverse(b.depth),
                        &b.id,
                    ))
                });
                let freshness = reads
                    .iter()
                    .map(|r| r.freshness)
                    .max()
                    .unwrap_or(Freshness::Fresh);
                DigestFile {
                    path: path.to_string(),
                    freshness,
                    symbols,
                }
            })
            .collect();
        // Fresh files first, then the ones read deepest, then by path.
        let best = |f: &DigestFile| f.symbols.first().map_or(Depth::Unseen, |s| s.depth);
        files.sort_by(|a, b| {
            (a.freshness, std::cmp::Reverse(best(a)), &a.path).cmp(&(
                b.freshness,
                std::cmp::Reverse(best(b)),
                &b.path,
            ))
        });
        let mut digest = Digest {
            files: Vec::new(),
            left_out_symbols: 0,
            left_out_files: 0,
        };
        let mut used = tokens(HEADING) + tokens(INTRO) + CLOSING_TOKENS;
        for mut file in files {
            if used >= budget {
                // Full: the rest is only counted.
                digest.left_out_symbols += file.symbols.len();
                digest.left_out_files += 1;
                continue;
            }
            let line = file_line(&file);
            if used + tokens(&line) <= budget {
                used += tokens(&line);
                digest.files.push(file);
                continue;
            }
            // What fits of this file, then nothing more.
            let mut kept = Vec::new();
            let head = tokens(&format!("- `{}` ({}): ", file.path, state(file.freshness)));
            if used + head < budget {
                used += head;
                for symbol in file.symbols.drain(..) {
                    let cost = tokens(&symbol_text(&symbol)) + 1;
                    if used + cost <= budget {
                        used += cost;
                        kept.push(symbol);
                    } else {
                        digest.left_out_symbols += 1;
                    }
                }
            } else {
                digest.left_out_symbols += file.symbols.len();
            }
            if kept.is_empty() {
                digest.left_out_files += 1;
            } else {
                file.symbols = kept;
                digest.files.push(file);
            }
            used = budget;
        }
        digest
    }

    pub fn is_empty(&self) -> bool {
        self.files.is_empty() && self.left_out_files == 0
    }

    /// The message the model gets.
    pub fn markdown(&self) -> String {
        let mut out = format!("{HEADING}\n\n{INTRO}\n\n");
        for file in &self.files {
            out.push_str(&file_line(file));
            out.push('\n');
        }
        out.push('\n');
        out.push_str(&self.left_out_line());
        out.push('\n');
        out
    }

    fn left_out_line(&self) -> String {
        if self.left_out_symbols == 0 && self.left_out_files == 0 {
            "Nothing was left out.".into()
        } else {
            format!(
                "Left out for space: {} more symbols in {} more files (`amber coverage` lists them all).",
                self.left_out_symbols, self.left_out_files
            )
        }
    }

    /// The output of a SessionStart hook (Claude Code's format), so the
    /// same digest can restore another agent's context.
    pub fn hook(&self) -> serde_json::Value {
        serde_json::json!({
            "hookSpecificOutput": {
                "hookEventName": "SessionStart",
                "additionalContext": self.markdown(),
            }
        })
    }
}

fn state(freshness: Freshness) -> &'static str {
    match freshness {
        Freshness::Fresh => "fresh",
        Freshness::Stale => "stale: changed since",
        Freshness::Gone => "gone: deleted since",
    }
}

fn symbol_text(symbol: &DigestSymbol) -> String {
    let mark = if symbol.freshness == Freshness::Fresh {
        ""
    } else {
        ", stale"
    };
    format!("`{}` ({}{mark})", short(&symbol.id), symbol.depth.label())
}

fn file_line(file: &DigestFile) -> String {
    let symbols: Vec<String> = file.symbols.iter().map(symbol_text).collect();
    format!(
        "- `{}` ({}): {}",
        file.path,
        state(file.freshness),
        symbols.join(", ")
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(path: &str, symbol: &str, depth: Depth, freshness: Freshness) -> Classified {
        Classified {
            agent: "main".into(),
            path: path.into(),
            symbol: format!("{path}::{symbol}"),
            depth,
            turn: 1,
            freshness,
        }
    }

    #[test]
    fn fresh_and_deep_come_first_and_stale_is_marked() {
        let reads = [
            read("src/b.rs", "parse", Depth::FullBody, Freshness::Stale),
            read("src/a.rs", "one", Depth::NameOnly, Freshness::Fresh),
            read("src/a.rs", "two", Depth::FullBody, Freshness::Fresh),
        ];
        let digest = Digest::build(&reads, DEFAULT_BUDGET);
        let text = digest.markdown();
        assert!(text.starts_with(HEADING), "{text}");
        let a = text
            .find("`src/a.rs` (fresh): `two` (full), `one` (name)")
            .unwrap();
        let b = text
            .find("`src/b.rs` (stale: changed since): `parse` (full, stale)")
            .unwrap();
        assert!(a < b, "{text}");
        assert!(text.trim_end().ends_with("Nothing was left out."), "{text}");
        assert_eq!(
            digest.hook()["hookSpecificOutput"]["hookEventName"],
            "SessionStart"
        );
    }

    #[test]
    fn the_budget_is_kept_and_what_is_left_out_is_said() {
        let reads: Vec<Classified> = (0..400)
            .map(|i| {
                read(
                    &format!("src/m{i:03}.rs"),
                    "f",
                    Depth::FullBody,
                    Freshness::Fresh,
                )
            })
            .collect();
        let digest = Digest::build(&reads, 300);
        let text = digest.markdown();
        assert!(tokens(&text) <= 300, "{} tokens", tokens(&text));
        assert!(digest.left_out_files > 0);
        assert!(text.contains("Left out for space"), "{text}");
        assert_eq!(
            digest.files.len() + digest.left_out_files,
            400,
            "every file is either shown or counted"
        );
    }
}
