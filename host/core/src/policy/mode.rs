//! The policy level of a run: plan, read, write or yolo. A file of its own at
//! the bottom of the policy, so hooks (whose payloads carry it), the
//! engine and the policy all name it without naming each other.

use std::str::FromStr;

use serde::{Deserialize, Serialize};

/// The policy level of a run.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Mode {
    /// Read mode's tools, and the model is asked for a plan, which it
    /// proposes with `exit_plan` (docs/plan-mode.md).
    Plan,
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
            Mode::Plan => "plan",
            Mode::Read => "read",
            Mode::Write => "write",
            Mode::Yolo => "yolo",
        }
    }
}

impl Mode {
    /// Plan and read mode run only read-only tools.
    pub fn read_only(self) -> bool {
        matches!(self, Mode::Plan | Mode::Read)
    }

    /// How much it lets run: plan and read least, yolo most.
    fn latitude(self) -> u8 {
        match self {
            Mode::Plan | Mode::Read => 0,
            Mode::Write => 1,
            Mode::Yolo => 2,
        }
    }

    /// The stricter of the two: what a sub-agent runs in when its parent
    /// runs in `self` and its definition asks for `wanted` (a workspace
    /// file can narrow, never widen). Plan becomes read: a sub-agent does
    /// not propose plans.
    pub fn at_most(self, wanted: Mode) -> Mode {
        let stricter = if wanted.latitude() < self.latitude() {
            wanted
        } else {
            self
        };
        match stricter {
            Mode::Plan => Mode::Read,
            other => other,
        }
    }

    /// The next mode of the TUI's cycle key: write, plan, read, write.
    pub fn cycled(self) -> Mode {
        match self {
            Mode::Write | Mode::Yolo => Mode::Plan,
            Mode::Plan => Mode::Read,
            Mode::Read => Mode::Write,
        }
    }
}

impl FromStr for Mode {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "plan" => Ok(Mode::Plan),
            "read" => Ok(Mode::Read),
            "write" => Ok(Mode::Write),
            "yolo" => Ok(Mode::Yolo),
            other => Err(format!("unknown mode `{other}` (plan, read, write or yolo)")),
        }
    }
}
