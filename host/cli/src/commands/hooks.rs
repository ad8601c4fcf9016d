//! `amber hooks list|trust|untrust`: every hook with its source, events,
//! matcher and trust; trust pins a workspace hook's fingerprint, untrust
//! forgets it (docs/hooks.md).

use amber_app::hooks::{self, sources, trust::TrustStore};
use amber_app::host::{self, Host};
use amber_core::project::ProjectRoot;
use anyhow::{bail, Result};
use clap::Subcommand;

use super::print_json;

#[derive(Subcommand)]
pub enum HooksCommand {
    /// Every hook: the plugins' and the command hooks of the config and
    /// of Claude Code's settings, with their trust.
    List {
        /// JSON for scripts.
        #[arg(long)]
        json: bool,
    },
    /// Trust workspace hooks by fingerprint (as `list` shows it), or all
    /// of this workspace's with --all; they then run without asking until
    /// they change.
    Trust {
        /// The fingerprints, as `amber hooks list` shows them.
        #[arg(add = clap_complete::engine::ArgValueCandidates::new(super::completers::hook_fingerprints))]
        fingerprints: Vec<String>,
        /// Every hook this workspace defines (with --unsandboxed: every
        /// hook).
        #[arg(long)]
        all: bool,
        /// Allow these hooks (your own or the workspace's) to run without
        /// an OS sandbox on a machine that has none; amber asks at a
        /// terminal otherwise, and skips them without one.
        #[arg(long)]
        unsandboxed: bool,
        /// JSON for scripts: `{"trusted": [fingerprints]}`.
        #[arg(long)]
        json: bool,
    },
    /// Stop trusting workspace hooks by fingerprint.
    Untrust {
        /// The fingerprints, as `amber hooks list` shows them.
        #[arg(required = true)]
        #[arg(add = clap_complete::engine::ArgValueCandidates::new(super::completers::hook_fingerprints))]
        fingerprints: Vec<String>,
        /// Take back what `trust --unsandboxed` allowed.
        #[arg(long)]
        unsandboxed: bool,
        /// JSON for scripts: `{"untrusted": [...], "unknown": [...]}`.
        #[arg(long)]
        json: bool,
    },
}

pub fn run(host: &Host, command: HooksCommand, project: &ProjectRoot) -> Result<()> {
    let dirs = &host.dirs;
    let config = host.config()?;
    let workspace = project.root.as_path();
    match command {
        HooksCommand::List { json } => {
            let policy = host::policy(&host.front_end, &config, workspace, None, false);
            let manager = host::loaded_with(host, workspace, &config, Some(policy))?;
            let (listed, warnings) =
                hooks::list(manager.runtime().ledger(), &config, dirs, workspace);
            for warning in &warnings {
                errln!("amber: warning: {warning}");
            }
            if json {
                return print_json(&listed);
            }
            out!("{}", hooks::render(&listed).trim_end());
            outln!();
            Ok(())
        }
        HooksCommand::Trust {
            fingerprints,
            all,
            unsandboxed,
            json,
        } => {
            if fingerprints.is_empty() && !all {
                bail!("name the hooks to trust by fingerprint (`amber hooks list` shows them), or pass --all");
            }
            let home = std::env::var_os("HOME").map(std::path::PathBuf::from);
            let (defs, _) = sources::gather(&config, workspace, home.as_deref());
            let mut store = if unsandboxed {
                TrustStore::load_unsandboxed(&dirs.data)?
            } else {
                TrustStore::load(&dirs.data)?
            };
            let mut trusted = Vec::new();
            for def in defs.iter().filter(|d| unsandboxed || d.in_workspace()) {
                let fp = def.fingerprint(workspace);
                if all || fingerprints.iter().any(|f| f == &fp) {
                    store.trust(def, workspace);
                    trusted.push(fp);
                }
            }
            let unknown: Vec<&String> = fingerprints
                .iter()
                .filter(|f| !trusted.contains(f))
                .collect();
            if !unknown.is_empty() {
                bail!(
                    "no workspace hook here has the fingerprint {}; `amber hooks list` shows them",
                    unknown
                        .iter()
                        .map(|f| format!("`{f}`"))
                        .collect::<Vec<_>>()
                        .join(", ")
                );
            }
            store.save()?;
            if json {
                return print_json(&serde_json::json!({ "trusted": trusted }));
            }
            if unsandboxed {
                outln!("allowed {} hook(s) to run unsandboxed", trusted.len());
            } else {
                outln!("trusted {} hook(s)", trusted.len());
            }
            Ok(())
        }
        HooksCommand::Untrust {
            fingerprints,
            unsandboxed,
            json,
        } => {
            let mut store = if unsandboxed {
                TrustStore::load_unsandboxed(&dirs.data)?
            } else {
                TrustStore::load(&dirs.data)?
            };
            let (removed, unknown): (Vec<String>, Vec<String>) =
                fingerprints.into_iter().partition(|f| store.untrust(f));
            if !removed.is_empty() {
                store.save()?;
            }
            if json {
                return print_json(
                    &serde_json::json!({ "untrusted": removed, "unknown": unknown }),
                );
            }
            outln!("untrusted {} hook(s)", removed.len());
            if !unknown.is_empty() {
                bail!("not trusted before: {}", unknown.join(", "));
            }
            Ok(())
        }
    }
}
