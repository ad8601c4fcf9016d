//! The ports: one trait per extension point. Each is implemented by a
//! component adapter in `amber-runtime` or natively by the host.

pub mod approver;
pub mod checkpoints;
pub mod command;
pub mod compression;
pub mod dialect;
pub mod hook;
pub mod image;
pub mod learner;
pub mod parser;
pub mod prompt;
pub mod reads;
pub mod tool;
pub mod workspace_watch;

pub use amber_protocol::{ModelError, ModelErrorKind};
pub use approver::{
    answered, Approval, ApprovalRequest, Approver, ChannelApprover, CommandGate, CommandPermit,
    Decision, DenyAll, HeadlessApprover, Question, Scope,
};
pub use checkpoints::{Checkpoints, FileChange};
pub use command::{CommandNode, CommandRoot, CommandTree};
pub use compression::{
    CompressionError, CompressionGate, CompressionResult, CompressionStats, Compressor,
    ContextUsage, Stage, ThresholdGate,
};
pub use dialect::{BoxFuture, Dialect, ModelClient, StreamDecoder};
pub use image::{Image, ImagePrep};
pub use learner::{LearnOps, LearnReport, Learner, MemoryKind, MemoryOp, SkillOp};
pub use parser::{Calls, LanguageSpec, Parser, Span, Symbol};
pub use prompt::{BlockPosition, BlockSpec, PromptBlock, RenderContext};
pub use reads::ReadTracker;
pub use tool::{Tool, ToolError, ToolOutput, ToolSpec};
pub use workspace_watch::{ProtectedChange, ProtectedChangeKind, WorkspaceWatch};

/// An error a port reports when the thing behind it failed, e.g. a plugin
/// trapped or was unloaded. It carries a message fit for a user.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct PortError(pub String);
