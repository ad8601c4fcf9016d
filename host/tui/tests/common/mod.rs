//! What the view tests share: the session every screen starts from,
//! and a draw into TestBackend.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "a test fails by panicking, its helpers too"
)]

use amber_core::engine::AgentEvent;
use amber_tui::ui::Ui;
use ratatui::backend::TestBackend;
use ratatui::Terminal;

/// The `session.started` event of the session every view is drawn in.
pub fn started() -> AgentEvent {
    AgentEvent::SessionStarted {
        session_id: "20261203-041500-ab12".into(),
        path: "/home/me/.local/share/amber/sessions/20261203-041500-ab12.jsonl".into(),
        workspace: "/work/project".into(),
        provider: "openai".into(),
        flavor: "openai-chat".into(),
        model: "gpt-5".into(),
        mode: "write".into(),
        resumed: false,
        instructions: None,
        instruction_files: Vec::new(),
        interrupted: Vec::new(),
        warnings: Vec::new(),
    }
}

/// `ui` drawn once into a TestBackend of `width` × `height`.
pub fn draw(ui: &mut Ui, width: u16, height: u16) -> Terminal<TestBackend> {
    let mut terminal = Terminal::new(TestBackend::new(width, height)).unwrap();
    terminal.draw(|frame| ui.draw(frame)).unwrap();
    terminal
}
