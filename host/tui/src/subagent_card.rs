//! A sub-agent's card: one per `task` a sub-agent runs, its header naming
//! it (`task-1`, the custom agent, its mode), and its own tool calls
//! streaming inside as small cards. Folded, it shows its newest calls;
//! ctrl-o expands it with the tool cards.

use amber_core::engine::AgentEvent;
use amber_core::printable::printable;
use ratatui::style::Modifier;
use ratatui::text::{Line, Span};

use crate::cards::ToolCard;
use crate::theme;

/// Tool calls a folded card shows: the newest.
pub const FOLDED_CALLS: usize = 3;

#[derive(Debug, Clone, PartialEq)]
pub struct SubAgentCard {
    /// `task-1`: what its events are tagged with.
    pub agent: String,
    pub profile: Option<String>,
    pub description: String,
    pub mode: String,
    pub session: Option<String>,
    /// `None` while it runs; then `done`, `hard_stop`, `interrupted` or
    /// `failed`, with what it said.
    pub outcome: Option<(String, String)>,
    pub turns: u32,
    pub calls: Vec<ToolCard>,
    pub expanded: bool,
}

impl SubAgentCard {
    pub fn new(
        agent: String,
        profile: Option<String>,
        description: String,
        mode: String,
        session: Option<String>,
    ) -> Self {
        SubAgentCard {
            agent,
            profile,
            description,
            mode,
            session,
            outcome: None,
            turns: 0,
            calls: Vec::new(),
            expanded: false,
        }
    }

    pub fn is_running(&self) -> bool {
        self.outcome.is_none()
    }

    /// One of its own events: a call starts a card, a result fills it.
    pub fn apply(&mut self, event: &AgentEvent) {
        match event {
            AgentEvent::ToolCall {
                id,
                name,
                arguments,
                ..
            } => self.calls.push(ToolCard::new(
                id.clone(),
                name.clone(),
                arguments.clone(),
                None,
            )),
            AgentEvent::ToolResult {
                id, status, output, ..
            } => {
                if let Some(card) = self.calls.iter_mut().rev().find(|c| &c.id == id) {
                    card.status = (*status).into();
                    card.output = output.clone();
                }
            }
            AgentEvent::TurnCompleted { turn, .. } => self.turns = *turn,
            _ => {}
        }
    }

    pub fn finish(&mut self, outcome: String, text: String, turns: u32) {
        self.outcome = Some((outcome, text));
        self.turns = turns;
    }

    pub fn lines(&self, spinner: char) -> Vec<Line<'static>> {
        let (mark, style) = match self.outcome.as_ref().map(|(o, _)| o.as_str()) {
            None => (spinner.to_string(), theme::accent()),
            Some("done") => ("✓".into(), theme::ok()),
            Some("interrupted") => ("⊘".into(), theme::warning()),
            Some(_) => ("✗".into(), theme::error()),
        };
        let named = self
            .profile
            .as_ref()
            .map_or_else(String::new, |p| format!(" · agent {p}"));
        let about = if self.description.is_empty() {
            String::new()
        } else {
            format!(" — {}", self.description)
        };
        let state = match &self.outcome {
            None => format!("running, {} calls", self.calls.len()),
            Some((outcome, _)) => format!(
                "{} after {} model calls",
                outcome.replace('_', " "),
                self.turns
            ),
        };
        let mut lines = vec![Line::from(vec![
            Span::styled(format!("{mark} "), style),
            Span::styled(
                format!("sub-agent {}", self.agent),
                style.add_modifier(Modifier::BOLD),
            ),
            // The description and the agent's name are the model's and
            // the workspace's words: escaped.
            Span::styled(
                printable(&format!("{named} ({} mode){about}", self.mode)),
                theme::dim(),
            ),
            Span::styled(format!("  {state}"), theme::dim()),
        ])];
        let shown = if self.expanded {
            0
        } else {
            self.calls.len().saturating_sub(FOLDED_CALLS)
        };
        if shown > 0 {
            lines.push(Line::from(Span::styled(
                format!("  ┆ {shown} earlier calls (ctrl-o expands)"),
                theme::dim(),
            )));
        }
        for call in &self.calls[shown..] {
            let mut call = call.clone();
            call.expanded = self.expanded;
            for line in
                call.lines(spinner)
                    .into_iter()
                    .take(if self.expanded { usize::MAX } else { 1 })
            {
                let mut spans = vec![Span::styled("  ┆ ", theme::dim())];
                spans.extend(line.spans);
                lines.push(Line::from(spans));
            }
        }
        if let (Some((outcome, text)), true) = (&self.outcome, self.expanded) {
            if outcome != "done" && !text.is_empty() {
                lines.push(Line::from(Span::styled(
                    format!("  ┆ {}", printable(text)),
                    theme::warning(),
                )));
            }
        }
        if let (Some(session), true) = (&self.session, self.expanded) {
            lines.push(Line::from(Span::styled(
                format!("  ┆ session {session} (amber sessions show {session})"),
                theme::dim(),
            )));
        }
        lines
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn call(id: &str) -> AgentEvent {
        AgentEvent::ToolCall {
            turn: 1,
            id: id.into(),
            name: "read_file".into(),
            arguments: format!(r#"{{"path":"{id}.txt"}}"#),
        }
    }

    #[test]
    fn a_folded_card_shows_its_newest_calls_and_a_finished_one_says_how_it_ended() {
        let mut card = SubAgentCard::new(
            "task-1".into(),
            Some("reviewer".into()),
            "check the docs".into(),
            "read".into(),
            Some("s1".into()),
        );
        for id in ["a", "b", "c", "d", "e"] {
            card.apply(&call(id));
        }
        let text: Vec<String> = card.lines('⠋').iter().map(|l| l.to_string()).collect();
        assert!(
            text[0].contains("sub-agent task-1 · agent reviewer (read mode) — check the docs"),
            "{text:?}"
        );
        assert!(text[0].contains("running, 5 calls"), "{text:?}");
        assert!(text[1].contains("2 earlier calls"), "{text:?}");
        assert_eq!(text.len(), 2 + FOLDED_CALLS);
        assert!(text[4].contains("path=e.txt"), "{text:?}");
        card.finish("done".into(), "all good".into(), 3);
        card.expanded = true;
        let text: Vec<String> = card.lines('⠋').iter().map(|l| l.to_string()).collect();
        assert!(
            text[0].starts_with("✓ sub-agent task-1")
                && text[0].contains("done after 3 model calls")
        );
        assert!(text.last().unwrap().contains("amber sessions show s1"));
    }
}
