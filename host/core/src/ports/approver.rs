//! The Approver port: the approval handler of the approval flowchart (the
//! untitled one after "MCP session lifecycle"). Engine II supplies the TTY
//! dialog; without any handler the answer is a fail-safe deny, and a
//! headless run allows read-only tools and the rest only with `--yes`.

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ApprovalRequest {
    /// Who asks: a plugin id, or `host` for host-native tools.
    pub requester: String,
    /// The tool name, or `exec` for a shell command.
    pub action: String,
    /// What will happen, e.g. the exact command line.
    pub detail: String,
    /// The working directory, when relevant.
    pub cwd: Option<String>,
    /// A classification label, e.g. `destructive`.
    pub class: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Decision {
    ApproveOnce,
    ApproveForSession,
    Deny,
}

pub trait Approver: Send + Sync {
    fn approve(&self, request: &ApprovalRequest) -> Decision;
}

/// The fail-safe: with no handler installed, everything is denied.
pub struct DenyAll;

impl Approver for DenyAll {
    fn approve(&self, _request: &ApprovalRequest) -> Decision {
        Decision::Deny
    }
}

/// The headless answer until the TTY dialog exists: read-only tools are
/// allowed; anything else only when the user said `--yes` for this run.
pub struct HeadlessApprover {
    pub yes: bool,
}

impl Approver for HeadlessApprover {
    fn approve(&self, request: &ApprovalRequest) -> Decision {
        let read_only = request.class.as_deref() == Some(crate::engine::dispatch::CLASS_READ_ONLY);
        if read_only || self.yes {
            Decision::ApproveOnce
        } else {
            Decision::Deny
        }
    }
}
