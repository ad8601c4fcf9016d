//! {{id}}: an amber parser plugin in Rust: outlines INI files, a
//! `section` per `[name]` and a `key` per `name = value` under it.
use amber_sdk::prelude::*;
use amber_sdk::{LanguageSpec, Symbol};

#[derive(Default)]
struct {{Camel}};

impl Plugin for {{Camel}} {
    fn manifest() -> Manifest {
        amber_sdk::manifest!(id: "{{id}}")
    }
}

fn symbol(kind: &str, name: &str, parent: Option<u32>, start: u32, line: u32, text: &str) -> Symbol {
    Symbol {
        kind: kind.into(),
        name: name.into(),
        parent,
        byte_start: start,
        byte_end: start + text.len() as u32,
        line_start: line,
        line_end: line,
        signature_end: start + text.trim_end().len() as u32,
    }
}

impl ParserPlugin for {{Camel}} {
    fn languages(&self) -> Vec<LanguageSpec> {
        vec![LanguageSpec {
            name: "ini".into(),
            extensions: vec!["ini".into()],
        }]
    }

    fn outline(&mut self, _language: &str, source: &str) -> Result<Vec<Symbol>, String> {
        let mut symbols: Vec<Symbol> = Vec::new();
        let mut section: Option<usize> = None;
        let mut offset = 0u32;
        for (i, text) in source.split_inclusive('\n').enumerate() {
            let line = i as u32 + 1;
            let trimmed = text.trim();
            if let Some(name) = trimmed.strip_prefix('[').and_then(|t| t.strip_suffix(']')) {
                section = Some(symbols.len());
                symbols.push(symbol("section", name.trim(), None, offset, line, text));
            } else if let Some((key, _)) = trimmed.split_once('=') {
                let parent = section.map(|s| s as u32);
                symbols.push(symbol("key", key.trim(), parent, offset, line, text));
                if let Some(s) = section {
                    // A section runs to its last key.
                    symbols[s].line_end = line;
                    symbols[s].byte_end = offset + text.len() as u32;
                }
            }
            offset += text.len() as u32;
        }
        Ok(symbols)
    }
}

amber_sdk::export!({{Camel}}: parser);
