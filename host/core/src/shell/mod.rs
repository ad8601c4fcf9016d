//! Shell commands as the host sees them before running one: a reader for
//! the command line (`lex`) and `shell_classify` on its parsed words.

pub mod classify;
pub mod lex;

pub use classify::{shell_classify, Classification, Concern, ShellClass, TouchedPath};
