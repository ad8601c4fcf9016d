//! The Approver port: the approval handler of the approval flowchart (the
//! untitled one after "MCP session lifecycle"). The terminal front end
//! supplies a TTY dialog; the TUI a dialog its loop draws; a headless run
//! without `--yes` denies; and with no handler at all the policy denies
//! (fail-safe). The `CommandGate` is how the `exec` import asks the policy
//! about the exact command it is about to run.
//!
//! A request returns a future: the answer comes when the person gives it.
//! A front end with a loop of its own sends the question there with a
//! oneshot for the answer ([`ChannelApprover`], as codex-rs's
//! `request_command_approval`), and each App is handed its own approver,
//! so nothing about the front end is process-wide.

use std::future::Future;
use std::path::{Path, PathBuf};
use std::pin::Pin;

use tokio::sync::{mpsc, oneshot};

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
    /// Which agent asks: `main`, or a sub-agent's id (`task-1`).
    pub agent: String,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Decision {
    ApproveOnce,
    ApproveForSession(Scope),
    /// Nobody said yes: headless without `--yes`, a dialog closed or a
    /// question that could not be put. The model is told how a person
    /// could allow it (`--yes`, `--mode yolo`).
    Deny,
    /// A person at a dialog said no, with what they typed after `n`, if
    /// anything: the model is told the user declined, and why, never
    /// the headless advice about flags the person did not ask for.
    Declined { reason: Option<String> },
}

/// An approval on its way: ready when whoever was asked has answered.
pub type Approval = Pin<Box<dyn Future<Output = Decision> + Send + 'static>>;

pub trait Approver: Send + Sync {
    /// Puts `request` to whoever decides. The policy waits for the answer
    /// off the async workers (`crate::blocking`); a question that can
    /// never be answered must resolve to [`Decision::Deny`], not hang.
    fn request(&self, request: ApprovalRequest) -> Approval;
}

/// An answer known at once (headless, `--yes`, a terminal dialog that
/// asked on the caller's thread).
pub fn answered(decision: Decision) -> Approval {
    Box::pin(std::future::ready(decision))
}

/// Denies everything: the answer when nobody can be asked.
pub struct DenyAll;

impl Approver for DenyAll {
    fn request(&self, _request: ApprovalRequest) -> Approval {
        answered(Decision::Deny)
    }
}

/// The handler of a run without a terminal: `--yes` approves every
/// prompt of the run; without it, nothing is approved.
pub struct HeadlessApprover {
    pub yes: bool,
}

impl Approver for HeadlessApprover {
    fn request(&self, _request: ApprovalRequest) -> Approval {
        answered(if self.yes {
            Decision::ApproveOnce
        } else {
            Decision::Deny
        })
    }
}

/// A question for a front end's loop, with where its answer goes. Dropping
/// `reply` unanswered denies.
pub struct Question {
    pub request: ApprovalRequest,
    pub reply: oneshot::Sender<Decision>,
}

/// Sends each request to a front end's loop as a [`Question`] and
/// resolves when the loop answers. A loop that is gone denies.
pub struct ChannelApprover {
    to_loop: mpsc::UnboundedSender<Question>,
    /// The thread the loop runs on: a question asked there (a plugin's
    /// slash command that runs a command, on the loop) could never be
    /// answered, since the loop that would draw the dialog is the one
    /// waiting; it is denied instead.
    loop_thread: Option<std::thread::ThreadId>,
}

impl ChannelApprover {
    /// Questions go to `to_loop`; those asked on `loop_thread` are denied.
    pub fn new(
        to_loop: mpsc::UnboundedSender<Question>,
        loop_thread: Option<std::thread::ThreadId>,
    ) -> Self {
        ChannelApprover {
            to_loop,
            loop_thread,
        }
    }
}

impl Approver for ChannelApprover {
    fn request(&self, request: ApprovalRequest) -> Approval {
        if self.loop_thread == Some(std::thread::current().id()) {
            return answered(Decision::Deny);
        }
        let (reply, answer) = oneshot::channel();
        if self.to_loop.send(Question { request, reply }).is_err() {
            return answered(Decision::Deny);
        }
        Box::pin(async move { answer.await.unwrap_or(Decision::Deny) })
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::blocking::wait;

    fn request() -> ApprovalRequest {
        ApprovalRequest {
            requester: "model".into(),
            action: "write_file".into(),
            detail: "{}".into(),
            cwd: None,
            class: None,
            scopes: Vec::new(),
            grants: None,
            agent: "main".into(),
        }
    }

    #[test]
    fn a_question_is_answered_by_the_loop_and_denied_when_it_cannot_be() {
        let (to_loop, mut questions) = mpsc::unbounded_channel();
        let approver = ChannelApprover::new(to_loop, None);
        let answering = std::thread::spawn(move || {
            let question = questions.blocking_recv().unwrap();
            assert_eq!(question.request.action, "write_file");
            question.reply.send(Decision::ApproveOnce).unwrap();
            // The next is dropped unanswered.
            drop(questions.blocking_recv().unwrap());
        });
        assert_eq!(wait(approver.request(request())), Decision::ApproveOnce);
        assert_eq!(wait(approver.request(request())), Decision::Deny);
        answering.join().unwrap();
        // The loop is gone.
        assert_eq!(wait(approver.request(request())), Decision::Deny);
        // Asked on the loop's own thread: it could never be drawn.
        let (to_loop, _questions) = mpsc::unbounded_channel();
        let here = ChannelApprover::new(to_loop, Some(std::thread::current().id()));
        assert_eq!(wait(here.request(request())), Decision::Deny);
    }
}
