//! The todo list above the prompt: one compact line (how many are done,
//! and the item in progress), or, on ctrl-g, the whole list as a panel.

use amber_core::engine::todo::{Todo, TodoStatus};
use amber_core::printable::printable;
use ratatui::style::Modifier;
use ratatui::text::{Line, Span};

use crate::theme;

/// Rows the panel takes at most, its heading included.
pub const MAX_PANEL_ROWS: usize = 10;

/// The rows to show above the prompt: none for an empty list.
pub fn lines(todos: &[Todo], panel: bool, width: u16) -> Vec<Line<'static>> {
    if todos.is_empty() {
        return Vec::new();
    }
    let done = todos
        .iter()
        .filter(|t| t.status == TodoStatus::Completed)
        .count();
    let current = todos
        .iter()
        .find(|t| t.status == TodoStatus::InProgress)
        .or_else(|| todos.iter().find(|t| t.status == TodoStatus::Pending));
    let width = usize::from(width).max(10);
    if !panel {
        let now = current.map_or_else(
            || "all done".to_string(),
            |t| format!("{} {}", t.status.mark(), printable(&t.content)),
        );
        let text = format!(" todo {done}/{} · {now}", todos.len());
        let hint = "  (ctrl-g: the list)";
        let line = if text.chars().count() + hint.len() <= width {
            format!("{text}{hint}")
        } else {
            crate::cards::shorten(&text, width)
        };
        return vec![Line::from(Span::styled(line, theme::dim()))];
    }
    let mut rows = vec![Line::from(Span::styled(
        format!(
            " todo list: {done} of {} done (ctrl-g folds it)",
            todos.len()
        ),
        theme::accent().add_modifier(Modifier::BOLD),
    ))];
    // The item in progress stays in view when the list is long.
    let room = MAX_PANEL_ROWS - 1;
    let at = todos
        .iter()
        .position(|t| t.status == TodoStatus::InProgress)
        .unwrap_or(0);
    let start = at
        .saturating_sub(room / 2)
        .min(todos.len().saturating_sub(room));
    for todo in todos.iter().skip(start).take(room) {
        let style = match todo.status {
            TodoStatus::Completed => theme::dim().add_modifier(Modifier::CROSSED_OUT),
            TodoStatus::InProgress => theme::accent(),
            TodoStatus::Pending => ratatui::style::Style::new(),
        };
        let text = format!("  {} {}", todo.status.mark(), printable(&todo.content));
        rows.push(Line::from(Span::styled(
            crate::cards::shorten(&text, width),
            style,
        )));
    }
    rows
}

#[cfg(test)]
mod tests {
    use super::*;

    fn todo(id: &str, status: TodoStatus) -> Todo {
        Todo {
            id: id.into(),
            content: format!("step {id}"),
            status,
        }
    }

    #[test]
    fn the_line_counts_and_names_the_current_item_and_the_panel_lists_all() {
        let todos = vec![
            todo("1", TodoStatus::Completed),
            todo("2", TodoStatus::InProgress),
            todo("3", TodoStatus::Pending),
        ];
        let line = lines(&todos, false, 80)[0].to_string();
        assert_eq!(line, " todo 1/3 · [~] step 2  (ctrl-g: the list)");
        let panel: Vec<String> = lines(&todos, true, 80)
            .iter()
            .map(|l| l.to_string())
            .collect();
        assert_eq!(panel.len(), 4);
        assert_eq!(panel[3], "  [ ] step 3");
        assert!(lines(&[], true, 80).is_empty());
    }
}
