//! A parser for `.trap` files that panics (a trap, to the host) on any
//! source holding `TRAP`, answers an outline that is not pre-order for one
//! holding `BADPARENT`, and otherwise outlines each line starting with
//! `item ` as one symbol. Never bundled.

use amber_sdk::prelude::*;
use amber_sdk::{LanguageSpec, Symbol};

#[derive(Default)]
struct TrapParser;

impl Plugin for TrapParser {
    fn manifest() -> Manifest {
        Manifest::new("trap-parser", "0.1.0", "Traps on sources holding TRAP.")
    }
}

impl ParserPlugin for TrapParser {
    fn languages(&self) -> Vec<LanguageSpec> {
        vec![LanguageSpec {
            name: "trapfile".into(),
            extensions: vec!["trap".into()],
        }]
    }

    fn outline(&mut self, _language: &str, source: &str) -> Result<Vec<Symbol>, String> {
        if source.contains("TRAP") {
            panic!("asked to trap");
        }
        if source.contains("BADPARENT") {
            // A symbol whose parent comes after it: not pre-order.
            let bad = |parent| Symbol {
                kind: "item".into(),
                name: "bad".into(),
                parent,
                byte_start: 0,
                byte_end: 1,
                line_start: 1,
                line_end: 1,
                signature_end: 1,
            };
            return Ok(vec![bad(Some(1)), bad(None)]);
        }
        let mut symbols = Vec::new();
        let mut offset = 0u32;
        for (i, line) in source.split_inclusive('\n').enumerate() {
            if let Some(name) = line.trim_end().strip_prefix("item ") {
                symbols.push(Symbol {
                    kind: "item".into(),
                    name: name.into(),
                    parent: None,
                    byte_start: offset,
                    byte_end: offset + line.len() as u32,
                    line_start: i as u32 + 1,
                    line_end: i as u32 + 1,
                    signature_end: offset + line.trim_end().len() as u32,
                });
            }
            offset += line.len() as u32;
        }
        Ok(symbols)
    }
}

amber_sdk::export!(TrapParser: parser);
