//! Syntax highlighting of fenced code blocks (syntect, its bundled
//! grammars and themes). Loading them costs tens of milliseconds and a
//! few MiB, so it happens on the first code block, never at start-up.

use std::sync::OnceLock;

use ratatui::style::{Color, Style};
use ratatui::text::{Line, Span};
use syntect::easy::HighlightLines;
use syntect::highlighting::{Theme, ThemeSet};
use syntect::parsing::SyntaxSet;
use syntect::util::LinesWithEndings;

/// The theme; dark, as terminals mostly are.
const THEME: &str = "base16-ocean.dark";

struct Loaded {
    syntaxes: SyntaxSet,
    theme: Theme,
}

fn loaded() -> Option<&'static Loaded> {
    static LOADED: OnceLock<Option<Loaded>> = OnceLock::new();
    LOADED
        .get_or_init(|| {
            let syntaxes = SyntaxSet::load_defaults_newlines();
            let theme = ThemeSet::load_defaults().themes.remove(THEME)?;
            Some(Loaded { syntaxes, theme })
        })
        .as_ref()
}

/// `code` as lines, coloured for `language` (a fence's info word: `rust`,
/// `py`, `sh`…); plain in `fallback` when the language is unknown or
/// empty.
pub fn code(code: &str, language: &str, fallback: Style) -> Vec<Line<'static>> {
    let plain = || {
        code.lines()
            .map(|l| Line::from(Span::styled(l.to_string(), fallback)))
            .collect()
    };
    let language = language.trim();
    if language.is_empty() {
        return plain();
    }
    let Some(loaded) = loaded() else {
        return plain();
    };
    let Some(syntax) = loaded.syntaxes.find_syntax_by_token(language) else {
        return plain();
    };
    let mut highlighter = HighlightLines::new(syntax, &loaded.theme);
    let mut out = Vec::new();
    for line in LinesWithEndings::from(code) {
        let Ok(ranges) = highlighter.highlight_line(line, &loaded.syntaxes) else {
            return plain();
        };
        let spans: Vec<Span<'static>> = ranges
            .into_iter()
            .map(|(style, text)| {
                let fg = style.foreground;
                Span::styled(
                    text.trim_end_matches(['\n', '\r']).to_string(),
                    fallback.fg(Color::Rgb(fg.r, fg.g, fg.b)),
                )
            })
            .filter(|s| !s.content.is_empty())
            .collect();
        out.push(Line::from(spans));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_known_language_is_coloured_and_an_unknown_one_is_plain() {
        let rust = code("fn main() {}\n", "rust", Style::new());
        assert_eq!(rust.len(), 1);
        assert!(rust[0].spans.len() > 1, "{rust:?}");
        assert!(rust[0].spans.iter().any(|s| s.style.fg.is_some()));
        let plain = code("fn main() {}\n", "no-such-language", Style::new());
        assert_eq!(plain[0].spans.len(), 1);
        assert_eq!(plain[0].to_string(), "fn main() {}");
    }
}
