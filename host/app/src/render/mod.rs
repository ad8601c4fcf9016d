//! The text both front ends show for the same thing: `amber plugin list`
//! and `/plugins list` print one rendering, made here once.

pub mod agents;
pub mod cost;
pub mod plugins;
pub mod sessions;
pub mod skills;
