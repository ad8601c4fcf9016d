//! Read coverage's port (amber-coverage behind it; docs/coverage.md):
//! what each tool call read, per agent, made durable at the end of each
//! turn, and what the model is told of it: a line on a result it already
//! had, and after a compaction the digest of everything it had read. The
//! tracker counts the session's turns itself. (`/clear` starts a new
//! session, with a journal of its own: nothing to reset here.)

use serde_json::Value;

pub trait ReadTracker: Send + Sync {
    /// A call of `tool` by `agent` (`main`, or a sub-agent's id) succeeded
    /// with `output`: record what it read. Returns one line to add to the
    /// result the model sees when it had already read that, unchanged.
    fn tool_result(&self, agent: &str, tool: &str, args: &Value, output: &str) -> Option<String>;

    /// A model turn ended: what it read is made durable. A warning for
    /// the user when it could not be (said once, not every turn).
    fn turn_ended(&self) -> Option<String>;

    /// The context was compacted: the message that tells the model what
    /// this session had already read, if it read anything.
    fn compacted(&self) -> Option<String>;

    /// A new sub-agent's id, unique in the session (`task-N`), so its
    /// reads are tracked apart from every other agent's.
    fn sub_agent(&self) -> String;
}
