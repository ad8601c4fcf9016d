//! What every pane over the transcript shares: its frame, and what a key
//! in it asks of the driver. Apart from `pane.rs`, which holds the panes
//! themselves, so each pane's file depends on this one and not on the
//! others.

use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders};

use crate::theme;

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
    /// Run this command line, as if typed (a picker's choice).
    Run(String),
}

/// A titled frame with the pane's keys at the bottom.
pub fn frame_block(title: &str, keys: &str) -> Block<'static> {
    Block::default()
        .borders(Borders::ALL)
        .border_style(theme::dim())
        .title(Span::styled(format!(" {title} "), theme::heading()))
        .title_bottom(Line::from(Span::styled(format!(" {keys} "), theme::dim())))
}
