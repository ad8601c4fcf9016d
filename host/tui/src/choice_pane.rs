//! A pane that picks one of a list (`/model`: the models the presets
//! name): Enter runs the command line the choice stands for, through the
//! command tree like a typed one, so the picker and `/model NAME` are one
//! path.

use crossterm::event::{KeyCode, KeyEvent};
use ratatui::layout::Rect;
use ratatui::style::Modifier;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;
use ratatui::Frame;
use unicode_width::UnicodeWidthStr;

use crate::pane_frame::{frame_block, PaneAction};
use crate::theme;

/// One choice: its name, a line about it, and the command it runs.
#[derive(Debug, Clone, PartialEq)]
pub struct Choice {
    pub name: String,
    pub help: String,
    pub line: String,
}

pub struct ChoicePane {
    pub title: String,
    pub choices: Vec<Choice>,
    pub selected: usize,
    /// The choice in effect now, marked with `*`.
    pub current: String,
}

impl ChoicePane {
    /// The pane, the current choice selected when it is listed.
    pub fn new(title: impl Into<String>, choices: Vec<Choice>, current: &str) -> Self {
        let selected = choices.iter().position(|c| c.name == current).unwrap_or(0);
        ChoicePane {
            title: title.into(),
            choices,
            selected,
            current: current.to_string(),
        }
    }

    pub fn key(&mut self, key: KeyEvent) -> PaneAction {
        let last = self.choices.len().saturating_sub(1);
        match key.code {
            KeyCode::Char('q') => return PaneAction::Close,
            KeyCode::Up | KeyCode::Char('k') => self.selected = self.selected.saturating_sub(1),
            KeyCode::Down | KeyCode::Char('j') => self.selected = (self.selected + 1).min(last),
            KeyCode::PageUp => self.selected = self.selected.saturating_sub(10),
            KeyCode::PageDown => self.selected = (self.selected + 10).min(last),
            KeyCode::Home => self.selected = 0,
            KeyCode::End => self.selected = last,
            KeyCode::Enter => {
                if let Some(choice) = self.choices.get(self.selected) {
                    return PaneAction::Run(choice.line.clone());
                }
            }
            _ => {}
        }
        PaneAction::None
    }

    pub fn draw(&mut self, frame: &mut Frame<'_>, area: Rect) {
        let block = frame_block(&self.title, "↑↓ choose · enter switches · esc closes");
        let inner = block.inner(area);
        let rows = usize::from(inner.height.max(1));
        let first = self.selected.saturating_sub(rows - 1);
        let width = self
            .choices
            .iter()
            .map(|c| c.name.width())
            .max()
            .unwrap_or(0)
            .min(40);
        let lines: Vec<Line<'static>> = self
            .choices
            .iter()
            .enumerate()
            .skip(first)
            .take(rows)
            .map(|(i, c)| {
                let mark = if c.name == self.current { "*" } else { " " };
                let name = format!("{mark} {:<width$}  ", c.name);
                if i == self.selected {
                    let style = theme::selected();
                    Line::from(vec![
                        Span::styled(name, style.add_modifier(Modifier::BOLD)),
                        Span::styled(c.help.clone(), style),
                    ])
                } else {
                    Line::from(vec![
                        Span::styled(name, theme::accent()),
                        Span::styled(c.help.clone(), theme::dim()),
                    ])
                }
            })
            .collect();
        let lines = if lines.is_empty() {
            vec![Line::from(Span::styled(
                "nothing to choose from",
                theme::dim(),
            ))]
        } else {
            lines
        };
        frame.render_widget(Paragraph::new(lines).block(block), area);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn choice(name: &str) -> Choice {
        Choice {
            name: name.into(),
            help: String::new(),
            line: format!("/model {name}"),
        }
    }

    #[test]
    fn enter_runs_the_selected_choice_and_the_current_one_is_selected_first() {
        let mut pane = ChoicePane::new("/model", vec![choice("a"), choice("b"), choice("c")], "b");
        assert_eq!(pane.selected, 1);
        pane.key(KeyEvent::from(KeyCode::Down));
        pane.key(KeyEvent::from(KeyCode::Down));
        assert_eq!(
            pane.key(KeyEvent::from(KeyCode::Enter)),
            PaneAction::Run("/model c".into())
        );
    }
}
