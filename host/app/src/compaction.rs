//! Compression in a session (docs/compression.md): the settings it runs
//! with, the gate and the pipeline built from them for the session's
//! model, the learner that keeps what a cycle extracted, and `/compact`.
//! Core owns the cycle; this module only decides what is installed.

use std::sync::Arc;

use amber_config::Config;
use amber_core::compress::{CompressorSettings, ModelCompressor};
use amber_core::engine::{Agent, CompactionOutcome};
use amber_core::ports::{CompressionGate, CompressionStats, Compressor, Learner, ThresholdGate};
use amber_core::project::ProjectRoot;
use amber_runtime::AmberDirs;
use serde::Serialize;

/// How a session compresses. The agent's gate and compressor are opaque
/// ports, so the values they were built from live here, for `/get`,
/// `/status` and to rebuild them when a setting or the model changes.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Compression {
    /// The share of the window at which the gate fires.
    pub threshold: f64,
    /// The share of the window a compressed context may use.
    pub target: f64,
    /// Off: no pipeline is installed, and the gate only warns.
    pub enabled: bool,
}

impl Compression {
    pub fn from_config(config: &Config) -> Self {
        Compression {
            threshold: config.agent.compress_threshold,
            target: config.agent.compress_target,
            enabled: config.agent.compress_enabled,
        }
    }

    /// The target in effect: never above the threshold, or a compressed
    /// context would already be over it and the next turn would compress
    /// again.
    pub fn effective_target(&self) -> f64 {
        self.target.min(self.threshold)
    }
}

/// Installs the gate and, when compression is on, a pipeline for the
/// session's current model client, flavor and window. Called when the
/// session starts and again after anything they depend on changes
/// (`/set model`, `/set provider`, `/set compress_*`).
pub fn install(agent: &mut Agent, compression: Compression) {
    agent.set_gate(gate(compression.threshold));
    let compressor = compression.enabled.then(|| {
        let config = agent.config();
        let mut settings = CompressorSettings::new(
            config.flavor.clone(),
            config.model.clone(),
            config.context_window,
        );
        settings.target = compression.effective_target();
        settings.max_tokens = config.max_tokens;
        let model = agent.model_client().clone();
        Arc::new(ModelCompressor::new(model, settings)) as Arc<dyn Compressor>
    });
    agent.set_compressor(compressor);
}

/// The compression gate at `threshold` of the context window.
pub fn gate(threshold: f64) -> Arc<dyn CompressionGate> {
    Arc::new(ThresholdGate { threshold })
}

/// The learner for this workspace: memories into the user's memory
/// database, skills into the workspace's skill folders in the data dir.
pub fn learner(dirs: &AmberDirs, project: &ProjectRoot, config: &Config) -> Arc<dyn Learner> {
    Arc::new(amber_memory::MemoryLearner::in_data_dir(
        &dirs.data,
        &project.root,
        config.memory.promote_threshold,
    ))
}

/// One line for a person about a compaction that completed: what the
/// `/compact` reply and the TUI's notice say.
pub fn completed(stats: &CompressionStats, memories: usize, skills: usize) -> String {
    format!(
        "compacted: {} → {} tokens; {} segments kept, {} collapsed, {} pruned; {memories} memories and {skills} skills kept",
        stats.tokens_before, stats.tokens_after, stats.kept, stats.collapsed, stats.pruned
    )
}

/// One line for a person about a finished `/compact`.
pub fn describe(outcome: &CompactionOutcome, compression: &Compression) -> String {
    match outcome {
        CompactionOutcome::Completed { stats, learned } => {
            completed(stats, learned.memories_written, learned.skills_written)
        }
        CompactionOutcome::Failed(reason) => {
            format!("compaction failed, the history is unchanged: {reason}")
        }
        CompactionOutcome::Unavailable if !compression.enabled => {
            "compression is off (agent.compress_enabled = false); /set compress_enabled true turns it on".into()
        }
        CompactionOutcome::Unavailable => "no compression pipeline is installed".into(),
        CompactionOutcome::Skipped(reason) => format!("skipped by {reason}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_target_never_exceeds_the_threshold() {
        let c = Compression {
            threshold: 0.4,
            target: 0.5,
            enabled: true,
        };
        assert_eq!(c.effective_target(), 0.4);
        let c = Compression {
            threshold: 0.8,
            ..c
        };
        assert_eq!(c.effective_target(), 0.5);
    }
}
