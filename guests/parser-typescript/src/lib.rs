//! TypeScript, TSX, JavaScript and JSX outlines (functions, classes, methods, interfaces, types) and call references.
//! Seed 003 (ambits): outlines with spans for the project index, and call
//! references for `callers`. Needs no permission: it reads only what the
//! host passes in.

use amber_parser_core::Lang;

amber_parser_core::parser_plugin!(
    TypeScriptParser,
    "parser-typescript",
    "TypeScript, TSX, JavaScript and JSX outlines (functions, classes, methods, interfaces, types) and call references.",
    [
        (Lang::TypeScript, tree_sitter_typescript::LANGUAGE_TYPESCRIPT),
        (Lang::Tsx, tree_sitter_typescript::LANGUAGE_TSX),
        // JavaScript and JSX parse with the TSX grammar, which accepts them.
        (Lang::JavaScript, tree_sitter_typescript::LANGUAGE_TSX),
    ]
);
