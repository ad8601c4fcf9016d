//! The loop: one App (runtime, ledger, policy, session) for the whole
//! run, many turns. Between turns it waits for keys; a turn runs on a
//! task of its own with the session taken out of the App, while the loop
//! keeps drawing, streams the turn's events in, answers approvals and
//! turns Ctrl-C into an interrupt. Slash commands dispatch through the
//! App's command tree.

use std::path::PathBuf;
use std::time::Duration;

use amber_app::{App, Live};
use amber_core::commands::{Effect, Outcome as CommandOutcome};
use amber_core::engine::{
    AgentError, AgentEvent, CompactionOutcome, Interrupt, Outcome, RunReport,
};
use anyhow::Result;
use crossterm::event::{Event, EventStream, KeyCode, KeyEvent, KeyEventKind, KeyModifiers};
use futures_util::StreamExt;
use tokio::sync::mpsc::{unbounded_channel, UnboundedReceiver};

mod panes;
mod reload;

use crate::approver::Ask;
use crate::dialog::Dialog;
use crate::history::{Cell, NoticeKind};
use amber_app::preview;
use crate::terminal::Tty;
use crate::ui::Ui;

/// The benchmark hook (`cargo xtask bench tui`): with this set to a file,
/// the TUI writes its run report there right after the first frame (its
/// resident memory, the plugins it loaded: `amber_app::run_report`) and
/// quits, so start-up to first frame and its footprint are measured on
/// the real binary in a real terminal.
pub const FIRST_FRAME_REPORT: &str = "AMBER_TUI_FIRST_FRAME_REPORT";

/// The words of a slash-command line, its slash left out.
fn words(line: &str) -> Vec<&str> {
    line.trim_start_matches('/').split_whitespace().collect()
}

/// Interrupts the running turn and kills the commands it started (their
/// process groups), as `amber exec` does on Ctrl-C.
fn stop(interrupt: &Interrupt) {
    interrupt.fire();
    amber_runtime::imports::exec::kill_running();
}

/// The open session on a fresh screen: a resumed one's conversation
/// first (`App::transcript`), then its start, and its counters as they
/// were.
fn show_session(app: &App, ui: &mut Ui) {
    let Some(live) = app.live() else {
        return;
    };
    ui.history.clear();
    ui.status = Default::default();
    match app.transcript() {
        Ok(replayed) => {
            for cell in crate::replay::cells(replayed) {
                ui.history.push(cell);
            }
        }
        Err(e) => ui.notice(
            NoticeKind::Warning,
            format!("cannot show the session's earlier turns: {e:#}"),
        ),
    }
    ui.apply(live.started.clone(), None);
    ui.todos = live.agent.todos().map(|t| t.items()).unwrap_or_default();
    ui.plan = None;
    let usage = live.agent.total_usage();
    ui.status.tokens_in = usage.input_tokens;
    ui.status.tokens_cached = usage.cached_input_tokens;
    ui.status.tokens_out = usage.output_tokens;
}

/// How long an Enter waits for a key behind it. A terminal that does not
/// bracket a paste (tmux's `paste-buffer` without `-p`, some SSH clients)
/// sends its line breaks as CR, the Enter key: a paste's next character
/// follows within a millisecond or two, a person's much later.
const PASTE_GAP: Duration = Duration::from_millis(15);

/// Two Esc presses this close together on an idle prompt are one gesture.
const DOUBLE_ESC: Duration = Duration::from_millis(800);

/// What a key asks of the loop.
enum Action {
    None,
    Send(String),
    Quit,
}

/// What runs on the session's task.
enum Job {
    Turn(String),
    Compact(Option<String>),
    /// `!command`: the person's own command, through the shell tool.
    Shell(String),
    /// A command file's prompt: trust, its commands, then a turn.
    Prompt(amber_core::commands::PromptEffect),
}

/// What the job gave back.
enum Done {
    Turn(Result<RunReport, AgentError>),
    Compact(Result<CompactionOutcome, AgentError>),
    /// The command and what the shell tool said.
    Shell(String, Result<String, String>),
    /// A command's prompt was not sent, and why.
    Refused(String),
}

/// The command of a `!command` line, if it is one.
fn bang_command(text: &str) -> Option<String> {
    let command = text.trim_start().strip_prefix('!')?.trim();
    (!command.is_empty()).then(|| command.to_string())
}

/// Output of a `!command` the model is given at most, in bytes.
const MAX_BANG_OUTPUT: usize = 32 * 1024;

/// The shell tool run on `command`, as the model's calls run it: its
/// `exec` import asks the policy about the exact command and runs it in
/// the sandbox. Blocking: on the blocking pool.
fn run_shell(tool: Option<std::sync::Arc<dyn amber_core::ports::Tool>>, command: &str) -> Result<String, String> {
    let Some(tool) = tool else {
        return Err("no `shell` tool is enabled (amber plugin list shows the plugins)".into());
    };
    let args = serde_json::json!({ "command": command });
    tool.call(&args)
        .map(|out| out.content)
        .map_err(|e| e.to_string())
}

pub struct Driver {
    app: App,
    ui: Ui,
    asks: UnboundedReceiver<Ask>,
    workspace: PathBuf,
    /// Quit once the running turn has stopped.
    quit_after_turn: bool,
    /// The mode changed while a turn ran: recorded when it ends.
    mode_to_record: bool,
    /// When Esc was last pressed on an idle prompt (Esc Esc: rewind).
    last_esc: Option<std::time::Instant>,
    /// An Enter held until [`PASTE_GAP`] passes with no key behind it.
    enter_at: Option<tokio::time::Instant>,
    /// Images pasted since the last prompt: a turn may be running (the
    /// agent is away), so they wait here for the next prompt.
    pasted_images: Vec<amber_core::ports::Image>,
    /// Wakes the loop when the plugin directory changes (live reload).
    reloads: UnboundedReceiver<()>,
    _watcher: Option<amber_app::watch::PluginWatcher>,
}

impl Driver {
    /// The loop over `app`; `first_prompt` (`amber "fix the tests"`) is
    /// sent once the screen is up.
    pub fn new(app: App, asks: UnboundedReceiver<Ask>, first_prompt: Option<String>) -> Self {
        let workspace = app.project.root.clone();
        let mut ui = Ui::new();
        show_session(&app, &mut ui);
        ui.queued.extend(first_prompt);
        let mut driver = Driver {
            app,
            ui,
            asks,
            workspace,
            quit_after_turn: false,
            mode_to_record: false,
            last_esc: None,
            enter_at: None,
            pasted_images: Vec::new(),
            // Replaced once the first frame is up (see `run`).
            reloads: unbounded_channel().1,
            _watcher: None,
        };
        driver.refresh_status();
        driver
    }

    /// The status line from the App: settings, session and context use.
    fn refresh_status(&mut self) {
        let settings = self.app.settings();
        let status = &mut self.ui.status;
        status.model = settings.model;
        status.provider = settings.provider;
        status.mode = settings.policy.as_str().to_string();
        // Out of plan mode, no plan waits for an answer.
        if settings.policy != amber_core::engine::Mode::Plan {
            self.ui.plan = None;
        }
        if let Some(live) = self.app.live() {
            status.session = live.info.id.clone();
            // A cost only for a model with a price: tokens alone otherwise.
            status.cost = live
                .agent
                .config()
                .price
                .and_then(|_| live.agent.total_cost());
            status.jobs = live.jobs.running();
            let usage = live.agent.context_usage();
            status.context = (usage.window > 0).then(|| usage.utilisation());
        }
    }

    pub async fn run(mut self, term: &mut Tty) -> Result<()> {
        let mut events = EventStream::new();
        let mut signals = amber_app::stop_signals::StopSignals::new();
        term.draw(|frame| self.ui.draw(frame))?;
        if let Some(report) = std::env::var_os(FIRST_FRAME_REPORT) {
            return Ok(amber_app::run_report::write(
                &self.app,
                std::path::Path::new(&report),
                false,
            )?);
        }
        // Live reload starts once the screen is up: watching the plugin
        // directory is no part of the first frame.
        let (watcher, reloads, problem) = reload::watch(&self.app.plugin_dir());
        self.reloads = reloads;
        self._watcher = watcher;
        if let Some(problem) = problem {
            self.ui.notice(NoticeKind::Warning, problem);
        }
        loop {
            term.draw(|frame| self.ui.draw(frame))?;
            let action = match self.ui.queued.pop_front() {
                Some(prompt) => Action::Send(prompt),
                None => tokio::select! {
                    event = events.next() => match event {
                        Some(Ok(event)) => self.on_event(event, None),
                        Some(Err(e)) => return Err(e.into()),
                        None => Action::Quit,
                    },
                    Some(ask) = self.asks.recv() => {
                        self.open_dialog(ask);
                        Action::None
                    }
                    Some(()) = self.reloads.recv() => {
                        self.plugin_dir_changed().await;
                        Action::None
                    }
                    () = Self::held_enter(self.enter_at) => self.fire_enter(false),
                    _ = signals.recv() => Action::Quit,
                },
            };
            match action {
                Action::None => {}
                Action::Quit => {
                    self.app.end_session("exit");
                    return Ok(());
                }
                Action::Send(text) => {
                    if self.is_command(&text) {
                        self.command(text.trim(), term, &mut events, &mut signals)
                            .await?;
                    } else if let Some(command) = bang_command(&text) {
                        self.job(Job::Shell(command), term, &mut events, &mut signals)
                            .await?;
                    } else {
                        self.ui.history.push(Cell::User(text.clone()));
                        self.attach_mentions(&text);
                        self.job(Job::Turn(text), term, &mut events, &mut signals)
                            .await?;
                    }
                    crate::terminal::repair(term)?;
                    if self.quit_after_turn {
                        // `/quit` ends the session as Ctrl-D does: its
                        // end hooks run and its tools' use is counted.
                        self.app.end_session("exit");
                        return Ok(());
                    }
                }
            }
        }
    }

    /// Whether `text` is a slash command: `/` and a command the tree has,
    /// so a prompt that starts with a path (`/etc/hosts is wrong…`) goes
    /// to the model.
    fn is_command(&mut self, text: &str) -> bool {
        let Some(rest) = text.trim_start().strip_prefix('/') else {
            return false;
        };
        let root = rest.split_whitespace().next().unwrap_or_default();
        !root.is_empty() && self.app.tree().child(root).is_some()
    }

    /// A slash command; its effect, if any, follows.
    async fn command(
        &mut self,
        line: &str,
        term: &mut Tty,
        events: &mut EventStream,
        signals: &mut amber_app::stop_signals::StopSignals,
    ) -> Result<()> {
        if self.open_view_for(line) {
            return Ok(());
        }
        let outcome = self.app.dispatch(line);
        let is_help = words(line).first() == Some(&"help");
        match &outcome {
            CommandOutcome::Man { text, .. } => {
                self.open_page(line, text);
                return Ok(());
            }
            CommandOutcome::Ok { reply, .. } if is_help => {
                self.open_page(line, &reply.text);
                return Ok(());
            }
            CommandOutcome::Unknown { message, .. } | CommandOutcome::Error { message, .. } => {
                self.ui.flash = Some(message.clone());
                self.refresh_status();
                return Ok(());
            }
            CommandOutcome::Ok { .. } => {}
        }
        let said = Cell::Command {
            line: line.to_string(),
            output: outcome.text(),
            ok: true,
        };
        self.ui.history.push(said.clone());
        if let CommandOutcome::Ok { reply, .. } = outcome {
            match reply.effect {
                Effect::None => {}
                Effect::Quit => self.quit_after_turn = true,
                // The other session's turns, then what the command said.
                Effect::Switched => {
                    show_session(&self.app, &mut self.ui);
                    self.ui.history.push(said);
                }
                Effect::Clear => {
                    self.ui.history.clear();
                    self.ui.status = Default::default();
                    if let Some(live) = self.app.live() {
                        self.ui.apply(live.started.clone(), None);
                    }
                }
                Effect::Compact { focus } => {
                    self.job(Job::Compact(focus), term, events, signals).await?;
                }
                Effect::Prompt(effect) => {
                    self.job(Job::Prompt(effect), term, events, signals).await?;
                }
            }
        }
        self.refresh_status();
        crate::terminal::repair(term)?;
        Ok(())
    }

    /// Runs a turn or a compaction on the session's own task, drawing,
    /// streaming and answering approvals until it ends.
    async fn job(
        &mut self,
        job: Job,
        term: &mut Tty,
        events: &mut EventStream,
        signals: &mut amber_app::stop_signals::StopSignals,
    ) -> Result<()> {
        if self.app.live().is_none() {
            // The last one was lost (a failed turn or /clear): a new one.
            match self.app.new_session() {
                Ok(started) => {
                    let started = started.clone();
                    self.ui.apply(started, None);
                }
                Err(e) => {
                    self.ui
                        .notice(NoticeKind::Error, format!("cannot start a session: {e:#}"));
                    return Ok(());
                }
            }
        }
        let Some(mut live) = self.app.take_live() else {
            return Ok(());
        };
        // The servers left out of the first request, said before it goes.
        for note in self.app.mcp_notes() {
            self.ui.notice(NoticeKind::Warning, note);
        }
        let interrupt = live.agent.interrupt().clone();
        let (tx, mut rx) = unbounded_channel::<(AgentEvent, Option<String>)>();
        let workspace = self.workspace.clone();
        let shell = self.app.manager().runtime().ledger().tool("shell");
        let dirs = self.app.dirs.clone();
        if let Job::Shell(command) = &job {
            self.ui.history.push(Cell::Tool(crate::cards::ToolCard::new(
                "!".into(),
                "!".into(),
                serde_json::json!({ "command": command }).to_string(),
                None,
            )));
        }
        let mut task = tokio::spawn(async move {
            let mut sink = |event: AgentEvent| {
                // The file as it is before the call runs: the card's diff.
                let preview = match &event {
                    AgentEvent::ToolCall {
                        name, arguments, ..
                    } if name == "write_file" => preview::diff(&workspace, name, arguments),
                    _ => None,
                };
                let _ = tx.send((event, preview));
            };
            let done = match job {
                Job::Turn(prompt) => Done::Turn(live.agent.run(&prompt, &mut sink).await),
                Job::Compact(focus) => {
                    Done::Compact(live.agent.compact_now(focus.as_deref(), &mut sink).await)
                }
                Job::Prompt(effect) => {
                    let cancel = live.agent.interrupt().current();
                    let policy = live.agent.policy().clone();
                    let root = workspace.clone();
                    let ready = amber_core::blocking::run(&cancel, move || {
                        amber_app::prompt_effect::realize(&effect, &policy, shell, &dirs, &root)
                    })
                    .await;
                    match ready {
                        Ok(Ok(ready)) => {
                            for note in ready.notes {
                                sink(AgentEvent::Warning { message: note });
                            }
                            if let Some(attached) = ready.attached {
                                live.agent.note_before_next_prompt(attached);
                            }
                            live.agent.attach_images(ready.images);
                            Done::Turn(live.agent.run(&ready.prompt, &mut sink).await)
                        }
                        Ok(Err(why)) => Done::Refused(why),
                        Err(e) => Done::Refused(e.to_string()),
                    }
                }
                Job::Shell(command) => {
                    let cancel = live.agent.interrupt().current();
                    let ran = {
                        let command = command.clone();
                        amber_core::blocking::run(&cancel, move || run_shell(shell, &command)).await
                    };
                    let result = match ran {
                        Ok(result) => result,
                        Err(e) => Err(e.to_string()),
                    };
                    Done::Shell(command, result)
                }
            };
            (live, done)
        });
        self.ui.running = true;
        let mut ticker = tokio::time::interval(Duration::from_millis(100));
        let joined = loop {
            term.draw(|frame| self.ui.draw(frame))?;
            tokio::select! {
                biased;
                joined = &mut task => break joined,
                Some((event, preview)) = rx.recv() => {
                    self.ui.apply(event, preview);
                    // Take what else arrived before drawing again.
                    while let Ok((event, preview)) = rx.try_recv() {
                        self.ui.apply(event, preview);
                    }
                }
                Some(ask) = self.asks.recv() => self.open_dialog(ask),
                Some(()) = self.reloads.recv() => self.plugin_dir_changed().await,
                event = events.next() => match event {
                    Some(Ok(event)) => {
                        if let Action::Quit = self.on_event(event, Some(&interrupt)) {
                            self.quit_after_turn = true;
                            stop(&interrupt);
                        }
                    }
                    Some(Err(e)) => return Err(e.into()),
                    None => stop(&interrupt),
                },
                _ = signals.recv() => {
                    self.quit_after_turn = true;
                    stop(&interrupt);
                }
                () = Self::held_enter(self.enter_at) => {
                    self.fire_enter(true);
                }
                _ = ticker.tick() => self.ui.tick += 1,
            }
        };
        while let Ok((event, preview)) = rx.try_recv() {
            self.ui.apply(event, preview);
        }
        self.ui.running = false;
        self.ui.dialog = None;
        let (live, done) = match joined {
            Ok(back) => back,
            Err(e) => {
                self.ui.notice(
                    NoticeKind::Error,
                    format!("the turn failed inside amber ({e}); the session is saved: quit and resume it with amber --resume"),
                );
                return Ok(());
            }
        };
        self.finish(live, done);
        Ok(())
    }

    /// Puts the session back and says how the job ended.
    fn finish(&mut self, live: Live, done: Done) {
        let compression = live.compression;
        if live.agent.interrupt().renew() {
            self.ui.history.interrupt_sub_agents();
            self.ui
                .notice(NoticeKind::Warning, "interrupted; the session is saved");
            // What was typed for after the turn is not sent after a stop:
            // it goes back into the prompt.
            let queued: Vec<String> = self.ui.queued.drain(..).collect();
            if !queued.is_empty() {
                let mut text = queued.join("\n");
                if !self.ui.composer.is_empty() {
                    text = format!("{text}\n{}", self.ui.composer.full_text());
                }
                self.ui.composer.clear();
                self.ui.composer.insert_str(&text);
            }
        }
        self.app.put_live(live);
        if std::mem::take(&mut self.mode_to_record) {
            if let Err(e) = self.app.record_settings() {
                self.ui
                    .notice(NoticeKind::Warning, format!("the mode is not recorded: {e:#}"));
            }
        }
        for note in self.app.mcp_notes() {
            self.ui.notice(NoticeKind::Warning, note);
        }
        match done {
            Done::Turn(Ok(report)) => match report.outcome {
                Outcome::Done(_) | Outcome::Interrupted => {}
                Outcome::HardStop(reason) => self
                    .ui
                    .notice(NoticeKind::Error, format!("stopped: {reason}")),
                Outcome::ModelFailed(e) => self
                    .ui
                    .notice(NoticeKind::Error, format!("the model call failed: {e}")),
            },
            Done::Compact(Ok(outcome)) => {
                if let CompactionOutcome::Unavailable = outcome {
                    let text = amber_app::compaction::describe(&outcome, &compression);
                    self.ui.notice(NoticeKind::Warning, text);
                }
            }
            Done::Turn(Err(e)) | Done::Compact(Err(e)) => {
                self.ui.notice(NoticeKind::Error, format!("{e}"))
            }
            Done::Shell(command, result) => self.shell_done(&command, result),
            Done::Refused(why) => self.ui.notice(NoticeKind::Warning, why),
        }
        self.refresh_status();
    }

    /// A `!command`'s card filled in, and its output given to the model
    /// ahead of the next prompt.
    fn shell_done(&mut self, command: &str, result: Result<String, String>) {
        let (status, output) = match &result {
            Ok(out) => (crate::cards::CardStatus::Ok, out.clone()),
            Err(e) => (crate::cards::CardStatus::Error, e.clone()),
        };
        let number = self.ui.history.len();
        if let Some(card) = self.ui.history.card_mut("!") {
            card.status = status;
            card.output = output.clone();
            // Only the newest `!` card answers to the id.
            card.id = format!("!{number}");
        }
        let kept = amber_app::prompt_effect::cut_output(&output, MAX_BANG_OUTPUT);
        let note = format!(
            "The user ran `{command}` in the workspace ({}):\n<output>\n{kept}\n</output>",
            if result.is_ok() { "it ran" } else { "it failed" },
        );
        if let Some(live) = self.app.live_mut() {
            live.agent.note_before_next_prompt(note);
        }
    }

    /// The files and folders a prompt names with `@path`, attached for
    /// the model ahead of it, and the images it names, sent with it;
    /// what was cut or refused is said.
    fn attach_mentions(&mut self, prompt: &str) {
        let pasted = std::mem::take(&mut self.pasted_images);
        if let Some(live) = self.app.live_mut() {
            live.agent.attach_images(pasted);
        }
        if !prompt.contains('@') {
            return;
        }
        let found = amber_app::mentions::attachments(&self.workspace, prompt, true);
        let (images, image_notes) =
            amber_app::images::attach(&found.images, &*amber_app::images::prep());
        for note in found.notes.into_iter().chain(image_notes) {
            self.ui.notice(NoticeKind::Info, note);
        }
        if let Some(live) = self.app.live_mut() {
            if let Some(note) = found.note {
                live.agent.note_before_next_prompt(note);
            }
            live.agent.attach_images(images);
        }
    }

    /// A pasted image file's path (a file dragged onto the terminal, a
    /// screenshot's path copied): the image is read at once, said, and
    /// kept for the next prompt, instead of its path landing in the
    /// composer. `false` when the paste is not one.
    fn paste_image(&mut self, pasted: &str) -> bool {
        let Some(path) = amber_app::images::pasted_image_path(pasted) else {
            return false;
        };
        let (images, notes) = amber_app::images::attach(&[path], &*amber_app::images::prep());
        for note in notes {
            let note = if images.is_empty() {
                note
            } else {
                format!("{note}; it goes with your next prompt")
            };
            self.ui.notice(NoticeKind::Info, note);
        }
        self.pasted_images.extend(images);
        true
    }

    fn open_dialog(&mut self, ask: Ask) {
        let diff = preview::diff(&self.workspace, &ask.request.action, &ask.request.detail);
        // A second question while one is open cannot happen (the policy
        // asks one at a time); if it did, the older is denied on drop.
        self.ui.dialog = Some(Dialog::new(ask.request, diff, ask.reply));
    }

    /// A terminal event. `running` holds the turn's interrupt while one
    /// runs.
    fn on_event(&mut self, event: Event, running: Option<&Interrupt>) -> Action {
        match event {
            Event::Paste(text) => {
                if let Some(dialog) = &mut self.ui.dialog {
                    dialog.paste(&text);
                } else if self.ui.pane.is_none() && !self.paste_image(&text) {
                    self.ui.composer.paste(&text);
                    self.update_drawer();
                }
                Action::None
            }
            Event::Key(key) if key.kind != KeyEventKind::Release => self.on_key(key, running),
            _ => Action::None,
        }
    }

    fn on_key(&mut self, key: KeyEvent, running: Option<&Interrupt>) -> Action {
        // A key right behind a held Enter: a paste, and the Enter was its
        // line break.
        if self.enter_at.take().is_some() {
            self.ui.composer.newline();
        }
        let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
        if let Some(dialog) = &mut self.ui.dialog {
            let decision = if ctrl && key.code == KeyCode::Char('c') {
                Some(amber_core::ports::Decision::Declined { reason: None })
            } else {
                dialog.key(key)
            };
            if let Some(decision) = decision {
                if let Some(dialog) = self.ui.dialog.take() {
                    dialog.answer(decision);
                }
            }
            return Action::None;
        }
        if self.ui.pane.is_some() {
            // Ctrl-C closes the pane and, as anywhere, stops the turn.
            if ctrl && key.code == KeyCode::Char('c') {
                if let Some(interrupt) = running {
                    stop(interrupt);
                }
            }
            self.pane_key(key, running.is_some());
            return Action::None;
        }
        self.ui.flash = None;
        if !(ctrl && key.code == KeyCode::Char('c')) {
            self.ui.quit_armed = false;
        }
        if self.ui.plan_asked && running.is_none() {
            if let Some(action) = self.plan_key(key) {
                return action;
            }
        }
        if self.drawer_key(key) {
            self.update_drawer();
            return Action::None;
        }
        let action = self.composer_key(key, running);
        self.update_drawer();
        action
    }

    /// A key while "execute this plan?" is asked: y runs the plan in
    /// write mode, a in yolo mode, n (or esc) keeps planning; others go
    /// to the prompt.
    fn plan_key(&mut self, key: KeyEvent) -> Option<Action> {
        // A bare key only: ctrl-a and alt-y are editing, not answers.
        let modified = key
            .modifiers
            .intersects(KeyModifiers::CONTROL | KeyModifiers::ALT);
        if !self.ui.composer.is_empty() || modified {
            return None;
        }
        let accept_in = match key.code {
            KeyCode::Char('y') => Some(amber_core::engine::Mode::Write),
            KeyCode::Char('a') => Some(amber_core::engine::Mode::Yolo),
            _ => None,
        };
        match key.code {
            KeyCode::Char('y') | KeyCode::Char('a') => {
                let plan = self.ui.plan.take()?;
                self.set_mode(accept_in?);
                Some(Action::Send(format!(
                    "The plan is accepted; carry it out now:\n\n{plan}"
                )))
            }
            KeyCode::Char('n') | KeyCode::Esc => {
                self.ui.plan = None;
                self.ui.notice(
                    NoticeKind::Info,
                    "still in plan mode: say what to change, and the model plans again",
                );
                Some(Action::None)
            }
            _ => None,
        }
    }

    /// Switches the session's mode and shows it; a switch while a turn
    /// runs is recorded when the session is back.
    fn set_mode(&mut self, mode: amber_core::engine::Mode) {
        if self.app.live().is_none() {
            self.mode_to_record = true;
        }
        if let Err(e) = self.app.switch_mode(mode) {
            self.ui
                .notice(NoticeKind::Warning, format!("the mode is not recorded: {e:#}"));
        }
        self.refresh_status();
    }

    /// The Enter held by [`Driver::composer_key`], now that no key came
    /// right behind it: the prompt is sent (queued while a turn runs).
    fn fire_enter(&mut self, running: bool) -> Action {
        self.enter_at = None;
        let composer = &mut self.ui.composer;
        if composer.text().trim().is_empty() {
            return Action::None;
        }
        let text = composer.take();
        self.ui.scroll = 0;
        self.update_drawer();
        if running {
            self.ui.queued.push_back(text);
            return Action::None;
        }
        Action::Send(text)
    }

    /// When the held Enter fires, if one is held.
    async fn held_enter(deadline: Option<tokio::time::Instant>) {
        match deadline {
            Some(at) => tokio::time::sleep_until(at).await,
            None => std::future::pending().await,
        }
    }

    /// A key for the prompt editor.
    fn composer_key(&mut self, key: KeyEvent, running: Option<&Interrupt>) -> Action {
        let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
        let composer = &mut self.ui.composer;
        match key.code {
            // Esc stops a turn, as ctrl-c does; on an idle prompt it is
            // kept free (esc esc is rewind's).
            KeyCode::Esc => {
                if let Some(interrupt) = running {
                    stop(interrupt);
                } else if composer.is_empty() {
                    // Esc Esc on an idle prompt: the turns, to rewind.
                    let now = std::time::Instant::now();
                    let again = self
                        .last_esc
                        .replace(now)
                        .is_some_and(|at| now.duration_since(at) < DOUBLE_ESC);
                    if again {
                        self.last_esc = None;
                        return Action::Send("/rewind".into());
                    }
                }
            }
            KeyCode::Char('c') if ctrl => {
                if let Some(interrupt) = running {
                    stop(interrupt);
                } else if !composer.is_empty() {
                    composer.clear();
                } else if self.ui.quit_armed {
                    return Action::Quit;
                } else {
                    self.ui.quit_armed = true;
                    self.ui
                        .notice(NoticeKind::Info, "press ctrl-c again to quit (or ctrl-d)");
                }
            }
            KeyCode::Char('d') if ctrl => {
                if composer.is_empty() {
                    return Action::Quit;
                }
                composer.delete();
            }
            KeyCode::Char('p') if ctrl => self.open_plugins(),
            KeyCode::Char('r') if ctrl => self.open_sessions(running.is_some()),
            KeyCode::Char('o') if ctrl => self.ui.history.toggle_expanded(false),
            KeyCode::Char('t') if ctrl => self.ui.history.toggle_expanded(true),
            KeyCode::Char('g') if ctrl => self.ui.todo_panel = !self.ui.todo_panel,
            KeyCode::BackTab => {
                let next = self.app.policy().mode().cycled();
                self.set_mode(next);
                self.ui.flash = Some(format!("mode {}", next.as_str()));
            }
            KeyCode::Char('j') if ctrl => composer.newline(),
            KeyCode::Enter
                if key
                    .modifiers
                    .intersects(KeyModifiers::SHIFT | KeyModifiers::ALT) =>
            {
                composer.newline()
            }
            // Held for a moment: a key right behind it means a paste the
            // terminal did not bracket, whose CR is a line break.
            KeyCode::Enter => self.enter_at = Some(tokio::time::Instant::now() + PASTE_GAP),
            KeyCode::Char(c)
                if !key
                    .modifiers
                    .intersects(KeyModifiers::CONTROL | KeyModifiers::ALT) =>
            {
                composer.insert(c)
            }
            KeyCode::Backspace => composer.backspace(),
            KeyCode::Delete => composer.delete(),
            KeyCode::Left => composer.left(),
            KeyCode::Right => composer.right(),
            KeyCode::Home => composer.home(),
            KeyCode::End => composer.end(),
            KeyCode::Up => composer.up(),
            KeyCode::Down => composer.down(),
            KeyCode::PageUp => self.ui.scroll += 10,
            KeyCode::PageDown => self.ui.scroll = self.ui.scroll.saturating_sub(10),
            _ => {}
        }
        Action::None
    }
}
