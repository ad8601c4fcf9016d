//! How a run ended: what `amber exec` turns into its exit code and last
//! event, and what a caller of the engine gets back.

use serde::{Deserialize, Serialize};

use crate::{ModelError, Usage};

/// How the run ended.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", content = "detail", rename_all = "snake_case")]
pub enum Outcome {
    /// The final reply.
    Done(String),
    /// The loop stopped itself; the reason says why.
    HardStop(String),
    /// Cancelled (Ctrl-C); the session holds everything up to here.
    Interrupted,
    /// A model call failed after the wire's retries. The session holds
    /// everything up to here, so the run can be resumed once the cause
    /// (a key, a quota, the server) is fixed.
    ModelFailed(ModelError),
}

/// What a caller of the engine gets back from one run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunReport {
    pub outcome: Outcome,
    /// Model calls made.
    pub turns: u32,
    /// Every call of the run, its sub-agents' and compression's included.
    pub usage: Usage,
    /// Their cost in US dollars, when every one had a price.
    #[serde(default)]
    pub cost_usd: Option<f64>,
}
