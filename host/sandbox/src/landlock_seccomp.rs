//! The Landlock and seccomp backend, for machines without bubblewrap.
//!
//! The ruleset and the filter are built in the parent (allocation is not
//! safe after `fork` in a threaded process); the child only calls
//! `landlock_restrict_self` and `seccomp` before `exec`.
//!
//! Landlock grants, it cannot hide: so reads are granted on every folder
//! that leads to none of the hidden ones (the homes, `/tmp`, amber's
//! folders), walking into those that hold one, plus the toolchain folders
//! of the home, the workspace, and a private temporary folder (`TMPDIR`). Its rules cover whole trees, so `.git` cannot be carved out
//! of a writable workspace: under this backend `.git` is writable
//! (docs/sandbox.md): the workspace guard (`guard`) checks every `.git`
//! against a snapshot after the command instead. The system calls no
//! command needs are refused by the filters of [`crate::syscall_filter`];
//! without an approved network that is every `socket()`, and on ABI 4 and
//! later Landlock's TCP rules refuse connect and bind as well. On ABI 6
//! and later the command cannot signal processes outside its sandbox nor
//! reach abstract Unix sockets.

use std::path::{Path, PathBuf};

use landlock::{
    path_beneath_rules, Access, AccessFs, AccessNet, Ruleset, RulesetAttr, RulesetCreated,
    RulesetCreatedAttr, RulesetStatus, Scope, ABI,
};
use seccompiler::BpfProgram;

use crate::profile::Profile;
use crate::syscall_filter::Network;

/// What the child applies.
pub struct Plan {
    ruleset: Option<RulesetCreated>,
    filters: &'static [BpfProgram],
}

const ABI_USED: ABI = ABI::V6;

/// Folders no read may enter: the home folders, `/tmp` (the command gets
/// a private one) and amber's own, resolved.
fn unreadable(profile: &Profile) -> Vec<PathBuf> {
    let real = |p: &Path| p.canonicalize().unwrap_or_else(|_| p.to_path_buf());
    let mut out: Vec<PathBuf> = ["/home", "/root", "/tmp", "/var/tmp", "/lost+found"]
        .iter()
        .map(|p| real(Path::new(p)))
        .collect();
    out.extend(profile.home.iter().map(|h| real(h)));
    out.extend(profile.hidden.iter().map(|h| real(h)));
    out
}

/// Every entry of `dir` that leads to no unreadable folder, granted whole;
/// the entries that hold one are walked into, so only the unreadable
/// folders themselves stay out (Landlock grants and cannot deny).
fn readable_except(dir: &Path, unreadable: &[PathBuf], out: &mut Vec<PathBuf>, depth: usize) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        // A symlink counts where it leads.
        let real = path.canonicalize().unwrap_or_else(|_| path.clone());
        if unreadable.iter().any(|u| real.starts_with(u)) {
            continue;
        }
        let holds = unreadable.iter().any(|u| u.starts_with(&real));
        if holds && depth < 16 && real.is_dir() {
            readable_except(&real, unreadable, out, depth + 1);
        } else if !holds {
            out.push(path);
        }
    }
}

fn readable_roots(profile: &Profile, private_tmp: &Path) -> Vec<PathBuf> {
    let mut roots = Vec::new();
    readable_except(Path::new("/"), &unreadable(profile), &mut roots, 0);
    roots.extend(profile.home_parts().0);
    roots.extend(profile.read_dirs.iter().cloned());
    roots.extend(profile.private_dirs.iter().cloned());
    roots.push(profile.workspace.clone());
    roots.push(private_tmp.to_path_buf());
    roots
}

fn writable_roots(profile: &Profile, private_tmp: &Path) -> Vec<PathBuf> {
    let mut roots = vec![private_tmp.to_path_buf()];
    if profile.workspace_writable {
        roots.push(profile.workspace.clone());
    }
    roots.extend(profile.write_dirs.iter().cloned());
    roots.extend(profile.private_dirs.iter().cloned());
    roots
}

fn ruleset(profile: &Profile, private_tmp: &Path) -> Result<RulesetCreated, String> {
    let err = |e: landlock::RulesetError| format!("cannot build the Landlock ruleset: {e}");
    let mut ruleset = Ruleset::default()
        .handle_access(AccessFs::from_all(ABI_USED))
        .map_err(err)?
        .scope(Scope::Signal)
        .map_err(err)?
        .scope(Scope::AbstractUnixSocket)
        .map_err(err)?;
    if !profile.network {
        ruleset = ruleset
            .handle_access(AccessNet::BindTcp | AccessNet::ConnectTcp)
            .map_err(err)?;
    }
    let devices = ["/dev/null", "/dev/zero", "/dev/full"];
    ruleset
        .create()
        .map_err(err)?
        .add_rules(path_beneath_rules(
            readable_roots(profile, private_tmp),
            AccessFs::from_read(ABI_USED),
        ))
        .map_err(err)?
        .add_rules(path_beneath_rules(
            writable_roots(profile, private_tmp),
            AccessFs::from_all(ABI_USED),
        ))
        .map_err(err)?
        .add_rules(path_beneath_rules(
            devices,
            AccessFs::from_read(ABI_USED) | AccessFs::WriteFile,
        ))
        .map_err(err)
}

impl Plan {
    pub fn new(profile: &Profile, private_tmp: &Path) -> Result<Plan, String> {
        Ok(Plan {
            ruleset: Some(ruleset(profile, private_tmp)?),
            filters: crate::syscall_filter::programs(if profile.network {
                Network::Granted
            } else {
                Network::Refused
            })?,
        })
    }

    /// In the child, before `exec`: restrict, or fail the spawn.
    /// Nothing here allocates: only an errno crosses back from the child
    /// anyway, and the parent names the backend (`EPERM`).
    pub fn apply(&mut self) -> std::io::Result<()> {
        let refused = || std::io::Error::from_raw_os_error(libc::EPERM);
        if let Some(ruleset) = self.ruleset.take() {
            let status = ruleset.restrict_self().map_err(|_| refused())?;
            if status.ruleset == RulesetStatus::NotEnforced {
                return Err(refused());
            }
        }
        for filter in self.filters {
            seccompiler::apply_filter(filter).map_err(|_| refused())?;
        }
        Ok(())
    }
}
