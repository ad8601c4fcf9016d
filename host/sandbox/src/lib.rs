//! amber-sandbox: the one process spawner.
//!
//! Every process amber starts on a model's or a plugin's behalf (the
//! `exec` import today; background processes, command hooks, MCP stdio
//! servers and external plugins later) is started here and nowhere else.
//! Classification decides what the user is asked; this crate is the wall
//! that holds when classification is wrong.
//!
//! What a sandboxed command gets ([`Profile`]):
//! - the workspace, writable in write mode except every `.git` and
//!   `.amber` in it ([`guard`]), read-only in read mode; a repository a
//!   command creates loses its hooks and unsafe config keys when it ends;
//! - the rest of the filesystem read-only, with the home folder hidden
//!   (but for the toolchain folders named in the profile) and amber's own
//!   state folders hidden;
//! - a private `/tmp`, no network, only its own processes;
//! - no Unix sockets, io_uring, ptrace or new namespaces (seccomp);
//! - the environment the caller passes, which is an allowlist without keys.
//!
//! The backends, in order of preference ([`Backend::detect`]): bubblewrap
//! (mount and PID namespaces), else Landlock with a seccomp filter applied
//! in the child before `exec`. On macOS a Seatbelt profile is written
//! ([`seatbelt`]) but not tested here. Every child, sandboxed or not, is in
//! its own process group and session and, where amber may make one, its
//! own cgroup; it dies with amber (`PR_SET_PDEATHSIG`, and the sandbox's
//! die-with-parent), cannot trace amber, and is bounded in processes,
//! memory and CPU time ([`limits`]). Nothing it starts outlives it:
//! amber becomes a child subreaper, and what a command leaves behind is
//! killed when it ends (`reaper.rs`; [`shutdown`] at amber's exit).

// A library reports what happened; its front end decides what to print.
#![deny(clippy::print_stdout, clippy::print_stderr)]

mod backend;
#[cfg(target_os = "linux")]
mod bwrap;
pub mod cgroup;
mod child;
pub mod guard;
#[cfg(target_os = "linux")]
mod landlock_seccomp;
pub mod limits;
mod output;
mod procfs;
mod profile;
mod reaper;
pub mod seatbelt;
mod server;
mod spawn;
#[cfg(target_os = "linux")]
mod syscall_filter;

pub use backend::{Backend, BackendChoice};
pub use guard::{ChangeKind, ProtectedChange};
pub use limits::{Enforced, Enforcement, Limits};
pub use output::CappedOutput;
pub use profile::{Confinement, Profile};
pub use reaper::{
    become_subreaper, is_subreaper, kill_running, kill_server, shutdown, ChildHandle,
};
pub use server::Server;
pub use spawn::{describe, looks_secret, CommandOutput, CommandSpec, SpawnError, Spawner};
