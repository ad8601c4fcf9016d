//! Errors a user or a test can act on: each names the plugin or file and
//! the cause.

use std::path::PathBuf;

/// Why a component could not be loaded or enabled.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LoadError {
    #[error("cannot start the wasm engine: {0}")]
    Engine(String),
    #[error("cannot read {}: {reason}", path.display())]
    Read { path: PathBuf, reason: String },
    #[error("{}: {reason}", path.display())]
    NotAComponent { path: PathBuf, reason: String },
    #[error("{}: cannot compile: {reason}", path.display())]
    Compile { path: PathBuf, reason: String },
    /// Built for a version of `amber:plugin` this host does not load;
    /// `what_to_do` names the versions it does and the way out.
    #[error("{}: incompatible: built for amber:plugin@{found}; {what_to_do}", path.display())]
    Incompatible {
        path: PathBuf,
        found: String,
        what_to_do: String,
    },
    /// Names two versions of `amber:plugin` at once: no host version can
    /// serve both, so it is not a build any SDK makes.
    #[error("{}: incompatible: it names amber:plugin@{first} and also amber:plugin/{interface}@{other}; build it against one version", path.display())]
    MixedVersions {
        path: PathBuf,
        first: String,
        interface: String,
        other: String,
    },
    #[error("{}: not an amber plugin: it exports no amber:plugin/plugin interface", path.display())]
    NotAPlugin { path: PathBuf },
    #[error("{}: cannot link: {reason}", path.display())]
    Link { path: PathBuf, reason: String },
    #[error("plugin `{id}`: {reason}")]
    Plugin { id: String, reason: String },
    /// The ledger refused one of the plugin's capabilities; its text names
    /// the plugin, and for a taken name the one that keeps it.
    #[error(transparent)]
    Refused(amber_core::LedgerError),
    #[error("no plugin `{0}` is registered")]
    Unknown(String),
}

/// Why one call into a plugin failed. Only [`CallError::Guest`] leaves the
/// instance usable; every other kind replaces it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CallError {
    #[error("plugin `{plugin}` trapped in {call}: {reason}")]
    Trap {
        plugin: String,
        call: String,
        reason: String,
    },
    #[error("plugin `{plugin}` exceeded its deadline of {limit_ms} ms of guest time in {call}")]
    Deadline {
        plugin: String,
        call: String,
        limit_ms: u128,
    },
    #[error("plugin `{plugin}` exceeded its memory limit of {limit_mib} MiB in {call}")]
    Memory {
        plugin: String,
        call: String,
        limit_mib: usize,
    },
    #[error("plugin `{plugin}` returned {size} bytes from {call}, over the cap of {cap} bytes")]
    OutputTooLarge {
        plugin: String,
        call: String,
        size: usize,
        cap: usize,
    },
    #[error("plugin `{plugin}` is {state}, not active")]
    NotActive { plugin: String, state: String },
    #[error("plugin `{plugin}`: cannot start an instance: {reason}")]
    Instantiate { plugin: String, reason: String },
}

impl CallError {
    /// True for the failures that count toward the 3-in-a-row rule.
    pub fn is_trap_like(&self) -> bool {
        matches!(
            self,
            CallError::Trap { .. } | CallError::Deadline { .. } | CallError::Memory { .. }
        )
    }
}
