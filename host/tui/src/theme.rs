//! The TUI's styles, in one place, so every view speaks the same colours.

use ratatui::style::{Color, Modifier, Style};

pub fn dim() -> Style {
    Style::new().fg(Color::DarkGray)
}

pub fn accent() -> Style {
    Style::new().fg(Color::Cyan)
}

pub fn heading() -> Style {
    Style::new().fg(Color::Cyan).add_modifier(Modifier::BOLD)
}

pub fn inline_code() -> Style {
    Style::new().fg(Color::Yellow)
}

pub fn link() -> Style {
    Style::new()
        .fg(Color::Blue)
        .add_modifier(Modifier::UNDERLINED)
}

pub fn user() -> Style {
    Style::new().fg(Color::White).add_modifier(Modifier::BOLD)
}

pub fn ok() -> Style {
    Style::new().fg(Color::Green)
}

pub fn error() -> Style {
    Style::new().fg(Color::Red)
}

pub fn warning() -> Style {
    Style::new().fg(Color::Yellow)
}

pub fn added() -> Style {
    Style::new().fg(Color::Green)
}

pub fn removed() -> Style {
    Style::new().fg(Color::Red)
}

pub fn status_bar() -> Style {
    Style::new().fg(Color::Black).bg(Color::Gray)
}

/// The selected row of a list (the drawer, the plugin view, the picker).
pub fn selected() -> Style {
    Style::default().add_modifier(Modifier::REVERSED)
}

/// A command's error in the status line.
pub fn flash() -> Style {
    Style::new().fg(Color::White).bg(Color::Red)
}
