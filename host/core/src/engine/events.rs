//! What a run reports as it goes. The events themselves live in
//! `amber-protocol`, below the core, so every reader parses them with the
//! definitions the engine writes with; they are named here too so the
//! engine's old paths keep compiling.

pub use amber_protocol::{AgentEvent, CompactionTrigger, DeltaKind, FailureKind};

/// Where events go; the agent calls it in order from one task.
pub type EventSink<'a> = dyn FnMut(AgentEvent) + Send + 'a;
