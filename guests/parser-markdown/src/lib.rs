//! Markdown outlines: headings as symbols, each spanning its section.
//! Seed 003 (ambits): outlines with spans for the project index, and call
//! references for `callers`. Needs no permission: it reads only what the
//! host passes in.

use amber_parser_core::Lang;

amber_parser_core::parser_plugin!(
    MarkdownParser,
    "parser-markdown",
    "Markdown outlines: headings as symbols, each spanning its section.",
    [(Lang::Markdown, tree_sitter_md::LANGUAGE)]
);
