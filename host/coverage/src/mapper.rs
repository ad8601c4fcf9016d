//! The ToolCallMapper (seed 003): a tool call, its arguments and its
//! output, turned into per-symbol reads, driven by `tools.toml` (the
//! built-in `default_tools.toml`, overridable per tool).

use std::collections::BTreeMap;

use serde::Deserialize;
use serde_json::Value;

use crate::depth::Depth;
use crate::ledger::Read;
use crate::symbols::{FileSymbols, SymbolInfo, SymbolSource};

const DEFAULT_TOOLS: &str = include_str!("default_tools.toml");

/// One or more argument names.
#[derive(Debug, Clone, Default, Deserialize, PartialEq)]
#[serde(untagged)]
pub enum Keys {
    #[default]
    None,
    One(String),
    Many(Vec<String>),
}

impl Keys {
    fn names(&self) -> Vec<&str> {
        match self {
            Keys::None => Vec::new(),
            Keys::One(k) => vec![k.as_str()],
            Keys::Many(ks) => ks.iter().map(String::as_str).collect(),
        }
    }

    /// The first of these arguments `args` has, as text.
    fn first<'a>(&self, args: &'a Value) -> Option<&'a str> {
        self.names()
            .into_iter()
            .find_map(|k| args.get(k).and_then(Value::as_str))
            .filter(|v| !v.is_empty())
    }
}

#[derive(Debug, Clone, Copy, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum Target {
    /// Every symbol of the file.
    File,
    /// The symbols a line range overlaps (the whole file without one).
    Lines,
    /// The symbols a selector names.
    Symbol,
    /// The symbols holding the `path:line` hits of the output.
    Hits,
    /// The symbols the output's unified diff touched.
    Diff,
}

#[derive(Debug, Clone, Deserialize, PartialEq)]
pub struct When {
    pub arg: String,
    pub equals: Value,
    pub depth: Depth,
}

#[derive(Debug, Clone, Deserialize, PartialEq)]
pub struct LineKeys {
    pub start: String,
    pub count: String,
}

/// How one tool reads.
#[derive(Debug, Clone, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct ToolMapping {
    #[serde(default)]
    pub path: Keys,
    #[serde(default)]
    pub symbol: Keys,
    #[serde(default)]
    pub pattern: Keys,
    pub depth: Depth,
    #[serde(default)]
    pub when: Vec<When>,
    pub target: Target,
    #[serde(default)]
    pub lines: Option<LineKeys>,
}

/// What one call came to.
#[derive(Debug, Clone, PartialEq)]
pub enum Mapped {
    Reads(Vec<Read>),
    /// No mapping for this tool: counted, not an error.
    Unmapped,
}

#[derive(Debug, Clone, PartialEq)]
pub struct ToolCallMapper {
    tools: BTreeMap<String, ToolMapping>,
}

impl Default for ToolCallMapper {
    fn default() -> Self {
        Self::built_in()
    }
}

impl ToolCallMapper {
    /// amber's own tools (`default_tools.toml`).
    pub fn built_in() -> Self {
        // Compiled in and parsed by a unit test: a failure is a bug here.
        let tools = toml::from_str(DEFAULT_TOOLS).unwrap_or_default();
        ToolCallMapper { tools }
    }

    /// The built-in mappings with `overrides` (a `tools.toml` text: one
    /// table per tool) on top; an error names the tool and the field.
    pub fn with_overrides(overrides: &str) -> Result<Self, String> {
        let extra: BTreeMap<String, ToolMapping> =
            toml::from_str(overrides).map_err(|e| format!("tools.toml: {e}"))?;
        let mut mapper = Self::built_in();
        mapper.tools.extend(extra);
        Ok(mapper)
    }

    pub fn mapping(&self, tool: &str) -> Option<&ToolMapping> {
        self.tools.get(tool)
    }

    /// The reads `tool` made with `args`, given its `output`, against the
    /// current symbols. A path outside the workspace reads nothing.
    pub fn map(&self, tool: &str, args: &Value, output: &str, source: &dyn SymbolSource) -> Mapped {
        let Some(mapping) = self.tools.get(tool) else {
            return Mapped::Unmapped;
        };
        let depth = mapping
            .when
            .iter()
            .find(|w| args.get(&w.arg) == Some(&w.equals))
            .map_or(mapping.depth, |w| w.depth);
        let mut reads = Vec::new();
        let mut push = |file: &FileSymbols, symbol: &SymbolInfo, depth: Depth, partial: bool| {
            reads.push(Read {
                path: file.path.clone(),
                symbol: symbol.id.clone(),
                depth,
                hash: symbol.hash.clone(),
                partial,
            });
        };
        let file = mapping.path.first(args).and_then(|p| source.file(p));
        match mapping.target {
            Target::File => {
                if let Some(file) = &file {
                    for symbol in file.units().iter() {
                        push(file, symbol, depth, false);
                    }
                }
            }
            Target::Lines => {
                if let Some(file) = &file {
                    // What the tool showed: the range asked for, cut where
                    // the tool says it stopped ("more lines follow line N").
                    let asked = line_range(mapping, args).unwrap_or((1, u32::MAX));
                    let (start, end) = match shown_through(output) {
                        Some(last) => (asked.0, asked.1.min(last)),
                        None => asked,
                    };
                    for symbol in file.overlapping(start, end) {
                        // Part of a symbol is a look at it, not a read.
                        if start <= symbol.line_start && symbol.line_end <= end {
                            push(file, &symbol, depth, false);
                        } else {
                            push(file, &symbol, Depth::Overview.min(depth), true);
                        }
                    }
                }
            }
            Target::Symbol => {
                // `show` names the symbol it found on its first line, so a
                // name or a hash prefix resolves as the tool resolved it.
                let selector = shown_id(output).or_else(|| mapping.symbol.first(args));
                if let Some(selector) = selector {
                    for (path, symbol) in source.find(selector) {
                        if let Some(file) = source.file(&path) {
                            push(&file, &symbol, depth, false);
                        }
                    }
                }
            }
            Target::Hits => {
                let mut files: BTreeMap<String, Option<FileSymbols>> = BTreeMap::new();
                for (path, line) in hits(output) {
                    let file = files
                        .entry(path.clone())
                        .or_insert_with(|| source.file(&path));
                    if let Some(file) = file {
                        if let Some(symbol) = file.enclosing(line) {
                            push(file, &symbol, depth, false);
                        }
                    }
                }
                if let Some(name) = mapping.pattern.first(args) {
                    for (path, symbol) in source.find(name) {
                        if let Some(file) = files
                            .entry(path.clone())
                            .or_insert_with(|| source.file(&path))
                        {
                            push(file, &symbol, depth, false);
                        }
                    }
                }
            }
            Target::Diff => {
                if let Some(file) = &file {
                    let changed = diff_changed_lines(output);
                    if changed.is_empty() {
                        for symbol in file.units().iter() {
                            push(file, symbol, depth, false);
                        }
                    }
                    let mut seen = std::collections::BTreeSet::new();
                    for line in changed {
                        for symbol in file.overlapping(line, line) {
                            if seen.insert(symbol.id.clone()) {
                                push(file, &symbol, depth, false);
                            }
                        }
                    }
                }
            }
        }
        Mapped::Reads(reads)
    }
}

/// The 1-based inclusive lines a call asked for, if it asked for a range.
fn line_range(mapping: &ToolMapping, args: &Value) -> Option<(u32, u32)> {
    let keys = mapping.lines.as_ref()?;
    let number = |k: &str| {
        args.get(k)
            .and_then(Value::as_u64)
            .map(|n| n.min(u32::MAX as u64) as u32)
    };
    let start = number(&keys.start);
    let count = number(&keys.count);
    match (start, count) {
        (None, None) => None,
        (start, count) => {
            let start = start.unwrap_or(1).max(1);
            let end = count.map_or(u32::MAX, |c| start.saturating_add(c.max(1) - 1));
            Some((start, end))
        }
    }
}

/// `path:line` at the start of each output line (grep's `path:line:text`,
/// callers' `path:line  caller  text`).
pub fn hits(output: &str) -> Vec<(String, u32)> {
    output
        .lines()
        .filter_map(|line| {
            let (path, rest) = line.split_once(':')?;
            if path.is_empty() || path.contains(char::is_whitespace) {
                return None;
            }
            let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
            let number = digits.parse().ok()?;
            Some((path.to_string(), number))
        })
        .collect()
}

/// The last line a read showed, when the tool says it stopped early
/// (tools-fs: "truncated at …: more lines follow line N").
pub fn shown_through(output: &str) -> Option<u32> {
    const SAYS: &str = "more lines follow line ";
    let at = output.rfind(SAYS)? + SAYS.len();
    let digits: String = output[at..]
        .chars()
        .take_while(char::is_ascii_digit)
        .collect();
    digits.parse().ok()
}

/// The id `show` names on its first line (`// src/a.rs::f (src/a.rs:1-3, b3:…)`).
pub fn shown_id(output: &str) -> Option<&str> {
    let first = output.lines().next()?.strip_prefix("// ")?;
    let id = first.split(" (").next()?;
    id.contains("::").then_some(id)
}

/// The new-file lines a unified diff changed: its `+` lines, and where a
/// `-` line was removed; context lines are not changes.
pub fn diff_changed_lines(output: &str) -> Vec<u32> {
    let mut changed = Vec::new();
    let mut line: Option<u32> = None;
    for text in output.lines() {
        if let Some(rest) = text.strip_prefix("@@ ") {
            line = rest
                .split_whitespace()
                .find(|w| w.starts_with('+'))
                .and_then(|w| w.trim_start_matches('+').split(',').next()?.parse().ok());
            continue;
        }
        let Some(at) = line else {
            continue;
        };
        if text.starts_with("+++") || text.starts_with("---") {
            continue;
        }
        match text.chars().next() {
            Some('+') => {
                changed.push(at.max(1));
                line = Some(at.saturating_add(1));
            }
            Some('-') => changed.push(at.max(1)),
            Some(' ') | None => line = Some(at.saturating_add(1)),
            _ => {}
        }
    }
    changed.dedup();
    changed
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    struct Table(Vec<FileSymbols>);

    impl SymbolSource for Table {
        fn file(&self, path: &str) -> Option<FileSymbols> {
            self.0.iter().find(|f| f.path == path).cloned()
        }
        fn find(&self, selector: &str) -> Vec<(String, SymbolInfo)> {
            self.0
                .iter()
                .flat_map(|f| f.symbols.iter().map(move |s| (f.path.clone(), s.clone())))
                .filter(|(_, s)| s.id == selector || s.name == selector)
                .collect()
        }
    }

    fn symbol(path: &str, name: &str, lines: (u32, u32)) -> SymbolInfo {
        SymbolInfo {
            id: format!("{path}::{name}"),
            name: name.into(),
            line_start: lines.0,
            line_end: lines.1,
            hash: format!("b3:{name}"),
        }
    }

    fn table() -> Table {
        Table(vec![FileSymbols {
            path: "src/a.rs".into(),
            content_hash: "c".into(),
            symbols: vec![
                symbol("src/a.rs", "one", (1, 5)),
                symbol("src/a.rs", "two", (7, 20)),
            ],
        }])
    }

    fn reads(mapped: Mapped) -> Vec<(String, Depth)> {
        match mapped {
            Mapped::Reads(reads) => reads.into_iter().map(|r| (r.symbol, r.depth)).collect(),
            Mapped::Unmapped => panic!("unmapped"),
        }
    }

    #[test]
    fn the_built_in_tools_toml_parses() {
        let parsed: Result<BTreeMap<String, ToolMapping>, _> = toml::from_str(DEFAULT_TOOLS);
        assert!(parsed.is_ok(), "{parsed:?}");
        assert!(ToolCallMapper::built_in().mapping("read_file").is_some());
    }

    #[test]
    fn a_whole_read_covers_every_symbol_and_a_range_only_those_it_holds() {
        let mapper = ToolCallMapper::built_in();
        let all = mapper.map("read_file", &json!({"path": "src/a.rs"}), "", &table());
        assert_eq!(
            reads(all),
            [
                ("src/a.rs::one".into(), Depth::FullBody),
                ("src/a.rs::two".into(), Depth::FullBody)
            ]
        );
        let part = mapper.map(
            "read_file",
            &json!({"path": "src/a.rs", "offset": 1, "limit": 8}),
            "",
            &table(),
        );
        assert_eq!(
            reads(part),
            [
                ("src/a.rs::one".into(), Depth::FullBody),
                ("src/a.rs::two".into(), Depth::Overview)
            ]
        );
    }

    #[test]
    fn show_reads_a_symbol_or_its_signature() {
        let mapper = ToolCallMapper::built_in();
        let body = mapper.map("show", &json!({"symbol": "two"}), "", &table());
        assert_eq!(reads(body), [("src/a.rs::two".into(), Depth::FullBody)]);
        let signature = mapper.map(
            "show",
            &json!({"symbol": "two", "no_body": true}),
            "",
            &table(),
        );
        assert_eq!(
            reads(signature),
            [("src/a.rs::two".into(), Depth::Signature)]
        );
    }

    #[test]
    fn grep_and_callers_see_the_names_their_hits_fall_in() {
        let mapper = ToolCallMapper::built_in();
        let out = "src/a.rs:9:    let x = two();\nsrc/gone.rs:3:nothing\nnot a hit\n";
        assert_eq!(
            reads(mapper.map("grep", &json!({"pattern": "two"}), out, &table())),
            [("src/a.rs::two".into(), Depth::NameOnly)]
        );
        let callers = mapper.map(
            "callers",
            &json!({"name": "one"}),
            "src/a.rs:12  two  one()\n",
            &table(),
        );
        assert_eq!(
            reads(callers),
            [
                ("src/a.rs::two".into(), Depth::NameOnly),
                ("src/a.rs::one".into(), Depth::NameOnly)
            ]
        );
    }

    #[test]
    fn an_edit_reads_what_its_changed_lines_touched_not_its_context() {
        let mapper = ToolCallMapper::built_in();
        // Context lines 4-6 are not changes; the change is line 3, in `one`.
        let diff = "--- a/src/a.rs\n+++ b/src/a.rs\n@@ -1,6 +1,6 @@\n a\n b\n-x\n+y\n c\n d\n e\n";
        assert_eq!(
            reads(mapper.map("edit_file", &json!({"path": "src/a.rs"}), diff, &table())),
            [("src/a.rs::one".into(), Depth::FullBody)]
        );
        let huge = "@@ -1 +4294967295,4294967295 @@\n+x\n+y\n";
        assert_eq!(diff_changed_lines(huge), [u32::MAX], "no overflow");
    }

    #[test]
    fn a_read_cut_short_covers_only_what_it_showed_and_marks_partial_symbols() {
        let mapper = ToolCallMapper::built_in();
        let cut = "     1\tfn one\n[truncated at the limit: more lines follow line 10; read on with offset 11]\n";
        let Mapped::Reads(reads) =
            mapper.map("read_file", &json!({"path": "src/a.rs"}), cut, &table())
        else {
            panic!("unmapped")
        };
        let got: Vec<(&str, Depth, bool)> = reads
            .iter()
            .map(|r| (r.symbol.as_str(), r.depth, r.partial))
            .collect();
        assert_eq!(
            got,
            [
                ("src/a.rs::one", Depth::FullBody, false),
                ("src/a.rs::two", Depth::Overview, true)
            ]
        );
        assert_eq!(
            shown_id("// src/a.rs::two (src/a.rs:7-20, b3:12)\nfn two"),
            Some("src/a.rs::two")
        );
    }

    #[test]
    fn unknown_tools_and_unknown_files_read_nothing() {
        let mapper = ToolCallMapper::built_in();
        assert_eq!(
            mapper.map("fetch", &json!({}), "", &table()),
            Mapped::Unmapped
        );
        assert_eq!(
            reads(mapper.map("read_file", &json!({"path": "/etc/passwd"}), "", &table())),
            []
        );
    }

    #[test]
    fn overrides_add_tools_and_name_their_mistakes() {
        let mapper = ToolCallMapper::with_overrides(
            "[mcp_read]\npath = \"file\"\ndepth = \"full_body\"\ntarget = \"file\"\n",
        )
        .unwrap();
        assert_eq!(
            reads(mapper.map("mcp_read", &json!({"file": "src/a.rs"}), "", &table())).len(),
            2
        );
        let error = ToolCallMapper::with_overrides("[x]\ndepth = \"deep\"\ntarget = \"file\"\n")
            .unwrap_err();
        assert!(error.contains("tools.toml"), "{error}");
    }
}
