//! What one sandboxed command may touch. The spawner turns a profile into
//! bubblewrap arguments or a Landlock ruleset; the profile itself is plain
//! data, so the policy (in amber-core) can say what it grants without
//! knowing how the kernel enforces it.

use std::path::{Path, PathBuf};

/// Folders of the workspace a command may read but never write: history
/// (`.git`, as Codex keeps it) and amber's own project state (`.amber`).
pub const PROTECTED_IN_WORKSPACE: &[&str] = &[".git", ".amber"];

/// Folders under the home folder that stay readable when the rest of it is
/// hidden: the toolchains a build needs. Credentials inside them are
/// masked ([`MASKED_IN_HOME`]).
pub const DEFAULT_HOME_READABLE: &[&str] = &[
    ".cargo",
    ".rustup",
    ".pyenv",
    ".nvm",
    ".local/bin",
    ".local/lib",
    ".gitconfig",
    ".config/git",
    ".npmrc.d",
];

/// Files inside the readable home folders that hold secrets: they read as
/// empty inside the sandbox.
pub const MASKED_IN_HOME: &[&str] = &[
    ".cargo/credentials",
    ".cargo/credentials.toml",
    ".pyenv/.netrc",
];

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Profile {
    /// The workspace root, an absolute path.
    pub workspace: PathBuf,
    /// Write mode: the workspace is writable (but its protected folders).
    pub workspace_writable: bool,
    /// An approved escalation: the network is reachable.
    pub network: bool,
    /// Approved escalations: folders outside the workspace made readable
    /// (when hidden) or writable.
    pub read_dirs: Vec<PathBuf>,
    pub write_dirs: Vec<PathBuf>,
    /// Folders hidden from the command: amber's config, data, state and
    /// cache folders, so sessions, grants and logs stay out of reach.
    pub hidden: Vec<PathBuf>,
    /// The home folder, hidden but for `home_readable` (relative to it).
    pub home: Option<PathBuf>,
    pub home_readable: Vec<PathBuf>,
    /// Folders of amber's own given to this command alone, read-write:
    /// an MCP server's state folder inside amber's data folder, which
    /// `hidden` hides from every other command.
    pub private_dirs: Vec<PathBuf>,
}

impl Profile {
    /// The default profile of `workspace`: writable or not, no network, no
    /// escalation, the home folder hidden but for the toolchains.
    pub fn new(workspace: &Path, workspace_writable: bool) -> Profile {
        Profile {
            workspace: workspace.to_path_buf(),
            workspace_writable,
            network: false,
            read_dirs: Vec::new(),
            write_dirs: Vec::new(),
            hidden: Vec::new(),
            home: std::env::var_os("HOME")
                .map(PathBuf::from)
                .filter(|h| h.is_absolute() && h != Path::new("/")),
            home_readable: DEFAULT_HOME_READABLE.iter().map(PathBuf::from).collect(),
            private_dirs: Vec::new(),
        }
    }

    /// The protected folders of this workspace that exist.
    pub fn protected(&self) -> Vec<PathBuf> {
        PROTECTED_IN_WORKSPACE
            .iter()
            .map(|name| self.workspace.join(name))
            .filter(|p| p.exists())
            .collect()
    }

    /// The readable home folders and the masked files that exist.
    pub fn home_parts(&self) -> (Vec<PathBuf>, Vec<PathBuf>) {
        let Some(home) = &self.home else {
            return (Vec::new(), Vec::new());
        };
        let readable = self
            .home_readable
            .iter()
            .map(|rel| home.join(rel))
            .filter(|p| p.exists())
            .collect();
        let masked = MASKED_IN_HOME
            .iter()
            .map(|rel| home.join(rel))
            .filter(|p| p.is_file())
            .collect();
        (readable, masked)
    }

    /// Refuses what would open everything: a workspace that is `/`, or
    /// holds the home folder or amber's own folders (a command could then
    /// rewrite `~/.bashrc` or amber's config), and an approved folder that
    /// is `/` or holds the workspace, the home or amber's folders. Paths
    /// are compared resolved, so a symlink cannot hide what it leads to.
    pub fn check(&self) -> Result<(), String> {
        let real = |p: &Path| p.canonicalize().unwrap_or_else(|_| p.to_path_buf());
        let workspace = real(&self.workspace);
        let mut guarded: Vec<(PathBuf, &str)> = Vec::new();
        if let Some(home) = &self.home {
            guarded.push((real(home), "your home folder"));
        }
        for dir in &self.hidden {
            guarded.push((real(dir), "amber's own state"));
        }
        if workspace == Path::new("/") {
            return Err("the workspace is `/`; open a project folder (amber -C DIR)".into());
        }
        if let Some((dir, what)) = guarded.iter().find(|(dir, _)| dir.starts_with(&workspace)) {
            return Err(format!(
                "the workspace {} holds {what} ({}); commands would reach it, so none runs here: open a project folder (amber -C DIR)",
                workspace.display(),
                dir.display()
            ));
        }
        for granted in self.read_dirs.iter().chain(&self.write_dirs) {
            let granted = real(granted);
            let holds = |inner: &Path| inner.starts_with(&granted);
            if granted == Path::new("/")
                || holds(&workspace)
                || guarded.iter().any(|(d, _)| holds(d))
            {
                return Err(format!(
                    "access to {} would open the workspace, your home folder or amber's own state; it is not granted",
                    granted.display()
                ));
            }
        }
        Ok(())
    }

    /// What the command may do, in words, for approvals and `doctor`.
    pub fn describe(&self) -> String {
        let mut parts = vec![if self.workspace_writable {
            "workspace writable (but .git and .amber)".to_string()
        } else {
            "workspace read-only".to_string()
        }];
        parts.push(
            if self.network {
                "network on"
            } else {
                "no network"
            }
            .into(),
        );
        for dir in &self.read_dirs {
            parts.push(format!("read access to {}", dir.display()));
        }
        for dir in &self.write_dirs {
            parts.push(format!("write access to {}", dir.display()));
        }
        for dir in &self.private_dirs {
            parts.push(format!("its own folder {}", dir.display()));
        }
        parts.join(", ")
    }
}

/// How one command runs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Confinement {
    /// In the OS sandbox, with this profile.
    Sandboxed(Profile),
    /// Without a sandbox (yolo, or an approved "run unsandboxed"); it still
    /// gets its own process group, dies with amber and cannot trace it.
    Unsandboxed,
}
