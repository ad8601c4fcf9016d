//! Outlines and call references over tree-sitter grammars (seed 003,
//! ambits).
//!
//! One crate serves two builds. The parser guests (`parser-rust`,
//! `parser-python`, `parser-typescript`, `parser-markdown`) compile it for
//! wasm32-wasip2, each handing it the one grammar it links; the host's
//! parity tests and benchmarks compile it natively with every grammar, so
//! "the wasm outline equals the native outline" compares one extraction code
//! on two machines, and only the machine differs.
//!
//! An outline is a flat pre-order list; `parent` indexes the same list.
//! Spans are byte offsets and 1-based lines. A symbol's span starts at the
//! doc comments and attributes glued to it, so showing a symbol shows its
//! docs, and editing only the docs changes its hash.

#[cfg(feature = "guest")]
pub mod guest;
mod lang;
mod outline;
mod references;
pub mod rules;

pub use lang::Lang;

/// One symbol of an outline.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Symbol {
    pub kind: String,
    pub name: String,
    pub parent: Option<u32>,
    pub byte_start: u32,
    pub byte_end: u32,
    /// 1-based, inclusive.
    pub line_start: u32,
    pub line_end: u32,
    /// Where the signature ends and the body starts (a byte offset); the
    /// symbol's end when it has no body.
    pub signature_end: u32,
}

/// Where a reference is: the byte span of the called name, and its 1-based
/// line.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct Span {
    pub byte_start: u32,
    pub byte_end: u32,
    pub line: u32,
}

/// The calls a search found, and why it stopped early if it did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Calls {
    pub spans: Vec<Span>,
    /// Set when part of the file was not searched: why.
    pub incomplete: Option<String>,
}

pub use tree_sitter::Language;
pub use tree_sitter_language::LanguageFn;

/// The grammars it was given, and a parser and a compiled query per
/// language, made on first use and kept: reusing them across calls is most
/// of the speed of a warm instance.
pub struct Outliner {
    grammars: Vec<(Lang, Language)>,
    parsers: Vec<(Lang, tree_sitter::Parser)>,
    queries: Vec<(Lang, tree_sitter::Query)>,
}

impl Outliner {
    /// An outliner for these languages, each with its grammar.
    pub fn new(grammars: &[(Lang, LanguageFn)]) -> Self {
        Outliner {
            grammars: grammars
                .iter()
                .map(|(l, g)| (*l, Language::new(*g)))
                .collect(),
            parsers: Vec::new(),
            queries: Vec::new(),
        }
    }

    /// The languages it parses.
    pub fn languages(&self) -> impl Iterator<Item = Lang> + '_ {
        self.grammars.iter().map(|(l, _)| *l)
    }

    fn grammar(&self, lang: Lang) -> Result<&Language, String> {
        self.grammars
            .iter()
            .find(|(l, _)| *l == lang)
            .map(|(_, g)| g)
            .ok_or_else(|| format!("this parser does not parse `{}`", lang.name()))
    }

    /// The outline of `source`, parsed as `language` (a [`Lang`] name).
    pub fn outline(&mut self, language: &str, source: &str) -> Result<Vec<Symbol>, String> {
        let lang = Lang::from_name(language)?;
        let tree = self.parse(lang, source)?;
        Ok(outline::extract(lang, &tree, source.as_bytes()))
    }

    /// Calls of `name` in `source`: the grammar's tags query with its
    /// `@reference.call` captures, plus macro bodies re-parsed as source.
    pub fn references(
        &mut self,
        language: &str,
        source: &str,
        name: &str,
    ) -> Result<Calls, String> {
        let lang = Lang::from_name(language)?;
        if name.is_empty() || !source.contains(name) {
            return Ok(Calls::default());
        }
        references::find(self, lang, source, name)
    }

    fn parser(&mut self, lang: Lang) -> Result<&mut tree_sitter::Parser, String> {
        let at = match self.parsers.iter().position(|(l, _)| *l == lang) {
            Some(at) => at,
            None => {
                let grammar = self.grammar(lang)?.clone();
                let mut parser = tree_sitter::Parser::new();
                parser
                    .set_language(&grammar)
                    .map_err(|e| format!("cannot load the {} grammar: {e}", lang.name()))?;
                self.parsers.push((lang, parser));
                self.parsers.len() - 1
            }
        };
        Ok(&mut self.parsers[at].1)
    }

    fn parse(&mut self, lang: Lang, source: &str) -> Result<tree_sitter::Tree, String> {
        self.parser(lang)?
            .parse(source, None)
            .ok_or_else(|| format!("the {} parser gave no tree", lang.name()))
    }

    fn query(&mut self, lang: Lang) -> Result<&tree_sitter::Query, String> {
        let at = match self.queries.iter().position(|(l, _)| *l == lang) {
            Some(at) => at,
            None => {
                let query = references::compile(lang, self.grammar(lang)?)?;
                self.queries.push((lang, query));
                self.queries.len() - 1
            }
        };
        Ok(&self.queries[at].1)
    }
}
