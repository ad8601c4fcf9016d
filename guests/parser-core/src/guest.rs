//! The component wrapper every parser guest exports: one macro line names
//! the plugin and its languages, so the four guests differ only in data.

pub use amber_sdk;

use crate::{Outliner, Span, Symbol};

/// The languages' specs, as the plugin declares them.
pub fn specs(outliner: &Outliner) -> Vec<amber_sdk::LanguageSpec> {
    outliner
        .languages()
        .map(|l| amber_sdk::LanguageSpec {
            name: l.name().to_string(),
            extensions: l.extensions().iter().map(|e| e.to_string()).collect(),
        })
        .collect()
}

pub fn outline(
    outliner: &mut Outliner,
    language: &str,
    source: &str,
) -> Result<Vec<amber_sdk::Symbol>, String> {
    let symbols = outliner.outline(language, source)?;
    Ok(symbols.into_iter().map(to_wit_symbol).collect())
}

pub fn references(
    outliner: &mut Outliner,
    language: &str,
    source: &str,
    name: &str,
) -> Result<amber_sdk::Calls, String> {
    let calls = outliner.references(language, source, name)?;
    Ok(amber_sdk::Calls {
        spans: calls.spans.into_iter().map(to_wit_span).collect(),
        incomplete: calls.incomplete,
    })
}

fn to_wit_symbol(s: Symbol) -> amber_sdk::Symbol {
    amber_sdk::Symbol {
        kind: s.kind,
        name: s.name,
        parent: s.parent,
        byte_start: s.byte_start,
        byte_end: s.byte_end,
        line_start: s.line_start,
        line_end: s.line_end,
        signature_end: s.signature_end,
    }
}

fn to_wit_span(s: Span) -> amber_sdk::Span {
    amber_sdk::Span {
        byte_start: s.byte_start,
        byte_end: s.byte_end,
        line: s.line,
    }
}

/// Defines and exports a parser plugin:
///
/// ```ignore
/// amber_parser_core::parser_plugin!(
///     RustParser, "parser-rust", "Rust outlines",
///     [(Lang::Rust, tree_sitter_rust::LANGUAGE)]
/// );
/// ```
#[macro_export]
macro_rules! parser_plugin {
    ($ty:ident, $id:literal, $about:literal, [$(($lang:expr, $grammar:expr)),+ $(,)?]) => {
        struct $ty {
            outliner: $crate::Outliner,
        }

        impl Default for $ty {
            fn default() -> Self {
                $ty {
                    outliner: $crate::Outliner::new(&[$(($lang, $grammar)),+]),
                }
            }
        }

        impl $crate::guest::amber_sdk::Plugin for $ty {
            fn manifest() -> $crate::guest::amber_sdk::Manifest {
                $crate::guest::amber_sdk::Manifest::new($id, env!("CARGO_PKG_VERSION"), $about)
            }
        }

        impl $crate::guest::amber_sdk::ParserPlugin for $ty {
            fn languages(&self) -> Vec<$crate::guest::amber_sdk::LanguageSpec> {
                $crate::guest::specs(&self.outliner)
            }

            fn outline(
                &mut self,
                language: &str,
                source: &str,
            ) -> Result<Vec<$crate::guest::amber_sdk::Symbol>, String> {
                $crate::guest::outline(&mut self.outliner, language, source)
            }

            fn references(
                &mut self,
                language: &str,
                source: &str,
                name: &str,
            ) -> Result<$crate::guest::amber_sdk::Calls, String> {
                $crate::guest::references(&mut self.outliner, language, source, name)
            }
        }

        $crate::guest::amber_sdk::export!($ty: parser);
    };
}
