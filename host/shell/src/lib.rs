//! amber-shell: command lines as the host sees them before running one,
//! as codex-rs's `shell-command` is apart from its core. A reader for the
//! command line (`lex`), `shell_classify` on its parsed words (what a
//! command touches, and whether it may run without asking), and the
//! lexical path confinement (`confine`) both the classifier and the host
//! use. No I/O beyond what a classification of `cd` needs, no amber types:
//! fuzzed on its own (`fuzz/fuzz_targets/shell.rs`, `confine.rs`), and
//! `amber-core` depends on it.

// A library reports what happened; its front end decides what to print.
#![deny(clippy::print_stdout, clippy::print_stderr)]

pub mod classify;
pub mod confine;
pub mod lex;

pub use classify::{shell_classify, Classification, Concern, ShellClass, TouchedPath};
pub use confine::{confine, ConfineError};
