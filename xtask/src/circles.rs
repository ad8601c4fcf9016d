//! `cargo xtask circles`: no crate's files import each other in a loop.
//!
//! Within a crate, an arrow runs from a file to each file whose module it
//! names: `use crate::policy::Mode`, `super::Agent`, `dispatch::Dispatcher`
//! from a parent, or `crate::text::one_line(…)` in code. A loop of arrows
//! (a circle) means two files cannot be understood, changed or moved one
//! without the other; the layering of docs/architecture.md has none, and
//! this check, run by `cargo xtask test`, keeps it so. Test code is not
//! read: a `#[cfg(test)]` module, a `tests.rs` or a `*_tests.rs` file.
//!
//! It reads text, not the compiler's view: `#[path]` modules other than
//! tests are not followed, and a name a glob import brings in is not seen.
//! That is enough for how this repository is written, and it fails loudly
//! (naming files) rather than quietly.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};

/// The crates checked: every member of the host workspace with a `src/`.
fn crates(root: &Path) -> Result<Vec<PathBuf>> {
    let manifest = std::fs::read_to_string(root.join("Cargo.toml"))?;
    let members = manifest
        .split_once("members = [")
        .and_then(|(_, rest)| rest.split_once(']'))
        .map(|(list, _)| list)
        .context("no [workspace] members in Cargo.toml")?;
    Ok(members
        .split(',')
        .map(|m| m.trim().trim_matches('"'))
        .filter(|m| !m.is_empty())
        .map(|m| root.join(m).join("src"))
        .filter(|src| src.is_dir())
        .collect())
}

/// `src/a/b.rs` and `src/a/b/mod.rs` are `a::b`; `lib.rs` and `main.rs`
/// the root, empty. `None` for test files and binaries' own roots.
fn module_of(src: &Path, file: &Path) -> Option<Vec<String>> {
    let relative = file.strip_prefix(src).ok()?;
    let mut parts: Vec<String> = relative
        .iter()
        .map(|p| p.to_string_lossy().into_owned())
        .collect();
    let last = parts.pop()?;
    let stem = last.strip_suffix(".rs")?;
    if stem == "tests" || stem.ends_with("_tests") || parts.iter().any(|p| p == "tests") {
        return None;
    }
    if parts.first().is_some_and(|p| p == "bin") {
        return None;
    }
    match stem {
        "lib" | "main" if parts.is_empty() => {}
        "mod" => {}
        other => parts.push(other.to_string()),
    }
    Some(parts)
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// `text` without comments, string and char literals' contents, and
/// `#[cfg(test)]` items.
fn code_of(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let bytes = text.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        let rest = &text[i..];
        if rest.starts_with("//") {
            i += rest.find('\n').unwrap_or(rest.len());
        } else if rest.starts_with("/*") {
            i += rest.find("*/").map_or(rest.len(), |at| at + 2);
        } else if let Some(raw) = rest.strip_prefix("r#\"") {
            i += raw.find("\"#").map_or(rest.len(), |at| at + 5);
        } else if rest.starts_with('"') {
            let mut j = 1;
            while j < rest.len() && rest.as_bytes()[j] != b'"' {
                j += if rest.as_bytes()[j] == b'\\' { 2 } else { 1 };
            }
            out.push_str("\"\"");
            i += (j + 1).min(rest.len());
        } else if rest.starts_with('\'') {
            // A char literal ('"', '\'', '\u{1b}') is skipped; a lifetime
            // ('a) is code.
            let literal = match rest.as_bytes().get(1) {
                Some(b'\\') => rest[2..].find('\'').map(|at| at + 3),
                _ => rest
                    .char_indices()
                    .nth(2)
                    .filter(|(_, c)| *c == '\'')
                    .map(|(at, _)| at + 1),
            };
            match literal {
                Some(len) => {
                    out.push_str("' '");
                    i += len;
                }
                None => {
                    out.push('\'');
                    i += 1;
                }
            }
        } else if rest.starts_with("#[cfg(test)]") {
            i += skip_item(rest);
        } else {
            let c = rest.chars().next().unwrap_or(' ');
            out.push(c);
            i += c.len_utf8();
        }
    }
    out
}

/// The length of the item `text` starts with (an attribute, then up to its
/// `;` or its balanced `{…}`).
fn skip_item(text: &str) -> usize {
    let mut depth = 0usize;
    for (at, c) in text.char_indices() {
        match c {
            '{' => depth += 1,
            '}' => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    return at + 1;
                }
            }
            ';' if depth == 0 => return at + 1,
            _ => {}
        }
    }
    text.len()
}

/// Every path a `use` tree names, whole: `a::{b, c::d}` is `a::b`, `a::c::d`.
fn use_paths(tree: &str) -> Vec<String> {
    // `x as y` keeps its `x`: the rename is marked before spaces go.
    let tree = tree.split_whitespace().collect::<Vec<_>>().join(" ");
    let tree: String = tree.replace(" as ", "@").replace(' ', "");
    let mut out = Vec::new();
    expand("", &tree, &mut out);
    out
}

fn expand(prefix: &str, tree: &str, out: &mut Vec<String>) {
    let Some(open) = tree.find('{') else {
        for part in split_top(tree) {
            let part = part.split('@').next().unwrap_or(part);
            out.push(format!("{prefix}{part}"));
        }
        return;
    };
    let head = &tree[..open];
    let inner = tree[open + 1..]
        .strip_suffix('}')
        .unwrap_or(&tree[open + 1..]);
    for part in split_top(inner) {
        expand(&format!("{prefix}{head}"), part, out);
    }
}

/// `a, b::{c, d}, e` split at its top-level commas.
fn split_top(text: &str) -> Vec<&str> {
    let mut parts = Vec::new();
    let (mut depth, mut start) = (0usize, 0);
    for (at, c) in text.char_indices() {
        match c {
            '{' => depth += 1,
            '}' => depth = depth.saturating_sub(1),
            ',' if depth == 0 => {
                parts.push(&text[start..at]);
                start = at + 1;
            }
            _ => {}
        }
    }
    parts.push(&text[start..]);
    parts.into_iter().filter(|p| !p.is_empty()).collect()
}

/// The tree of the `use` a statement ends with, if it is one.
fn use_tree(statement: &str) -> Option<&str> {
    let mut found = None;
    let mut from = 0;
    while let Some(at) = statement[from..].find("use ") {
        let begin = from + at;
        let starts = statement[..begin]
            .chars()
            .next_back()
            .is_none_or(|c| c.is_whitespace() || matches!(c, '{' | '}' | ')'));
        if starts {
            found = Some(&statement[begin + 4..]);
        }
        from = begin + 4;
    }
    found
}

/// Whether the `use` whose tree is `tree` in `statement` hands names on
/// (`pub use`, `pub(crate) use`): a facade's re-export is no arrow of its
/// own; a name used through it is followed to where it is defined.
fn is_reexport(statement: &str, tree: &str) -> bool {
    let before = statement[..statement.len() - tree.len() - 4].trim_end();
    before.ends_with("pub") || before.ends_with(')')
}

/// The paths a file uses: its `use` trees (not its re-exports), and
/// `crate::`/`super::` paths in its code.
fn named_paths(code: &str) -> Vec<String> {
    let mut paths = Vec::new();
    for statement in code.split(';') {
        let (rest, tree) = match use_tree(statement) {
            Some(tree) => (&statement[..statement.len() - tree.len() - 4], Some(tree)),
            None => (statement, None),
        };
        if let Some(tree) = tree.filter(|t| !is_reexport(statement, t)) {
            paths.extend(use_paths(tree));
        }
        paths.extend(code_paths(rest));
    }
    paths
}

/// `crate::a::b` and `super::c` written in code.
fn code_paths(code: &str) -> Vec<String> {
    let mut paths = Vec::new();
    for start in ["crate::", "super::"] {
        let mut from = 0;
        while let Some(at) = code[from..].find(start) {
            let begin = from + at;
            let before = code[..begin].chars().next_back();
            from = begin + start.len();
            if before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == ':') {
                continue;
            }
            let end = code[begin..]
                .find(|c: char| !(c.is_alphanumeric() || c == '_' || c == ':'))
                .map_or(code.len(), |e| begin + e);
            paths.push(code[begin..end].trim_end_matches(':').to_string());
        }
    }
    paths
}

/// What each module hands on: (module, name) → the path its `pub use`
/// names, so an arrow to a facade (`crate::ports::Tool`, re-exported by
/// `ports/mod.rs`) lands on the file that defines the name.
type Reexports = BTreeMap<(Vec<String>, String), String>;

fn reexports_of(module: &[String], code: &str, out: &mut Reexports) {
    for statement in code.split(';') {
        let Some(tree) = use_tree(statement) else {
            continue;
        };
        if !is_reexport(statement, tree) {
            continue;
        }
        for path in use_paths(tree) {
            if let Some((_, name)) = path.rsplit_once("::") {
                out.insert((module.to_vec(), name.to_string()), path.clone());
            }
        }
    }
}

/// The file `path` names, seen from `at`: its module, or where the name
/// after the module comes from when that module only hands it on.
fn resolve(
    at: &[String],
    path: &str,
    modules: &BTreeMap<Vec<String>, PathBuf>,
    reexports: &Reexports,
    depth: usize,
) -> Option<Vec<String>> {
    let module = resolve_module(at, path, modules)?;
    if depth > 8 {
        return Some(module);
    }
    // The first segment after the module's own path.
    let after = path
        .split("::")
        .skip_while(|s| matches!(*s, "crate" | "super" | "self"))
        .nth(module.len().saturating_sub(relative_depth(at, path)))
        .map(str::to_string);
    match after.and_then(|name| reexports.get(&(module.clone(), name))) {
        Some(handed_on) => {
            resolve(&module, handed_on, modules, reexports, depth + 1).or(Some(module))
        }
        None => Some(module),
    }
}

/// How many segments of the resolved module `path` does not spell out
/// (the base it is relative to).
fn relative_depth(at: &[String], path: &str) -> usize {
    let mut segments = path.split("::").peekable();
    match segments.peek() {
        Some(&"crate") => 0,
        Some(&"super") | Some(&"self") => {
            let mut base = at.len();
            for segment in segments {
                match segment {
                    "super" => base = base.saturating_sub(1),
                    "self" => {}
                    _ => break,
                }
            }
            base
        }
        _ => at.len(),
    }
}

/// The module `path` names, seen from `at`, as the longest prefix that is a
/// module of the crate.
fn resolve_module(
    at: &[String],
    path: &str,
    modules: &BTreeMap<Vec<String>, PathBuf>,
) -> Option<Vec<String>> {
    let mut segments: Vec<&str> = path.split("::").filter(|s| !s.is_empty()).collect();
    let mut base: Vec<String> = match segments.first() {
        Some(&"crate") => {
            segments.remove(0);
            Vec::new()
        }
        Some(&"super") | Some(&"self") => {
            let mut base = at.to_vec();
            while let Some(&first) = segments.first() {
                match first {
                    "super" => {
                        base.pop()?;
                    }
                    "self" => {}
                    _ => break,
                }
                segments.remove(0);
            }
            base
        }
        // A child module named from its parent (`use dispatch::Mode`).
        Some(first) if modules.contains_key(&child(at, first)) => at.to_vec(),
        _ => return None,
    };
    let mut found = modules.contains_key(&base).then(|| base.clone());
    for segment in segments {
        base.push(segment.to_string());
        if modules.contains_key(&base) {
            found = Some(base.clone());
        } else {
            break;
        }
    }
    found
}

fn child(at: &[String], name: &str) -> Vec<String> {
    let mut path = at.to_vec();
    path.push(name.to_string());
    path
}

/// The arrows of one crate, file to file.
fn arrows(src: &Path) -> Result<BTreeMap<PathBuf, BTreeSet<PathBuf>>> {
    let mut files = Vec::new();
    rust_files(src, &mut files);
    let modules: BTreeMap<Vec<String>, PathBuf> = files
        .iter()
        .filter_map(|f| Some((module_of(src, f)?, f.clone())))
        .collect();
    let mut codes = BTreeMap::new();
    let mut reexports = Reexports::new();
    for (module, file) in &modules {
        let text = std::fs::read_to_string(file)
            .with_context(|| format!("cannot read {}", file.display()))?;
        let code = code_of(&text);
        reexports_of(module, &code, &mut reexports);
        codes.insert(module.clone(), code);
    }
    let mut arrows: BTreeMap<PathBuf, BTreeSet<PathBuf>> = BTreeMap::new();
    for (module, file) in &modules {
        let targets = arrows.entry(file.clone()).or_default();
        for path in named_paths(&codes[module]) {
            let Some(target) = resolve(module, &path, &modules, &reexports, 0) else {
                continue;
            };
            if let Some(to) = modules.get(&target).filter(|to| *to != file) {
                targets.insert(to.clone());
            }
        }
    }
    Ok(arrows)
}

/// The strongly connected sets of more than one file (Tarjan's).
fn circles(arrows: &BTreeMap<PathBuf, BTreeSet<PathBuf>>) -> Vec<Vec<PathBuf>> {
    struct State<'a> {
        arrows: &'a BTreeMap<PathBuf, BTreeSet<PathBuf>>,
        index: BTreeMap<&'a PathBuf, usize>,
        low: BTreeMap<&'a PathBuf, usize>,
        stack: Vec<&'a PathBuf>,
        on_stack: BTreeSet<&'a PathBuf>,
        found: Vec<Vec<PathBuf>>,
    }
    fn visit<'a>(s: &mut State<'a>, node: &'a PathBuf) {
        let n = s.index.len();
        s.index.insert(node, n);
        s.low.insert(node, n);
        s.stack.push(node);
        s.on_stack.insert(node);
        for next in s.arrows.get(node).into_iter().flatten() {
            if !s.index.contains_key(next) {
                visit(s, next);
                let low = s.low[next].min(s.low[node]);
                s.low.insert(node, low);
            } else if s.on_stack.contains(next) {
                let low = s.index[next].min(s.low[node]);
                s.low.insert(node, low);
            }
        }
        if s.low[node] == s.index[node] {
            let mut set = Vec::new();
            while let Some(top) = s.stack.pop() {
                s.on_stack.remove(top);
                set.push(top.clone());
                if top == node {
                    break;
                }
            }
            if set.len() > 1 {
                set.sort();
                s.found.push(set);
            }
        }
    }
    let mut state = State {
        arrows,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on_stack: BTreeSet::new(),
        found: Vec::new(),
    };
    for node in arrows.keys() {
        if !state.index.contains_key(node) {
            visit(&mut state, node);
        }
    }
    state.found
}

/// Fails naming every circle, with the arrows that close it.
pub fn check(root: &Path) -> Result<()> {
    let mut report = Vec::new();
    for src in crates(root)? {
        let arrows = arrows(&src)?;
        for circle in circles(&arrows) {
            let members: BTreeSet<&PathBuf> = circle.iter().collect();
            let mut lines = vec![format!(
                "a circle of {} files in {}:",
                circle.len(),
                src.parent()
                    .unwrap_or(&src)
                    .strip_prefix(root)
                    .unwrap_or(&src)
                    .display()
            )];
            for from in &circle {
                for to in arrows[from].iter().filter(|t| members.contains(t)) {
                    let show = |p: &Path| p.strip_prefix(root).unwrap_or(p).display().to_string();
                    lines.push(format!("  {} -> {}", show(from), show(to)));
                }
            }
            report.push(lines.join("\n"));
        }
    }
    if !report.is_empty() {
        bail!(
            "files import each other in a loop (docs/architecture.md, \"Layers inside a crate\"):\n{}",
            report.join("\n")
        );
    }
    println!("xtask: no import circles inside any crate");
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn use_trees_expand_to_whole_paths() {
        assert_eq!(
            use_paths("crate::ports::{dialect::{Message, Role}, Tool}"),
            [
                "crate::ports::dialect::Message",
                "crate::ports::dialect::Role",
                "crate::ports::Tool"
            ]
        );
        assert_eq!(use_paths("super::x as y"), ["super::x"]);
    }

    #[test]
    fn a_loop_of_two_files_is_a_circle_and_a_chain_is_not() {
        let dir = std::env::temp_dir().join(format!("xtask-circles-{}", std::process::id()));
        let src = dir.join("src");
        std::fs::create_dir_all(src.join("engine")).unwrap();
        std::fs::write(src.join("lib.rs"), "pub mod engine;\npub mod policy;\n").unwrap();
        std::fs::write(src.join("policy.rs"), "use crate::engine::Agent;\n").unwrap();
        std::fs::write(
            src.join("engine/mod.rs"),
            "mod run;\npub use run::Mode;\npub struct Agent;\nuse crate::policy::Policy; // crate::x in a comment\n#[cfg(test)]\nmod tests { use crate::policy::Other; }\n",
        )
        .unwrap();
        std::fs::write(src.join("engine/run.rs"), "pub enum Mode {}\n").unwrap();
        let found = circles(&arrows(&src).unwrap());
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(
            found[0],
            vec![src.join("engine/mod.rs"), src.join("policy.rs")]
        );
        // Through the facade's re-export, the arrow lands on run.rs.
        std::fs::write(src.join("policy.rs"), "use crate::engine::Mode;\n").unwrap();
        assert!(circles(&arrows(&src).unwrap()).is_empty());
        let _ = std::fs::remove_dir_all(&dir);
    }
}
