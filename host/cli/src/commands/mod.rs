//! One module per command group.

pub mod agents;
pub mod authoring;
pub mod bench;
pub mod code;
pub mod compact;
pub mod completers;
pub mod completions;
pub mod config;
pub mod coverage;
pub mod doctor;
pub mod exec;
pub mod hooks;
pub mod mcp;
pub mod mcp_serve;
pub mod memory;
pub mod outcome;
pub mod plugin;
pub mod precompile;
pub mod providers;
pub mod session_flags;
pub mod sessions;
pub mod skills;
pub mod slash;
pub mod tool;
pub mod tui;

use serde::Serialize;

/// Files a listing skipped, on stderr: beside `--json` or one item's
/// `show`, which do not name them themselves.
pub fn report_skipped(skipped: &[amber_app::file_commands::Skipped]) {
    for skipped in skipped {
        errln!(
            "amber: skipped {}: {}",
            skipped.path.display(),
            skipped.reason
        );
    }
}

/// Prints `value` as pretty JSON.
pub fn print_json(value: &impl Serialize) -> anyhow::Result<()> {
    println!("{}", serde_json::to_string_pretty(value)?);
    Ok(())
}
