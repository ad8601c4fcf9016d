//! The terminal: raw mode, the alternate screen, bracketed paste and the
//! keyboard protocol that tells Shift-Enter from Enter (kitty's; a
//! terminal without it ignores the request, and Alt-Enter still works). Restored on every way out: a normal return, an error, and a
//! panic (the hook restores it before the panic message prints).

use std::io::{stdout, Stdout};
use std::sync::atomic::{AtomicBool, Ordering};

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

/// Set by the panic hook: the terminal was restored, though the panic
/// may have been caught (a command handler, a tool thread, the turn's
/// task) and the TUI goes on.
static RESTORED_BY_PANIC: AtomicBool = AtomicBool::new(false);

/// Sets the terminal up again after a caught panic restored it.
pub fn repair(term: &mut Tty) -> Result<()> {
    if RESTORED_BY_PANIC.swap(false, Ordering::SeqCst) {
        set_up()?;
        term.clear()?;
    }
    Ok(())
}

fn set_up() -> Result<()> {
    enable_raw_mode().context("cannot put the terminal in raw mode")?;
    let mut out = stdout();
    execute!(out, EnterAlternateScreen, EnableBracketedPaste)
        .context("cannot set up the terminal")?;
    let _ = execute!(
        out,
        PushKeyboardEnhancementFlags(KeyboardEnhancementFlags::DISAMBIGUATE_ESCAPE_CODES)
    );
    Ok(())
}

/// Takes the terminal over; the guard gives it back.
pub fn enter() -> Result<(Tty, Guard)> {
    // The kitty keyboard protocol is asked for without asking whether the
    // terminal has it: the query waits for an answer a terminal without it
    // may never give (seconds before the first frame), and a terminal
    // without the protocol ignores the request.
    let guard = Guard;
    set_up()?;
    let previous = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        restore();
        RESTORED_BY_PANIC.store(true, Ordering::SeqCst);
        previous(info);
    }));
    let terminal =
        Terminal::new(CrosstermBackend::new(stdout())).context("cannot draw on the terminal")?;
    Ok((terminal, guard))
}
