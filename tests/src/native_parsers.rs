//! The parser components' own extraction code, compiled natively with every
//! grammar: the other side of the parity test (the wasm outline must equal
//! it) and the baseline of the parse benchmark.

use amber_parser_core::{Lang, Outliner};

/// An outliner with every grammar the bundled parser guests link.
pub fn outliner() -> Outliner {
    Outliner::new(&[
        (Lang::Rust, tree_sitter_rust::LANGUAGE),
        (Lang::Python, tree_sitter_python::LANGUAGE),
        (
            Lang::TypeScript,
            tree_sitter_typescript::LANGUAGE_TYPESCRIPT,
        ),
        (Lang::Tsx, tree_sitter_typescript::LANGUAGE_TSX),
        (Lang::JavaScript, tree_sitter_typescript::LANGUAGE_TSX),
        (Lang::Markdown, tree_sitter_md::LANGUAGE),
    ])
}

/// The language a file extension routes to, as the bundled parsers declare.
pub fn language_of(ext: &str) -> Option<&'static str> {
    Lang::from_extension(ext).map(Lang::name)
}
