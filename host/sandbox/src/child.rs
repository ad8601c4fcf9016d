//! What every child does between `fork` and `exec`, sandboxed or not: die
//! when amber dies, and give up tracing (so even a child of root cannot
//! read amber's memory or `/proc/PID/environ`). Only async-signal-safe
//! calls here: the parent may have other threads.

use std::io;

/// `setsid()`: a new session and process group whose id is the child's
/// pid, and no controlling terminal.
pub fn own_session() -> io::Result<()> {
    // SAFETY: setsid is async-signal-safe and takes no arguments.
    if unsafe { libc::setsid() } < 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

/// `PR_SET_PDEATHSIG(SIGKILL)`, then a check that the parent did not die
/// before it was set.
pub fn die_with_parent(parent: libc::pid_t) -> io::Result<()> {
    #[cfg(target_os = "linux")]
    {
        // SAFETY: prctl and getppid are async-signal-safe and take no
        // pointers.
        unsafe {
            if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL, 0, 0, 0) != 0 {
                return Err(io::Error::last_os_error());
            }
            if libc::getppid() != parent {
                libc::_exit(137);
            }
        }
    }
    let _ = parent;
    Ok(())
}

#[cfg(target_os = "linux")]
#[repr(C)]
struct CapHeader {
    version: u32,
    pid: libc::c_int,
}

#[cfg(target_os = "linux")]
#[repr(C)]
#[derive(Clone, Copy)]
struct CapData {
    effective: u32,
    permitted: u32,
    inheritable: u32,
}

/// Drops `CAP_SYS_PTRACE` from the bounding, effective, permitted and
/// inheritable sets. Without it, a process of amber's own user (root
/// included) cannot read a non-dumpable amber's memory or environment.
/// Failure (no `CAP_SETPCAP`) leaves nothing to drop for a normal user.
pub fn drop_ptrace() {
    #[cfg(target_os = "linux")]
    {
        const CAP_SYS_PTRACE: u32 = 19;
        const VERSION_3: u32 = 0x2008_0522;
        let mut header = CapHeader {
            version: VERSION_3,
            pid: 0,
        };
        let mut data = [CapData {
            effective: 0,
            permitted: 0,
            inheritable: 0,
        }; 2];
        // SAFETY: capget/capset with a valid header and two data records,
        // as the version-3 ABI requires; prctl takes no pointers.
        unsafe {
            libc::prctl(
                libc::PR_CAPBSET_DROP,
                CAP_SYS_PTRACE as libc::c_ulong,
                0,
                0,
                0,
            );
            if libc::syscall(libc::SYS_capget, &mut header, data.as_mut_ptr()) == 0 {
                let bit = !(1u32 << CAP_SYS_PTRACE);
                data[0].effective &= bit;
                data[0].permitted &= bit;
                data[0].inheritable &= bit;
                libc::syscall(libc::SYS_capset, &mut header, data.as_ptr());
            }
        }
    }
}
