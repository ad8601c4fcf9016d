//! The Approver port: the approval handler of the approval flowchart (the
//! untitled one after "MCP session lifecycle"). The terminal front end
//! supplies a TTY dialog; a headless run without `--yes` denies; and with
//! no handler at all the policy denies (fail-safe). The `CommandGate` is
//! how the `exec` import asks the policy about the exact command it is
//! about to run.

use std::path::{Path, PathBuf};

/// What a "for the session" approval covers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Scope {
    /// A kind of action: a tool name, or `exec:<program>:<class>`.
    Kind(String),
    /// Everything of that kind whose paths are inside this folder.
    Folder { kind: String, folder: PathBuf },
}

impl Scope {
    pub fn describe(&self) -> String {
        match self {
            Scope::Kind(kind) => format!("every `{kind}`"),
            Scope::Folder { kind, folder } => format!("`{kind}` inside {}", folder.display()),
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ApprovalRequest {
    /// Who asks: a plugin id, `model` for a tool call, `host` for
    /// host-native tools.
    pub requester: String,
    /// The tool name, or `exec` for a shell command.
    pub action: String,
    /// What will happen: the exact command line, or the call's arguments.
    pub detail: String,
    /// The working directory, when relevant.
    pub cwd: Option<String>,
    /// A classification label, e.g. `destructive`, with its reason.
    pub class: Option<String>,
    /// What "approve for the session" may cover, narrowest last.
    pub scopes: Vec<Scope>,
    /// For a command: how it will run if approved, e.g. "in the sandbox,
    /// with network" or "unsandboxed", so the user sees what is granted.
    pub grants: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Decision {
    ApproveOnce,
    ApproveForSession(Scope),
    Deny,
}

pub trait Approver: Send + Sync {
    fn approve(&self, request: &ApprovalRequest) -> Decision;
}

/// Denies everything: the answer when nobody can be asked.
pub struct DenyAll;

impl Approver for DenyAll {
    fn approve(&self, _request: &ApprovalRequest) -> Decision {
        Decision::Deny
    }
}

/// The handler of a run without a terminal: `--yes` approves every
/// prompt of the run; without it, nothing is approved.
pub struct HeadlessApprover {
    pub yes: bool,
}

impl Approver for HeadlessApprover {
    fn approve(&self, _request: &ApprovalRequest) -> Decision {
        if self.yes {
            Decision::ApproveOnce
        } else {
            Decision::Deny
        }
    }
}

/// How an allowed command may run: the OS sandbox's default for the mode,
/// widened only by what was approved. The spawner (amber-sandbox) turns it
/// into kernel rules; core only says what is granted.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CommandPermit {
    /// Without the OS sandbox: yolo, or a machine that has none (then
    /// every command in write mode was approved as such).
    pub unsandboxed: bool,
    /// Write mode: the workspace is writable (but `.git` and `.amber`).
    pub workspace_writable: bool,
    /// Approved escalations.
    pub network: bool,
    pub read_dirs: Vec<PathBuf>,
    pub write_dirs: Vec<PathBuf>,
}

impl CommandPermit {
    /// In words, for the approval dialog: "in the sandbox, with network
    /// and write access to /tmp".
    pub fn describe(&self) -> String {
        if self.unsandboxed {
            return "unsandboxed".into();
        }
        let mut extra = Vec::new();
        if self.network {
            extra.push("network".to_string());
        }
        for dir in &self.read_dirs {
            extra.push(format!("read access to {}", dir.display()));
        }
        for dir in &self.write_dirs {
            extra.push(format!("write access to {}", dir.display()));
        }
        let base = if self.workspace_writable {
            "in the sandbox"
        } else {
            "in the sandbox, workspace read-only"
        };
        if extra.is_empty() {
            base.to_string()
        } else {
            format!("{base}, with {}", extra.join(" and "))
        }
    }
}

/// Decides on a shell command right before it runs. `Err` is the reason
/// for a denial, shown to the plugin (and so to the model); `Ok` says how
/// the command may run.
pub trait CommandGate: Send + Sync {
    fn check(
        &self,
        requester: &str,
        command: &str,
        cwd: &Path,
    ) -> Result<CommandPermit, crate::policy::PolicyError>;
}
