//! The plugin view (`/plugins`, or ctrl-p): every plugin with its state,
//! what it installed, what it asked for and was granted, and the tail of
//! its log; enable, disable, grant and revoke from there. A change takes
//! effect for the next turn: the App rebuilds the command tree and the
//! session takes the ledger's tools and prompt blocks afresh.

use amber_core::printable::printable;
use amber_runtime::manager::ListedPlugin;
use amber_runtime::PluginState;
use crossterm::event::{KeyCode, KeyEvent};
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::Modifier;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Padding, Paragraph, Wrap};
use ratatui::Frame;

use crate::pane_frame::{frame_block, PaneAction};
use crate::theme;

/// Lines of a plugin's log the view shows.
pub const LOG_TAIL: usize = 6;

#[derive(Debug, Clone, PartialEq)]
pub struct PermissionRow {
    pub name: String,
    pub reason: String,
    pub granted: bool,
}

/// One plugin as the view shows it.
#[derive(Debug, Clone, PartialEq)]
pub struct PluginRow {
    pub id: String,
    pub version: String,
    pub state: PluginState,
    /// Why it failed, or what it waits for.
    pub reason: Option<String>,
    pub bundled: bool,
    /// What it installed, as `kind name`.
    pub capabilities: Vec<String>,
    pub permissions: Vec<PermissionRow>,
    pub log: Vec<String>,
    pub source: String,
}

impl PluginRow {
    pub fn from_listed(plugin: &ListedPlugin, log: Vec<String>) -> Self {
        let status = &plugin.status;
        PluginRow {
            id: plugin.id.clone(),
            version: plugin.version.clone(),
            state: status.state,
            reason: status.reason.clone(),
            bundled: plugin.bundled,
            capabilities: status
                .contributions
                .iter()
                .map(|c| format!("{} {}", c.kind, c.name))
                .collect(),
            permissions: status
                .manifest
                .permissions
                .iter()
                .map(|p| PermissionRow {
                    name: p.permission.as_str().to_string(),
                    // `http` says where it reaches.
                    reason: if p.hosts.is_empty() {
                        p.reason.clone()
                    } else {
                        format!("{} (hosts: {})", p.reason, p.hosts.join(", "))
                    },
                    granted: status.grants.has(p.permission),
                })
                .collect(),
            log,
            source: status.source.display().to_string(),
        }
    }
}

/// Which list the arrow keys move in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Focus {
    Plugins,
    Permissions,
}

pub struct PluginView {
    pub rows: Vec<PluginRow>,
    pub selected: usize,
    permission: usize,
    focus: Focus,
    /// Where plugins added with `amber plugin add` live (watched).
    pub plugin_dir: String,
}

impl PluginView {
    pub fn new(rows: Vec<PluginRow>, plugin_dir: String) -> Self {
        PluginView {
            rows,
            selected: 0,
            permission: 0,
            focus: Focus::Plugins,
            plugin_dir,
        }
    }

    /// New rows after a change, keeping the selection on the same plugin.
    pub fn refresh(&mut self, rows: Vec<PluginRow>) {
        let id = self.current().map(|r| r.id.clone());
        self.rows = rows;
        self.selected = id
            .and_then(|id| self.rows.iter().position(|r| r.id == id))
            .unwrap_or(0)
            .min(self.rows.len().saturating_sub(1));
        let n = self.current().map_or(0, |r| r.permissions.len());
        self.permission = self.permission.min(n.saturating_sub(1));
    }

    pub fn current(&self) -> Option<&PluginRow> {
        self.rows.get(self.selected)
    }

    pub fn key(&mut self, key: KeyEvent) -> PaneAction {
        let Some(row) = self.rows.get(self.selected) else {
            return match key.code {
                KeyCode::Char('q') => PaneAction::Close,
                _ => PaneAction::None,
            };
        };
        let id = row.id.clone();
        let permissions = row.permissions.len();
        match (key.code, self.focus) {
            (KeyCode::Char('q'), _) => return PaneAction::Close,
            (KeyCode::Char('e'), _) => return PaneAction::Enable(id),
            (KeyCode::Char('d'), _) => return PaneAction::Disable(id),
            (KeyCode::Tab, Focus::Plugins) if permissions > 0 => {
                self.focus = Focus::Permissions;
                self.permission = 0;
            }
            (KeyCode::Tab | KeyCode::BackTab, Focus::Permissions) => self.focus = Focus::Plugins,
            (KeyCode::Up, Focus::Plugins) => self.selected = self.selected.saturating_sub(1),
            (KeyCode::Down, Focus::Plugins) => {
                self.selected = (self.selected + 1).min(self.rows.len() - 1)
            }
            (KeyCode::Up, Focus::Permissions) => {
                self.permission = self.permission.saturating_sub(1)
            }
            (KeyCode::Down, Focus::Permissions) => {
                self.permission = (self.permission + 1).min(permissions.saturating_sub(1))
            }
            (KeyCode::Char(' ') | KeyCode::Char('g') | KeyCode::Char('r'), Focus::Permissions) => {
                if let Some(p) = row.permissions.get(self.permission) {
                    let granted = match key.code {
                        KeyCode::Char('g') => true,
                        KeyCode::Char('r') => false,
                        _ => !p.granted,
                    };
                    return PaneAction::Grant {
                        id,
                        permission: p.name.clone(),
                        granted,
                    };
                }
            }
            _ => {}
        }
        PaneAction::None
    }

    pub fn draw(&mut self, frame: &mut Frame<'_>, area: Rect) {
        let keys = match self.focus {
            Focus::Plugins => "↑↓ choose · e enable · d disable · tab permissions · esc closes",
            Focus::Permissions => {
                "↑↓ choose · space toggles (g grants, r revokes) · tab plugins · esc closes"
            }
        };
        let block = frame_block(&format!("plugins · {}", self.plugin_dir), keys);
        let inner = block.inner(area);
        frame.render_widget(block, area);
        let list_width = self
            .rows
            .iter()
            .map(|r| r.id.len() + 14)
            .max()
            .unwrap_or(20)
            .clamp(20, 36) as u16;
        let [list, detail] =
            Layout::horizontal([Constraint::Length(list_width), Constraint::Min(10)]).areas(inner);
        let items: Vec<Line<'static>> = self
            .rows
            .iter()
            .enumerate()
            .map(|(i, r)| {
                let text = format!(
                    " {:<w$} {}",
                    r.id,
                    state_word(r.state),
                    w = list_width as usize - 14
                );
                let style = if i == self.selected {
                    theme::selected()
                } else {
                    state_style(r.state)
                };
                Line::from(Span::styled(text, style))
            })
            .collect();
        frame.render_widget(Paragraph::new(items), list);
        if let Some(row) = self.current() {
            let lines = self.detail_lines(row);
            let divider = Block::default()
                .borders(Borders::LEFT)
                .border_style(theme::dim())
                .padding(Padding::left(1));
            frame.render_widget(
                Paragraph::new(lines)
                    .block(divider)
                    .wrap(Wrap { trim: false }),
                detail,
            );
        }
    }

    fn detail_lines(&self, row: &PluginRow) -> Vec<Line<'static>> {
        let mut lines = vec![Line::from(vec![
            Span::styled(row.id.clone(), theme::heading()),
            Span::raw(format!(" {} · ", row.version)),
            Span::styled(state_word(row.state).to_string(), state_style(row.state)),
            Span::styled(
                if row.bundled { " · bundled" } else { "" }.to_string(),
                theme::dim(),
            ),
        ])];
        if let Some(reason) = &row.reason {
            lines.push(Line::from(Span::styled(
                reason.clone(),
                state_style(row.state),
            )));
        }
        lines.push(Line::from(Span::styled(row.source.clone(), theme::dim())));
        lines.push(Line::default());
        lines.push(Line::from(Span::styled("installs", theme::heading())));
        if row.capabilities.is_empty() {
            lines.push(Line::from(Span::styled(
                "  nothing (not active)",
                theme::dim(),
            )));
        }
        lines.extend(
            row.capabilities
                .iter()
                .map(|c| Line::from(format!("  {c}"))),
        );
        lines.push(Line::default());
        lines.push(Line::from(Span::styled("permissions", theme::heading())));
        if row.permissions.is_empty() {
            lines.push(Line::from(Span::styled("  asks for none", theme::dim())));
        }
        for (i, p) in row.permissions.iter().enumerate() {
            let mark = if p.granted { "[x]" } else { "[ ]" };
            let mut style = if p.granted {
                theme::ok()
            } else {
                theme::warning()
            };
            if self.focus == Focus::Permissions && i == self.permission {
                style = theme::selected();
            }
            lines.push(Line::from(vec![
                Span::styled(format!("  {mark} {}", p.name), style),
                Span::styled(format!("  {}", printable(&p.reason)), theme::dim()),
            ]));
        }
        lines.push(Line::default());
        lines.push(Line::from(Span::styled("log", theme::heading())));
        if row.log.is_empty() {
            lines.push(Line::from(Span::styled("  (empty)", theme::dim())));
        }
        lines.extend(
            row.log
                .iter()
                // A plugin writes its log: escaped, never obeyed.
                .map(|l| Line::from(Span::styled(format!("  {}", printable(l)), theme::dim()))),
        );
        lines
    }
}

fn state_word(state: PluginState) -> &'static str {
    match state {
        PluginState::Registered => "registered",
        PluginState::Active => "active",
        PluginState::Deactivated => "deactivated",
        PluginState::Failed => "failed",
    }
}

fn state_style(state: PluginState) -> ratatui::style::Style {
    match state {
        PluginState::Active => theme::ok(),
        PluginState::Failed => theme::error().add_modifier(Modifier::BOLD),
        PluginState::Registered | PluginState::Deactivated => theme::dim(),
    }
}
