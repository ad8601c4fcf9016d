//! What the user's config decides about the commands plugins run through
//! `exec`: the environment passed through, the timeout and output cap,
//! the spawner and the folders hidden or kept readable. Held by every
//! plugin's context; the `exec` import applies it.

use std::path::{Path, PathBuf};
use std::time::Duration;

use amber_core::ports::CommandPermit;
use amber_sandbox::{Confinement, Profile, Spawner};

/// What the user's config decides about commands.
#[derive(Debug, Clone)]
pub struct ExecPolicy {
    /// Variables passed through from the host's environment; names that
    /// look like secrets are dropped by the spawner even when listed.
    pub env_allowlist: Vec<String>,
    pub default_timeout: Duration,
    /// Bytes kept of stdout and of stderr, each.
    pub output_cap: usize,
    /// The spawner, with this machine's sandbox backend.
    pub spawner: Spawner,
    /// Folders no command may see: amber's own state.
    pub hidden: Vec<PathBuf>,
    /// Folders of the home that stay readable (`[sandbox] home_readable`);
    /// None keeps the default list.
    pub home_readable: Option<Vec<PathBuf>>,
}

impl Default for ExecPolicy {
    fn default() -> Self {
        ExecPolicy {
            env_allowlist: ["PATH", "HOME", "LANG", "TERM", "USER"]
                .map(String::from)
                .to_vec(),
            default_timeout: Duration::from_secs(120),
            output_cap: 256 * 1024,
            spawner: Spawner::detect(amber_sandbox::BackendChoice::Auto),
            hidden: Vec::new(),
            home_readable: None,
        }
    }
}

impl ExecPolicy {
    /// The confinement a permit asks for, in `workspace`.
    pub fn confinement(&self, workspace: &Path, permit: &CommandPermit) -> Confinement {
        if permit.unsandboxed {
            return Confinement::Unsandboxed;
        }
        let mut profile = Profile::new(workspace, permit.workspace_writable);
        profile.network = permit.network;
        profile.read_dirs = permit.read_dirs.clone();
        profile.write_dirs = permit.write_dirs.clone();
        profile.hidden = self.hidden.clone();
        if let Some(readable) = &self.home_readable {
            profile.home_readable = readable.clone();
        }
        Confinement::Sandboxed(profile)
    }

    /// The allowlisted variables of amber's environment, as every command
    /// gets them (the spawner still drops names that look like secrets).
    pub fn environment(&self) -> Vec<(String, std::ffi::OsString)> {
        self.env_allowlist
            .iter()
            .filter_map(|key| std::env::var_os(key).map(|v| (key.clone(), v)))
            .collect()
    }
}
