//! Word wrapping of styled lines to a width. The transcript lays each
//! cell out once per width and keeps the result, so a frame only copies
//! the lines it shows; that needs the wrapped lines themselves, not the
//! wrapping a `Paragraph` does while it renders.

use ratatui::text::{Line, Span};
use unicode_width::UnicodeWidthChar;

/// `line` broken into lines of at most `width` columns, at spaces where
/// it can be and inside a word only when the word is wider than a line.
/// Each piece keeps its span's style; the line's own style carries over.
/// Tabs become spaces first ([`crate::tabs`]): drawn as they are they
/// would show as nothing.
pub fn wrap(line: &Line<'static>, width: u16) -> Vec<Line<'static>> {
    let expanded;
    let line = if crate::tabs::has_tabs(line) {
        expanded = crate::tabs::expand_line(line);
        &expanded
    } else {
        line
    };
    let width = usize::from(width.max(1));
    // The line as (char, style index) cells, so a break can fall anywhere.
    let cells: Vec<(char, usize)> = line
        .spans
        .iter()
        .enumerate()
        .flat_map(|(i, span)| span.content.chars().map(move |c| (c, i)))
        .collect();
    let column = |c: char| c.width().unwrap_or(0);
    let mut out = Vec::new();
    let mut start = 0;
    while start < cells.len() {
        // The longest run from `start` that fits.
        let mut used = 0;
        let mut end = start;
        while end < cells.len() && used + column(cells[end].0) <= width {
            used += column(cells[end].0);
            end += 1;
        }
        let mut cut = end;
        if end < cells.len() {
            // Break after the last space of the run, if there is one.
            if let Some(space) = cells[start..end].iter().rposition(|(c, _)| *c == ' ') {
                if space > 0 {
                    cut = start + space + 1;
                }
            }
            if cut == start {
                cut = end.max(start + 1);
            }
        }
        out.push(piece(line, &cells[start..cut]));
        start = cut;
        // A line continued after a break does not start with spaces.
        while start < cells.len() && cells[start].0 == ' ' {
            start += 1;
        }
    }
    if out.is_empty() {
        out.push(Line::default().style(line.style));
    }
    out
}

/// The cells as spans, one per run of the same source span.
fn piece(line: &Line<'static>, cells: &[(char, usize)]) -> Line<'static> {
    let mut spans: Vec<Span<'static>> = Vec::new();
    let mut text = String::new();
    let mut current = None;
    for &(c, i) in cells {
        if current != Some(i) {
            if let Some(prev) = current {
                spans.push(Span::styled(
                    std::mem::take(&mut text),
                    line.spans[prev].style,
                ));
            }
            current = Some(i);
        }
        text.push(c);
    }
    if let Some(prev) = current {
        let trimmed = text.trim_end_matches(' ').to_string();
        spans.push(Span::styled(trimmed, line.spans[prev].style));
    }
    Line::from(spans).style(line.style)
}

/// Every line of `lines` wrapped to `width`.
pub fn wrap_all(lines: &[Line<'static>], width: u16) -> Vec<Line<'static>> {
    lines.iter().flat_map(|l| wrap(l, width)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use ratatui::style::{Style, Stylize};

    fn texts(lines: &[Line<'static>]) -> Vec<String> {
        lines.iter().map(|l| l.to_string()).collect()
    }

    #[test]
    fn words_wrap_at_spaces_and_long_words_are_cut() {
        let line = Line::from("the quick brown fox jumps");
        assert_eq!(texts(&wrap(&line, 10)), ["the quick", "brown fox", "jumps"]);
        let long = Line::from("abcdefghijkl mn");
        assert_eq!(texts(&wrap(&long, 5)), ["abcde", "fghij", "kl mn"]);
        assert_eq!(texts(&wrap(&Line::from(""), 5)), [""]);
    }

    #[test]
    fn styles_survive_a_break() {
        let line = Line::from(vec!["plain ".into(), "bold words here".bold()]);
        let wrapped = wrap(&line, 11);
        assert_eq!(texts(&wrapped), ["plain bold", "words here"]);
        assert_eq!(wrapped[1].spans[0].style, Style::new().bold());
    }

    #[test]
    fn tabs_are_expanded_before_wrapping() {
        let line = Line::from(vec!["  ".into(), "+\techo hi".green()]);
        let wrapped = wrap(&line, 40);
        assert_eq!(texts(&wrapped), ["  +     echo hi"]);
        assert_eq!(wrapped[0].spans[1].style, Style::new().green());
    }

    #[test]
    fn wide_characters_count_their_columns() {
        let line = Line::from("日本語のテキスト");
        let wrapped = wrap(&line, 6);
        assert_eq!(texts(&wrapped), ["日本語", "のテキ", "スト"]);
    }
}
