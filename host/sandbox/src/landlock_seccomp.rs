//! The Landlock and seccomp backend, for machines without bubblewrap.
//!
//! The ruleset and the filter are built in the parent (allocation is not
//! safe after `fork` in a threaded process); the child only calls
//! `landlock_restrict_self` and `seccomp` before `exec`.
//!
//! Landlock grants, it cannot hide: so reads are allowed on every
//! top-level folder but the home folders and `/tmp`, plus the toolchain
//! folders of the home, the workspace, and a private temporary folder
//! (`TMPDIR`). Its rules cover whole trees, so `.git` cannot be carved out
//! of a writable workspace: under this backend `.git` is writable
//! (docs/sandbox.md). The network is closed by seccomp (no socket but
//! `AF_UNIX`) and, on ABI 4 and later, by Landlock's TCP rules. On ABI 6
//! and later the command cannot signal processes outside its sandbox.

use std::path::{Path, PathBuf};

use landlock::{
    path_beneath_rules, Access, AccessFs, AccessNet, Ruleset, RulesetAttr, RulesetCreated,
    RulesetCreatedAttr, RulesetStatus, Scope, ABI,
};
use seccompiler::{
    BpfProgram, SeccompAction, SeccompCmpArgLen, SeccompCmpOp, SeccompCondition, SeccompFilter,
    SeccompRule, TargetArch,
};

use crate::profile::Profile;

/// What the child applies.
pub struct Plan {
    ruleset: Option<RulesetCreated>,
    filter: Option<BpfProgram>,
}

const ABI_USED: ABI = ABI::V6;

fn readable_roots(profile: &Profile, private_tmp: &Path) -> Vec<PathBuf> {
    let skipped = |p: &Path| {
        matches!(
            p.to_str(),
            Some("/home" | "/root" | "/tmp" | "/var/tmp" | "/lost+found")
        ) || profile.home.as_deref() == Some(p)
            || profile.hidden.iter().any(|h| h == p)
    };
    let mut roots: Vec<PathBuf> = std::fs::read_dir("/")
        .map(|entries| {
            entries
                .flatten()
                .map(|e| e.path())
                .filter(|p| !skipped(p))
                .collect()
        })
        .unwrap_or_default();
    roots.extend(profile.home_parts().0);
    roots.extend(profile.read_dirs.iter().cloned());
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
    roots
}

fn ruleset(profile: &Profile, private_tmp: &Path) -> Result<RulesetCreated, String> {
    let err = |e: landlock::RulesetError| format!("cannot build the Landlock ruleset: {e}");
    let mut ruleset = Ruleset::default()
        .handle_access(AccessFs::from_all(ABI_USED))
        .map_err(err)?
        .scope(Scope::Signal)
        .map_err(err)?;
    if !profile.network {
        ruleset = ruleset
            .handle_access(AccessNet::BindTcp | AccessNet::ConnectTcp)
            .map_err(err)?;
    }
    let devices = ["/dev/null", "/dev/zero", "/dev/full", "/dev/tty"];
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

/// No socket but `AF_UNIX`, and no io_uring (which would bypass the
/// socket rule).
fn network_filter() -> Result<BpfProgram, String> {
    let err = |e: seccompiler::BackendError| format!("cannot build the seccomp filter: {e}");
    let arch = TargetArch::try_from(std::env::consts::ARCH)
        .map_err(|e| format!("seccomp does not support this machine: {e}"))?;
    let not_unix = SeccompRule::new(vec![SeccompCondition::new(
        0,
        SeccompCmpArgLen::Dword,
        SeccompCmpOp::Ne,
        libc::AF_UNIX as u64,
    )
    .map_err(err)?])
    .map_err(err)?;
    let rules = [
        (libc::SYS_socket, vec![not_unix]),
        (libc::SYS_io_uring_setup, vec![]),
    ]
    .into_iter()
    .collect();
    let filter = SeccompFilter::new(
        rules,
        SeccompAction::Allow,
        SeccompAction::Errno(libc::EPERM as u32),
        arch,
    )
    .map_err(err)?;
    filter.try_into().map_err(err)
}

impl Plan {
    pub fn new(profile: &Profile, private_tmp: &Path) -> Result<Plan, String> {
        Ok(Plan {
            ruleset: Some(ruleset(profile, private_tmp)?),
            filter: if profile.network {
                None
            } else {
                Some(network_filter()?)
            },
        })
    }

    /// In the child, before `exec`: restrict, or fail the spawn.
    pub fn apply(&mut self) -> std::io::Result<()> {
        let fail = |what: String| std::io::Error::new(std::io::ErrorKind::PermissionDenied, what);
        if let Some(ruleset) = self.ruleset.take() {
            let status = ruleset
                .restrict_self()
                .map_err(|e| fail(format!("Landlock: {e}")))?;
            if status.ruleset == RulesetStatus::NotEnforced {
                return Err(fail("Landlock is not enforced by this kernel".into()));
            }
        }
        if let Some(filter) = &self.filter {
            seccompiler::apply_filter(filter).map_err(|e| fail(format!("seccomp: {e}")))?;
        }
        Ok(())
    }
}
