//! The transcript: a list of cells (the user's prompts, the model's
//! replies, reasoning, tool cards, notices), each laid out once per width
//! and kept until it changes. A frame walks the cells from the newest
//! back only as far as the screen reaches, so a session of thousands of
//! messages draws as fast as a short one.

use ratatui::style::Modifier;
use ratatui::text::{Line, Span};

use crate::cards::ToolCard;
use crate::{markdown, theme, wrap};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NoticeKind {
    Info,
    Warning,
    Error,
}

#[derive(Debug, Clone, PartialEq)]
pub enum Cell {
    User(String),
    /// A reply, markdown, growing while it streams.
    Assistant(String),
    /// Thinking text, folded under one line unless expanded.
    Reasoning {
        text: String,
        expanded: bool,
    },
    Tool(ToolCard),
    /// A sub-agent, with its own calls inside.
    SubAgent(crate::subagent_card::SubAgentCard),
    /// A plan proposed in plan mode (markdown), waiting for the person.
    Plan(String),
    Notice {
        kind: NoticeKind,
        text: String,
    },
    /// A slash command and what it printed.
    Command {
        line: String,
        output: String,
        ok: bool,
    },
}

impl Cell {
    /// The cell's lines, before wrapping. `spinner` is the frame of a
    /// running card's spinner.
    fn lines(&self, spinner: char) -> Vec<Line<'static>> {
        match self {
            Cell::User(text) => text
                .lines()
                .enumerate()
                .map(|(i, l)| {
                    let mark = if i == 0 { "› " } else { "  " };
                    Line::from(vec![
                        Span::styled(mark, theme::accent()),
                        Span::styled(l.to_string(), theme::user()),
                    ])
                })
                .collect(),
            Cell::Assistant(text) => markdown::render(text),
            Cell::Reasoning { text, expanded } => {
                let first = text.lines().find(|l| !l.trim().is_empty()).unwrap_or("");
                let style = theme::dim().add_modifier(Modifier::ITALIC);
                if *expanded {
                    let mut lines = vec![Line::from(Span::styled("thinking", style))];
                    lines.extend(
                        text.lines()
                            .map(|l| Line::from(Span::styled(format!("  {l}"), style))),
                    );
                    lines
                } else {
                    let more = text.lines().count().saturating_sub(1);
                    let tail = if more > 0 {
                        format!(" (+{more} lines, ctrl-t shows)")
                    } else {
                        String::new()
                    };
                    vec![Line::from(Span::styled(
                        format!("thinking: {first}{tail}"),
                        style,
                    ))]
                }
            }
            Cell::Tool(card) => card.lines(spinner),
            Cell::SubAgent(card) => card.lines(spinner),
            Cell::Plan(plan) => {
                let mut lines = vec![Line::from(Span::styled(
                    "Proposed plan",
                    theme::accent().add_modifier(Modifier::BOLD),
                ))];
                lines.extend(markdown::render(plan));
                lines
            }
            Cell::Notice { kind, text } => {
                let style = match kind {
                    NoticeKind::Info => theme::dim(),
                    NoticeKind::Warning => theme::warning(),
                    NoticeKind::Error => theme::error(),
                };
                text.lines()
                    .map(|l| Line::from(Span::styled(format!("• {l}"), style)))
                    .collect()
            }
            Cell::Command { line, output, ok } => {
                let mut lines = vec![Line::from(Span::styled(line.clone(), theme::accent()))];
                let style = if *ok { theme::dim() } else { theme::error() };
                lines.extend(
                    output
                        .trim_end()
                        .lines()
                        .map(|l| Line::from(Span::styled(format!("  {l}"), style))),
                );
                lines
            }
        }
    }

    fn is_running(&self) -> bool {
        match self {
            Cell::Tool(card) => card.status == crate::cards::CardStatus::Running,
            Cell::SubAgent(card) => card.is_running(),
            _ => false,
        }
    }
}

/// The cells and their laid-out lines.
#[derive(Default)]
pub struct History {
    cells: Vec<Cell>,
    /// Per cell: the width it was laid out for and its wrapped lines.
    layout: Vec<Option<(u16, Vec<Line<'static>>)>>,
}

impl History {
    pub fn push(&mut self, cell: Cell) {
        self.cells.push(cell);
        self.layout.push(None);
    }

    pub fn len(&self) -> usize {
        self.cells.len()
    }

    pub fn is_empty(&self) -> bool {
        self.cells.is_empty()
    }

    pub fn cells(&self) -> &[Cell] {
        &self.cells
    }

    pub fn last_mut(&mut self) -> Option<&mut Cell> {
        let i = self.cells.len().checked_sub(1)?;
        self.layout[i] = None;
        self.cells.get_mut(i)
    }

    /// The cell at `i`, to change: its layout is redone.
    pub fn get_mut(&mut self, i: usize) -> Option<&mut Cell> {
        if let Some(slot) = self.layout.get_mut(i) {
            *slot = None;
        }
        self.cells.get_mut(i)
    }

    /// The newest tool card with this call id.
    pub fn card_mut(&mut self, id: &str) -> Option<&mut ToolCard> {
        let i = self
            .cells
            .iter()
            .rposition(|c| matches!(c, Cell::Tool(card) if card.id == id))?;
        match self.get_mut(i) {
            Some(Cell::Tool(card)) => Some(card),
            _ => None,
        }
    }

    /// The card of sub-agent `agent`, to change.
    pub fn sub_agent_mut(&mut self, agent: &str) -> Option<&mut crate::subagent_card::SubAgentCard> {
        let i = self
            .cells
            .iter()
            .rposition(|c| matches!(c, Cell::SubAgent(card) if card.agent == agent))?;
        match self.get_mut(i) {
            Some(Cell::SubAgent(card)) => Some(card),
            _ => None,
        }
    }

    /// Marks the sub-agents still running as interrupted: their run was,
    /// and what they said after it is not waited for.
    pub fn interrupt_sub_agents(&mut self) {
        for i in 0..self.cells.len() {
            if let Cell::SubAgent(card) = &mut self.cells[i] {
                if card.is_running() {
                    let turns = card.turns;
                    card.finish("interrupted".into(), String::new(), turns);
                    self.layout[i] = None;
                }
            }
        }
    }

    /// Expands or folds every tool card and reasoning cell.
    pub fn toggle_expanded(&mut self, reasoning: bool) {
        for i in 0..self.cells.len() {
            let touched = match &mut self.cells[i] {
                Cell::Tool(card) if !reasoning => {
                    card.expanded = !card.expanded;
                    true
                }
                Cell::SubAgent(card) if !reasoning => {
                    card.expanded = !card.expanded;
                    true
                }
                Cell::Reasoning { expanded, .. } if reasoning => {
                    *expanded = !*expanded;
                    true
                }
                _ => false,
            };
            if touched {
                self.layout[i] = None;
            }
        }
    }

    pub fn clear(&mut self) {
        self.cells.clear();
        self.layout.clear();
    }

    /// The lines of cell `i` at `width`, laid out now if they are not.
    fn cell_lines(&mut self, i: usize, width: u16, spinner: char) -> &[Line<'static>] {
        let running = self.cells[i].is_running();
        let fresh = matches!(&self.layout[i], Some((w, _)) if *w == width) && !running;
        if !fresh {
            let mut lines = wrap::wrap_all(&self.cells[i].lines(spinner), width);
            // One blank line between cells.
            lines.push(Line::default());
            self.layout[i] = Some((width, lines));
        }
        match &self.layout[i] {
            Some((_, lines)) => lines,
            None => &[],
        }
    }

    /// The `height` lines that end `scroll` lines above the newest one,
    /// and whether there is more above them.
    pub fn visible(
        &mut self,
        width: u16,
        height: usize,
        scroll: usize,
        spinner: char,
    ) -> (Vec<Line<'static>>, bool) {
        let want = height + scroll;
        let mut taken: Vec<Line<'static>> = Vec::with_capacity(want);
        let mut i = self.cells.len();
        while i > 0 && taken.len() < want {
            i -= 1;
            let lines = self.cell_lines(i, width, spinner);
            let room = want - taken.len();
            taken.extend(lines.iter().rev().take(room).cloned());
        }
        let more_above = i > 0 || taken.len() > want;
        taken.reverse();
        let end = taken.len().saturating_sub(scroll);
        let start = end.saturating_sub(height);
        (taken[start..end].to_vec(), more_above && start == 0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_newest_lines_fill_the_bottom_and_scrolling_reaches_back() {
        let mut history = History::default();
        for i in 0..100 {
            history.push(Cell::User(format!("prompt {i}")));
        }
        // Each cell is its line and a blank one.
        let (lines, more) = history.visible(40, 4, 0, ' ');
        let texts: Vec<String> = lines.iter().map(|l| l.to_string()).collect();
        assert_eq!(texts, ["› prompt 98", "", "› prompt 99", ""]);
        assert!(more);
        let (lines, _) = history.visible(40, 2, 4, ' ');
        assert_eq!(lines[0].to_string(), "› prompt 97");
    }

    #[test]
    fn a_changed_cell_is_laid_out_again() {
        let mut history = History::default();
        history.push(Cell::Assistant("Hel".into()));
        history.visible(40, 10, 0, ' ');
        if let Some(Cell::Assistant(text)) = history.last_mut() {
            text.push_str("lo **there**");
        }
        let (lines, _) = history.visible(40, 10, 0, ' ');
        assert_eq!(lines[0].to_string(), "Hello there");
    }
}
