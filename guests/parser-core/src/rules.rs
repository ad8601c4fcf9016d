//! What counts as a symbol in each language: the one place that knows node
//! kinds. The walk in `outline.rs` asks [`classify`] about every named child
//! of a container and never looks at kinds itself.

use tree_sitter::Node;

use crate::Lang;

/// A symbol found at a node.
pub(crate) struct Item<'t> {
    pub kind: String,
    pub name: String,
    /// The node whose span is the symbol's (for a decorated Python function,
    /// the decorated definition; for `export function`, the export).
    pub node: Node<'t>,
    /// Where the symbol's own symbols are, for containers (modules, impls,
    /// classes, sections).
    pub body: Option<Node<'t>>,
    /// Where the body starts: the signature's end.
    pub signature_end: usize,
}

/// What the walk does with a node.
pub(crate) enum Step<'t> {
    Item(Item<'t>),
    /// Not a symbol, but symbols may be inside (an `export` statement, a
    /// `const` list of declarators, a Markdown section without a heading).
    Descend,
    Skip,
}

/// Comment-like nodes glued to the symbol below them.
pub(crate) fn leading_kinds(lang: Lang) -> &'static [&'static str] {
    match lang {
        // `#[derive]` sits between an item and its docs in the tree, so
        // attributes are glued too, or the docs above them would be cut off.
        Lang::Rust => &["line_comment", "block_comment", "attribute_item"],
        Lang::Python | Lang::TypeScript | Lang::Tsx | Lang::JavaScript => &["comment"],
        Lang::Markdown => &[],
    }
}

pub(crate) fn classify<'t>(lang: Lang, node: Node<'t>, src: &[u8]) -> Step<'t> {
    match lang {
        Lang::Rust => rust(node, src),
        Lang::Python => python(node, src),
        Lang::TypeScript | Lang::Tsx | Lang::JavaScript => script(node, src),
        Lang::Markdown => markdown(node, src),
    }
}

/// A node's text with runs of whitespace made one space, for names built
/// from types (`Display for Wrapper<T>`).
fn text_of(node: Node, src: &[u8]) -> String {
    let raw = node.utf8_text(src).unwrap_or_default();
    raw.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn field_text(node: Node, field: &str, src: &[u8]) -> Option<String> {
    node.child_by_field_name(field).map(|n| text_of(n, src))
}

/// An item named by its `name` field, whose `body` field (if any) ends the
/// signature.
fn named<'t>(node: Node<'t>, src: &[u8], kind: &str, descend: bool) -> Step<'t> {
    let Some(name) = field_text(node, "name", src) else {
        return Step::Skip;
    };
    let body = node.child_by_field_name("body");
    Step::Item(Item {
        kind: kind.to_string(),
        name,
        node,
        signature_end: body.map_or(node.end_byte(), |b| b.start_byte()),
        body: if descend { body } else { None },
    })
}

fn rust<'t>(node: Node<'t>, src: &[u8]) -> Step<'t> {
    match node.kind() {
        "function_item" | "function_signature_item" => named(node, src, "fn", false),
        "struct_item" => named(node, src, "struct", false),
        "enum_item" => named(node, src, "enum", false),
        "union_item" => named(node, src, "union", false),
        "trait_item" => named(node, src, "trait", true),
        "mod_item" => named(node, src, "mod", true),
        "const_item" => named(node, src, "const", false),
        "static_item" => named(node, src, "static", false),
        "type_item" => named(node, src, "type", false),
        "macro_definition" => named(node, src, "macro", false),
        "impl_item" => {
            let Some(ty) = field_text(node, "type", src) else {
                return Step::Skip;
            };
            // An inherent impl is `impl Point`, apart from `struct Point`;
            // a trait impl is `Display for Point`, which nothing else is.
            // Both by their last path segment and without generic
            // arguments, so `impl<T> fmt::Display for Point<T>` has the
            // same id however the trait was imported.
            let ty = short_name(&ty);
            let name = match field_text(node, "trait", src) {
                Some(tr) => format!("{} for {ty}", short_name(&tr)),
                None => format!("impl {ty}"),
            };
            let body = node.child_by_field_name("body");
            Step::Item(Item {
                kind: "impl".into(),
                name,
                node,
                signature_end: body.map_or(node.end_byte(), |b| b.start_byte()),
                body,
            })
        }
        _ => Step::Skip,
    }
}

/// A type or trait as an id names it: generic arguments dropped, and a
/// plain path (`std::fmt::Display`) cut to its last segment. Anything else
/// (`&'a str`, `[u8; 4]`, `dyn Error`) keeps its text, spaces collapsed.
pub fn short_name(text: &str) -> String {
    let mut bare = String::with_capacity(text.len());
    let mut depth = 0usize;
    let mut previous = ' ';
    for c in text.chars() {
        match c {
            '<' => depth += 1,
            // The `>` of `->` (in `Fn(u8) -> u8`) closes nothing.
            '>' if depth > 0 && previous != '-' => depth -= 1,
            _ if depth == 0 => bare.push(c),
            _ => {}
        }
        previous = c;
    }
    let bare = bare.split_whitespace().collect::<Vec<_>>().join(" ");
    let is_path = !bare.is_empty()
        && bare
            .chars()
            .all(|c| c.is_alphanumeric() || c == '_' || c == ':');
    match bare.rsplit("::").next() {
        Some(last) if is_path && !last.is_empty() => last.to_string(),
        _ => bare,
    }
}

fn python<'t>(node: Node<'t>, src: &[u8]) -> Step<'t> {
    match node.kind() {
        "function_definition" => named(node, src, "def", false),
        "class_definition" => named(node, src, "class", true),
        "decorated_definition" => {
            let Some(inner) = node.child_by_field_name("definition") else {
                return Step::Skip;
            };
            match python(inner, src) {
                Step::Item(item) => Step::Item(Item { node, ..item }),
                other => other,
            }
        }
        _ => Step::Skip,
    }
}

fn is_function_value(node: Node) -> bool {
    matches!(
        node.kind(),
        "arrow_function" | "function_expression" | "function" | "generator_function"
    )
}

/// The symbol of `inner`, spanning `outer` (an `export` or `declare`
/// around it). A `const` list of one function-valued declarator is that
/// function, so `export const f = () => …` spans its `export`.
fn wrapped<'t>(outer: Node<'t>, inner: Node<'t>, src: &[u8]) -> Step<'t> {
    let single = match inner.kind() {
        "lexical_declaration" | "variable_declaration" if inner.named_child_count() == 1 => {
            inner.named_child(0)
        }
        _ => None,
    };
    match script(single.unwrap_or(inner), src) {
        Step::Item(item) => Step::Item(Item {
            node: outer,
            ..item
        }),
        other => other,
    }
}

fn script<'t>(node: Node<'t>, src: &[u8]) -> Step<'t> {
    match node.kind() {
        "function_declaration" | "generator_function_declaration" | "function_signature" => {
            named(node, src, "function", false)
        }
        "class_declaration" | "abstract_class_declaration" => named(node, src, "class", true),
        "method_definition" | "method_signature" | "abstract_method_signature" => {
            named(node, src, "method", false)
        }
        "interface_declaration" => named(node, src, "interface", true),
        "type_alias_declaration" => named(node, src, "type", false),
        "enum_declaration" => named(node, src, "enum", false),
        "internal_module" | "module" => named(node, src, "namespace", true),
        // `namespace A {}` at the top level is an expression statement.
        "expression_statement" => match node.named_child(0) {
            Some(inner) if inner.kind() == "internal_module" => wrapped(node, inner, src),
            _ => Step::Skip,
        },
        // `export function f` and `declare function f` span the keyword
        // too, so the docs above them are glued.
        "export_statement" | "ambient_declaration" => {
            let inner = node
                .child_by_field_name("declaration")
                .or_else(|| node.named_child(0));
            match inner {
                Some(decl) => wrapped(node, decl, src),
                None => Step::Skip,
            }
        }
        "lexical_declaration" | "variable_declaration" => Step::Descend,
        // `const f = () => {}`: a function by the name it is given.
        "variable_declarator" => {
            let value = node.child_by_field_name("value");
            match value {
                Some(v) if is_function_value(v) => {
                    let Some(name) = field_text(node, "name", src) else {
                        return Step::Skip;
                    };
                    let body = v.child_by_field_name("body");
                    // A lone declarator spans its `const`.
                    let span = match node.parent() {
                        Some(p) if p.named_child_count() == 1 => p,
                        _ => node,
                    };
                    Step::Item(Item {
                        kind: "function".into(),
                        name,
                        node: span,
                        signature_end: body.map_or(node.end_byte(), |b| b.start_byte()),
                        body: None,
                    })
                }
                _ => Step::Skip,
            }
        }
        _ => Step::Skip,
    }
}

/// Headings are the symbols of Markdown; a heading's section runs to the
/// next heading of its level or higher, which is what tree-sitter-md's
/// `section` nodes are.
///
/// tree-sitter-md opens sections at ATX headings (`## Title`) only; a setext
/// heading (a line underlined with `---`) inside a section is a symbol of
/// its own line, under that section.
fn markdown<'t>(node: Node<'t>, src: &[u8]) -> Step<'t> {
    if node.kind() == "setext_heading" && node.prev_named_sibling().is_some() {
        return Step::Item(Item {
            kind: format!("h{}", heading_level(node)),
            name: field_text(node, "heading_content", src).unwrap_or_default(),
            node,
            signature_end: node.end_byte(),
            body: None,
        });
    }
    if node.kind() != "section" {
        return Step::Skip;
    }
    // A section is named by the heading it opens with; the text before a
    // document's first ATX heading is a section too, and a setext heading
    // inside it is its own symbol (above), not the section's name.
    let heading = node
        .named_child(0)
        .filter(|c| matches!(c.kind(), "atx_heading" | "setext_heading"));
    let Some(heading) = heading else {
        return Step::Descend;
    };
    let level = heading_level(heading);
    let name = heading
        .child_by_field_name("heading_content")
        .map(|c| text_of(c, src))
        .unwrap_or_default();
    Step::Item(Item {
        kind: format!("h{level}"),
        name,
        node,
        signature_end: heading.end_byte(),
        body: Some(node),
    })
}

fn heading_level(heading: Node) -> u8 {
    let mut cursor = heading.walk();
    for child in heading.children(&mut cursor) {
        let kind = child.kind();
        let level = kind
            .strip_prefix("atx_h")
            .and_then(|k| k.strip_suffix("_marker"))
            .or_else(|| {
                kind.strip_prefix("setext_h")
                    .and_then(|k| k.strip_suffix("_underline"))
            });
        if let Some(level) = level.and_then(|l| l.parse().ok()) {
            return level;
        }
    }
    1
}
