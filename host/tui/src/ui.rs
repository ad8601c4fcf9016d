//! What the screen shows, and how the agent's events change it. Pure
//! state: no terminal, no App, so the views can be drawn into ratatui's
//! TestBackend for the snapshot tests.

use std::collections::VecDeque;

use amber_core::engine::{AgentEvent, DeltaKind};
use amber_core::ports::dialect::Usage;
use ratatui::layout::{Constraint, Layout, Position, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Paragraph};
use ratatui::Frame;
use unicode_width::UnicodeWidthStr;

use crate::cards::ToolCard;
use crate::composer::Composer;
use crate::dialog::Dialog;
use crate::drawer::Drawer;
use crate::history::{Cell, History, NoticeKind};
use crate::pane::Pane;
use crate::subagent_card::SubAgentCard;
use crate::theme;

const SPINNER: [char; 10] = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];

/// A token count in a few columns: 950, 12.3k, 4.1M.
fn count(n: u64) -> String {
    match n {
        0..=999 => n.to_string(),
        1_000..=999_999 => format!("{:.1}k", n as f64 / 1_000.0),
        _ => format!("{:.1}M", n as f64 / 1_000_000.0),
    }
}

/// The session id's tail (`20261205-051209-ab12` shows as `…ab12`): what
/// tells this session from the others in a list.
fn short_id(id: &str) -> String {
    match id.rsplit_once('-') {
        Some((_, tail)) if !tail.is_empty() => format!("…{tail}"),
        _ => id.to_string(),
    }
}

/// The status line's text, from the fullest to the shortest; the first
/// that fits is shown.
fn status_facts(s: &StatusInfo) -> Vec<String> {
    let context = s
        .context
        .map(|share| format!("context {:.0}%", share * 100.0));
    let join = |parts: Vec<Option<String>>| {
        let parts: Vec<String> = parts.into_iter().flatten().collect();
        format!(" {} ", parts.join(" · "))
    };
    let model = Some(format!("{} ({})", s.model, s.provider));
    let bare_model = Some(s.model.clone());
    let mode = Some(format!("mode {}", s.mode));
    let mode = match (&mode, s.jobs) {
        (Some(m), n) if n > 0 => Some(format!("{m} · jobs {n}")),
        _ => mode,
    };
    let tokens = Some(format!(
        "in {} (cached {}) out {}",
        count(s.tokens_in),
        count(s.tokens_cached),
        count(s.tokens_out)
    ));
    let few_tokens = Some(format!(
        "in {} out {}",
        count(s.tokens_in),
        count(s.tokens_out)
    ));
    let session = (!s.session.is_empty()).then(|| format!("session {}", s.session));
    let cost = s.cost.map(amber_core::engine::dollars);
    let short_session = (!s.session.is_empty()).then(|| short_id(&s.session));
    vec![
        join(vec![model.clone(), mode.clone(), tokens.clone(), cost.clone(), context.clone(), session]),
        join(vec![model.clone(), mode.clone(), tokens, cost.clone(), context.clone(), short_session.clone()]),
        join(vec![model.clone(), mode.clone(), few_tokens.clone(), cost.clone(), context.clone(), short_session.clone()]),
        join(vec![bare_model.clone(), mode.clone(), few_tokens.clone(), cost.clone(), context.clone(), short_session]),
        join(vec![bare_model.clone(), mode.clone(), few_tokens, cost.clone(), context.clone()]),
        join(vec![bare_model.clone(), mode.clone(), cost.clone(), context.clone()]),
        join(vec![bare_model.clone(), mode, context.clone()]),
        join(vec![bare_model, Some(s.mode.clone()), context]),
    ]
}

/// The status line's facts.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct StatusInfo {
    pub model: String,
    pub provider: String,
    pub mode: String,
    pub session: String,
    /// Tokens of this session: input (cached included), cached, output.
    pub tokens_in: u64,
    pub tokens_cached: u64,
    pub tokens_out: u64,
    /// The share of the context window in use, when the window is known.
    pub context: Option<f64>,
    /// The session's cost in US dollars, when the model has a price.
    pub cost: Option<f64>,
    /// Background processes running.
    pub jobs: usize,
}

#[derive(Default)]
pub struct Ui {
    pub history: History,
    pub composer: Composer,
    pub status: StatusInfo,
    pub dialog: Option<Dialog>,
    /// The command drawer, while a slash command is typed.
    pub drawer: Option<Drawer>,
    /// The drawer was closed (esc) for this text: it stays closed until
    /// the text changes.
    pub drawer_dismissed: Option<String>,
    /// A man page, the plugin view or the session picker, over the
    /// transcript.
    pub pane: Option<Pane>,
    /// A command's error, shown in the status line until the next key.
    pub flash: Option<String>,
    /// A turn (or a compaction) is running.
    pub running: bool,
    /// Lines scrolled up from the newest.
    pub scroll: usize,
    pub tick: usize,
    /// Ctrl-C on an empty prompt was pressed once; a second quits.
    pub quit_armed: bool,
    /// Prompts typed while a turn ran, sent in order after it.
    pub queued: VecDeque<String>,
    /// The session's todo list, and whether it shows whole (ctrl-g).
    pub todos: Vec<amber_core::engine::todo::Todo>,
    pub todo_panel: bool,
    /// A plan proposed in plan mode, waiting for "execute this plan?".
    pub plan: Option<String>,
    /// The question was on screen at the last draw: only then do its
    /// keys answer it.
    pub plan_asked: bool,
}

impl Ui {
    pub fn new() -> Self {
        Ui {
            composer: Composer::new(),
            ..Ui::default()
        }
    }

    pub fn notice(&mut self, kind: NoticeKind, text: impl Into<String>) {
        self.history.push(Cell::Notice {
            kind,
            text: text.into(),
        });
    }

    fn spinner(&self) -> char {
        SPINNER[self.tick % SPINNER.len()]
    }

    /// One event of the agent; `preview` is the diff a write or an edit
    /// would make, worked out before the call ran.
    pub fn apply(&mut self, event: AgentEvent, preview: Option<String>) {
        match event {
            AgentEvent::SessionStarted {
                session_id,
                provider,
                model,
                mode,
                resumed,
                warnings,
                ..
            } => {
                self.status.session = session_id.clone();
                self.status.provider = provider;
                self.status.model = model;
                self.status.mode = mode;
                let what = if resumed { "resumed" } else { "started" };
                self.notice(NoticeKind::Info, format!("session {session_id} {what}"));
                for warning in warnings {
                    self.notice(NoticeKind::Warning, warning);
                }
            }
            AgentEvent::MessageDelta { kind, text, .. } => self.delta(kind, &text),
            AgentEvent::ToolCall {
                id,
                name,
                arguments,
                ..
            } => self
                .history
                .push(Cell::Tool(ToolCard::new(id, name, arguments, preview))),
            AgentEvent::ToolResult {
                id,
                status,
                output,
                meta,
                ..
            } => {
                if let Some(card) = self.history.card_mut(&id) {
                    card.status = status.into();
                    card.output = output;
                    if let Some(diff) = meta
                        .as_ref()
                        .and_then(|m| m.get("diff"))
                        .and_then(|d| d.as_str())
                    {
                        card.diff = Some(diff.to_string());
                    }
                }
            }
            AgentEvent::TurnCompleted {
                usage, cost_usd, ..
            } => {
                self.count(&usage);
                self.spend(cost_usd);
            }
            AgentEvent::StreamRetry {
                attempt, reason, ..
            } => {
                // What streamed of this attempt belongs to no reply.
                if let Some(Cell::Assistant(_)) = self.history.cells().last() {
                    if let Some(Cell::Assistant(text)) = self.history.last_mut() {
                        text.clear();
                    }
                }
                self.notice(
                    NoticeKind::Warning,
                    format!("the stream broke off ({reason}); asking again (attempt {attempt})"),
                );
            }
            AgentEvent::Steer { message, .. } => self.notice(NoticeKind::Info, message),
            AgentEvent::Warning { message } => self.notice(NoticeKind::Warning, message),
            AgentEvent::ProtectedChanged { changes, .. } => {
                for change in changes {
                    self.notice(
                        NoticeKind::Warning,
                        format!("workspace guard: {}", change.describe()),
                    );
                }
            }
            AgentEvent::Hook(outcome) => {
                if let Some(line) = amber_app::hooks::describe(&outcome) {
                    let kind = if outcome.outcome == "failed" || outcome.denied {
                        NoticeKind::Warning
                    } else {
                        NoticeKind::Info
                    };
                    self.notice(kind, line);
                }
            }
            AgentEvent::CompactionStarted { tokens, window, .. } => {
                let share = if window > 0 {
                    format!(
                        " ({:.0}% of the window)",
                        tokens as f64 * 100.0 / window as f64
                    )
                } else {
                    String::new()
                };
                self.notice(
                    NoticeKind::Info,
                    format!("compacting the context: {tokens} tokens{share}…"),
                );
            }
            AgentEvent::CompactionCompleted {
                stats,
                memories,
                skills,
            } => self.notice(
                NoticeKind::Info,
                amber_app::compaction::completed(&stats, memories, skills),
            ),
            AgentEvent::CompactionFailed { reason } => self.notice(
                NoticeKind::Warning,
                format!("compaction failed, the context is unchanged: {reason}"),
            ),
            AgentEvent::SubAgentStarted {
                agent,
                profile,
                description,
                session_id,
                mode,
                ..
            } => self.history.push(Cell::SubAgent(SubAgentCard::new(
                agent,
                profile,
                description,
                mode,
                session_id,
            ))),
            AgentEvent::SubAgent { agent, event } => {
                if let Some(card) = self.history.sub_agent_mut(&agent) {
                    card.apply(&event);
                }
            }
            AgentEvent::SubAgentFinished {
                agent,
                outcome,
                text,
                turns,
                usage,
                cost_usd,
                ..
            } => {
                self.count(&usage);
                self.spend(cost_usd);
                if let Some(card) = self.history.sub_agent_mut(&agent) {
                    card.finish(outcome, text, turns);
                }
            }
            AgentEvent::PlanProposed { plan } => {
                self.history.push(Cell::Plan(plan.clone()));
                self.plan = Some(plan);
            }
            AgentEvent::TodoUpdated { todos } => self.todos = todos,
            // A new run answers any plan still asked about.
            AgentEvent::TurnStarted { .. } => self.plan = None,
            AgentEvent::SessionCompleted { .. }
            | AgentEvent::SessionFailed { .. } => {}
        }
    }

    fn delta(&mut self, kind: DeltaKind, text: &str) {
        let last = self.history.cells().last();
        match kind {
            DeltaKind::Text => {
                if matches!(last, Some(Cell::Assistant(_))) {
                    if let Some(Cell::Assistant(reply)) = self.history.last_mut() {
                        reply.push_str(text);
                    }
                } else {
                    self.history.push(Cell::Assistant(text.to_string()));
                }
            }
            DeltaKind::Reasoning => {
                if matches!(last, Some(Cell::Reasoning { .. })) {
                    if let Some(Cell::Reasoning { text: so_far, .. }) = self.history.last_mut() {
                        so_far.push_str(text);
                    }
                } else {
                    self.history.push(Cell::Reasoning {
                        text: text.to_string(),
                        expanded: false,
                    });
                }
            }
        }
    }

    /// Adds a call's cost to the status line's, while the session's is
    /// shown (its model has a price); the front end sets the exact figure
    /// from the session when the turn ends.
    fn spend(&mut self, cost: Option<f64>) {
        if let (Some(total), Some(more)) = (self.status.cost.as_mut(), cost) {
            *total += more;
        }
    }

    fn count(&mut self, usage: &Usage) {
        self.status.tokens_in += usage.input_tokens;
        self.status.tokens_cached += usage.cached_input_tokens;
        self.status.tokens_out += usage.output_tokens;
    }

    /// The status line, fitted to `width` columns: the model, the mode
    /// and the context gauge stay longest; the tokens, the provider and
    /// the session id (shortened first) give way, in that order.
    pub fn status_line(&self, width: u16) -> Line<'static> {
        let s = &self.status;
        let mut spans = Vec::new();
        let mut used = 0;
        if let Some(flash) = &self.flash {
            let text = format!(" {flash} ");
            used += text.width();
            spans.push(Span::styled(text, theme::flash()));
        }
        if self.running {
            let text = format!(" {} working · esc stops ", self.spinner());
            used += text.width();
            spans.push(Span::styled(text, theme::status_bar()));
        }
        let room = usize::from(width).saturating_sub(used);
        let facts = status_facts(s)
            .into_iter()
            .find(|f| f.width() <= room)
            .unwrap_or_else(|| {
                let short: String = format!(" {} · {} ", s.model, s.mode);
                crate::cards::shorten(&short, room.max(1))
            });
        spans.push(Span::styled(facts, theme::status_bar()));
        Line::from(spans)
    }

    /// Draws the whole screen: the transcript, the editor, the status
    /// line, and the dialog over them.
    pub fn draw(&mut self, frame: &mut Frame<'_>) {
        let area = frame.area();
        // At most half the screen (at least 3 rows), never all of it.
        let editor_height = (self.composer.lines().len() as u16 + 2)
            .min((area.height / 2).max(3))
            .min(area.height.saturating_sub(1));
        let todo_lines = crate::todo_view::lines(&self.todos, self.todo_panel, area.width);
        // The list gives way to the transcript on a small screen.
        let todo_height = (todo_lines.len() as u16).min(area.height.saturating_sub(editor_height + 1) / 3);
        let [transcript, todo, editor, status] = Layout::vertical([
            Constraint::Min(1),
            Constraint::Length(todo_height),
            Constraint::Length(editor_height),
            Constraint::Length(1),
        ])
        .areas(area);
        // The question takes the transcript's last rows, so the plan
        // above it stays in view.
        let asking = self.plan.is_some() && !self.running && transcript.height >= 6;
        self.plan_asked = asking;
        let (transcript, question) = if asking {
            let [above, question] =
                Layout::vertical([Constraint::Min(1), Constraint::Length(3)]).areas(transcript);
            (above, Some(question))
        } else {
            (transcript, None)
        };
        self.draw_transcript(frame, transcript);
        if todo_height > 0 {
            frame.render_widget(Paragraph::new(todo_lines), todo);
        }
        if let Some(question) = question {
            draw_plan_question(frame, question);
        }
        self.draw_editor(frame, editor);
        frame.render_widget(
            Paragraph::new(self.status_line(status.width)).style(theme::status_bar()),
            status,
        );
        if let Some(pane) = &mut self.pane {
            pane.draw(frame, transcript);
        } else if let Some(drawer) = &self.drawer {
            drawer.draw(frame, transcript);
        }
        if let Some(dialog) = &mut self.dialog {
            dialog.draw(frame, transcript);
        }
    }

    /// The prompts typed during a turn, dimmed under the transcript until
    /// they are sent.
    fn queued_lines(&self, width: u16) -> Vec<Line<'static>> {
        let lines: Vec<Line<'static>> = self
            .queued
            .iter()
            .map(|q| {
                let first = q.lines().next().unwrap_or_default();
                let more = q.lines().count().saturating_sub(1);
                let tail = if more > 0 {
                    format!(" (+{more} lines)")
                } else {
                    String::new()
                };
                Line::from(Span::styled(
                    format!("› {first}{tail}  (queued: sent after this turn)"),
                    theme::dim(),
                ))
            })
            .collect();
        crate::wrap::wrap_all(&lines, width)
    }

    fn draw_transcript(&mut self, frame: &mut Frame<'_>, area: Rect) {
        let spinner = self.spinner();
        let queued = self.queued_lines(area.width);
        // The queue takes at most a third of the transcript.
        let queued: Vec<Line<'static>> = queued
            .into_iter()
            .take(usize::from(area.height / 3))
            .collect();
        let area = Rect {
            height: area.height - queued.len() as u16,
            ..area
        };
        if !queued.is_empty() {
            let below = Rect {
                y: area.y + area.height,
                height: queued.len() as u16,
                ..area
            };
            frame.render_widget(Paragraph::new(queued), below);
        }
        let (lines, more) =
            self.history
                .visible(area.width, usize::from(area.height), self.scroll, spinner);
        // Scrolled past the top: back to where the first line shows.
        if lines.len() < usize::from(area.height) && self.scroll > 0 {
            self.scroll = self
                .scroll
                .saturating_sub(usize::from(area.height) - lines.len());
        }
        // The newest lines sit at the bottom.
        let pad = usize::from(area.height).saturating_sub(lines.len());
        let mut shown: Vec<Line<'static>> = vec![Line::default(); pad];
        shown.extend(lines);
        if more && self.scroll > 0 {
            if let Some(first) = shown.first_mut() {
                *first = Line::from(Span::styled("↑ more above (page up)", theme::dim()));
            }
        }
        frame.render_widget(Paragraph::new(shown), area);
    }

    fn draw_editor(&self, frame: &mut Frame<'_>, area: Rect) {
        let hint = if self.running {
            " a turn is running: enter queues the prompt "
        } else {
            " enter sends · shift-enter breaks the line · /help "
        };
        let block = Block::default()
            .borders(Borders::TOP | Borders::BOTTOM)
            .border_style(theme::dim())
            .title(Span::styled(hint, theme::dim()));
        let inner = block.inner(area);
        let lines: Vec<Line<'static>> = self
            .composer
            .lines()
            .iter()
            .enumerate()
            .map(|(i, l)| {
                let mark = if i == 0 { "› " } else { "  " };
                crate::tabs::expand_line(&Line::from(vec![
                    Span::styled(mark, theme::accent()),
                    Span::raw(l.clone()),
                ]))
            })
            .collect();
        // Keep the cursor's line in view.
        let (row, col) = self.composer.cursor();
        let height = usize::from(inner.height.max(1));
        let top = row.saturating_sub(height - 1);
        frame.render_widget(Paragraph::new(lines[top..].to_vec()).block(block), area);
        if self.dialog.is_none() {
            let x = inner.x + 2 + col as u16;
            let y = inner.y + (row - top) as u16;
            frame.set_cursor_position(Position::new(x.min(inner.right().saturating_sub(1)), y));
        }
    }
}

/// "Execute this plan?", in the three rows under the transcript.
fn draw_plan_question(frame: &mut Frame<'_>, question: Rect) {
    let block = Block::default()
        .borders(Borders::ALL)
        .border_style(theme::accent())
        .title(Span::styled(" execute this plan? ", theme::accent()));
    let text = Line::from(vec![
        Span::styled("y", theme::accent()),
        Span::raw(": yes, in write mode · "),
        Span::styled("a", theme::accent()),
        Span::raw(": yes, in yolo · "),
        Span::styled("n", theme::accent()),
        Span::raw(": no, keep planning"),
    ]);
    frame.render_widget(ratatui::widgets::Clear, question);
    frame.render_widget(Paragraph::new(text).block(block), question);
}
