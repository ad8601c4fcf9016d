//! Python outlines (classes, functions, methods) and call references.
//! Seed 003 (ambits): outlines with spans for the project index, and call
//! references for `callers`. Needs no permission: it reads only what the
//! host passes in.

use amber_parser_core::Lang;

amber_parser_core::parser_plugin!(
    PythonParser,
    "parser-python",
    "Python outlines (classes, functions, methods) and call references.",
    [(Lang::Python, tree_sitter_python::LANGUAGE)]
);
