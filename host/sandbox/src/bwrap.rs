//! A profile as bubblewrap arguments. Mounts are applied in order, so the
//! narrow ones come last: hide `/tmp` and `/run` first (the home may live
//! in `/tmp` in tests; `/run` holds the host's sockets), then the home,
//! then show its toolchains; bind the workspace, then the approved
//! folders, and only then hide amber's folders and make every `.git` and
//! `.amber` read-only again, so no bind can undo them. The seccomp filters
//! ([`crate::syscall_filter`]) are passed as file descriptors bubblewrap
//! reads and loads right before it starts the command.

use std::ffi::OsString;
use std::os::fd::{AsRawFd, OwnedFd, RawFd};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::profile::Profile;
use crate::syscall_filter::{self, Network};

/// One in-memory file per filter, for `--add-seccomp-fd`: the filters of
/// a command with the network approved, or alone in its namespace.
pub fn seccomp_fds(network: bool) -> Result<Vec<OwnedFd>, String> {
    let network = if network {
        Network::Granted
    } else {
        Network::Namespaced
    };
    syscall_filter::programs(network)?
        .iter()
        .map(|program| {
            syscall_filter::memfd_with(&syscall_filter::program_bytes(program))
                .map_err(|e| format!("cannot hand the seccomp filter to bubblewrap: {e}"))
        })
        .collect()
}

/// Has bubblewrap load each of `filters` (`--add-seccomp-fd N`): the
/// descriptors stay open across `exec` in this command's child alone. They
/// must live until it has started.
pub fn pass_filters(cmd: &mut Command, filters: &[OwnedFd]) {
    let raw: Vec<RawFd> = filters.iter().map(AsRawFd::as_raw_fd).collect();
    for fd in &raw {
        cmd.arg("--add-seccomp-fd").arg(fd.to_string());
    }
    // SAFETY: the closure makes one fcntl a descriptor, async-signal-safe.
    unsafe {
        cmd.pre_exec(move || {
            for fd in &raw {
                syscall_filter::inherit_in_child(*fd)?;
            }
            Ok(())
        });
    }
}

fn push(args: &mut Vec<OsString>, flag: &str, paths: &[&Path]) {
    args.push(flag.into());
    for path in paths {
        args.push(path.as_os_str().to_owned());
    }
}

/// The arguments before `--` and the command: `protected` are bound
/// read-only last.
pub fn arguments(profile: &Profile, cwd: &Path, protected: &[PathBuf]) -> Vec<OsString> {
    let mut args: Vec<OsString> = Vec::new();
    for flag in ["--die-with-parent", "--unshare-pid", "--new-session"] {
        args.push(flag.into());
    }
    if !profile.network {
        args.push("--unshare-net".into());
    }
    push(&mut args, "--ro-bind", &[Path::new("/"), Path::new("/")]);
    push(&mut args, "--dev", &[Path::new("/dev")]);
    push(&mut args, "--proc", &[Path::new("/proc")]);
    push(&mut args, "--tmpfs", &[Path::new("/tmp")]);
    // D-Bus, agents, docker: a host socket is a way out of any sandbox.
    push(&mut args, "--tmpfs", &[Path::new("/run")]);
    if let Some(home) = &profile.home {
        if home.is_dir() {
            push(&mut args, "--tmpfs", &[home]);
            let (readable, masked) = profile.home_parts();
            for dir in &readable {
                push(&mut args, "--ro-bind", &[dir, dir]);
            }
            for file in &masked {
                push(&mut args, "--ro-bind", &[Path::new("/dev/null"), file]);
            }
        }
    }
    for dir in &profile.read_dirs {
        push(&mut args, "--ro-bind-try", &[dir, dir]);
    }
    let bind = if profile.workspace_writable {
        "--bind"
    } else {
        "--ro-bind"
    };
    push(&mut args, bind, &[&profile.workspace, &profile.workspace]);
    for dir in &profile.write_dirs {
        push(&mut args, "--bind-try", &[dir, dir]);
    }
    for dir in &profile.hidden {
        // One that holds the workspace would hide the workspace too;
        // `Profile::check` refused a workspace holding one.
        if dir.is_dir() && !profile.workspace.starts_with(dir) {
            push(&mut args, "--tmpfs", &[dir]);
        }
    }
    // After the hidden folders: one of them may hold it.
    for dir in &profile.private_dirs {
        push(&mut args, "--bind-try", &[dir, dir]);
    }
    for path in protected {
        // One removed since the walk (by a command running beside this
        // one) is skipped rather than failing this command.
        push(&mut args, "--ro-bind-try", &[path, path]);
    }
    push(&mut args, "--chdir", &[cwd]);
    args.push("--".into());
    args
}

#[cfg(test)]
mod tests {
    use super::*;

    fn joined(args: &[OsString]) -> String {
        args.iter()
            .map(|a| a.to_string_lossy().into_owned())
            .collect::<Vec<_>>()
            .join(" ")
    }

    #[test]
    fn the_workspace_is_bound_after_tmp_and_protected_folders_after_it() {
        let ws = tempfile::tempdir().unwrap();
        std::fs::create_dir(ws.path().join(".git")).unwrap();
        let mut profile = Profile::new(ws.path(), true);
        profile.home = None;
        let text = joined(&arguments(&profile, ws.path(), &profile.protected()));
        let ws = ws.path().display().to_string();
        let tmp = text.find("--tmpfs /tmp").unwrap();
        let bind = text.find(&format!("--bind {ws} {ws}")).unwrap();
        let git = text
            .find(&format!("--ro-bind-try {ws}/.git {ws}/.git"))
            .unwrap();
        assert!(tmp < bind && bind < git, "{text}");
        assert!(text.contains("--unshare-net"));
    }

    #[test]
    fn a_private_folder_inside_a_hidden_one_is_bound_after_it() {
        let ws = tempfile::tempdir().unwrap();
        let amber = tempfile::tempdir().unwrap();
        let own = amber.path().join("mcp/fs");
        std::fs::create_dir_all(&own).unwrap();
        let mut profile = Profile::new(ws.path(), false);
        profile.hidden = vec![amber.path().to_path_buf()];
        profile.private_dirs = vec![own.clone()];
        let text = joined(&arguments(&profile, ws.path(), &[]));
        let hidden = text
            .find(&format!("--tmpfs {}", amber.path().display()))
            .unwrap();
        let bound = text
            .find(&format!("--bind-try {} {}", own.display(), own.display()))
            .unwrap();
        assert!(hidden < bound, "{text}");
    }

    #[test]
    fn read_mode_binds_the_workspace_read_only_and_network_drops_unshare_net() {
        let ws = tempfile::tempdir().unwrap();
        let mut profile = Profile::new(ws.path(), false);
        profile.network = true;
        let text = joined(&arguments(&profile, ws.path(), &[]));
        let ws = ws.path().display().to_string();
        assert!(text.contains(&format!("--ro-bind {ws} {ws}")), "{text}");
        assert!(!text.contains("--unshare-net"));
    }
}
