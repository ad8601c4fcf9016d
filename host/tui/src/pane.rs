//! The panes drawn over the transcript: a man page (`/help`), the plugin
//! view and the session picker. Each is pure state and a draw; a key
//! comes back as a [`PaneAction`] the driver carries out through the App,
//! so the views can be drawn into TestBackend for the snapshot tests.

use crossterm::event::{KeyCode, KeyEvent};
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Clear, Paragraph};
use ratatui::Frame;

pub use crate::pane_frame::{frame_block, PaneAction};
use crate::choice_pane::ChoicePane;
use crate::plugin_view::PluginView;
use crate::session_picker::SessionPicker;
use crate::theme;

pub enum Pane {
    Page(PagePane),
    Plugins(PluginView),
    Sessions(SessionPicker),
    /// A list to pick one of (`/model`).
    Choose(ChoicePane),
}

impl Pane {
    pub fn key(&mut self, key: KeyEvent) -> PaneAction {
        if matches!(key.code, KeyCode::Esc) {
            return PaneAction::Close;
        }
        match self {
            Pane::Page(page) => page.key(key),
            Pane::Plugins(view) => view.key(key),
            Pane::Sessions(picker) => picker.key(key),
            Pane::Choose(choices) => choices.key(key),
        }
    }

    pub fn draw(&mut self, frame: &mut Frame<'_>, area: Rect) {
        frame.render_widget(Clear, area);
        match self {
            Pane::Page(page) => page.draw(frame, area),
            Pane::Plugins(view) => view.draw(frame, area),
            Pane::Sessions(picker) => picker.draw(frame, area),
            Pane::Choose(choices) => choices.draw(frame, area),
        }
    }
}

/// A man page, scrollable; also the approval dialog's view of a request
/// whole (`o`).
pub struct PagePane {
    pub title: String,
    /// The page's lines, styled; wrapped (and their tabs expanded) as
    /// they are drawn.
    pub lines: Vec<Line<'static>>,
    /// Rows scrolled past, of the page as wrapped at the last draw.
    pub scroll: usize,
    /// Rows of text the last draw showed, for page up and down.
    page: usize,
    /// Rows the page took, wrapped, at the last draw.
    rows: usize,
}

impl PagePane {
    /// A man page from its text: its unindented lines are its section
    /// headings.
    pub fn new(title: impl Into<String>, text: &str) -> Self {
        let lines = text
            .lines()
            .map(|l| {
                if !l.is_empty() && !l.starts_with(' ') {
                    Line::from(Span::styled(l.to_string(), theme::heading()))
                } else {
                    Line::from(l.to_string())
                }
            })
            .collect();
        PagePane::styled(title, lines)
    }

    /// A page of lines already styled (a coloured diff).
    pub fn styled(title: impl Into<String>, lines: Vec<Line<'static>>) -> Self {
        PagePane {
            title: title.into(),
            rows: lines.len(),
            lines,
            scroll: 0,
            page: 10,
        }
    }

    /// A key: scrolling, or `q` to close (Esc is the caller's).
    pub(crate) fn key(&mut self, key: KeyEvent) -> PaneAction {
        let last = self.rows.saturating_sub(self.page);
        self.scroll = match key.code {
            KeyCode::Char('q') => return PaneAction::Close,
            KeyCode::Up | KeyCode::Char('k') => self.scroll.saturating_sub(1),
            KeyCode::Down | KeyCode::Char('j') => self.scroll.saturating_add(1),
            KeyCode::PageUp => self.scroll.saturating_sub(self.page),
            KeyCode::PageDown | KeyCode::Char(' ') => self.scroll.saturating_add(self.page),
            KeyCode::Home => 0,
            KeyCode::End => last,
            _ => self.scroll,
        }
        .min(last);
        PaneAction::None
    }

    pub(crate) fn draw(&mut self, frame: &mut Frame<'_>, area: Rect) {
        let block = frame_block(&self.title, "↑↓ pgup pgdn scroll · q or esc closes");
        let inner = block.inner(area);
        self.page = usize::from(inner.height.max(1));
        // Wrapped here, so scrolling counts the rows the page really takes
        // and its last row can always be reached; wrapping expands tabs.
        let rows = crate::wrap::wrap_all(&self.lines, inner.width.max(1));
        self.rows = rows.len();
        self.scroll = self.scroll.min(self.rows.saturating_sub(self.page));
        let shown: Vec<Line<'static>> =
            rows.into_iter().skip(self.scroll).take(self.page).collect();
        frame.render_widget(Paragraph::new(shown).block(block), area);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ratatui::backend::TestBackend;
    use ratatui::Terminal;

    #[test]
    fn the_end_of_a_wrapped_page_can_be_reached() {
        let text: String = (1..=30)
            .map(|i| format!("    line {i} is long enough to wrap in a narrow pane\n"))
            .collect();
        let mut pane = Pane::Page(PagePane::new("/help", &text));
        let mut term = Terminal::new(TestBackend::new(30, 12)).unwrap();
        term.draw(|f| pane.draw(f, f.area())).unwrap();
        pane.key(KeyEvent::from(KeyCode::End));
        term.draw(|f| pane.draw(f, f.area())).unwrap();
        let screen = format!("{:?}", term.backend());
        assert!(screen.contains("line 30 is"), "{screen}");
        for _ in 0..1000 {
            pane.key(KeyEvent::from(KeyCode::PageDown));
        }
        assert_eq!(
            pane.key(KeyEvent::from(KeyCode::Char('q'))),
            PaneAction::Close
        );
    }
}
