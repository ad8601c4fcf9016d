//! Tabs made visible. ratatui draws a `'\t'` as nothing, so a Makefile's
//! recipe, a Go file or a tab-indented log line loses its indentation in
//! a tool card, a diff or the approval dialog. Every line is expanded to
//! spaces before it is wrapped or drawn, with tab stops counted from the
//! start of the whole line, across its spans, so a prefix such as a
//! card's `  │ ` moves the stops the way a terminal would.

use ratatui::text::{Line, Span};
use unicode_width::UnicodeWidthChar;

/// Columns between tab stops, as in a terminal.
pub const TAB_STOP: usize = 8;

/// Whether any span of `line` holds a tab.
pub fn has_tabs(line: &Line<'_>) -> bool {
    line.spans.iter().any(|span| span.content.contains('\t'))
}

/// `line` with each tab replaced by the spaces up to the next tab stop.
/// Columns are display columns (a wide character counts two), counted
/// from the start of the line across its spans; each span keeps its
/// style and the line keeps its own style and alignment.
pub fn expand_line(line: &Line<'static>) -> Line<'static> {
    if !has_tabs(line) {
        return line.clone();
    }
    let mut column = 0;
    let mut spans = Vec::with_capacity(line.spans.len());
    for span in &line.spans {
        let mut text = String::with_capacity(span.content.len());
        for c in span.content.chars() {
            if c == '\t' {
                let fill = TAB_STOP - column % TAB_STOP;
                text.push_str(&" ".repeat(fill));
                column += fill;
            } else {
                text.push(c);
                // Counted as `wrap` counts, so the two agree on columns.
                column += c.width().unwrap_or(0);
            }
        }
        spans.push(Span::styled(text, span.style));
    }
    let mut out = line.clone();
    out.spans = spans;
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use ratatui::layout::Alignment;
    use ratatui::style::{Style, Stylize};

    #[test]
    fn a_tab_goes_to_the_next_stop() {
        let line = expand_line(&Line::from("a\tb"));
        assert_eq!(line.to_string(), "a       b");
        assert_eq!(expand_line(&Line::from("\tx")).to_string(), "        x");
        assert_eq!(
            expand_line(&Line::from("12345678\tx")).to_string(),
            "12345678        x"
        );
    }

    #[test]
    fn stops_count_from_the_start_of_the_line_across_spans() {
        // A prefix of four columns, then five more: the tab is at column
        // 9 and fills to 16.
        let line = Line::from(vec![Span::raw("  │ "), Span::raw("abcde\tx")]);
        let expanded = expand_line(&line);
        assert_eq!(expanded.to_string(), "  │ abcde       x");
        assert_eq!(expanded.spans[1].content, "abcde       x");
        let text = expanded.to_string();
        let x_column: usize = text
            .chars()
            .take_while(|&c| c != 'x')
            .map(|c| c.width().unwrap_or(0))
            .sum();
        assert_eq!(x_column, 16);
    }

    #[test]
    fn a_wide_character_counts_two_columns() {
        let line = expand_line(&Line::from("日\tb"));
        assert_eq!(line.to_string(), "日      b");
    }

    #[test]
    fn styles_are_kept() {
        let line = Line::from(vec![Span::styled("  ", Style::new()), "+\techo hi".green()])
            .style(Style::new().bold())
            .alignment(Alignment::Center);
        let expanded = expand_line(&line);
        assert_eq!(expanded.spans.len(), 2);
        assert_eq!(expanded.spans[1].style, Style::new().green());
        assert_eq!(expanded.spans[1].content, "+     echo hi");
        assert_eq!(expanded.style, Style::new().bold());
        assert_eq!(expanded.alignment, Some(Alignment::Center));
    }

    #[test]
    fn a_line_without_tabs_is_unchanged() {
        let line = Line::from(vec!["a".red(), " b".into()]);
        assert_eq!(expand_line(&line), line);
    }
}
