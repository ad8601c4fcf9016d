//! Call references (seed 003: "callers is a separate path"): a tags query's
//! `@reference.call` captures whose `@name` is the name asked for, and, for
//! Rust, macro bodies re-parsed as source in a bounded worklist. tree-sitter
//! leaves a macro's arguments an unparsed token tree, so without the
//! re-parse anything called inside `println!` or `assert_eq!` is invisible.

use tree_sitter::{Node, Query, QueryCursor, StreamingIterator, Tree};

use crate::{Calls, Lang, Outliner, Span};

/// Macro bodies re-parsed per call at most, and how deep macros may nest.
const MAX_MACRO_BODIES: usize = 512;
const MAX_MACRO_DEPTH: u32 = 8;

const RUST_CALLS: &str = r#"
(call_expression function: (identifier) @name) @reference.call
(call_expression function: (scoped_identifier name: (identifier) @name)) @reference.call
(call_expression function: (field_expression field: (field_identifier) @name)) @reference.call
(call_expression function: (generic_function function: (identifier) @name)) @reference.call
(call_expression function: (generic_function function: (scoped_identifier name: (identifier) @name))) @reference.call
(call_expression function: (generic_function function: (field_expression field: (field_identifier) @name))) @reference.call
(macro_invocation macro: (identifier) @name) @reference.call
(macro_invocation macro: (scoped_identifier name: (identifier) @name)) @reference.call
"#;

const PYTHON_CALLS: &str = r#"
(call function: (identifier) @name) @reference.call
(call function: (attribute attribute: (identifier) @name)) @reference.call
"#;

const SCRIPT_CALLS: &str = r#"
(call_expression function: (identifier) @name) @reference.call
(call_expression function: (member_expression property: (property_identifier) @name)) @reference.call
(new_expression constructor: (identifier) @name) @reference.call
"#;

/// Markdown calls nothing: its query matches no node.
const NO_CALLS: &str = "";

fn query_source(lang: Lang) -> &'static str {
    match lang {
        Lang::Rust => RUST_CALLS,
        Lang::Python => PYTHON_CALLS,
        Lang::TypeScript | Lang::Tsx | Lang::JavaScript => SCRIPT_CALLS,
        Lang::Markdown => NO_CALLS,
    }
}

pub(crate) fn compile(lang: Lang, grammar: &tree_sitter::Language) -> Result<Query, String> {
    Query::new(grammar, query_source(lang))
        .map_err(|e| format!("the {} reference query does not compile: {e}", lang.name()))
}

/// Text to parse, and where its bytes sit in the original source.
struct Snippet {
    text: String,
    /// Where the macro body is in `text` (the wrapper's text is not source).
    body: std::ops::Range<usize>,
    /// Where the macro body starts in the original source.
    origin: usize,
    depth: u32,
}

impl Snippet {
    fn whole(source: &str) -> Self {
        Snippet {
            text: source.to_string(),
            body: 0..source.len(),
            origin: 0,
            depth: 0,
        }
    }

    /// Maps an offset of `text` to the source's.
    fn to_source(&self, offset: usize) -> usize {
        offset - self.body.start + self.origin
    }
}

/// What one search gathers.
struct Search<'a> {
    name: &'a str,
    lines: LineIndex,
    spans: Vec<Span>,
    work: Vec<Snippet>,
    /// Macro bodies that mention the name but nest too deep to re-parse.
    too_deep: usize,
}

pub(crate) fn find(
    outliner: &mut Outliner,
    lang: Lang,
    source: &str,
    name: &str,
) -> Result<Calls, String> {
    let mut search = Search {
        name,
        lines: LineIndex::new(source),
        spans: Vec::new(),
        work: Vec::new(),
        too_deep: 0,
    };
    collect(outliner, lang, &Snippet::whole(source), &mut search)?;
    let mut parsed = 0;
    // Bodies left unsearched at each bound. Bodies nested inside those
    // are never seen, so both counts are lower bounds.
    let mut past_count = 0;
    while let Some(snippet) = search.work.pop() {
        if parsed == MAX_MACRO_BODIES {
            past_count = search.work.len() + 1;
            break;
        }
        parsed += 1;
        collect(outliner, lang, &snippet, &mut search)?;
    }
    let mut reasons = Vec::new();
    if past_count > 0 {
        reasons.push(format!(
            "at least {} holding `{name}` past the bound of {MAX_MACRO_BODIES} \
             re-parsed per search",
            bodies(past_count)
        ));
    }
    if search.too_deep > 0 {
        reasons.push(format!(
            "at least {} holding `{name}` nested deeper than {MAX_MACRO_DEPTH} macros",
            bodies(search.too_deep)
        ));
    }
    let incomplete = (!reasons.is_empty()).then(|| {
        format!(
            "{}; calls inside them were not searched",
            reasons.join(", and ")
        )
    });
    let mut spans = search.spans;
    spans.sort();
    spans.dedup();
    Ok(Calls { spans, incomplete })
}

fn bodies(n: usize) -> String {
    match n {
        1 => "1 macro body".to_string(),
        n => format!("{n} macro bodies"),
    }
}

/// Whether `text` holds `name` as a whole identifier, not inside a longer
/// one (`helper_count` does not mention `helper`): only such a body can
/// call it, so only such bodies are re-parsed or counted as unsearched.
fn mentions(text: &str, name: &str) -> bool {
    let ident = |c: char| c.is_alphanumeric() || c == '_';
    text.match_indices(name).any(|(at, _)| {
        let before = text[..at].chars().next_back();
        let after = text[at + name.len()..].chars().next();
        !before.is_some_and(ident) && !after.is_some_and(ident)
    })
}

/// The calls of the name in one snippet, and its macro bodies that mention
/// the name, queued.
fn collect(
    outliner: &mut Outliner,
    lang: Lang,
    snippet: &Snippet,
    search: &mut Search,
) -> Result<(), String> {
    let tree = outliner.parse(lang, &snippet.text)?;
    let query = outliner.query(lang)?;
    let Some(name_capture) = query.capture_index_for_name("name") else {
        return Ok(());
    };
    let text = snippet.text.as_bytes();
    let mut cursor = QueryCursor::new();
    let mut matches = cursor.matches(query, tree.root_node(), text);
    while let Some(m) = matches.next() {
        for capture in m.captures.iter().filter(|c| c.index == name_capture) {
            let node = capture.node;
            let inside =
                snippet.body.start <= node.start_byte() && node.end_byte() <= snippet.body.end;
            if !inside || node.utf8_text(text) != Ok(search.name) {
                continue;
            }
            let start = snippet.to_source(node.start_byte());
            search.spans.push(Span {
                byte_start: start as u32,
                byte_end: snippet.to_source(node.end_byte()) as u32,
                line: search.lines.line_of(start),
            });
        }
    }
    if lang == Lang::Rust {
        queue_macro_bodies(&tree, snippet, search);
    }
    Ok(())
}

/// Queues the token trees of macro invocations whose text holds the name,
/// or counts them as too deep past [`MAX_MACRO_DEPTH`].
fn queue_macro_bodies(tree: &Tree, snippet: &Snippet, search: &mut Search) {
    let mut stack: Vec<Node> = vec![tree.root_node()];
    while let Some(node) = stack.pop() {
        if node.kind() == "macro_invocation" {
            let mut cursor = node.walk();
            let body = node
                .named_children(&mut cursor)
                .find(|c| c.kind() == "token_tree");
            if let Some(body) = body {
                // Inside the delimiters: `(`, `[` or `{` and its closer.
                let (start, end) = (body.start_byte() + 1, body.end_byte().saturating_sub(1));
                let inside = snippet.body.start <= start && end <= snippet.body.end;
                if let Some(inner) = snippet
                    .text
                    .get(start..end)
                    .filter(|t| inside && mentions(t, search.name))
                {
                    if snippet.depth < MAX_MACRO_DEPTH {
                        search
                            .work
                            .push(wrap(inner, snippet.to_source(start), snippet.depth + 1));
                    } else {
                        search.too_deep += 1;
                    }
                }
            }
            continue;
        }
        let mut cursor = node.walk();
        stack.extend(node.children(&mut cursor));
    }
}

/// A macro body as parseable Rust: arguments like `"{}", f(x)` parse as a
/// tuple expression, which is what most call-like macros take.
fn wrap(inner: &str, origin: usize, depth: u32) -> Snippet {
    const PREFIX: &str = "fn __amber_macro_body__() { (";
    Snippet {
        text: format!("{PREFIX}{inner}\n); }}"),
        body: PREFIX.len()..PREFIX.len() + inner.len(),
        origin,
        depth,
    }
}

/// Byte offset to 1-based line, by binary search over line starts.
struct LineIndex {
    starts: Vec<usize>,
}

impl LineIndex {
    fn new(source: &str) -> Self {
        let mut starts = vec![0];
        starts.extend(
            source
                .bytes()
                .enumerate()
                .filter(|(_, b)| *b == b'\n')
                .map(|(i, _)| i + 1),
        );
        LineIndex { starts }
    }

    fn line_of(&self, offset: usize) -> u32 {
        let line = match self.starts.binary_search(&offset) {
            Ok(i) => i,
            Err(i) => i - 1,
        };
        line as u32 + 1
    }
}
