//! Tab completion of a line being typed. Seed: "Command feeds" (drawer ·
//! completions · dispatch: one tree, three readers); it walks the tree as
//! dispatch does, so what completes is what runs.

use serde::Serialize;

use super::dispatch::strip_start;
use super::tokenize::scan;
use super::{CommandSet, Node};

/// A name that may come next, with its help for the popup.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Candidate {
    pub name: String,
    pub help: String,
}

impl<C> CommandSet<C> {
    /// The names that may come next in `line` (see [`Node::complete`]).
    pub fn complete(&self, line: &str) -> Vec<Candidate> {
        self.tree().complete(line)
    }
}

impl Node {
    /// The children, in name order, of the node the finished words of
    /// `line` lead to, whose names start with the word being typed. A line
    /// ending in whitespace has no word being typed (the prefix is empty);
    /// an open quote at the end is part of the word being typed. A
    /// finished word that names no child means the line is in a command's
    /// argument, where nothing completes. The leading slash is optional.
    pub fn complete(&self, line: &str) -> Vec<Candidate> {
        let scan = scan(strip_start(line));
        let (done, typing) = match scan.tokens.split_last() {
            Some((last, done)) if scan.open => (done, last.as_str()),
            _ => (scan.tokens.as_slice(), ""),
        };
        let Some(node) = done.iter().try_fold(self, |node, word| node.child(word)) else {
            return Vec::new();
        };
        node.children
            .iter()
            .filter(|(name, _)| name.starts_with(typing))
            .map(|(name, child)| Candidate {
                name: name.clone(),
                help: child.help.clone(),
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::commands::builtin_tree;

    fn names(line: &str) -> Vec<String> {
        builtin_tree()
            .complete(line)
            .into_iter()
            .map(|c| c.name)
            .collect()
    }

    #[test]
    fn a_prefix_completes_to_the_children_that_start_with_it() {
        assert_eq!(names("/se"), ["sessions", "set"]);
        assert_eq!(names("/set po"), ["policy"]);
        assert_eq!(names("/set policy w"), ["write"]);
        assert_eq!(names("/set"), ["set"]);
        let help = builtin_tree().complete("/qu");
        assert_eq!(
            help,
            [Candidate {
                name: "quit".into(),
                help: "leave amber".into()
            }]
        );
    }

    #[test]
    fn after_a_space_every_child_is_a_candidate() {
        assert_eq!(names("/set policy "), ["plan", "read", "write", "yolo"]);
        assert_eq!(names("/plugins\t"), ["disable", "enable", "info", "list"]);
        assert_eq!(names("").len(), 25);
        assert_eq!(names("/").len(), 25);
    }

    #[test]
    fn inside_an_argument_nothing_completes() {
        assert!(names("/set model gpt-4o ").is_empty());
        assert!(names("/set nonsense p").is_empty());
        assert!(
            names("/set policy read ").is_empty(),
            "a leaf has no children"
        );
        assert!(names("/frob").is_empty());
    }

    #[test]
    fn the_leading_slash_is_optional_and_an_open_quote_is_the_word_being_typed() {
        assert_eq!(names("set po"), ["policy"]);
        assert_eq!(names("  /set 'po"), ["policy"]);
        assert!(
            names("/set \"policy ").is_empty(),
            "the space is inside the word"
        );
    }
}
