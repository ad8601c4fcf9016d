//! Markdown to styled lines: headings, lists (bulleted and numbered,
//! nested), emphasis, strong, strikethrough, inline code, links (the text,
//! then the address), block quotes, rules and fenced code blocks with
//! syntax highlighting. A reply is re-rendered as it streams in; an
//! unclosed fence renders as code so far.

use pulldown_cmark::{CodeBlockKind, Event, HeadingLevel, Options, Parser, Tag, TagEnd};
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};

use crate::highlight;
use crate::theme;

/// The lines of `text`, not yet wrapped.
pub fn render(text: &str) -> Vec<Line<'static>> {
    let mut r = Renderer::default();
    let parser = Parser::new_ext(text, Options::ENABLE_STRIKETHROUGH);
    for event in parser {
        r.event(event);
    }
    r.flush();
    // No trailing blank line.
    while r.lines.last().is_some_and(|l| l.spans.is_empty()) {
        r.lines.pop();
    }
    r.lines
}

#[derive(Default)]
struct Renderer {
    lines: Vec<Line<'static>>,
    /// The line being built.
    spans: Vec<Span<'static>>,
    /// Inline styles in effect (emphasis, strong, link…), innermost last.
    styles: Vec<Style>,
    /// Open lists: the next number of a numbered one, `None` for bullets.
    lists: Vec<Option<u64>>,
    /// The marker of the item whose first line is being built.
    marker: Option<String>,
    quote: usize,
    heading: Option<HeadingLevel>,
    code: Option<(String, String)>,
    link: Option<String>,
}

impl Renderer {
    fn style(&self) -> Style {
        self.styles
            .iter()
            .fold(Style::new(), |acc, s| acc.patch(*s))
    }

    fn indent(&self) -> String {
        let mut prefix = "│ ".repeat(self.quote);
        prefix.push_str(&"  ".repeat(self.lists.len().saturating_sub(1)));
        prefix
    }

    /// Ends the line being built, if it has anything.
    fn flush(&mut self) {
        if self.spans.is_empty() {
            return;
        }
        let mut spans = vec![Span::styled(self.indent(), theme::dim())];
        if let Some(marker) = self.marker.take() {
            spans.push(Span::styled(marker, theme::accent()));
        } else if !self.lists.is_empty() {
            spans.push(Span::raw("  "));
        }
        spans.append(&mut self.spans);
        self.lines.push(Line::from(spans));
    }

    fn blank(&mut self) {
        if self.lines.last().is_some_and(|l| !l.spans.is_empty()) {
            self.lines.push(Line::default());
        }
    }

    fn text(&mut self, text: &str) {
        if let Some((_, code)) = &mut self.code {
            code.push_str(text);
            return;
        }
        let style = self.style();
        let mut first = true;
        for piece in text.split('\n') {
            if !first {
                self.flush();
            }
            first = false;
            if !piece.is_empty() {
                self.spans.push(Span::styled(piece.to_string(), style));
            }
        }
    }

    fn event(&mut self, event: Event<'_>) {
        match event {
            Event::Start(tag) => self.start(tag),
            Event::End(tag) => self.end(tag),
            Event::Text(text) => self.text(&text),
            Event::Code(code) => {
                let style = self.style().patch(theme::inline_code());
                self.spans.push(Span::styled(code.to_string(), style));
            }
            Event::SoftBreak => self.spans.push(Span::styled(" ", self.style())),
            Event::HardBreak => self.flush(),
            Event::Rule => {
                self.flush();
                self.lines
                    .push(Line::from(Span::styled("─".repeat(40), theme::dim())));
            }
            Event::Html(html) | Event::InlineHtml(html) => self.text(&html),
            Event::TaskListMarker(done) => {
                self.spans
                    .push(Span::raw(if done { "[x] " } else { "[ ] " }));
            }
            Event::FootnoteReference(_) | Event::InlineMath(_) | Event::DisplayMath(_) => {}
        }
    }

    fn start(&mut self, tag: Tag<'_>) {
        match tag {
            Tag::Paragraph => {}
            Tag::Heading { level, .. } => {
                self.flush();
                self.blank();
                self.heading = Some(level);
                let style = match level {
                    HeadingLevel::H1 => theme::heading().add_modifier(Modifier::UNDERLINED),
                    _ => theme::heading(),
                };
                self.styles.push(style);
                let hashes = "#".repeat(heading_depth(level));
                self.spans
                    .push(Span::styled(format!("{hashes} "), theme::dim()));
            }
            Tag::BlockQuote(_) => {
                self.flush();
                self.quote += 1;
                self.styles
                    .push(Style::new().add_modifier(Modifier::ITALIC));
            }
            Tag::CodeBlock(kind) => {
                self.flush();
                let language = match kind {
                    CodeBlockKind::Fenced(info) => {
                        info.split_whitespace().next().unwrap_or("").to_string()
                    }
                    CodeBlockKind::Indented => String::new(),
                };
                self.code = Some((language, String::new()));
            }
            Tag::List(start) => {
                self.flush();
                if self.lists.is_empty() {
                    self.blank();
                }
                self.lists.push(start);
            }
            Tag::Item => {
                self.flush();
                let marker = match self.lists.last_mut() {
                    Some(Some(n)) => {
                        let marker = format!("{n}. ");
                        *n += 1;
                        marker
                    }
                    _ => "• ".to_string(),
                };
                self.marker = Some(marker);
            }
            Tag::Emphasis => self
                .styles
                .push(Style::new().add_modifier(Modifier::ITALIC)),
            Tag::Strong => self.styles.push(Style::new().add_modifier(Modifier::BOLD)),
            Tag::Strikethrough => self
                .styles
                .push(Style::new().add_modifier(Modifier::CROSSED_OUT)),
            Tag::Link { dest_url, .. } => {
                self.link = Some(dest_url.to_string());
                self.styles.push(theme::link());
            }
            _ => {}
        }
    }

    fn end(&mut self, tag: TagEnd) {
        match tag {
            TagEnd::Paragraph => {
                self.flush();
                if self.lists.is_empty() {
                    self.blank();
                }
            }
            TagEnd::Heading(_) => {
                self.heading = None;
                self.styles.pop();
                self.flush();
                self.blank();
            }
            TagEnd::BlockQuote(_) => {
                self.flush();
                self.quote = self.quote.saturating_sub(1);
                self.styles.pop();
                self.blank();
            }
            TagEnd::CodeBlock => {
                if let Some((language, code)) = self.code.take() {
                    self.code_block(&language, &code);
                }
            }
            TagEnd::List(_) => {
                self.flush();
                self.lists.pop();
                if self.lists.is_empty() {
                    self.blank();
                }
            }
            TagEnd::Item => self.flush(),
            TagEnd::Emphasis | TagEnd::Strong | TagEnd::Strikethrough => {
                self.styles.pop();
            }
            TagEnd::Link => {
                self.styles.pop();
                if let Some(url) = self.link.take() {
                    let shown: String = self.spans.iter().map(|s| s.content.as_ref()).collect();
                    if !shown.ends_with(&url) {
                        self.spans
                            .push(Span::styled(format!(" ({url})"), theme::dim()));
                    }
                }
            }
            _ => {}
        }
    }

    /// A fenced block: a header naming the language, then the code,
    /// highlighted, behind a gutter bar.
    fn code_block(&mut self, language: &str, code: &str) {
        let indent = self.indent();
        let label = if language.is_empty() {
            "code"
        } else {
            language
        };
        self.lines.push(Line::from(vec![
            Span::styled(indent.clone(), theme::dim()),
            Span::styled(format!("┌ {label}"), theme::dim()),
        ]));
        for line in highlight::code(code, language, Style::new().fg(Color::Gray)) {
            let mut spans = vec![
                Span::styled(indent.clone(), theme::dim()),
                Span::styled("│ ", theme::dim()),
            ];
            spans.extend(line.spans);
            self.lines.push(Line::from(spans));
        }
        self.lines.push(Line::from(vec![
            Span::styled(indent, theme::dim()),
            Span::styled("└", theme::dim()),
        ]));
        self.blank();
    }
}

fn heading_depth(level: HeadingLevel) -> usize {
    match level {
        HeadingLevel::H1 => 1,
        HeadingLevel::H2 => 2,
        HeadingLevel::H3 => 3,
        HeadingLevel::H4 => 4,
        HeadingLevel::H5 => 5,
        HeadingLevel::H6 => 6,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(md: &str) -> Vec<String> {
        render(md).iter().map(|l| l.to_string()).collect()
    }

    #[test]
    fn headings_lists_and_paragraphs_become_lines() {
        let lines =
            texts("# Title\n\nSome *words* and `code`.\n\n- one\n- two\n  1. nested\n\nEnd.");
        assert_eq!(
            lines,
            [
                "# Title",
                "",
                "Some words and code.",
                "",
                "• one",
                "• two",
                "  1. nested",
                "",
                "End."
            ]
        );
    }

    #[test]
    fn styles_follow_the_markup() {
        let lines = render("**bold** _it_ `x` [amber](https://example.com)");
        let spans = &lines[0].spans;
        let find = |text: &str| spans.iter().find(|s| s.content == text).unwrap().style;
        assert!(find("bold").add_modifier.contains(Modifier::BOLD));
        assert!(find("it").add_modifier.contains(Modifier::ITALIC));
        assert_eq!(find("x"), theme::inline_code());
        assert!(lines[0]
            .to_string()
            .ends_with("amber (https://example.com)"));
    }

    #[test]
    fn a_fenced_block_is_framed_and_an_unclosed_one_renders_so_far() {
        let lines = texts("```rust\nfn main() {}\n```\nafter");
        assert_eq!(lines, ["┌ rust", "│ fn main() {}", "└", "", "after"]);
        let open = texts("```py\nprint(1)\n");
        assert_eq!(open[..2], ["┌ py".to_string(), "│ print(1)".to_string()]);
    }
}
