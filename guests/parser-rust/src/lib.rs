//! Rust outlines (functions, types, traits, impls, modules, macros) and call references, macro bodies included.
//! Seed 003 (ambits): outlines with spans for the project index, and call
//! references for `callers`. Needs no permission: it reads only what the
//! host passes in.

use amber_parser_core::Lang;

amber_parser_core::parser_plugin!(
    RustParser,
    "parser-rust",
    "Rust outlines (functions, types, traits, impls, modules, macros) and call references, macro bodies included.",
    [
        (Lang::Rust, tree_sitter_rust::LANGUAGE)
    ]
);
