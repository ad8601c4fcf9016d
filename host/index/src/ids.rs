//! Symbol ids, as ambits writes them, so tools and people share them:
//! `<path>::<name-path>`, nested with `/`. An inherent impl is `impl Point`
//! and its methods are `Point/new`: a method belongs to its type, the way
//! Rust writes `Point::new`, while the impl block stays apart from
//! `struct Point`. A trait impl is `Display for Point` and keeps that whole
//! name for its methods, since two traits may give a type one method name.
//! A second symbol with the same id in a file gets `#2`, a third `#3`.

use std::collections::HashMap;

use amber_core::ports::Symbol;

/// The ids of a file's outline, in outline order.
pub fn assign(path: &str, symbols: &[Symbol]) -> Vec<String> {
    let mut ids = Vec::with_capacity(symbols.len());
    // The prefix each symbol gives its children.
    let mut prefixes: Vec<String> = Vec::with_capacity(symbols.len());
    let mut seen: HashMap<String, u32> = HashMap::new();
    for symbol in symbols {
        let parent = symbol
            .parent
            .and_then(|p| prefixes.get(p as usize))
            .map(String::as_str);
        let name_path = match parent {
            Some(prefix) => format!("{prefix}/{}", symbol.name),
            None => symbol.name.clone(),
        };
        let mut id = format!("{path}::{name_path}");
        let count = seen.entry(id.clone()).or_insert(0);
        *count += 1;
        if *count > 1 {
            id = format!("{id}#{count}");
        }
        let own = match (symbol.kind.as_str(), symbol.name.strip_prefix("impl ")) {
            ("impl", Some(ty)) => match parent {
                Some(prefix) => format!("{prefix}/{ty}"),
                None => ty.to_string(),
            },
            _ => name_path,
        };
        prefixes.push(own);
        ids.push(id);
    }
    ids
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sym(kind: &str, name: &str, parent: Option<u32>) -> Symbol {
        Symbol {
            kind: kind.into(),
            name: name.into(),
            parent,
            byte_start: 0,
            byte_end: 0,
            line_start: 1,
            line_end: 1,
            signature_end: 0,
        }
    }

    #[test]
    fn ids_follow_ambits() {
        let outline = [
            sym("struct", "Point", None),
            sym("impl", "impl Point", None),
            sym("fn", "new", Some(1)),
            sym("impl", "Display for Point", None),
            sym("fn", "fmt", Some(3)),
            sym("mod", "inner", None),
            sym("impl", "impl Point", Some(5)),
            sym("fn", "new", Some(6)),
            sym("impl", "impl Point", None),
            sym("fn", "new", Some(8)),
            sym("h1", "Guide", None),
            sym("h2", "Quick start", Some(10)),
        ];
        assert_eq!(
            assign("src/app.rs", &outline),
            [
                "src/app.rs::Point",
                "src/app.rs::impl Point",
                "src/app.rs::Point/new",
                "src/app.rs::Display for Point",
                "src/app.rs::Display for Point/fmt",
                "src/app.rs::inner",
                "src/app.rs::inner/impl Point",
                "src/app.rs::inner/Point/new",
                "src/app.rs::impl Point#2",
                "src/app.rs::Point/new#2",
                "src/app.rs::Guide",
                "src/app.rs::Guide/Quick start",
            ]
        );
    }
}
