//! Semantic mode: a dependency-free lexical index. Every file is split into
//! terms (words, and identifiers broken at `_` and camelCase humps, all
//! lower case); a query ranks files by BM25 and shows each file's best
//! lines. The index is kept per (root, glob) and rebuilt when any file's
//! size or modification time changed, or files came or went.

use std::collections::HashMap;
use std::fmt::Write as _;
use std::time::SystemTime;

use amber_sdk::prelude::*;

use crate::Query;

const K1: f64 = 1.2;
const B: f64 = 0.75;
/// Files larger than this are not indexed.
const MAX_FILE: u64 = 2 * 1024 * 1024;
const LINES_PER_FILE: usize = 3;

struct Doc {
    path: String,
    terms: usize,
}

#[derive(Default)]
pub struct Index {
    /// (path, size, mtime) of every indexed file, to see changes.
    fingerprint: Vec<(String, u64, Option<SystemTime>)>,
    docs: Vec<Doc>,
    /// term → (doc, count)
    postings: HashMap<String, Vec<(usize, u32)>>,
    avg_terms: f64,
    pub builds: u64,
}

/// Words and identifier parts, lower case: `parseHttpRequest_v2` gives
/// parse, http, request, v2, and the whole identifier.
pub fn terms(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for word in text.split(|c: char| !(c.is_alphanumeric() || c == '_')) {
        if word.len() < 2 {
            continue;
        }
        let lower = word.to_lowercase();
        let mut parts = Vec::new();
        let mut current = String::new();
        let mut prev_lower = false;
        for c in word.chars() {
            if c == '_' {
                if !current.is_empty() {
                    parts.push(std::mem::take(&mut current));
                }
                prev_lower = false;
                continue;
            }
            if c.is_uppercase() && prev_lower && !current.is_empty() {
                parts.push(std::mem::take(&mut current));
            }
            prev_lower = c.is_lowercase() || c.is_ascii_digit();
            current.extend(c.to_lowercase());
        }
        if !current.is_empty() {
            parts.push(current);
        }
        if parts.len() > 1 {
            out.extend(parts.into_iter().filter(|p| p.len() >= 2));
        }
        out.push(lower);
    }
    out
}

fn files(q: &Query<'_>) -> Vec<(String, u64, Option<SystemTime>)> {
    let mut found = Vec::new();
    for entry in q.walk() {
        let Ok(meta) = entry.metadata() else { continue };
        if !meta.is_file() || meta.len() > MAX_FILE {
            continue;
        }
        let path = entry.path();
        let Some(shown) = q.selects(path) else {
            continue;
        };
        found.push((shown, meta.len(), meta.modified().ok()));
    }
    found
}

fn build(index: &mut Index, fingerprint: Vec<(String, u64, Option<SystemTime>)>) {
    index.docs.clear();
    index.postings.clear();
    let mut total = 0usize;
    for (path, _, _) in &fingerprint {
        let Ok(bytes) = std::fs::read(path) else {
            continue;
        };
        if bytes.contains(&0) {
            continue;
        }
        let text = String::from_utf8_lossy(&bytes);
        let mut counts: HashMap<String, u32> = HashMap::new();
        let mut n = 0;
        for term in terms(&text) {
            *counts.entry(term).or_default() += 1;
            n += 1;
        }
        let doc = index.docs.len();
        index.docs.push(Doc {
            path: path.clone(),
            terms: n,
        });
        for (term, count) in counts {
            index.postings.entry(term).or_default().push((doc, count));
        }
        total += n;
    }
    index.avg_terms = if index.docs.is_empty() {
        0.0
    } else {
        total as f64 / index.docs.len() as f64
    };
    index.fingerprint = fingerprint;
    index.builds += 1;
}

pub fn search(index: &mut Index, q: &Query<'_>) -> Result<ToolOutput, ToolError> {
    let fingerprint = files(q);
    let rebuilt = fingerprint != index.fingerprint || index.builds == 0;
    if rebuilt {
        build(index, fingerprint);
    }
    let mut wanted = terms(q.pattern);
    wanted.sort();
    wanted.dedup();
    let n = index.docs.len() as f64;
    let mut scores: HashMap<usize, f64> = HashMap::new();
    for term in &wanted {
        let Some(postings) = index.postings.get(term) else {
            continue;
        };
        let df = postings.len() as f64;
        let idf = ((n - df + 0.5) / (df + 0.5) + 1.0).ln();
        for &(doc, tf) in postings {
            let tf = f64::from(tf);
            let len = index.docs[doc].terms as f64;
            let norm = tf * (K1 + 1.0) / (tf + K1 * (1.0 - B + B * len / index.avg_terms.max(1.0)));
            *scores.entry(doc).or_default() += idf * norm;
        }
    }
    let mut ranked: Vec<(usize, f64)> = scores.into_iter().collect();
    ranked.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    ranked.truncate(q.max);
    let mut out = String::new();
    for (doc, score) in &ranked {
        let path = &index.docs[*doc].path;
        let _ = writeln!(out, "{path} (score {score:.2})");
        for (line_no, line) in best_lines(path, &wanted) {
            let _ = writeln!(out, "{path}:{line_no}:{}", line.trim_end());
        }
    }
    if ranked.is_empty() {
        out = format!(
            "no files match the words of `{}` under {}\n",
            q.pattern, q.root
        );
    }
    Ok(ToolOutput::text(out).with_meta(json!({
        "files": ranked.len(),
        "indexed": index.docs.len(),
        "rebuilt": rebuilt,
        "builds": index.builds,
    })))
}

/// The lines of `path` holding the most query terms.
fn best_lines(path: &str, wanted: &[String]) -> Vec<(usize, String)> {
    let Ok(text) = std::fs::read_to_string(path) else {
        return Vec::new();
    };
    let mut scored: Vec<(usize, usize, String)> = text
        .lines()
        .enumerate()
        .filter_map(|(i, line)| {
            let line_terms = terms(line);
            let hits = wanted.iter().filter(|w| line_terms.contains(w)).count();
            (hits > 0).then(|| (hits, i + 1, line.to_string()))
        })
        .collect();
    scored.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
    scored.truncate(LINES_PER_FILE);
    scored.sort_by_key(|s| s.1);
    scored.into_iter().map(|(_, n, l)| (n, l)).collect()
}
