//! amber-app: the one host both front ends build. `amber exec` and the
//! TUI (and `amber /cmd` from the shell) assemble the same pieces here:
//! config, dirs, runtime and plugins, policy, tools, prompt blocks, the
//! model client and the session, and the built-in slash commands.

// A library reports what happened; its front end decides what to print.
#![deny(clippy::print_stdout, clippy::print_stderr)]

pub mod agents;
mod app;
pub mod builtins;
pub mod checkpoints;
mod clients;
mod commands;
pub mod compaction;
pub mod config_file;
pub mod coverage;
pub mod coverage_query;
mod feeds;
pub mod file_commands;
pub mod frontmatter;
pub mod git;
pub mod hooks;
pub mod host;
pub mod images;
pub mod jobs;
pub mod keys;
pub mod mcp;
pub mod memory;
pub mod mentions;
pub mod piped;
pub mod presets;
pub mod preview;
pub mod prompt_effect;
pub mod recall;
pub mod render;
pub mod run_report;
pub mod served;
pub mod session;
pub mod skills;
pub mod stop_signals;
pub mod subagents;
pub mod tool_search;
pub mod watch;

pub use app::{App, Settings};
pub use session::Live;
