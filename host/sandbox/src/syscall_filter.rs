//! The seccomp filters of a sandboxed command, one set for both Linux
//! backends: bubblewrap loads them (`--add-seccomp-fd`) right before it
//! starts the command, and the Landlock backend applies them in the child
//! before `exec`.
//!
//! What they refuse, and why a mount cannot:
//! - `socket(AF_UNIX, …)`: a Unix socket anywhere the command can see
//!   (a project folder next door, `/var/tmp`) answers `connect()` through a
//!   read-only mount. `socketpair` stays: it reaches nothing outside.
//! - every other `socket()` too when the command has no network and no
//!   network namespace of its own (Landlock). Under bubblewrap `AF_INET`
//!   stays: the command is alone in its namespace, and a `cargo test` that
//!   binds loopback must keep working.
//! - `io_uring_setup`: io_uring does its work without system calls the
//!   filter could see.
//! - `ptrace`: a way to steer another process (it also stops gdb, strace
//!   and LeakSanitizer inside the sandbox).
//! - `keyctl`, `add_key` and `request_key`: the kernel keyrings are not
//!   namespaced, and a user keyring can hold Kerberos tickets and other
//!   secrets.
//! - `setns`, and `unshare` and `clone` with a new-namespace flag: a new
//!   user namespace gives back every capability the sandbox dropped, and a
//!   new mount namespace lets it unmount the walls.
//! - `clone3` answers `ENOSYS`: its flags sit in memory a filter cannot
//!   read, and on `ENOSYS` glibc, Rust, Go and libuv fall back to `clone`,
//!   whose flags it can.
//!
//! On x86_64 the x32 numbers of the same calls (`nr | 0x4000_0000`) are
//! refused too: they reach the same kernel code under another number. A
//! 32-bit (`int 0x80`) call does not match the filter's architecture and
//! kills the process.

use std::collections::BTreeMap;
use std::io::{Seek, SeekFrom, Write};
use std::os::fd::{FromRawFd, OwnedFd};
use std::sync::OnceLock;

use seccompiler::{
    BpfProgram, SeccompAction, SeccompCmpArgLen, SeccompCmpOp, SeccompCondition, SeccompFilter,
    SeccompRule, TargetArch,
};

/// The namespace flags of `unshare` and `clone` (`CLONE_NEWTIME` only for
/// `unshare`: in `clone` the low byte is the exit signal).
const NAMESPACE_FLAGS: &[u64] = &[
    libc::CLONE_NEWNS as u64,
    libc::CLONE_NEWUTS as u64,
    libc::CLONE_NEWIPC as u64,
    libc::CLONE_NEWUSER as u64,
    libc::CLONE_NEWPID as u64,
    libc::CLONE_NEWNET as u64,
    libc::CLONE_NEWCGROUP as u64,
];
const CLONE_NEWTIME: u64 = 0x80;

/// The x32 ABI's bit on x86_64 system call numbers.
#[cfg(target_arch = "x86_64")]
const X32: i64 = 0x4000_0000;
/// x32's own number for `ptrace` (its common one is x86_64's only).
#[cfg(target_arch = "x86_64")]
const X32_PTRACE: i64 = 521;

/// The network a command has, as the filter sees it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Network {
    /// Its own namespace (bubblewrap without network): `AF_INET` reaches
    /// only itself.
    Namespaced,
    /// The host's network, approved.
    Granted,
    /// The host's network, not approved, and no namespace (Landlock):
    /// no socket at all.
    Refused,
}

type Rules = BTreeMap<i64, Vec<SeccompRule>>;

fn arg_masked(arg: u8, mask: u64) -> Result<SeccompRule, String> {
    condition_rule(arg, SeccompCmpOp::MaskedEq(mask), mask)
}

fn condition_rule(arg: u8, op: SeccompCmpOp, value: u64) -> Result<SeccompRule, String> {
    let condition = SeccompCondition::new(arg, SeccompCmpArgLen::Dword, op, value)
        .map_err(|e| format!("cannot build the seccomp filter: {e}"))?;
    SeccompRule::new(vec![condition]).map_err(|e| format!("cannot build the seccomp filter: {e}"))
}

/// One rule per namespace flag: a call matches when any is set.
fn namespace_rules(with_time: bool) -> Result<Vec<SeccompRule>, String> {
    let time = with_time.then_some(CLONE_NEWTIME);
    NAMESPACE_FLAGS
        .iter()
        .copied()
        .chain(time)
        .map(|flag| arg_masked(0, flag))
        .collect()
}

/// The calls refused with `EPERM`, each with its conditions (none: always).
fn refused_rules(network: Network) -> Result<Rules, String> {
    let socket = match network {
        Network::Refused => Vec::new(),
        Network::Namespaced | Network::Granted => {
            vec![condition_rule(0, SeccompCmpOp::Eq, libc::AF_UNIX as u64)?]
        }
    };
    let mut rules: Rules = [
        (libc::SYS_socket, socket),
        (libc::SYS_io_uring_setup, Vec::new()),
        (libc::SYS_ptrace, Vec::new()),
        (libc::SYS_keyctl, Vec::new()),
        (libc::SYS_add_key, Vec::new()),
        (libc::SYS_request_key, Vec::new()),
        (libc::SYS_setns, Vec::new()),
        (libc::SYS_unshare, namespace_rules(true)?),
        (libc::SYS_clone, namespace_rules(false)?),
    ]
    .into_iter()
    .collect();
    #[cfg(target_arch = "x86_64")]
    {
        let x32: Vec<(i64, Vec<SeccompRule>)> = rules
            .iter()
            .filter(|(nr, _)| **nr != libc::SYS_ptrace)
            .map(|(nr, conditions)| (nr | X32, conditions.clone()))
            .chain([(X32_PTRACE | X32, Vec::new())])
            .collect();
        rules.extend(x32);
    }
    Ok(rules)
}

/// `clone3`, answered `ENOSYS` so that callers fall back to `clone`.
fn clone3_rules() -> Rules {
    let mut rules: Rules = [(libc::SYS_clone3, Vec::new())].into_iter().collect();
    #[cfg(target_arch = "x86_64")]
    rules.insert(libc::SYS_clone3 | X32, Vec::new());
    rules
}

fn compile(rules: Rules, errno: i32) -> Result<BpfProgram, String> {
    let err = |e: seccompiler::BackendError| format!("cannot build the seccomp filter: {e}");
    let arch = TargetArch::try_from(std::env::consts::ARCH)
        .map_err(|e| format!("seccomp does not support this machine: {e}"))?;
    let filter = SeccompFilter::new(
        rules,
        SeccompAction::Allow,
        SeccompAction::Errno(errno as u32),
        arch,
    )
    .map_err(err)?;
    filter.try_into().map_err(err)
}

/// The programs to load, in order: the `EPERM` one and the `clone3` one
/// (a filter has one action for every match, so `ENOSYS` needs its own).
/// Compiled once per process for each kind of network: they never change,
/// and compiling them each time cost a command some 0.3 ms.
pub fn programs(network: Network) -> Result<&'static [BpfProgram], String> {
    static COMPILED: [OnceLock<Result<Vec<BpfProgram>, String>>; 3] =
        [OnceLock::new(), OnceLock::new(), OnceLock::new()];
    let slot = match network {
        Network::Namespaced => 0,
        Network::Granted => 1,
        Network::Refused => 2,
    };
    COMPILED[slot]
        .get_or_init(|| {
            Ok(vec![
                compile(refused_rules(network)?, libc::EPERM)?,
                compile(clone3_rules(), libc::ENOSYS)?,
            ])
        })
        .as_ref()
        .map(Vec::as_slice)
        .map_err(Clone::clone)
}

/// A program as the kernel takes it (`struct sock_filter[]`), which is
/// what bubblewrap reads from its `--add-seccomp-fd`.
pub fn program_bytes(program: &BpfProgram) -> Vec<u8> {
    let mut bytes = Vec::with_capacity(program.len() * 8);
    for insn in program {
        bytes.extend_from_slice(&insn.code.to_ne_bytes());
        bytes.push(insn.jt);
        bytes.push(insn.jf);
        bytes.extend_from_slice(&insn.k.to_ne_bytes());
    }
    bytes
}

/// An anonymous in-memory file holding `bytes`, read from its start,
/// closed on `exec` until the child that must inherit it clears that
/// (`inherit_in_child`): bubblewrap reads one per filter.
pub fn memfd_with(bytes: &[u8]) -> std::io::Result<OwnedFd> {
    let name = c"amber-seccomp";
    // SAFETY: memfd_create with a valid NUL-terminated name and flags;
    // the fd it returns is owned by the OwnedFd below.
    let fd = unsafe { libc::memfd_create(name.as_ptr(), libc::MFD_CLOEXEC) };
    if fd < 0 {
        return Err(std::io::Error::last_os_error());
    }
    // SAFETY: `fd` was just created and is owned by nobody else.
    let owned = unsafe { OwnedFd::from_raw_fd(fd) };
    let mut file = std::fs::File::from(owned);
    file.write_all(bytes)?;
    file.seek(SeekFrom::Start(0))?;
    Ok(OwnedFd::from(file))
}

/// In the child, after `fork` and before `exec`: keep `fd` open across
/// `exec`. Async-signal-safe (one `fcntl`).
pub fn inherit_in_child(fd: std::os::fd::RawFd) -> std::io::Result<()> {
    // SAFETY: fcntl(F_SETFD) on an fd the parent owns and keeps open until
    // the child has started.
    if unsafe { libc::fcntl(fd, libc::F_SETFD, 0) } < 0 {
        return Err(std::io::Error::last_os_error());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_refused_call_has_its_x32_twin_on_x86_64() {
        let rules = refused_rules(Network::Namespaced).unwrap();
        if cfg!(target_arch = "x86_64") {
            for nr in [
                libc::SYS_socket,
                libc::SYS_io_uring_setup,
                libc::SYS_setns,
                libc::SYS_unshare,
                libc::SYS_clone,
            ] {
                assert!(rules.contains_key(&(nr | 0x4000_0000)), "{nr}");
                assert_eq!(rules[&nr].len(), rules[&(nr | 0x4000_0000)].len());
            }
            assert!(rules.contains_key(&(521 | 0x4000_0000)));
        }
        for nr in [libc::SYS_keyctl, libc::SYS_add_key, libc::SYS_request_key] {
            assert!(rules[&nr].is_empty(), "{nr} is refused outright");
        }
        // Under a namespace only AF_UNIX sockets are refused; without
        // one, every socket.
        assert_eq!(rules[&libc::SYS_socket].len(), 1);
        let refused = refused_rules(Network::Refused).unwrap();
        assert!(refused[&libc::SYS_socket].is_empty());
    }

    #[test]
    fn the_programs_compile_and_serialise_eight_bytes_an_instruction() {
        for network in [Network::Namespaced, Network::Granted, Network::Refused] {
            let programs = programs(network).unwrap();
            assert_eq!(programs.len(), 2);
            for program in programs {
                assert!(!program.is_empty());
                assert_eq!(program_bytes(program).len(), program.len() * 8);
            }
        }
    }

    #[test]
    fn a_memfd_reads_back_what_was_written_from_its_start() {
        use std::io::Read;
        let fd = memfd_with(b"filter bytes").unwrap();
        let mut file = std::fs::File::from(fd);
        let mut back = String::new();
        file.read_to_string(&mut back).unwrap();
        assert_eq!(back, "filter bytes");
    }
}
