//! The driver's side of the drawer and the panes: opening them with the
//! App's state, routing keys to them, and carrying out what they ask
//! (enable, disable, grant, revoke, resume) through the App.

use std::str::FromStr;

use amber_runtime::Permission;
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

use super::Driver;
use crate::drawer::{self, Drawer};
use crate::choice_pane::{Choice, ChoicePane};
use crate::history::{Cell, NoticeKind};
use crate::pane::{PagePane, Pane, PaneAction};
use crate::plugin_view::{PluginRow, PluginView, LOG_TAIL};
use crate::session_picker::SessionPicker;

impl Driver {
    /// `/plugins` and `/sessions` alone open their views instead of
    /// printing a list; with more words they are ordinary commands.
    pub(super) fn open_view_for(&mut self, line: &str) -> bool {
        match super::words(line).as_slice() {
            ["plugins"] => self.open_plugins(),
            ["sessions"] => self.open_sessions(false),
            ["model"] => self.open_models(),
            ["diff"] => self.open_diff(),
            [view @ ("permissions" | "memory")] => {
                let line = format!("/{view}");
                let outcome = self.app.dispatch(&line);
                self.open_page(&line, &outcome.text());
            }
            _ => return false,
        }
        true
    }

    /// `/diff` in a pane, coloured as the cards' diffs are.
    fn open_diff(&mut self) {
        match self.app.dispatch("/diff") {
            amber_core::commands::Outcome::Ok { reply, .. } => {
                let lines = crate::cards::diff_lines(&amber_core::printable::printable_lines(
                    &reply.text,
                ));
                self.ui.pane = Some(Pane::Page(PagePane::styled(
                    "/diff · what this session changed",
                    lines,
                )));
            }
            other => self.ui.flash = Some(other.text()),
        }
    }

    /// `/model` alone: a picker of the models the presets name (the
    /// tree's `/model` choices); Enter runs `/model NAME`.
    fn open_models(&mut self) {
        let current = self.app.settings().model;
        let mut choices: Vec<Choice> = self
            .app
            .complete("/model ")
            .into_iter()
            .map(|c| Choice {
                line: format!("/model {}", c.name),
                name: c.name,
                help: c.help,
            })
            .collect();
        if !choices.iter().any(|c| c.name == current) {
            choices.insert(
                0,
                Choice {
                    line: format!("/model {current}"),
                    name: current.clone(),
                    help: "in use now".into(),
                },
            );
        }
        self.ui.pane = Some(Pane::Choose(ChoicePane::new(
            "/model · any other name: /model NAME",
            choices,
            &current,
        )));
    }

    /// A man page (`/help …`) in a scrollable pane; `/help` alone ends
    /// with the key table.
    pub(super) fn open_page(&mut self, line: &str, text: &str) {
        let text = if super::words(line) == ["help"] {
            format!("{text}\n{}", amber_app::keys::page())
        } else {
            text.to_string()
        };
        self.ui.pane = Some(Pane::Page(PagePane::new(line.trim(), &text)));
    }

    pub(super) fn open_plugins(&mut self) {
        let dir = self.app.plugin_dir().display().to_string();
        self.ui.pane = Some(Pane::Plugins(PluginView::new(self.plugin_rows(), dir)));
    }

    /// The picker; not while a turn runs (the session is in use).
    pub(super) fn open_sessions(&mut self, running: bool) {
        if running {
            self.ui.flash = Some("a turn is running: open another session after it".into());
            return;
        }
        let all = match amber_app::session::store(&self.app.dirs).list() {
            Ok(all) => all,
            Err(e) => {
                self.ui.flash = Some(format!("cannot list the sessions: {e}"));
                return;
            }
        };
        let workspace = self.workspace.display().to_string();
        let open = self
            .app
            .live()
            .map(|l| l.info.id.clone())
            .unwrap_or_default();
        self.ui.pane = Some(Pane::Sessions(SessionPicker::new(all, &workspace, &open)));
    }

    pub(super) fn plugin_rows(&self) -> Vec<PluginRow> {
        let runtime = self.app.manager().runtime();
        match self.app.manager().list() {
            Ok(plugins) => plugins
                .iter()
                .map(|p| {
                    let log = runtime.recent_log(&p.id, LOG_TAIL).unwrap_or_default();
                    PluginRow::from_listed(p, log)
                })
                .collect(),
            Err(_) => Vec::new(),
        }
    }

    /// A key while a pane is open; ctrl-c closes it as esc does.
    pub(super) fn pane_key(&mut self, key: KeyEvent, running: bool) {
        let ctrl_c =
            key.modifiers.contains(KeyModifiers::CONTROL) && key.code == KeyCode::Char('c');
        let action = match &mut self.ui.pane {
            _ if ctrl_c => PaneAction::Close,
            Some(pane) => pane.key(key),
            None => return,
        };
        self.ui.flash = None;
        match action {
            PaneAction::None => {}
            PaneAction::Close => self.ui.pane = None,
            PaneAction::Enable(id) => self.switch_plugin(&id, true),
            PaneAction::Disable(id) => self.switch_plugin(&id, false),
            PaneAction::Grant {
                id,
                permission,
                granted,
            } => self.grant(&id, &permission, granted),
            PaneAction::Resume(id) => self.resume(&id, running),
            PaneAction::Run(line) => {
                self.ui.pane = None;
                self.run_line(&line);
            }
        }
    }

    fn switch_plugin(&mut self, id: &str, enabled: bool) {
        let result = self.app.manager_mut().set_enabled(id, enabled);
        self.after_plugin_change(id, result.map(|_| ()).map_err(|e| e.to_string()));
    }

    fn grant(&mut self, id: &str, permission: &str, granted: bool) {
        let result = Permission::from_str(permission).and_then(|p| {
            self.app
                .manager_mut()
                .set_grant(id, p, granted)
                .map(|_| ())
                .map_err(|e| e.to_string())
        });
        self.after_plugin_change(id, result);
    }

    /// Says how a change went, in the view and the transcript, and shows
    /// the plugins as they are now. The command tree follows at once; the
    /// session's tools at the next turn.
    fn after_plugin_change(&mut self, id: &str, result: Result<(), String>) {
        self.app.refresh_feeds();
        let state = self
            .app
            .manager()
            .runtime()
            .state(id)
            .map(|s| s.to_string().to_lowercase())
            .unwrap_or_default();
        match result {
            Ok(()) => self.ui.notice(
                NoticeKind::Info,
                format!("plugin `{id}` is {state}; the next turn uses what it installs"),
            ),
            Err(e) => self.ui.flash = Some(format!("command error: {e}")),
        }
        let rows = self.plugin_rows();
        if let Some(Pane::Plugins(view)) = &mut self.ui.pane {
            view.refresh(rows);
        }
    }

    fn resume(&mut self, id: &str, running: bool) {
        if running {
            self.ui.flash = Some("a turn is running: open another session after it".into());
            return;
        }
        match self.app.resume_session(id) {
            Ok(_) => {
                self.ui.pane = None;
                super::show_session(&self.app, &mut self.ui);
                self.refresh_status();
            }
            Err(e) => self.ui.flash = Some(format!("cannot open session {id}: {e:#}")),
        }
    }

    /// A key the drawer takes while it is open; `false` leaves the key to
    /// the prompt editor (Enter is both: it completes, then sends).
    pub(super) fn drawer_key(&mut self, key: KeyEvent) -> bool {
        let Some(drawer) = &mut self.ui.drawer else {
            return false;
        };
        let plain = !key
            .modifiers
            .intersects(KeyModifiers::CONTROL | KeyModifiers::ALT | KeyModifiers::SHIFT);
        // Up and Down browse the prompts sent before once browsing began,
        // even onto a slash command.
        let browsing = self.ui.composer.is_browsing();
        match key.code {
            KeyCode::Up if !browsing => drawer.up(),
            KeyCode::Down if !browsing => drawer.down(),
            KeyCode::Tab if drawer.mention => {
                let chosen = drawer.chosen();
                self.ui.composer.replace_current_word(&chosen);
            }
            KeyCode::Enter if plain && drawer.mention => {
                // Enter takes the path; a second one sends.
                if drawer.typed_in_full() {
                    return false;
                }
                let chosen = drawer.chosen();
                self.ui.composer.replace_current_word(&chosen);
            }
            KeyCode::Tab => {
                let completed = drawer.completed();
                self.ui.composer.replace(&completed);
            }
            KeyCode::Esc => {
                self.ui.drawer_dismissed = Some(self.ui.composer.text());
                self.ui.drawer = None;
            }
            KeyCode::Enter if plain => {
                if drawer.completes_on_enter() {
                    let completed = drawer.completed();
                    self.ui.composer.replace(completed.trim_end());
                }
                return false;
            }
            _ => return false,
        }
        true
    }

    /// A command line a pane chose, run as if typed (no compaction or
    /// turn follows from a picker).
    fn run_line(&mut self, line: &str) {
        let outcome = self.app.dispatch(line);
        match &outcome {
            amber_core::commands::Outcome::Ok { .. } => self.ui.history.push(Cell::Command {
                line: line.to_string(),
                output: outcome.text(),
                ok: true,
            }),
            _ => self.ui.flash = Some(outcome.text()),
        }
        self.refresh_status();
    }

    /// Opens, follows or closes the drawer after the prompt changed.
    pub(super) fn update_drawer(&mut self) {
        let text = self.ui.composer.text();
        if self.ui.drawer_dismissed.as_deref() == Some(text.as_str()) {
            return;
        }
        self.ui.drawer_dismissed = None;
        let (word, _) = self.ui.composer.current_word();
        if let Some(query) = word.strip_prefix('@') {
            if self.ui.drawer.as_ref().is_some_and(|d| d.line == word) {
                return;
            }
            let candidates = amber_app::mentions::candidates(&self.workspace, query, 50)
                .into_iter()
                .map(|path| amber_core::commands::Candidate {
                    help: if path.ends_with('/') { "folder" } else { "file" }.into(),
                    name: format!("@{path}"),
                })
                .collect();
            self.ui.drawer = Drawer::mention(&word, candidates);
            return;
        }
        if !drawer::is_command_line(&text) {
            self.ui.drawer = None;
            return;
        }
        if self.ui.drawer.as_ref().is_some_and(|d| d.line == text) {
            return;
        }
        let candidates = self.app.complete(&text);
        self.ui.drawer = Drawer::new(&text, candidates);
    }
}
