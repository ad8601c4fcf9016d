//! Whose tool call is running on this thread: the call's id, the agent
//! that made it (`main`, `task-2`) and the policy that agent runs under.
//!
//! The `exec` import asks one policy, registered with the runtime when
//! the host starts, about every command a plugin runs; a sub-agent runs
//! under a view of its own (its mode its parent's or stricter, fixed when
//! it starts). Dispatch sets the scope on the thread a tool call runs on,
//! and the registered policy hands a command to the scope's view, so a
//! sub-agent's shell calls are checked against the sub-agent's mode and a
//! `/set policy yolo` on the parent does not loosen them. The `task` tool
//! reads the call id here to link a sub-agent's session to the call that
//! started it, and the `skill` tool narrows the calling agent's view. A
//! thread-local rather than an argument: the tool ports and the WIT carry
//! no host bookkeeping, and the runtime carries the scope over when it
//! moves a guest call to another thread.

use std::cell::RefCell;
use std::path::Path;
use std::sync::Arc;

use super::error::PolicyError;
use super::mode::Mode;
use super::narrowing::Narrowing;
use crate::ports::CommandPermit;

/// What a call's scope needs of its agent's policy: the mode, and the
/// question the `exec` import asks. The policy implements it; a trait
/// here keeps this file below the policy rather than beside it.
pub trait AgentPolicy: Send + Sync {
    fn mode(&self) -> Mode;
    /// Narrows this agent's callable tools for skill `by` (a skill a
    /// sub-agent loads narrows the sub-agent, not its parent).
    fn narrow(&self, by: &str, tools: &[String], commands: Option<&[String]>) -> Narrowing;
    fn check_command(
        &self,
        requester: &str,
        command: &str,
        cwd: &Path,
    ) -> Result<CommandPermit, PolicyError>;
}

#[derive(Clone)]
pub struct CallScope {
    pub call_id: String,
    pub agent: String,
    pub policy: Arc<dyn AgentPolicy>,
    /// Fires when the run is interrupted (Ctrl-C, the run's cancel): a
    /// tool that waits on something outside (an MCP server's answer)
    /// stops waiting and cancels it, rather than hold its thread.
    pub cancel: tokio_util::sync::CancellationToken,
}

thread_local! {
    static CURRENT: RefCell<Option<CallScope>> = const { RefCell::new(None) };
}

/// Runs `f` with `scope` as this thread's call, restoring what was there.
pub fn within<R>(scope: Option<CallScope>, f: impl FnOnce() -> R) -> R {
    struct Restore(Option<CallScope>);
    impl Drop for Restore {
        fn drop(&mut self) {
            let before = self.0.take();
            CURRENT.with(|c| *c.borrow_mut() = before);
        }
    }
    let before = CURRENT.with(|c| c.replace(scope));
    let _restore = Restore(before);
    f()
}

/// The call running on this thread, if dispatch started one here.
pub fn current() -> Option<CallScope> {
    CURRENT.with(|c| c.borrow().clone())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::policy::Policy;

    #[test]
    fn the_scope_lasts_for_the_call_and_nests() {
        let policy: Arc<dyn AgentPolicy> =
            Arc::new(Policy::new(Mode::Read, "/ws".into(), Vec::new(), None));
        let scope = |id: &str| CallScope {
            call_id: id.into(),
            agent: "main".into(),
            policy: policy.clone(),
            cancel: Default::default(),
        };
        assert!(current().is_none());
        within(Some(scope("outer")), || {
            assert_eq!(current().unwrap().call_id, "outer");
            within(Some(scope("inner")), || {
                assert_eq!(current().unwrap().call_id, "inner");
            });
            assert_eq!(current().unwrap().call_id, "outer");
        });
        assert!(current().is_none());
    }
}
