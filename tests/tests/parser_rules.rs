//! The outline and reference rules of the parser guests, per language, on
//! small sources: the guests' own extraction code (`guests/parser-core`),
//! compiled natively. The CLI tests run the same rules as components.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "a test fails by panicking, its helpers too"
)]

use amber_parser_core::{Lang, Outliner, Symbol};
use amber_tests::native_parsers::outliner;

/// `kind name (parent index)` per symbol, for compact assertions.
fn shape(symbols: &[Symbol]) -> Vec<String> {
    symbols
        .iter()
        .map(|s| match s.parent {
            Some(p) => format!("{} {} <{}", s.kind, s.name, p),
            None => format!("{} {}", s.kind, s.name),
        })
        .collect()
}

fn outline(lang: &str, src: &str) -> Vec<Symbol> {
    outliner().outline(lang, src).unwrap()
}

#[test]
fn rust_items_impls_and_modules() {
    let src = "\
/// A point.
#[derive(Debug)]
pub struct Point { x: i32 }

impl Point {
    pub fn new() -> Self { Point { x: 0 } }
}

impl std::fmt::Display for Point {
    fn fmt(&self, f: &mut Formatter) -> fmt::Result { Ok(()) }
}

impl<T: Clone> From<Vec<T>> for crate::shapes::Point {
    fn from(v: Vec<T>) -> Self { todo!() }
}

mod inner {
    const LIMIT: usize = 3;
    trait Shape { fn area(&self) -> f64; }
}
macro_rules! twice { ($e:expr) => { $e; $e }; }
";
    let symbols = outline("rust", src);
    assert_eq!(
        shape(&symbols),
        [
            "struct Point",
            "impl impl Point",
            "fn new <1",
            "impl Display for Point",
            "fn fmt <3",
            "impl From for Point",
            "fn from <5",
            "mod inner",
            "const LIMIT <7",
            "trait Shape <7",
            "fn area <9",
            "macro twice",
        ]
    );
    // The docs and the attribute are glued to the struct.
    assert_eq!(symbols[0].byte_start, 0);
    assert_eq!(symbols[0].line_start, 1);
    assert_eq!(symbols[0].line_end, 3);
    // The signature ends where the body starts.
    let new = &symbols[2];
    assert_eq!(
        &src[new.byte_start as usize..new.signature_end as usize],
        "pub fn new() -> Self "
    );
}

#[test]
fn a_comment_after_a_blank_line_or_trailing_code_is_not_glued() {
    let src = "// about nothing\n\nfn a() {} // trailing\nfn b() {}\n";
    let symbols = outline("rust", src);
    assert_eq!(symbols[0].byte_start as usize, src.find("fn a").unwrap());
    assert_eq!(symbols[1].byte_start as usize, src.find("fn b").unwrap());
}

#[test]
fn python_classes_methods_and_decorators() {
    let src = "\
import os

@dataclass
class Config:
    # the port
    port: int = 80

    def url(self):
        return f'http://x:{self.port}'

async def main():
    pass
";
    let symbols = outline("python", src);
    assert_eq!(shape(&symbols), ["class Config", "def url <0", "def main"]);
    // The decorator belongs to the class.
    assert_eq!(
        symbols[0].byte_start as usize,
        src.find("@dataclass").unwrap()
    );
}

#[test]
fn typescript_declarations_exports_and_arrow_functions() {
    let src = "\
export interface Shape { area(): number; }
export class Circle implements Shape {
  constructor(private r: number) {}
  area(): number { return Math.PI * this.r ** 2; }
}
export const double = (x: number) => x * 2;
type Id = string;
enum Color { Red }
function helper() {}
namespace Geometry { export function unit() {} }
";
    let symbols = outline("typescript", src);
    assert_eq!(
        shape(&symbols),
        [
            "interface Shape",
            "method area <0",
            "class Circle",
            "method constructor <2",
            "method area <2",
            "function double",
            "type Id",
            "enum Color",
            "function helper",
            "namespace Geometry",
            "function unit <9",
        ]
    );
    // `export` is part of the span.
    assert_eq!(
        symbols[2].byte_start as usize,
        src.find("export class").unwrap()
    );
}

#[test]
fn javascript_and_jsx_parse_with_the_tsx_grammar() {
    let src = "function App() { return <div>{greet()}</div>; }\nconst greet = function () { return 'hi'; };\n";
    assert_eq!(
        shape(&outline("javascript", src)),
        ["function App", "function greet"]
    );
}

#[test]
fn markdown_headings_nest_by_level() {
    let src = "\
# Guide

Intro.

## Quick start

Run it.

### Details

Setext
------

# Reference
";
    let symbols = outline("markdown", src);
    assert_eq!(
        shape(&symbols),
        [
            "h1 Guide",
            "h2 Quick start <0",
            "h3 Details <1",
            // tree-sitter-md opens no section at a setext heading.
            "h2 Setext <2",
            "h1 Reference",
        ]
    );
    let quick = &symbols[1];
    assert!(src[quick.byte_start as usize..quick.byte_end as usize].contains("Details"));
}

#[test]
fn references_find_calls_in_paths_methods_and_macro_bodies() {
    let src = "\
fn run() {
    helper(1);
    crate::util::helper(2);
    self.helper();
    println!(\"{}\", helper(3));
    assert_eq!(format!(\"{}\", helper(4)), \"x\");
    let helper_count = 5;
}
";
    let calls = outliner().references("rust", src, "helper").unwrap();
    assert_eq!(calls.incomplete, None);
    let spans = calls.spans;
    let lines: Vec<u32> = spans.iter().map(|s| s.line).collect();
    assert_eq!(lines, [2, 3, 4, 5, 6]);
    for span in &spans {
        assert_eq!(
            &src[span.byte_start as usize..span.byte_end as usize],
            "helper"
        );
    }
}

/// `helper()` inside `depth` nested macro calls: `m!(m!(... helper() ...))`.
fn nested_macros(depth: usize) -> String {
    format!(
        "fn run() {{\n    {}helper(){};\n}}\n",
        "m!(".repeat(depth),
        ")".repeat(depth)
    )
}

#[test]
fn macro_bodies_are_reparsed_eight_deep_and_no_deeper() {
    let mut outliner = outliner();
    let mut found = |depth| {
        let calls = outliner
            .references("rust", &nested_macros(depth), "helper")
            .unwrap();
        (calls.spans.len(), calls.incomplete)
    };
    assert_eq!(found(1), (1, None));
    assert_eq!(found(8), (1, None), "eight nested macros are searched");
    // Past the bound the call is not found, and the search says so.
    let (spans, why) = found(9);
    assert_eq!(spans, 0, "the ninth is past the depth bound");
    let why = why.expect("a search cut short says why");
    assert_eq!(
        why,
        "at least 1 macro body holding `helper` nested deeper than 8 macros; \
         calls inside them were not searched"
    );
    // Far past the bound, the search still ends, at once.
    assert_eq!(found(300).0, 0);
    assert!(found(300).1.is_some());
}

#[test]
fn at_most_512_macro_bodies_are_reparsed_per_file() {
    let calls = "    log!(helper());\n".repeat(600);
    let src = format!("fn run() {{\n{calls}}}\n");
    let calls = outliner().references("rust", &src, "helper").unwrap();
    // The worklist stops at its bound: a file this macro-heavy gets the
    // calls of 512 bodies, not an unbounded parse, and is told it is
    // partial.
    assert_eq!(calls.spans.len(), 512);
    let why = calls.incomplete.expect("a search cut short says why");
    assert_eq!(
        why,
        "at least 88 macro bodies holding `helper` past the bound of 512 re-parsed \
         per search; calls inside them were not searched"
    );
    // A longer name holding `helper` is not a mention: nothing is queued,
    // so nothing is reported unsearched.
    let lookalike = format!(
        "fn run() {{\n{}}}\n",
        "    log!(helper_count);\n".repeat(600)
    );
    let calls = outliner().references("rust", &lookalike, "helper").unwrap();
    assert_eq!((calls.spans.len(), calls.incomplete), (0, None));
    // Plain calls are never limited.
    let plain = format!("fn run() {{\n{}}}\n", "    helper();\n".repeat(600));
    assert_eq!(
        outliner()
            .references("rust", &plain, "helper")
            .unwrap()
            .spans
            .len(),
        600
    );
}

#[test]
fn references_in_python_and_typescript() {
    let py = "def f():\n    g()\n    obj.g(1)\n    h(g)\n";
    let lines: Vec<u32> = outliner()
        .references("python", py, "g")
        .unwrap()
        .spans
        .iter()
        .map(|s| s.line)
        .collect();
    assert_eq!(lines, [2, 3]);
    let ts = "function f() { g(); this.g(); new G(); }\n";
    assert_eq!(
        outliner()
            .references("typescript", ts, "g")
            .unwrap()
            .spans
            .len(),
        2
    );
    assert_eq!(
        outliner()
            .references("typescript", ts, "G")
            .unwrap()
            .spans
            .len(),
        1
    );
}

#[test]
fn unknown_and_unlinked_languages_are_errors() {
    assert!(outliner()
        .outline("cobol", "")
        .unwrap_err()
        .contains("unknown language"));
    let rust_only = &mut Outliner::new(&[(Lang::Rust, tree_sitter_rust::LANGUAGE)]);
    assert!(rust_only
        .outline("python", "")
        .unwrap_err()
        .contains("does not parse"));
}

#[test]
fn broken_source_still_outlines_what_parses() {
    let symbols = outline("rust", "fn ok() {}\nfn broken( {\nstruct After;\n");
    assert!(symbols.iter().any(|s| s.name == "ok"));
}

#[test]
fn a_markdown_preamble_is_not_named_by_a_setext_heading_inside_it() {
    let src = "[![badge](b.svg)](x)\n\nTitle\n=====\n\nText.\n\n# Next\n";
    let symbols = outline("markdown", src);
    assert_eq!(shape(&symbols), ["h1 Title", "h1 Next"]);
    // The setext heading spans its own lines.
    assert_eq!((symbols[0].line_start, symbols[0].line_end), (3, 4));
}

#[test]
fn exported_and_declared_typescript_spans_its_keyword_and_docs() {
    let src = "\
/** Doubles. */
export const double = (x: number) => x * 2;
declare function external(): void;
/** A namespace. */
namespace Geo { }
";
    let symbols = outline("typescript", src);
    assert_eq!(
        shape(&symbols),
        ["function double", "function external", "namespace Geo"]
    );
    assert_eq!(
        symbols[0].byte_start, 0,
        "the JSDoc is glued through `export`"
    );
    assert_eq!(symbols[1].byte_start as usize, src.find("declare").unwrap());
    assert_eq!(
        symbols[2].byte_start as usize,
        src.find("/** A namespace").unwrap()
    );
}

#[test]
fn impl_names_drop_paths_and_generic_arguments() {
    use amber_parser_core::rules::short_name;
    assert_eq!(short_name("std::fmt::Display"), "Display");
    assert_eq!(short_name("Point<T>"), "Point");
    assert_eq!(
        short_name("crate::a::Wrapper<Vec<Box<dyn Fn(u8) -> u8>>>"),
        "Wrapper"
    );
    assert_eq!(short_name("&'a str"), "&'a str");
    assert_eq!(short_name("[u8; 4]"), "[u8; 4]");
    assert_eq!(
        short_name("dyn  std::error::Error"),
        "dyn std::error::Error"
    );
}
