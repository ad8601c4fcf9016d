//! The policy level of a run: read, write or yolo. A file of its own at
//! the bottom of the policy, so hooks (whose payloads carry it), the
//! engine and the policy all name it without naming each other.

use std::str::FromStr;

use serde::{Deserialize, Serialize};

/// The policy level of a run.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Mode {
    /// Only read-only tools run.
    Read,
    /// Read-only tools run; the rest go through the approval gate.
    #[default]
    Write,
    /// Everything runs, without asking.
    Yolo,
}

impl Mode {
    pub fn as_str(self) -> &'static str {
        match self {
            Mode::Read => "read",
            Mode::Write => "write",
            Mode::Yolo => "yolo",
        }
    }
}

impl FromStr for Mode {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "read" => Ok(Mode::Read),
            "write" => Ok(Mode::Write),
            "yolo" => Ok(Mode::Yolo),
            other => Err(format!("unknown mode `{other}` (read, write or yolo)")),
        }
    }
}
