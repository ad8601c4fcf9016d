//! The CompressionGate port. Seed: "Agent loop" (the gate before assembly).

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

/// The compression pipeline (seed: "Compression pipeline"): reads a
/// snapshot and returns the compressed set, which the agent installs with
/// `clear` then `push`. An error leaves the live context untouched.
pub trait Compressor: Send + Sync {
    fn compress<'a>(
        &'a self,
        snapshot: &'a crate::context::ContextSnapshot,
    ) -> super::BoxFuture<'a, Result<Vec<crate::ports::dialect::Message>, super::PortError>>;
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
