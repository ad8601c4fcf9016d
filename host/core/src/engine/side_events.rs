//! Events a tool reports while its call runs: a sub-agent's run (the
//! `task` tool) and the todo list (`todo_write`). A tool runs on a
//! blocking thread, away from the run's event sink, so it sends them
//! here, and the agent passes them on to the sink in order while it
//! waits for the calls, recording in the session what belongs there (the
//! link to a sub-agent's session, the todo list).

use tokio::sync::mpsc;

use super::AgentEvent;

/// Where a tool sends the events it reports. Cheap to clone.
#[derive(Clone)]
pub struct SideSender(mpsc::UnboundedSender<AgentEvent>);

impl SideSender {
    /// Sends `event` to the run; dropped when the agent is gone (nobody
    /// is there to show it).
    pub fn send(&self, event: AgentEvent) {
        let _ = self.0.send(event);
    }
}

pub struct SideReceiver(pub(super) mpsc::UnboundedReceiver<AgentEvent>);

/// A new channel: the sender for the tools, the receiver for the agent.
pub fn side_channel() -> (SideSender, SideReceiver) {
    let (tx, rx) = mpsc::unbounded_channel();
    (SideSender(tx), SideReceiver(rx))
}
