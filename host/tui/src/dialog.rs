//! The approval dialog: the same questions as `amber exec`'s, drawn over
//! the transcript. It shows who asks, the tool or command, the cwd, the
//! class and, for an edit or a write, the diff it would make; it offers
//! approve once, approve for the session (each scope the policy offers,
//! broadest first), or deny with an optional reason for the model.
//!
//! Its choices are a footer that stays on screen at any size the TUI
//! supports: the header above it is shortened, visibly, and the diff
//! between them scrolls (`o` shows it all), because a dialog whose
//! answers fell off a small terminal could only be answered blind.

use std::time::{Duration, Instant};

use amber_core::ports::{ApprovalRequest, Decision};
use amber_core::printable::{printable, printable_lines};
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::layout::Rect;
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear, Paragraph};
use ratatui::Frame;
use unicode_width::UnicodeWidthStr;

use crate::pane::{PagePane, PaneAction};
use crate::{cards, theme, wrap};

/// How long after it opens the dialog ignores letter keys: a key typed
/// for the prompt just as the dialog appeared must not answer it.
const SETTLE: Duration = Duration::from_millis(400);

/// Columns of a field's label (`command` and two spaces).
const LABEL: u16 = 9;

/// Rows of the diff the dialog keeps in view before it shortens the
/// header or compacts the choices.
const DIFF_ROWS: usize = 3;

/// The header's last row when not even a row per field fits.
const MORE: &str = "… o shows the whole request";

pub struct Dialog {
    pub request: ApprovalRequest,
    pub diff: Option<String>,
    opened: Instant,
    /// Where the answer goes; the asking tool thread waits on it.
    reply: Option<tokio::sync::oneshot::Sender<Decision>>,
    /// The diff wrapped for the width it was last drawn at.
    wrapped: Option<(u16, Vec<Line<'static>>)>,
    /// Diff rows scrolled past.
    scroll: usize,
    /// Diff rows the last draw showed, for page up and down.
    page: usize,
    /// Diff rows in all, wrapped, at the last draw.
    rows: usize,
    /// The reason being typed after `n`; `None` while choosing.
    reason: Option<String>,
    /// The request and its diff whole (`o`), over the dialog.
    pager: Option<PagePane>,
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
            opened: Instant::now(),
            reply: Some(reply),
            wrapped: None,
            scroll: 0,
            page: 0,
            rows: 0,
            reason: None,
            pager: None,
        }
    }

    /// Whether the dialog has been up long enough to take letter keys.
    pub fn settled(&self) -> bool {
        self.opened.elapsed() >= SETTLE
    }

    /// The decision a key means at once, if any: `y` once, `1`…`9` (and
    /// `a`, the broadest) a session scope, Esc declined. `n` means none
    /// by itself: it opens the reason prompt ([`Dialog::key`]).
    pub fn decision_for(&self, key: char) -> Option<Decision> {
        match key {
            'y' | 'Y' => Some(Decision::ApproveOnce),
            '\u{1b}' => Some(Decision::Declined { reason: None }),
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

    /// A key (Ctrl-C is the driver's). `Some` is the answer, to be sent
    /// with [`Dialog::answer`]; `None` means the dialog stays: it
    /// scrolled, opened or closed the pager, or edited the reason.
    pub fn key(&mut self, key: KeyEvent) -> Option<Decision> {
        let plain = !key
            .modifiers
            .intersects(KeyModifiers::CONTROL | KeyModifiers::ALT);
        if let Some(pager) = &mut self.pager {
            // Esc here goes back to the dialog; it does not deny.
            if key.code == KeyCode::Esc || pager.key(key) == PaneAction::Close {
                self.pager = None;
            }
            return None;
        }
        if let Some(reason) = &mut self.reason {
            match key.code {
                KeyCode::Enter => {
                    let text = reason.trim().to_string();
                    let reason = (!text.is_empty()).then_some(text);
                    return Some(Decision::Declined { reason });
                }
                KeyCode::Esc => return Some(Decision::Declined { reason: None }),
                KeyCode::Backspace => {
                    reason.pop();
                }
                KeyCode::Char(c) if plain && !c.is_control() => reason.push(c),
                _ => {}
            }
            return None;
        }
        match key.code {
            KeyCode::Esc => return self.decision_for('\u{1b}'),
            // Scrolling answers nothing, so it works at once.
            KeyCode::Up => self.scroll_to(self.scroll.saturating_sub(1)),
            KeyCode::Down => self.scroll_to(self.scroll.saturating_add(1)),
            KeyCode::PageUp => self.scroll_to(self.scroll.saturating_sub(self.page.max(1))),
            KeyCode::PageDown => self.scroll_to(self.scroll.saturating_add(self.page.max(1))),
            KeyCode::Home => self.scroll = 0,
            // The next draw, which knows the rows, brings it to the end.
            KeyCode::End => self.scroll = usize::MAX,
            // A key typed for the prompt as the dialog appeared does not
            // answer it.
            KeyCode::Char(c) if plain && self.settled() => match c {
                'n' | 'N' => self.reason = Some(String::new()),
                'o' | 'O' => self.pager = Some(PagePane::styled("approval request", self.whole())),
                'j' => self.scroll_to(self.scroll.saturating_add(1)),
                'k' => self.scroll_to(self.scroll.saturating_sub(1)),
                ' ' => self.scroll_to(self.scroll.saturating_add(self.page.max(1))),
                c => return self.decision_for(c),
            },
            _ => {}
        }
        None
    }

    /// Pasted text: into the reason, while one is typed (on one line).
    pub fn paste(&mut self, text: &str) {
        if let Some(reason) = &mut self.reason {
            let one_line = text.replace("\r\n", " ").replace(['\r', '\n'], " ");
            reason.extend(one_line.chars().filter(|c| !c.is_control()));
        }
    }

    /// Whether the pager (`o`) is open over the dialog.
    pub fn is_paging(&self) -> bool {
        self.pager.is_some()
    }

    /// Whether the reason prompt (`n`) is open.
    pub fn is_asking_reason(&self) -> bool {
        self.reason.is_some()
    }

    fn scroll_to(&mut self, to: usize) {
        self.scroll = to.min(self.rows.saturating_sub(self.page));
    }

    /// Sends the answer; the dialog is done.
    pub fn answer(mut self, decision: Decision) {
        if let Some(reply) = self.reply.take() {
            let _ = reply.send(decision);
        }
    }

    /// The header's fields as label and text: the arguments shortened,
    /// a command whole (its lines kept). All of it came from outside, so
    /// it is escaped to show what it holds.
    fn fields(&self) -> Vec<(&'static str, String)> {
        let r = &self.request;
        // Who asks shares the action's row: at 60×16 every row the header
        // keeps is one the diff loses.
        let mut fields = vec![(
            "action",
            format!("{} · from {}", printable(&r.action), printable(&r.requester)),
        )];
        let path = serde_json::from_str::<serde_json::Value>(&r.detail)
            .ok()
            .and_then(|args| args.get("path")?.as_str().map(String::from));
        if r.action.starts_with("exec") {
            fields.push(("command", printable_lines(r.detail.trim_end_matches('\n'))));
        } else if let (Some(path), true) = (path, self.diff.is_some()) {
            // The diff below shows what the rest of the arguments do.
            fields.push(("file", printable(&path)));
        } else {
            fields.push(("args", printable(&cards::short_arguments(&r.detail, 200))));
        }
        if let Some(cwd) = &r.cwd {
            fields.push(("cwd", printable(cwd)));
        }
        if let Some(class) = &r.class {
            fields.push(("class", printable(class)));
        }
        fields
    }

    /// The coloured diff, escaped like everything else from outside.
    fn diff_lines(&self) -> Vec<Line<'static>> {
        self.diff
            .as_deref()
            .map(|diff| cards::diff_lines(&printable_lines(diff)))
            .unwrap_or_default()
    }

    /// What the pager shows: every field, how it runs, and the diff.
    fn whole(&self) -> Vec<Line<'static>> {
        let mut fields = self.fields();
        if let Some(grants) = &self.request.grants {
            fields.push(("runs", printable(grants)));
        }
        let mut lines = Vec::new();
        for (label, value) in fields {
            for (i, text) in value.split('\n').enumerate() {
                lines.push(Line::from(vec![
                    lead(label, i == 0),
                    Span::raw(text.to_string()),
                ]));
            }
        }
        if self.diff.is_some() {
            lines.push(Line::default());
            lines.extend(self.diff_lines());
        }
        lines
    }

    /// The footer: the choices and how the command runs, or the reason
    /// prompt; `compact` for when rows are few.
    fn footer(&self, width: u16, compact: bool) -> Vec<Line<'static>> {
        if let Some(reason) = &self.reason {
            let prompt = if compact {
                "reason (optional), enter sends, esc denies: "
            } else {
                "deny · reason for the model (optional), enter sends, esc denies without one: "
            };
            let line = Line::from(vec![
                Span::styled(prompt, theme::warning()),
                Span::raw(reason.clone()),
                Span::styled("▏", theme::accent()),
            ]);
            return wrap::wrap(&line, width);
        }
        let mut out = Vec::new();
        if let Some(grants) = &self.request.grants {
            let rows = field_rows("runs", &printable(grants), width);
            if compact && rows.len() > 1 {
                if let Some(first) = rows.first() {
                    out.push(ellipsis(first, width));
                }
            } else {
                out.extend(rows);
            }
        }
        let scopes = self.request.scopes.iter().enumerate();
        if compact {
            let mut items = vec![("y".to_string(), "once".to_string())];
            items.extend(scopes.map(|(i, scope)| {
                let what = printable(&scope.describe());
                ((i + 1).to_string(), format!("session: {what}"))
            }));
            items.push(("n".into(), "deny".into()));
            out.extend(pack(items, width));
        } else {
            let mut choice = |k: &str, text: String| {
                let line = Line::from(vec![
                    Span::styled(format!(" {k} "), key_style()),
                    Span::raw(text),
                ]);
                out.extend(wrap::wrap(&line, width));
            };
            choice("y", "approve once".into());
            for (i, scope) in scopes {
                let what = printable(&scope.describe());
                choice(
                    &(i + 1).to_string(),
                    format!("approve for this session: {what}"),
                );
            }
            choice("n", "deny (esc)".into());
        }
        out
    }

    /// The dialog's rows for an inside of `width` × at most `height`:
    /// header, diff and footer. The footer is placed first and always
    /// whole (compact if need be), then the header (shortened with a
    /// visible `…` if need be), and the diff scrolls in what is left.
    fn layout(&mut self, width: u16, height: usize) -> Vec<Line<'static>> {
        if self.wrapped.as_ref().map(|(w, _)| *w) != Some(width) {
            let rows = wrap::wrap_all(&self.diff_lines(), width);
            self.wrapped = Some((width, rows));
        }
        let total = self.wrapped.as_ref().map_or(0, |(_, rows)| rows.len());
        let fields: Vec<Vec<Line<'static>>> = self
            .fields()
            .iter()
            .map(|(label, value)| field_rows(label, value, width))
            .collect();
        let header_rows: usize = fields.iter().map(Vec::len).sum();
        let full = self.footer(width, false);
        let compact = self.footer(width, true);
        let diff_want = if total <= DIFF_ROWS {
            total
        } else {
            DIFF_ROWS + 1
        };
        let gaps = if total > 0 { 2 } else { 1 };
        // The roomiest arrangement that shows the header whole and a few
        // rows of the diff; failing all, the header is shortened.
        let arrangements = [(&full, gaps), (&full, 0), (&compact, 0)];
        let chosen = arrangements
            .iter()
            .find(|(footer, gaps)| header_rows + footer.len() + gaps + diff_want <= height);
        let (footer, gaps, header) = match chosen {
            Some((footer, gaps)) => ((*footer).clone(), *gaps, fields.concat()),
            None => {
                let mut footer = compact.clone();
                // Too small even for the footer: its end (the choices, or
                // the reason's cursor) is what must show.
                let over = footer.len().saturating_sub(height);
                footer.drain(..over);
                let rest = height - footer.len();
                let diff_floor = total.min(2);
                let budget = if rest >= fields.len() + diff_want {
                    rest - diff_want
                } else {
                    fields.len().min(rest.saturating_sub(diff_floor))
                };
                (footer, 0, shorten(&fields, budget, width))
            }
        };
        let space = height.saturating_sub(header.len() + footer.len() + gaps);
        let mut out = header;
        if gaps > 0 {
            out.push(Line::default());
        }
        if total > 0 {
            out.extend(self.diff_view(total, space, width));
            if gaps > 1 {
                out.push(Line::default());
            }
        }
        out.extend(footer);
        out
    }

    /// The rows of the diff that fit in `space`, and under them, when not
    /// all do, where they are and how to see the rest.
    fn diff_view(&mut self, total: usize, space: usize, width: u16) -> Vec<Line<'static>> {
        self.rows = total;
        let Some((_, rows)) = &self.wrapped else {
            return Vec::new();
        };
        if total <= space {
            self.page = total;
            self.scroll = 0;
            return rows.clone();
        }
        let page = space.saturating_sub(1);
        self.page = page;
        self.scroll = self.scroll.min(total - page);
        let mut out: Vec<Line<'static>> =
            rows.iter().skip(self.scroll).take(page).cloned().collect();
        if space > 0 {
            out.push(scroll_line(self.scroll, page, total, width));
        }
        out
    }

    /// Draws the dialog over `area` (the transcript), or the pager over
    /// all of it while it is open.
    pub fn draw(&mut self, frame: &mut Frame<'_>, area: Rect) {
        if let Some(pager) = &mut self.pager {
            frame.render_widget(Clear, area);
            pager.draw(frame, area);
            return;
        }
        // A narrow terminal gives the dialog all but its edges.
        let margin = if area.width <= 60 { 2 } else { 4 };
        let width = area.width.saturating_sub(margin).min(100);
        let inner = width.saturating_sub(2).max(1);
        let lines = self.layout(inner, usize::from(area.height.saturating_sub(2)));
        let height = u16::try_from(lines.len())
            .unwrap_or(u16::MAX)
            .saturating_add(2)
            .min(area.height);
        let x = area.x + area.width.saturating_sub(width) / 2;
        let y = area.y + area.height.saturating_sub(height) / 2;
        let rect = Rect::new(x, y, width, height);
        frame.render_widget(Clear, rect);
        let block = Block::default()
            .borders(Borders::ALL)
            .border_style(theme::warning())
            .title(Span::styled(
                " approval needed ",
                theme::warning().add_modifier(Modifier::BOLD),
            ));
        frame.render_widget(Paragraph::new(lines).block(block), rect);
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

fn key_style() -> Style {
    theme::accent().add_modifier(Modifier::BOLD)
}

/// A field's label, or on its later lines the indent under it.
fn lead(label: &str, first: bool) -> Span<'static> {
    let width = usize::from(LABEL);
    if first {
        Span::styled(format!("{label:<width$}"), theme::dim())
    } else {
        Span::raw(" ".repeat(width))
    }
}

/// A field as rows of `width`: each line of its text wrapped under the
/// label, when there is room for a column beside it.
fn field_rows(label: &str, value: &str, width: u16) -> Vec<Line<'static>> {
    let hanging = width >= LABEL + 10;
    let mut out = Vec::new();
    for (i, text) in value.split('\n').enumerate() {
        if !hanging {
            let line = Line::from(vec![lead(label, i == 0), Span::raw(text.to_string())]);
            out.extend(wrap::wrap(&line, width));
            continue;
        }
        let pieces = wrap::wrap(&Line::from(text.to_string()), width - LABEL);
        for (j, piece) in pieces.into_iter().enumerate() {
            let mut spans = vec![lead(label, i == 0 && j == 0)];
            spans.extend(piece.spans);
            out.push(Line::from(spans));
        }
    }
    out
}

/// `row` cut to leave room for a `…` at its end, and the `…`.
fn ellipsis(row: &Line<'static>, width: u16) -> Line<'static> {
    let mut cut = wrap::wrap(row, width.saturating_sub(1))
        .into_iter()
        .next()
        .unwrap_or_default();
    cut.spans.push(Span::styled("…", theme::dim()));
    cut
}

/// The header in `budget` rows: a row for each field and the rest to
/// the fields in order; a field cut short ends in `…`. With fewer rows
/// than fields, the first fields and a row saying there is more.
fn shorten(fields: &[Vec<Line<'static>>], budget: usize, width: u16) -> Vec<Line<'static>> {
    if budget == 0 {
        return Vec::new();
    }
    if fields.len() > budget {
        let mut out: Vec<Line<'static>> = fields
            .iter()
            .take(budget - 1)
            .filter_map(|rows| rows.first().map(|row| ellipsis(row, width)))
            .collect();
        out.push(Line::from(Span::styled(MORE, theme::dim())));
        return out;
    }
    let mut extra = budget - fields.len();
    let mut out = Vec::new();
    for rows in fields {
        let take = rows.len().min(1 + extra);
        extra -= take.saturating_sub(1);
        if take >= rows.len() {
            out.extend(rows.iter().cloned());
        } else if let Some(last) = rows.get(take.saturating_sub(1)) {
            out.extend(rows.iter().take(take - 1).cloned());
            out.push(ellipsis(last, width));
        }
    }
    out
}

/// The choices on as few rows as fit: `y once · 1 session: … · n deny`.
/// A choice wider than a row wraps on rows of its own; none is dropped.
fn pack(items: Vec<(String, String)>, width: u16) -> Vec<Line<'static>> {
    let room = usize::from(width);
    let mut rows = Vec::new();
    let mut row: Vec<Span<'static>> = Vec::new();
    let mut used = 0;
    for (key, text) in items {
        let text = format!(" {text}");
        let item = key.width() + text.width();
        if !row.is_empty() && used + 3 + item > room {
            rows.push(Line::from(std::mem::take(&mut row)));
            used = 0;
        }
        if !row.is_empty() {
            row.push(Span::styled(" · ", theme::dim()));
            used += 3;
        }
        row.push(Span::styled(key, key_style()));
        row.push(Span::raw(text));
        used += item;
    }
    if !row.is_empty() {
        rows.push(Line::from(row));
    }
    wrap::wrap_all(&rows, width)
}

/// Where the shown rows are in the diff, and the keys that apply, as
/// much of it as fits in `width`.
fn scroll_line(scroll: usize, page: usize, total: usize, width: u16) -> Line<'static> {
    let range = if page == 0 {
        format!("{total} lines")
    } else {
        format!("lines {}–{} of {total}", scroll + 1, scroll + page)
    };
    let candidates = [
        format!("  {range} · ↑↓ pgup pgdn scroll · o opens it whole"),
        format!("  {range} · ↑↓ scroll · o opens it whole"),
        format!("  {range} · o opens it whole"),
        format!("{range} · o whole"),
    ];
    let text = candidates
        .into_iter()
        .find(|c| c.width() <= usize::from(width))
        .unwrap_or(range);
    Line::from(Span::styled(text, theme::dim()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use amber_core::ports::Scope;

    fn dialog(action: &str, detail: &str, diff: Option<String>) -> Dialog {
        let request = ApprovalRequest {
            requester: "model".into(),
            action: action.into(),
            detail: detail.into(),
            cwd: Some("/work/project".into()),
            class: Some("destructive".into()),
            scopes: vec![Scope::Kind("shell".into())],
            grants: Some("in the sandbox".into()),
            agent: "main".into(),
        };
        Dialog::new(request, diff, tokio::sync::oneshot::channel().0)
    }

    fn texts(lines: &[Line<'static>]) -> Vec<String> {
        lines.iter().map(|l| l.to_string()).collect()
    }

    fn long_diff(n: usize) -> String {
        let body: String = (1..=n).map(|i| format!("+line {i}\n")).collect();
        format!("--- a\n+++ a\n@@ -0,0 +1,{n} @@\n{body}")
    }

    #[test]
    fn everything_shows_when_it_fits() {
        let mut d = dialog("exec", "cargo test", Some(long_diff(2)));
        let rows = texts(&d.layout(70, 40));
        assert_eq!(rows[0], "action   exec · from model");
        assert_eq!(rows[1], "command  cargo test");
        assert!(rows.iter().any(|r| r == "  +line 2"));
        assert!(!rows.iter().any(|r| r.contains("lines 1–")), "{rows:?}");
        assert_eq!(rows[rows.len() - 4], "runs     in the sandbox");
        assert_eq!(rows[rows.len() - 3], " y approve once");
        assert_eq!(
            rows[rows.len() - 2],
            " 1 approve for this session: every `shell`"
        );
        assert_eq!(rows[rows.len() - 1], " n deny (esc)");
    }

    #[test]
    fn the_footer_wins_and_the_diff_scrolls() {
        let mut d = dialog("exec", "cargo test", Some(long_diff(80)));
        let rows = texts(&d.layout(56, 10));
        assert_eq!(rows.len(), 10);
        let footer = rows[rows.len() - 2..].join("\n");
        assert!(footer.contains("y once"), "{rows:?}");
        assert!(footer.contains("1 session: every `shell`"), "{rows:?}");
        assert!(footer.contains("n deny"), "{rows:?}");
        assert!(rows.iter().any(|r| r.contains("lines 1–")), "{rows:?}");
        d.key(KeyEvent::from(KeyCode::End));
        let rows = texts(&d.layout(56, 10));
        assert!(rows.iter().any(|r| r == "  +line 80"), "{rows:?}");
        d.key(KeyEvent::from(KeyCode::Home));
        let rows = texts(&d.layout(56, 10));
        assert!(rows.iter().any(|r| r.contains("@@ -0,0")), "{rows:?}");
    }

    #[test]
    fn a_long_command_is_shortened_visibly() {
        let command = "echo word ".repeat(100);
        let mut d = dialog("exec", &command, None);
        let rows = texts(&d.layout(56, 10));
        assert_eq!(rows.len(), 10);
        assert!(rows.iter().any(|r| r.ends_with('…')), "{rows:?}");
        assert!(rows.iter().any(|r| r.contains("n deny")), "{rows:?}");
        assert!(rows.iter().any(|r| r.starts_with("class")), "{rows:?}");
    }

    #[test]
    fn tabs_in_a_command_are_expanded() {
        let mut d = dialog("exec", "printf 'a\\tb'\n\techo", None);
        let rows = texts(&d.layout(70, 40));
        assert_eq!(rows[2], "                 echo");
    }

    #[test]
    fn n_asks_for_a_reason_and_esc_declines_without_one() {
        let mut d = dialog("exec", "rm -rf target", None);
        d.opened -= SETTLE;
        assert_eq!(d.key(KeyEvent::from(KeyCode::Char('n'))), None);
        assert!(d.is_asking_reason());
        let rows = texts(&d.layout(70, 40));
        assert!(
            rows.iter().any(|r| r.contains("reason for the model")),
            "{rows:?}"
        );
        assert_eq!(
            d.key(KeyEvent::from(KeyCode::Esc)),
            Some(Decision::Declined { reason: None })
        );
        let mut d = dialog("exec", "rm -rf target", None);
        d.opened -= SETTLE;
        d.key(KeyEvent::from(KeyCode::Char('n')));
        for c in "no!".chars() {
            d.key(KeyEvent::from(KeyCode::Char(c)));
        }
        d.key(KeyEvent::from(KeyCode::Backspace));
        assert_eq!(
            d.key(KeyEvent::from(KeyCode::Enter)),
            Some(Decision::Declined {
                reason: Some("no".into())
            })
        );
    }

    #[test]
    fn letters_wait_for_the_dialog_to_settle_but_esc_does_not() {
        let mut d = dialog("exec", "ls", None);
        assert_eq!(d.key(KeyEvent::from(KeyCode::Char('y'))), None);
        assert_eq!(d.key(KeyEvent::from(KeyCode::Char('n'))), None);
        assert!(!d.is_asking_reason());
        assert_eq!(
            d.key(KeyEvent::from(KeyCode::Esc)),
            Some(Decision::Declined { reason: None })
        );
        d.opened -= SETTLE;
        assert_eq!(
            d.key(KeyEvent::from(KeyCode::Char('y'))),
            Some(Decision::ApproveOnce)
        );
        assert_eq!(
            d.key(KeyEvent::from(KeyCode::Char('a'))),
            Some(Decision::ApproveForSession(Scope::Kind("shell".into())))
        );
        assert_eq!(d.key(KeyEvent::from(KeyCode::Char('2'))), None);
    }

    #[test]
    fn the_pager_closes_with_q_or_esc_without_answering() {
        let mut d = dialog("write_file", "{}", Some(long_diff(3)));
        d.opened -= SETTLE;
        d.key(KeyEvent::from(KeyCode::Char('o')));
        assert!(d.is_paging());
        assert_eq!(d.key(KeyEvent::from(KeyCode::Esc)), None);
        assert!(!d.is_paging());
        d.key(KeyEvent::from(KeyCode::Char('o')));
        assert_eq!(d.key(KeyEvent::from(KeyCode::Char('q'))), None);
        assert!(!d.is_paging());
    }

    #[test]
    fn compact_choices_fill_rows_and_drop_none() {
        let items = vec![
            ("y".to_string(), "once".to_string()),
            ("1".to_string(), "session: every `shell`".to_string()),
            ("n".to_string(), "deny".to_string()),
        ];
        assert_eq!(
            texts(&pack(items.clone(), 60)),
            ["y once · 1 session: every `shell` · n deny"]
        );
        assert_eq!(
            texts(&pack(items.clone(), 30)),
            ["y once", "1 session: every `shell`", "n deny"]
        );
        // Narrower than a choice: it wraps, and is still there.
        assert_eq!(
            texts(&pack(items, 12)),
            ["y once", "1 session:", "every", "`shell`", "n deny"]
        );
    }
}
