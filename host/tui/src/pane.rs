//! The panes drawn over the transcript: a man page (`/help`), the plugin
//! view and the session picker. Each is pure state and a draw; a key
//! comes back as a [`PaneAction`] the driver carries out through the App,
//! so the views can be drawn into TestBackend for the snapshot tests.

use crossterm::event::{KeyCode, KeyEvent};
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear, Paragraph, Wrap};
use ratatui::Frame;

use crate::plugin_view::PluginView;
use crate::session_picker::SessionPicker;
use crate::theme;

pub enum Pane {
    Page(PagePane),
    Plugins(PluginView),
    Sessions(SessionPicker),
}

/// What a key in a pane asks of the driver.
#[derive(Debug, Clone, PartialEq)]
pub enum PaneAction {
    None,
    Close,
    Enable(String),
    Disable(String),
    /// Grant (`true`) or revoke one permission of a plugin.
    Grant {
        id: String,
        permission: String,
        granted: bool,
    },
    Resume(String),
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
        }
    }

    pub fn draw(&mut self, frame: &mut Frame<'_>, area: Rect) {
        frame.render_widget(Clear, area);
        match self {
            Pane::Page(page) => page.draw(frame, area),
            Pane::Plugins(view) => view.draw(frame, area),
            Pane::Sessions(picker) => picker.draw(frame, area),
        }
    }
}

/// A titled frame with the pane's keys at the bottom.
pub fn frame_block(title: &str, keys: &str) -> Block<'static> {
    Block::default()
        .borders(Borders::ALL)
        .border_style(theme::dim())
        .title(Span::styled(format!(" {title} "), theme::heading()))
        .title_bottom(Line::from(Span::styled(format!(" {keys} "), theme::dim())))
}

/// A man page, scrollable.
pub struct PagePane {
    pub title: String,
    pub lines: Vec<String>,
    pub scroll: u16,
    /// Rows of text the last draw showed, for page up and down.
    page: u16,
}

impl PagePane {
    pub fn new(title: impl Into<String>, text: &str) -> Self {
        PagePane {
            title: title.into(),
            lines: text.lines().map(String::from).collect(),
            scroll: 0,
            page: 10,
        }
    }

    fn key(&mut self, key: KeyEvent) -> PaneAction {
        let last = (self.lines.len() as u16).saturating_sub(1);
        self.scroll = match key.code {
            KeyCode::Char('q') => return PaneAction::Close,
            KeyCode::Up | KeyCode::Char('k') => self.scroll.saturating_sub(1),
            KeyCode::Down | KeyCode::Char('j') => self.scroll + 1,
            KeyCode::PageUp => self.scroll.saturating_sub(self.page),
            KeyCode::PageDown | KeyCode::Char(' ') => self.scroll + self.page,
            KeyCode::Home => 0,
            KeyCode::End => last,
            _ => self.scroll,
        }
        .min(last);
        PaneAction::None
    }

    fn draw(&mut self, frame: &mut Frame<'_>, area: Rect) {
        let block = frame_block(&self.title, "↑↓ pgup pgdn scroll · q or esc closes");
        self.page = block.inner(area).height.max(1);
        let lines: Vec<Line<'static>> = self
            .lines
            .iter()
            .map(|l| {
                // A man page's section headings are its unindented lines.
                if !l.is_empty() && !l.starts_with(' ') {
                    Line::from(Span::styled(l.clone(), theme::heading()))
                } else {
                    Line::from(l.clone())
                }
            })
            .collect();
        frame.render_widget(
            Paragraph::new(lines)
                .block(block)
                .wrap(Wrap { trim: false })
                .scroll((self.scroll, 0)),
            area,
        );
    }
}
