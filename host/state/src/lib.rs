//! amber's files on disk, in one place. Where they live ([`AmberDirs`]:
//! read from the environment once per process and passed down), how each
//! is written so a crash or a full disk never leaves half of it
//! ([`atomic`]: replace whole, locks for read-modify-write, stale
//! temporaries swept), and the bookkeeping of its caches ([`CacheDir`]:
//! read-only layers before amber's own folder; [`FileHashes`]: content
//! hashes remembered by a file's identity). The runtime, memory, the
//! index, MCP, coverage and the app all write through it; it depends on
//! nothing of ours, so the core and everything above can.

#![deny(clippy::print_stdout, clippy::print_stderr)]

pub mod atomic;
mod cache_dir;
pub mod crash_point;
mod dirs;
pub mod file_hashes;

pub use cache_dir::{CacheDir, CacheEntry, Durability};
pub use dirs::AmberDirs;
pub use file_hashes::FileHashes;
