//! One line of `amber exec --json`: an event and the protocol's version.
//!
//! `v` changes only when a reader written for the old version would
//! misread the new one: a field removed, renamed or given another meaning,
//! an event's name changed. A new event or a new field keeps `v`, so a
//! reader skips what it does not know (docs/exec-json.md).

use serde::{Deserialize, Serialize};

use crate::AgentEvent;

/// The version every line written by this amber carries.
pub const VERSION: u32 = 1;

/// An event as it travels: `{"v": 1, "type": "…", …}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Line {
    pub v: u32,
    #[serde(flatten)]
    pub event: AgentEvent,
}

#[derive(Debug, thiserror::Error)]
pub enum LineError {
    #[error("not an amber event: {0}")]
    Parse(#[from] serde_json::Error),
    #[error("amber protocol version {found} (this reader knows {VERSION}); update the reader or the amber that wrote it")]
    Version { found: u32 },
}

/// The event as one line of JSON (no newline), with this version.
pub fn to_line(event: &AgentEvent) -> String {
    #[derive(Serialize)]
    struct Borrowed<'a> {
        v: u32,
        #[serde(flatten)]
        event: &'a AgentEvent,
    }
    // Every field is a string, a number, a bool, a list or a map with
    // string keys, so serialising cannot fail; the fallback says so
    // rather than panicking if that ever changes.
    serde_json::to_string(&Borrowed { v: VERSION, event }).unwrap_or_else(|e| {
        serde_json::json!({"v": VERSION, "type": "warning", "message": format!("an event could not be written: {e}")})
            .to_string()
    })
}

/// Reads one line back; a line of another version is refused by name
/// rather than misread.
pub fn parse_line(text: &str) -> Result<AgentEvent, LineError> {
    #[derive(Deserialize)]
    struct Version {
        v: u32,
    }
    let Version { v } = serde_json::from_str(text)?;
    if v != VERSION {
        return Err(LineError::Version { found: v });
    }
    let line: Line = serde_json::from_str(text)?;
    Ok(line.event)
}
