//! The terminal: raw mode, the alternate screen, bracketed paste and the
//! keyboard protocol that tells Shift-Enter from Enter (kitty's; a
//! terminal without it ignores the request, and Alt-Enter still works). Restored on every way out: a normal return, an error, and a
//! panic (the hook restores it before the panic message prints).

use std::io::{stdout, Stdout};

use anyhow::{Context, Result};
use crossterm::event::{
    DisableBracketedPaste, EnableBracketedPaste, KeyboardEnhancementFlags,
    PopKeyboardEnhancementFlags, PushKeyboardEnhancementFlags,
};
use crossterm::terminal::{
    disable_raw_mode, enable_raw_mode, EnterAlternateScreen, LeaveAlternateScreen,
};
use crossterm::{cursor, execute};
use ratatui::backend::CrosstermBackend;
use ratatui::Terminal;

pub type Tty = Terminal<CrosstermBackend<Stdout>>;

/// Restores the terminal when dropped.
pub struct Guard;

impl Drop for Guard {
    fn drop(&mut self) {
        restore();
    }
}

fn restore() {
    let mut out = stdout();
    let _ = execute!(out, PopKeyboardEnhancementFlags);
    let _ = execute!(
        out,
        DisableBracketedPaste,
        LeaveAlternateScreen,
        cursor::Show
    );
    let _ = disable_raw_mode();
}

/// Takes the terminal over; the guard gives it back.
pub fn enter() -> Result<(Tty, Guard)> {
    enable_raw_mode().context("cannot put the terminal in raw mode")?;
    // Asked for without asking whether the terminal has it: the query
    // waits for an answer a terminal without it may never give (up to
    // seconds before the first frame), and a terminal without the
    // protocol ignores the request.
    let guard = Guard;
    let mut out = stdout();
    execute!(out, EnterAlternateScreen, EnableBracketedPaste)
        .context("cannot set up the terminal")?;
    let _ = execute!(
        out,
        PushKeyboardEnhancementFlags(KeyboardEnhancementFlags::DISAMBIGUATE_ESCAPE_CODES)
    );
    let previous = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        restore();
        previous(info);
    }));
    let terminal =
        Terminal::new(CrosstermBackend::new(stdout())).context("cannot draw on the terminal")?;
    Ok((terminal, guard))
}
