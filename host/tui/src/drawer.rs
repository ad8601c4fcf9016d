//! The command drawer: what may come next in a slash-command line, drawn
//! over the bottom of the transcript while the line is typed. The
//! candidates come from the merged command tree (built-ins, feeds and
//! plugin subtrees), so a plugin enabled a moment ago completes too.

use amber_core::commands::Candidate;
use ratatui::layout::Rect;
use ratatui::style::Modifier;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear, Paragraph};
use ratatui::Frame;
use unicode_width::UnicodeWidthStr;

use crate::theme;

/// Rows of candidates shown at once; the rest scroll into view.
const ROWS: usize = 8;

#[derive(Debug, Clone, PartialEq)]
pub struct Drawer {
    /// The line the candidates are for.
    pub line: String,
    pub candidates: Vec<Candidate>,
    pub selected: usize,
    /// Completing an `@path` (the word at the cursor), not a command line.
    pub mention: bool,
}

/// Whether `text` is a command line being typed: one line, after a `/`.
pub fn is_command_line(text: &str) -> bool {
    text.trim_start().starts_with('/') && !text.contains('\n')
}

impl Drawer {
    /// The drawer for `line`, or none when nothing may come next.
    pub fn new(line: &str, candidates: Vec<Candidate>) -> Option<Drawer> {
        (!candidates.is_empty()).then(|| Drawer {
            line: line.to_string(),
            candidates,
            selected: 0,
            mention: false,
        })
    }

    /// The drawer of workspace paths for the `@word` at the cursor.
    pub fn mention(word: &str, candidates: Vec<Candidate>) -> Option<Drawer> {
        Drawer::new(word, candidates).map(|d| Drawer {
            mention: true,
            ..d
        })
    }

    /// The selected `@path`, with a space after a file (a folder's path
    /// goes on being typed).
    pub fn chosen(&self) -> String {
        match self.candidates.get(self.selected) {
            Some(c) if c.name.ends_with('/') => c.name.clone(),
            Some(c) => format!("{} ", c.name),
            None => self.line.clone(),
        }
    }

    pub fn up(&mut self) {
        let n = self.candidates.len();
        self.selected = (self.selected + n - 1) % n;
    }

    pub fn down(&mut self) {
        self.selected = (self.selected + 1) % self.candidates.len();
    }

    /// The word being typed: after the last space (empty after a space).
    fn typing(&self) -> &str {
        if self.mention {
            return &self.line;
        }
        let line = self.line.trim_start();
        let line = line.strip_prefix('/').unwrap_or(line);
        line.rsplit(char::is_whitespace).next().unwrap_or_default()
    }

    /// Whether the word being typed is already the selected name whole.
    pub fn typed_in_full(&self) -> bool {
        self.candidates
            .get(self.selected)
            .is_some_and(|c| c.name == self.typing())
    }

    /// Whether Enter should complete before it runs the line: a word is
    /// being typed and is not a whole name yet. After a space nothing is
    /// being typed, and Enter runs the line as it is (`/` + Enter must
    /// not run the first command, nor `/set policy ` set the first value).
    pub fn completes_on_enter(&self) -> bool {
        !self.typing().is_empty() && !self.typed_in_full()
    }

    /// The line with the word being typed replaced by the selected
    /// candidate and a space, ready for the next word.
    pub fn completed(&self) -> String {
        let Some(candidate) = self.candidates.get(self.selected) else {
            return self.line.clone();
        };
        let typing = self.typing();
        let kept = &self.line[..self.line.len() - typing.len()];
        format!("{kept}{} ", candidate.name)
    }

    /// Draws the drawer at the bottom of `area` (the transcript's), at
    /// most [`ROWS`] candidates high, the selected one always in view.
    pub fn draw(&self, frame: &mut Frame<'_>, area: Rect) {
        let shown = self.candidates.len().min(ROWS);
        let height = (shown as u16 + 2).min(area.height);
        if height < 3 {
            return;
        }
        let rect = Rect {
            x: area.x,
            y: area.y + area.height - height,
            width: area.width,
            height,
        };
        let first = self.selected.saturating_sub(shown - 1);
        let name_width = self
            .candidates
            .iter()
            .map(|c| c.name.width())
            .max()
            .unwrap_or(0)
            .min(24);
        let lines: Vec<Line<'static>> = self
            .candidates
            .iter()
            .enumerate()
            .skip(first)
            .take(shown)
            .map(|(i, c)| {
                let name = format!(" {:<name_width$}  ", c.name);
                let help = c.help.lines().next().unwrap_or_default().to_string();
                if i == self.selected {
                    let style = theme::selected();
                    Line::from(vec![
                        Span::styled(name, style.add_modifier(Modifier::BOLD)),
                        Span::styled(help, style),
                    ])
                } else {
                    Line::from(vec![
                        Span::styled(name, theme::accent()),
                        Span::styled(help, theme::dim()),
                    ])
                }
            })
            .collect();
        let more = if self.candidates.len() > shown {
            format!(" {}/{} ", self.selected + 1, self.candidates.len())
        } else {
            String::new()
        };
        let block = Block::default()
            .borders(Borders::ALL)
            .border_style(theme::dim())
            .title(Span::styled(
                if self.mention {
                    " tab completes the path · esc closes "
                } else {
                    " tab completes · enter runs · esc closes "
                },
                theme::dim(),
            ))
            .title_bottom(Line::from(Span::styled(more, theme::dim())).right_aligned());
        frame.render_widget(Clear, rect);
        frame.render_widget(Paragraph::new(lines).block(block), rect);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn candidate(name: &str) -> Candidate {
        Candidate {
            name: name.into(),
            help: format!("help of {name}"),
        }
    }

    #[test]
    fn completing_replaces_the_word_being_typed() {
        let drawer = Drawer::new("/set po", vec![candidate("policy")]).unwrap();
        assert_eq!(drawer.completed(), "/set policy ");
        assert!(!drawer.typed_in_full());
        let after_space = Drawer::new("/set ", vec![candidate("model")]).unwrap();
        assert_eq!(after_space.completed(), "/set model ");
        assert!(drawer.completes_on_enter());
        assert!(
            !after_space.completes_on_enter(),
            "nothing typed after the space"
        );
        let slash = Drawer::new("/", vec![candidate("clear")]).unwrap();
        assert!(!slash.completes_on_enter(), "/ and Enter runs no command");
        let whole = Drawer::new("/help", vec![candidate("help")]).unwrap();
        assert!(whole.typed_in_full());
        assert!(!whole.completes_on_enter());
        assert_eq!(whole.completed(), "/help ");
    }

    #[test]
    fn the_selection_wraps_both_ways() {
        let mut drawer = Drawer::new("/s", vec![candidate("a"), candidate("b")]).unwrap();
        drawer.up();
        assert_eq!(drawer.selected, 1);
        drawer.down();
        assert_eq!(drawer.selected, 0);
        assert!(Drawer::new("/x", Vec::new()).is_none());
    }

    #[test]
    fn only_a_single_line_after_a_slash_is_a_command_line() {
        assert!(is_command_line("/set"));
        assert!(is_command_line("  /"));
        assert!(!is_command_line("fix /etc"));
        assert!(!is_command_line("/set\nmore"));
    }
}
