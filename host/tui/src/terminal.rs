//! The terminal: raw mode, the alternate screen, bracketed paste and, where
//! the terminal has it, the keyboard protocol that tells Shift-Enter from
//! Enter. Restored on every way out: a normal return, an error, and a
//! panic (the hook restores it before the panic message prints).

use std::io::{stdout, Stdout};

use anyhow::{Context, Result};
use crossterm::event::{
    DisableBracketedPaste, EnableBracketedPaste, KeyboardEnhancementFlags,
    PopKeyboardEnhancementFlags, PushKeyboardEnhancementFlags,
};
use crossterm::terminal::{
    disable_raw_mode, enable_raw_mode, supports_keyboard_enhancement, EnterAlternateScreen,
    LeaveAlternateScreen,
};
use crossterm::{cursor, execute};
use ratatui::backend::CrosstermBackend;
use ratatui::Terminal;

pub type Tty = Terminal<CrosstermBackend<Stdout>>;

/// Restores the terminal when dropped.
pub struct Guard {
    enhanced: bool,
}

impl Drop for Guard {
    fn drop(&mut self) {
        restore(self.enhanced);
    }
}

fn restore(enhanced: bool) {
    let mut out = stdout();
    if enhanced {
        let _ = execute!(out, PopKeyboardEnhancementFlags);
    }
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
    let enhanced = supports_keyboard_enhancement().unwrap_or(false);
    let guard = Guard { enhanced };
    let mut out = stdout();
    execute!(out, EnterAlternateScreen, EnableBracketedPaste)
        .context("cannot set up the terminal")?;
    if enhanced {
        let _ = execute!(
            out,
            PushKeyboardEnhancementFlags(KeyboardEnhancementFlags::DISAMBIGUATE_ESCAPE_CODES)
        );
    }
    let previous = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        restore(enhanced);
        previous(info);
    }));
    let terminal =
        Terminal::new(CrosstermBackend::new(stdout())).context("cannot draw on the terminal")?;
    Ok((terminal, guard))
}
