//! The approval dialog: the same questions as `amber exec`'s, drawn over
//! the transcript. It shows who asks, the tool or command, the cwd, the
//! class and, for an edit or a write, the diff it would make; it offers
//! approve once, approve for the session (each scope the policy offers,
//! broadest first), or deny. Esc denies.

use amber_core::ports::{ApprovalRequest, Decision};
use ratatui::layout::Rect;
use ratatui::style::Modifier;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear, Paragraph, Wrap};
use ratatui::Frame;

use crate::{cards, theme};

/// How long after it opens the dialog ignores letter keys: a key typed
/// for the prompt just as the dialog appeared must not answer it.
const SETTLE: std::time::Duration = std::time::Duration::from_millis(400);

pub struct Dialog {
    pub request: ApprovalRequest,
    pub diff: Option<String>,
    opened: std::time::Instant,
    /// Where the answer goes; the asking tool thread waits on it.
    reply: Option<tokio::sync::oneshot::Sender<Decision>>,
}

impl Dialog {
    pub fn new(
        request: ApprovalRequest,
        diff: Option<String>,
        reply: tokio::sync::oneshot::Sender<Decision>,
    ) -> Self {
        Dialog {
            request,
            diff,
            opened: std::time::Instant::now(),
            reply: Some(reply),
        }
    }

    /// Whether the dialog has been up long enough to take letter keys.
    pub fn settled(&self) -> bool {
        self.opened.elapsed() >= SETTLE
    }

    /// The decision a key means, if any: `y` once, `1`…`9` a session
    /// scope, `n` or Esc deny.
    pub fn decision_for(&self, key: char) -> Option<Decision> {
        match key {
            'y' | 'Y' => Some(Decision::ApproveOnce),
            'n' | 'N' | '\u{1b}' => Some(Decision::Deny),
            'a' | 'A' => self
                .request
                .scopes
                .first()
                .cloned()
                .map(Decision::ApproveForSession),
            d @ '1'..='9' => {
                let i = d as usize - '1' as usize;
                self.request
                    .scopes
                    .get(i)
                    .cloned()
                    .map(Decision::ApproveForSession)
            }
            _ => None,
        }
    }

    /// Sends the answer; the dialog is done.
    pub fn answer(mut self, decision: Decision) {
        if let Some(reply) = self.reply.take() {
            let _ = reply.send(decision);
        }
    }

    pub fn lines(&self) -> Vec<Line<'static>> {
        let r = &self.request;
        let field = |label: &str, value: String| {
            Line::from(vec![
                Span::styled(format!("{label:<9}"), theme::dim()),
                Span::raw(value),
            ])
        };
        let what = if r.action.starts_with("exec") {
            "command"
        } else {
            "args"
        };
        let mut lines = vec![
            field("from", r.requester.clone()),
            field("action", r.action.clone()),
        ];
        let detail = if what == "args" {
            cards::short_arguments(&r.detail, 200)
        } else {
            r.detail.clone()
        };
        lines.push(field(what, detail));
        if let Some(cwd) = &r.cwd {
            lines.push(field("cwd", cwd.clone()));
        }
        if let Some(class) = &r.class {
            lines.push(field("class", class.clone()));
        }
        if let Some(grants) = &r.grants {
            lines.push(field("runs", grants.clone()));
        }
        if let Some(diff) = &self.diff {
            lines.push(Line::default());
            lines.extend(cards::diff_lines(diff).into_iter().take(20));
        }
        lines.push(Line::default());
        let key = |k: &str, text: String| {
            Line::from(vec![
                Span::styled(
                    format!(" {k} "),
                    theme::accent().add_modifier(Modifier::BOLD),
                ),
                Span::raw(text),
            ])
        };
        lines.push(key("y", "approve once".into()));
        for (i, scope) in r.scopes.iter().enumerate() {
            lines.push(key(
                &(i + 1).to_string(),
                format!("approve for this session: {}", scope.describe()),
            ));
        }
        lines.push(key("n", "deny (esc)".into()));
        lines
    }

    pub fn draw(&self, frame: &mut Frame<'_>, area: Rect) {
        let lines = self.lines();
        let width = area.width.saturating_sub(4).min(100);
        let height = (lines.len() as u16 + 2).min(area.height.saturating_sub(2));
        let x = area.x + (area.width.saturating_sub(width)) / 2;
        let y = area.y + (area.height.saturating_sub(height)) / 2;
        let rect = Rect::new(x, y, width, height);
        frame.render_widget(Clear, rect);
        let block = Block::default()
            .borders(Borders::ALL)
            .border_style(theme::warning())
            .title(Span::styled(
                " approval needed ",
                theme::warning().add_modifier(Modifier::BOLD),
            ));
        frame.render_widget(
            Paragraph::new(lines)
                .block(block)
                .wrap(Wrap { trim: false }),
            rect,
        );
    }
}

impl Drop for Dialog {
    /// A dialog closed without an answer (the TUI quitting) denies.
    fn drop(&mut self) {
        if let Some(reply) = self.reply.take() {
            let _ = reply.send(Decision::Deny);
        }
    }
}
