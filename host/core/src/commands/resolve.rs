//! Finding the node a line names. Seed: "Command dispatch" (walk the tree,
//! consuming every token that names a documented child; any node matched?
//! the deepest match wins and the remaining tokens are its argument).

use super::suggest::nearest;
use super::Node;

/// Where a line's words lead in the tree.
#[derive(Debug, Clone, PartialEq)]
pub enum Resolution<'a> {
    /// The first word names no command. `suggestion` is the likely one,
    /// as the user would type it (`/plugins`).
    Unknown { suggestion: Option<String> },
    /// The deepest node the words name, the names that led there, and the
    /// words after it joined by one space.
    Found {
        path: Vec<String>,
        node: &'a Node,
        arg: String,
    },
}

impl Node {
    /// Walks from this node (the root), taking each word that names a
    /// child of the node reached so far and stopping at the first that does
    /// not. No words at all lead to the root itself, whose page is the
    /// list of commands.
    pub fn resolve(&self, words: &[String]) -> Resolution<'_> {
        let mut node = self;
        let mut matched = 0;
        for word in words {
            match node.child(word) {
                Some(child) => {
                    node = child;
                    matched += 1;
                }
                None => break,
            }
        }
        if matched == 0 {
            if let Some(first) = words.first() {
                let suggestion = nearest(first, self.children.keys().map(String::as_str))
                    .map(|name| format!("/{name}"));
                return Resolution::Unknown { suggestion };
            }
        }
        Resolution::Found {
            path: words[..matched].to_vec(),
            node,
            arg: words[matched..].join(" "),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::commands::builtin_tree;

    fn words(line: &str) -> Vec<String> {
        line.split_whitespace().map(String::from).collect()
    }

    #[test]
    fn the_deepest_match_wins_and_the_rest_is_the_argument() {
        let tree = builtin_tree();
        let Resolution::Found { path, node, arg } = tree.resolve(&words("set model gpt-4o mini"))
        else {
            panic!("set model resolves");
        };
        assert_eq!(path, ["set", "model"]);
        assert_eq!(node.action(), Some("set.value"));
        assert_eq!(arg, "gpt-4o mini");

        let Resolution::Found { path, arg, .. } = tree.resolve(&words("set policy read")) else {
            panic!("set policy read resolves");
        };
        assert_eq!(path, ["set", "policy", "read"]);
        assert_eq!(arg, "");
    }

    #[test]
    fn a_word_that_names_no_child_stops_the_walk_even_if_a_later_one_would() {
        let tree = builtin_tree();
        let Resolution::Found { path, arg, .. } = tree.resolve(&words("set x policy")) else {
            panic!("set resolves");
        };
        assert_eq!(path, ["set"]);
        assert_eq!(arg, "x policy");
    }

    #[test]
    fn an_unknown_first_word_is_unknown_with_the_likely_command() {
        let tree = builtin_tree();
        assert_eq!(
            tree.resolve(&words("plugns list")),
            Resolution::Unknown {
                suggestion: Some("/plugins".into())
            }
        );
        assert_eq!(
            tree.resolve(&words("frobnicate")),
            Resolution::Unknown { suggestion: None }
        );
    }

    #[test]
    fn no_words_lead_to_the_root() {
        let tree = builtin_tree();
        let Resolution::Found { path, node, arg } = tree.resolve(&[]) else {
            panic!("the root");
        };
        assert!(path.is_empty() && arg.is_empty());
        assert_eq!(node, &tree);
    }
}
