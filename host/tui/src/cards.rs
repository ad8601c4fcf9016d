//! Tool cards: one per call, with the tool, its arguments in short, its
//! status, its output folded to a few lines (a key expands it), and for
//! edits and writes a coloured unified diff.

use amber_core::printable::printable;
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};

use crate::theme;

/// Output lines a folded card shows.
pub const FOLDED_LINES: usize = 4;
/// Diff lines a folded card shows.
pub const FOLDED_DIFF_LINES: usize = 12;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CardStatus {
    Running,
    Ok,
    Error,
    Denied,
}

impl From<amber_core::engine::Status> for CardStatus {
    fn from(status: amber_core::engine::Status) -> Self {
        use amber_core::engine::Status;
        match status {
            Status::Ok => CardStatus::Ok,
            Status::Error => CardStatus::Error,
            Status::Denied => CardStatus::Denied,
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct ToolCard {
    pub id: String,
    pub name: String,
    /// The arguments as the model wrote them (JSON text).
    pub arguments: String,
    pub status: CardStatus,
    pub output: String,
    /// A unified diff: the edit's, or a write's against the file before.
    pub diff: Option<String>,
    pub expanded: bool,
}

impl ToolCard {
    pub fn new(id: String, name: String, arguments: String, diff: Option<String>) -> Self {
        ToolCard {
            id,
            name,
            arguments,
            status: CardStatus::Running,
            output: String::new(),
            diff,
            expanded: false,
        }
    }

    pub fn lines(&self, spinner: char) -> Vec<Line<'static>> {
        let (mark, style) = match self.status {
            CardStatus::Running => (spinner.to_string(), theme::accent()),
            CardStatus::Ok => ("✓".into(), theme::ok()),
            CardStatus::Error => ("✗".into(), theme::error()),
            CardStatus::Denied => ("⊘".into(), theme::warning()),
        };
        let mut lines = vec![Line::from(vec![
            Span::styled(format!("{mark} "), style),
            // The name and arguments came from the model: escaped, so
            // the terminal shows them rather than obeying them.
            Span::styled(printable(&self.name), style.add_modifier(Modifier::BOLD)),
            Span::raw(" "),
            Span::styled(
                printable(&short_arguments(&self.arguments, 80)),
                theme::dim(),
            ),
        ])];
        if let Some(diff) = &self.diff {
            let limit = if self.expanded {
                usize::MAX
            } else {
                FOLDED_DIFF_LINES
            };
            lines.extend(fold(diff_lines(diff), limit));
        }
        let shown_output = self.status != CardStatus::Ok || self.diff.is_none();
        if shown_output && !self.output.trim().is_empty() {
            let limit = if self.expanded {
                usize::MAX
            } else {
                FOLDED_LINES
            };
            let body = self
                .output
                .trim_end()
                .lines()
                .map(|l| {
                    Line::from(vec![
                        Span::styled("  │ ", theme::dim()),
                        Span::styled(l.to_string(), output_style(self.status)),
                    ])
                })
                .collect();
            lines.extend(fold(body, limit));
        }
        lines
    }
}

fn output_style(status: CardStatus) -> Style {
    match status {
        CardStatus::Error => theme::error(),
        CardStatus::Denied => theme::warning(),
        _ => Style::new(),
    }
}

/// At most `limit` lines, and a line saying how many more there are.
fn fold(lines: Vec<Line<'static>>, limit: usize) -> Vec<Line<'static>> {
    if lines.len() <= limit {
        return lines;
    }
    let hidden = lines.len() - limit;
    let mut kept: Vec<Line<'static>> = lines.into_iter().take(limit).collect();
    kept.push(Line::from(Span::styled(
        format!("  … {hidden} more lines (ctrl-o expands)"),
        theme::dim(),
    )));
    kept
}

/// A unified diff, coloured: additions green, removals red, hunk headers
/// dim.
pub fn diff_lines(diff: &str) -> Vec<Line<'static>> {
    diff.lines()
        .filter(|l| !l.starts_with("---") && !l.starts_with("+++"))
        .map(|l| {
            let style = if l.starts_with('+') {
                theme::added()
            } else if l.starts_with('-') {
                theme::removed()
            } else if l.starts_with("@@") {
                theme::accent()
            } else {
                theme::dim()
            };
            Line::from(vec![
                Span::styled("  ", Style::new()),
                Span::styled(l.to_string(), style),
            ])
        })
        .collect()
}

/// The arguments on one line: `key=value` pairs of a JSON object, values
/// shortened, at most `max` characters.
pub fn short_arguments(arguments: &str, max: usize) -> String {
    let text = match serde_json::from_str::<serde_json::Value>(arguments) {
        Ok(serde_json::Value::Object(map)) => map
            .iter()
            .map(|(k, v)| {
                let value = match v {
                    serde_json::Value::String(s) => s.replace('\n', "⏎"),
                    other => other.to_string(),
                };
                format!("{k}={}", shorten(&value, 40))
            })
            .collect::<Vec<_>>()
            .join(" "),
        _ => arguments.replace('\n', " "),
    };
    shorten(&text, max)
}

pub fn shorten(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        return text.to_string();
    }
    let kept: String = text.chars().take(max.saturating_sub(1)).collect();
    format!("{kept}…")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arguments_are_shortened_to_one_line() {
        let args = r#"{"content":"line one\nline two"}"#;
        assert_eq!(short_arguments(args, 80), "content=line one⏎line two");
        assert_eq!(short_arguments("{\"a\":\"xxxxxxxxxx\"}", 6), "a=xxx…");
        assert_eq!(short_arguments("not json", 80), "not json");
    }

    #[test]
    fn output_folds_to_a_few_lines_and_expands() {
        let mut card = ToolCard::new("c1".into(), "shell".into(), "{}".into(), None);
        card.status = CardStatus::Ok;
        card.output = (1..=10).map(|i| format!("line {i}\n")).collect();
        let folded = card.lines('⠋');
        assert_eq!(folded.len(), 1 + FOLDED_LINES + 1);
        assert!(folded.last().unwrap().to_string().contains("6 more lines"));
        card.expanded = true;
        assert_eq!(card.lines('⠋').len(), 11);
    }
}
