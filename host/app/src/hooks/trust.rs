//! Trust of workspace hooks. A hook a repository planted never runs until
//! the user has seen it and said yes; its fingerprint (sources.rs) is then
//! pinned in `<data>/hooks-trust.json`, so a changed hook is asked about
//! again. The user's own hooks (config, `~/.claude`) need no trust.

use std::collections::BTreeMap;
use std::io::{BufRead, IsTerminal, Write};
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use serde::{Deserialize, Serialize};

use super::sources::HookDef;

/// What was trusted: shown by `amber hooks list`, and enough to say what
/// a fingerprint stood for once its hook is gone.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Trusted {
    pub workspace: String,
    pub source: String,
    pub event: String,
    pub command: String,
}

pub struct TrustStore {
    path: PathBuf,
    entries: BTreeMap<String, Trusted>,
}

/// The store of hooks trusted to run in this workspace.
const TRUSTED_FILE: &str = "hooks-trust.json";

/// The store of workspace command files trusted to run their commands.
const COMMANDS_FILE: &str = "commands-trust.json";

/// The store of hooks allowed to run without an OS sandbox, on a machine
/// that has none: asked separately, since trust was given to a hook in
/// the sandbox.
const UNSANDBOXED_FILE: &str = "hooks-unsandboxed.json";

impl TrustStore {
    /// The store in `data`; empty when there is none yet.
    pub fn load(data: &Path) -> Result<Self> {
        Self::load_file(data.join(TRUSTED_FILE))
    }

    /// The hooks allowed to run unsandboxed, in `data`.
    pub fn load_unsandboxed(data: &Path) -> Result<Self> {
        Self::load_file(data.join(UNSANDBOXED_FILE))
    }

    /// The workspace command files trusted to run their commands, in
    /// `data` (`file_commands`): pinned the same way, in a file of their
    /// own.
    pub fn load_commands(data: &Path) -> Result<Self> {
        Self::load_file(data.join(COMMANDS_FILE))
    }

    /// Pins `fingerprint` as trusted, with what it stands for.
    pub fn pin(&mut self, fingerprint: String, trusted: Trusted) {
        self.entries.insert(fingerprint, trusted);
    }

    fn load_file(path: PathBuf) -> Result<Self> {
        let entries = match std::fs::read_to_string(&path) {
            Ok(text) => serde_json::from_str(&text)
                .with_context(|| format!("{} is not a trust store amber wrote", path.display()))?,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => BTreeMap::new(),
            Err(e) => return Err(e).with_context(|| format!("cannot read {}", path.display())),
        };
        Ok(TrustStore { path, entries })
    }

    pub fn is_trusted(&self, fingerprint: &str) -> bool {
        self.entries.contains_key(fingerprint)
    }

    /// Pins `def` as trusted in `workspace`.
    pub fn trust(&mut self, def: &HookDef, workspace: &Path) {
        self.entries.insert(
            def.fingerprint(workspace),
            Trusted {
                workspace: workspace.display().to_string(),
                source: def.source.describe(),
                event: def.event.to_string(),
                command: def.command.clone(),
            },
        );
    }

    /// Forgets a fingerprint; whether it was there.
    pub fn untrust(&mut self, fingerprint: &str) -> bool {
        self.entries.remove(fingerprint).is_some()
    }

    /// Writes the store atomically: a crash leaves the old one whole.
    pub fn save(&self) -> Result<()> {
        if let Some(dir) = self.path.parent() {
            std::fs::create_dir_all(dir)
                .with_context(|| format!("cannot create {}", dir.display()))?;
        }
        let text = serde_json::to_string_pretty(&self.entries)?;
        amber_state::atomic::write_private(&self.path, text.as_bytes())
            .with_context(|| format!("cannot write {}", self.path.display()))
    }
}

/// Whether a person is at a terminal to ask.
pub fn can_ask() -> bool {
    std::io::stdin().is_terminal() && std::io::stderr().is_terminal()
}

/// Shows `def` on the terminal and asks whether to trust it.
pub fn ask_on_tty(def: &HookDef, workspace: &Path) -> bool {
    ask(
        def,
        workspace,
        "this workspace defines a hook that has not been trusted",
        "It would run with your user's rights (in the sandbox where one exists), without approval.",
        "Trust it?",
    )
}

/// Shows `def` on the terminal and asks whether it may run without an OS
/// sandbox, which this machine lacks (`why`).
pub fn ask_unsandboxed_on_tty(def: &HookDef, workspace: &Path, why: &str) -> bool {
    ask(
        def,
        workspace,
        &format!("this machine has no OS sandbox ({why})"),
        "This hook would run unsandboxed, with your user's rights over every file, at every matching event.",
        "Run it unsandboxed?",
    )
}

fn ask(def: &HookDef, workspace: &Path, heading: &str, consequence: &str, question: &str) -> bool {
    let Ok(tty) = std::fs::File::open("/dev/tty") else {
        return false;
    };
    let mut err = std::io::stderr();
    let _ = writeln!(err, "\namber: {heading}");
    let _ = writeln!(
        err,
        "  hook:     {} ({})",
        def.id,
        def.fingerprint(workspace)
    );
    let _ = writeln!(err, "  event:    {}", def.event);
    let matcher = def.matcher.as_str().unwrap_or("*");
    let _ = writeln!(
        err,
        "  matcher:  {}",
        amber_core::printable::printable(matcher)
    );
    let _ = writeln!(
        err,
        "  command:  {}",
        amber_core::printable::printable(&def.command)
    );
    let _ = writeln!(err, "  {consequence}");
    let _ = write!(err, "{question} [y/N] ");
    let _ = err.flush();
    let mut line = String::new();
    let _ = std::io::BufReader::new(tty).read_line(&mut line);
    matches!(line.trim(), "y" | "Y" | "yes")
}
