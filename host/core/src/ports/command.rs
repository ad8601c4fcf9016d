//! The command port. Seed: "Command binding".
//!
//! A plugin declares a root (`git` for `/git …`) and answers `spec` with its
//! subtree as a flat pre-order list, which the host merges into its command
//! tree (`commands::plugin_subtree`, which trusts nothing in the list). The
//! root itself is checked when it is installed: [`check_root`].

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CommandRoot {
    pub root: String,
    pub help: String,
}

/// A node of a subtree, flat in pre-order; `parent` indexes the same list.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CommandNode {
    pub name: String,
    pub help: String,
    pub man: Option<String>,
    pub parent: Option<u32>,
    /// Leaves without a handler are documented, not executable.
    pub handler: bool,
}

/// One plugin command root and what hangs below it.
pub trait CommandTree: Send + Sync {
    fn root(&self) -> &CommandRoot;

    /// The subtree as the plugin declared it: pre-order, the root node
    /// first, each other node naming its parent's index.
    fn spec(&self) -> Result<Vec<CommandNode>, super::PortError>;

    /// Runs the node at `path`, which starts with the root (`["git",
    /// "status"]` for `/git status`); `arg` is the rest of the line.
    fn run(&self, path: &[String], arg: &str) -> Result<String, super::PortError>;
}

/// Why a name cannot be a command root, as the plugin's author reads it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct BadRoot(pub String);

/// Why `name` cannot be a command root, if it cannot. A root is typed as
/// one token (`/git`) and is one segment of the action
/// `plugin.<id>.<path>`, so it has no whitespace, quotes or `.`, and does
/// not start with `/` or `-`.
pub fn check_root(name: &str) -> Result<(), BadRoot> {
    if name.is_empty() {
        return Err(BadRoot("a command root cannot be empty".into()));
    }
    if name.chars().count() > 64 {
        return Err(BadRoot(format!("`{name}` is longer than 64 characters")));
    }
    if let Some(c) = name
        .chars()
        .find(|c| c.is_whitespace() || c.is_control() || matches!(c, '.' | '"' | '\'' | '\\'))
    {
        return Err(BadRoot(format!(
            "`{name}` contains {c:?}; a command root is one word without dots or quotes"
        )));
    }
    if let Some(first @ ('/' | '-')) = name.chars().next() {
        return Err(BadRoot(format!("`{name}` starts with `{first}`")));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_root_is_one_word_without_dots() {
        for bad in ["", "two words", "a.b", "/git", "-x", "tab\there", "q\"uote"] {
            assert!(check_root(bad).is_err(), "{bad:?} passed");
        }
        for good in ["git", "help-topics", "read_only", "v2", "ünï"] {
            assert_eq!(check_root(good), Ok(()), "{good}");
        }
    }
}
