//! `println!` and friends for text that holds what came from outside amber
//! (a workspace file, an MCP server, a plugin, a model): its control
//! characters are escaped before it reaches the terminal, so a server
//! name or a log line cannot erase a line, move the cursor or set the
//! window title. Newlines and tabs pass. JSON output needs none of this:
//! serde escapes control characters itself.

/// `println!`, made printable.
macro_rules! outln {
    () => { println!() };
    ($($arg:tt)*) => {
        println!("{}", amber_core::printable::printable_lines(&format!($($arg)*)))
    };
}

/// `print!`, made printable.
macro_rules! out {
    ($($arg:tt)*) => {
        print!("{}", amber_core::printable::printable_lines(&format!($($arg)*)))
    };
}

/// `eprintln!`, made printable.
macro_rules! errln {
    ($($arg:tt)*) => {
        eprintln!("{}", amber_core::printable::printable_lines(&format!($($arg)*)))
    };
}
