//! The CompressionGate and Compressor ports. Seeds: "Agent loop" (the
//! gate before assembly) and "Compression pipeline" (what a compressor
//! returns). amber's own compressor is `compress::ModelCompressor`.

use serde::Serialize;

use super::dialect::{BoxFuture, Message};
use super::learner::{MemoryOp, SkillOp};
use super::{ModelError, PortError};
use crate::context::ContextSnapshot;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ContextUsage {
    pub tokens: u64,
    /// The model's context window, from its preset.
    pub window: u64,
}

impl ContextUsage {
    /// Utilisation in [0, 1+]; an unknown (zero) window counts as empty.
    pub fn utilisation(&self) -> f64 {
        if self.window == 0 {
            0.0
        } else {
            self.tokens as f64 / self.window as f64
        }
    }
}

pub trait CompressionGate: Send + Sync {
    /// True when the context should be compressed before this turn.
    fn should_compress(&self, usage: ContextUsage) -> bool;
}

/// What a compression cycle produced: the compressed set the agent
/// installs with `clear` then `push`, what the model judged worth learning
/// (seed: "Memory extraction"), and what the cycle did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CompressionResult {
    pub messages: Vec<Message>,
    pub memory_ops: Vec<MemoryOp>,
    pub skill_ops: Vec<SkillOp>,
    pub stats: CompressionStats,
}

pub use amber_protocol::CompressionStats;

/// Which of the two model requests a failure came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Stage {
    Classify,
    Extract,
}

impl std::fmt::Display for Stage {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Stage::Classify => "classify",
            Stage::Extract => "extract",
        })
    }
}

/// Why a cycle failed. Every one leaves the live context untouched.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CompressionError {
    #[error("the {stage} request failed: {source}")]
    Model { stage: Stage, source: ModelError },
    #[error("the {stage} request timed out after {secs} s")]
    Timeout { stage: Stage, secs: u64 },
    #[error("the {stage} reply is not JSON, even after one repair: {reason}")]
    Parse { stage: Stage, reason: String },
    #[error("the {stage} reply does not match its schema: {reason}")]
    Schema { stage: Stage, reason: String },
    #[error(
        "the compressed context would still be {tokens} tokens, over the target of {target} \
         ({percent}% of the window): what must stay (the system message, the segments labelled \
         core, the newest step and request) does not fit"
    )]
    OverTarget {
        tokens: u64,
        target: u64,
        percent: u32,
    },
    /// The compressed set would break the context's rules (e.g. a tool
    /// call without its result); from a compressor other than amber's.
    #[error("the compressed set is not a valid context: {0}")]
    Invalid(String),
    /// The thing behind the port failed, e.g. a plugin trapped.
    #[error(transparent)]
    Port(#[from] PortError),
}

/// The compression pipeline (seed: "Compression pipeline"): reads a
/// snapshot and returns the compressed set with what was learned. The
/// agent installs the set with `clear` then `push`, and only on success:
/// an error leaves the live context untouched.
pub trait Compressor: Send + Sync {
    /// `focus`: what the user asked to keep (`/compact focus words`).
    fn compress<'a>(
        &'a self,
        snapshot: &'a ContextSnapshot,
        focus: Option<&'a str>,
    ) -> BoxFuture<'a, Result<CompressionResult, CompressionError>>;

    /// What its model calls spent since last asked, whether the cycle
    /// succeeded or not: a failed cycle's calls were paid for too.
    fn take_spent(&self) -> crate::ports::dialect::Usage {
        crate::ports::dialect::Usage::default()
    }
}

/// Compress once utilisation reaches a threshold, e.g. 0.8.
pub struct ThresholdGate {
    pub threshold: f64,
}

impl CompressionGate for ThresholdGate {
    fn should_compress(&self, usage: ContextUsage) -> bool {
        usage.utilisation() >= self.threshold
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn threshold_gate_compresses_at_and_over_threshold_only() {
        let gate = ThresholdGate { threshold: 0.8 };
        assert!(!gate.should_compress(ContextUsage {
            tokens: 79,
            window: 100
        }));
        assert!(gate.should_compress(ContextUsage {
            tokens: 80,
            window: 100
        }));
        assert!(!gate.should_compress(ContextUsage {
            tokens: 80,
            window: 0
        }));
    }
}
