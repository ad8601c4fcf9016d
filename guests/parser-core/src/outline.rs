//! The outline walk: containers are walked child by child, each child
//! classified by the language's rules, and symbols pushed in pre-order.

use tree_sitter::{Node, Tree};

use crate::rules::{self, Item, Step};
use crate::{Lang, Symbol};

/// Deeper nesting than this is not walked: a pathological input must not
/// exhaust the guest's stack.
const MAX_DEPTH: usize = 64;

pub(crate) fn extract(lang: Lang, tree: &Tree, src: &[u8]) -> Vec<Symbol> {
    let mut out = Vec::new();
    walk(lang, tree.root_node(), src, None, 0, &mut out);
    out
}

fn walk(
    lang: Lang,
    container: Node,
    src: &[u8],
    parent: Option<u32>,
    depth: usize,
    out: &mut Vec<Symbol>,
) {
    if depth > MAX_DEPTH {
        return;
    }
    let mut cursor = container.walk();
    let children: Vec<Node> = container.named_children(&mut cursor).collect();
    for child in children {
        match rules::classify(lang, child, src) {
            Step::Item(item) => {
                let index = out.len() as u32;
                let body = item.body;
                out.push(symbol(lang, item, src, parent));
                if let Some(body) = body {
                    walk(lang, body, src, Some(index), depth + 1, out);
                }
            }
            Step::Descend => walk(lang, child, src, parent, depth + 1, out),
            Step::Skip => {}
        }
    }
}

fn symbol(lang: Lang, item: Item, src: &[u8], parent: Option<u32>) -> Symbol {
    let start = glued_start(lang, item.node, src);
    let end = item.node;
    Symbol {
        kind: item.kind,
        name: item.name,
        parent,
        byte_start: start.start_byte() as u32,
        byte_end: end.end_byte() as u32,
        line_start: start.start_position().row as u32 + 1,
        line_end: last_line(end),
        signature_end: item.signature_end as u32,
    }
}

/// The 1-based last line of a node; a node ending at a line's column 0
/// (a line comment with its newline) ends on the line before.
fn last_line(node: Node) -> u32 {
    let end = node.end_position();
    let row = if end.column == 0 && end.row > node.start_position().row {
        end.row - 1
    } else {
        end.row
    };
    row as u32 + 1
}

/// The first of the comments and attributes glued to `node`: an unbroken run
/// of them right above it, each starting its own line, with no blank line
/// between. A module's inner docs (`//!`) belong to the module, not to the
/// first item.
fn glued_start<'t>(lang: Lang, node: Node<'t>, src: &[u8]) -> Node<'t> {
    let kinds = rules::leading_kinds(lang);
    let mut first = node;
    while let Some(prev) = first.prev_sibling() {
        if !kinds.contains(&prev.kind()) || is_inner_doc(prev, src) || !starts_line(prev, src) {
            break;
        }
        let gap = first.start_position().row as i64 - last_line(prev) as i64;
        // last_line is 1-based, rows are 0-based: a gap of 0 is adjacent.
        if gap > 0 {
            break;
        }
        first = prev;
    }
    first
}

fn is_inner_doc(node: Node, src: &[u8]) -> bool {
    let text = &src[node.start_byte()..node.end_byte().min(node.start_byte() + 3)];
    text == b"//!" || text == b"/*!"
}

/// Whether only whitespace stands before `node` on its line, so a comment
/// trailing the previous statement is not taken for the next symbol's docs.
fn starts_line(node: Node, src: &[u8]) -> bool {
    let before = &src[..node.start_byte()];
    let line_start = before
        .iter()
        .rposition(|&b| b == b'\n')
        .map_or(0, |i| i + 1);
    before[line_start..].iter().all(|b| b.is_ascii_whitespace())
}
