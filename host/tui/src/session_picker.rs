//! The session picker (`/sessions`, or ctrl-r): this workspace's recent
//! sessions, newest first, with their first prompt, turns, size and date.
//! Enter opens one; the App verifies its chain and locks it before the
//! open session is let go, so a refused one changes nothing.

use amber_core::session::{SessionState, SessionSummary};
use crossterm::event::{KeyCode, KeyEvent};
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;
use ratatui::Frame;
use unicode_width::UnicodeWidthStr;

use crate::pane_frame::{frame_block, PaneAction};
use crate::theme;

pub struct SessionPicker {
    pub sessions: Vec<SessionSummary>,
    pub selected: usize,
    /// The session open now, marked in the list.
    pub open: String,
}

impl SessionPicker {
    /// The sessions of `workspace` among `all` (newest first already),
    /// the open one first whatever its age: the next row down is always
    /// the latest other session.
    pub fn new(all: Vec<SessionSummary>, workspace: &str, open: &str) -> Self {
        let (mut sessions, others): (Vec<_>, Vec<_>) = all
            .into_iter()
            // An empty session (an older amber left one per TUI opened
            // and quit) has nothing to resume.
            .filter(|s| s.workspace == workspace && s.parent.is_none() && (s.turns > 0 || s.id == open))
            .partition(|s| s.id == open);
        sessions.extend(others);
        SessionPicker {
            sessions,
            selected: 0,
            open: open.to_string(),
        }
    }

    pub fn key(&mut self, key: KeyEvent) -> PaneAction {
        let last = self.sessions.len().saturating_sub(1);
        match key.code {
            KeyCode::Char('q') => return PaneAction::Close,
            KeyCode::Up => self.selected = self.selected.saturating_sub(1),
            KeyCode::Down => self.selected = (self.selected + 1).min(last),
            KeyCode::Home => self.selected = 0,
            KeyCode::End => self.selected = last,
            KeyCode::Enter => {
                if let Some(s) = self.sessions.get(self.selected) {
                    return PaneAction::Resume(s.id.clone());
                }
            }
            _ => {}
        }
        PaneAction::None
    }

    pub fn draw(&mut self, frame: &mut Frame<'_>, area: Rect) {
        let block = frame_block(
            "sessions of this workspace",
            "↑↓ choose · enter opens · esc closes",
        );
        let inner = block.inner(area);
        frame.render_widget(block, area);
        if self.sessions.is_empty() {
            frame.render_widget(
                Paragraph::new(Span::styled(
                    "no sessions in this workspace yet",
                    theme::dim(),
                )),
                inner,
            );
            return;
        }
        let rows = usize::from(inner.height);
        let first = self.selected.saturating_sub(rows.saturating_sub(1));
        let width = usize::from(inner.width);
        let lines: Vec<Line<'static>> = self
            .sessions
            .iter()
            .enumerate()
            .skip(first)
            .take(rows)
            .map(|(i, s)| {
                let open = if s.id == self.open { "● " } else { "  " };
                let state = match s.state {
                    SessionState::Complete => "",
                    SessionState::Interrupted => " (interrupted)",
                    SessionState::Unreadable => " (unreadable)",
                };
                let facts = format!(
                    "{open}{}  {}  {:>3} turns  ~{:>6} tokens  ",
                    amber_app::render::sessions::timestamp(s.updated),
                    s.id,
                    s.turns,
                    s.approx_tokens,
                );
                let room = width.saturating_sub(facts.width() + state.width());
                let title = shorten(&s.title, room);
                let text = format!("{facts}{title}{state}");
                let style = if i == self.selected {
                    theme::selected()
                } else if s.state == SessionState::Unreadable {
                    theme::error()
                } else {
                    ratatui::style::Style::default()
                };
                Line::from(Span::styled(text, style))
            })
            .collect();
        frame.render_widget(Paragraph::new(lines), inner);
    }
}

/// `text` cut to `room` columns, with an ellipsis when cut.
fn shorten(text: &str, room: usize) -> String {
    if text.width() <= room {
        return text.to_string();
    }
    let mut out = String::new();
    for c in text.chars() {
        if out.width() + c.to_string().width() + 1 > room {
            break;
        }
        out.push(c);
    }
    out.push('…');
    out
}

#[cfg(test)]
mod tests {
    use super::shorten;

    #[test]
    fn a_long_title_is_cut_with_an_ellipsis() {
        assert_eq!(shorten("fix the parser", 20), "fix the parser");
        assert_eq!(shorten("fix the parser", 8), "fix the…");
    }
}
