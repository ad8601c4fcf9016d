//! A node of the command tree: what completions.json and every feed are
//! made of. Seed: "Command tree structure" (`node = { help, man, action,
//! children }`; the last leaf of a branch carries the action).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// A node of the command tree. Its name is the key its parent files it
/// under; the root's children are the top-level commands.
///
/// Fields are omitted from JSON when empty, and an unknown field is an
/// error: in completions.json a misspelt `"acton"` would otherwise leave a
/// command silently inert.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Node {
    /// One line: what the drawer and completions show beside the name.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub help: String,
    /// The long text of the man page; `None` means the help says it all.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub man: Option<String>,
    /// The handler's name. A node may carry an action and children at once
    /// (`/get` lists everything, `/get model` one value); a node without
    /// one is documented but not executable, and prints its man page.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub action: Option<String>,
    /// Numeric settings only: the inclusive `[min, max]` a value must lie in.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub range: Option<[f64; 2]>,
    /// Subcommands, or a setting's choices, in name order.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub children: BTreeMap<String, Node>,
}

impl Node {
    /// A node with one line of help and nothing else.
    pub fn new(help: impl Into<String>) -> Self {
        Node {
            help: help.into(),
            ..Node::default()
        }
    }

    pub fn with_man(mut self, man: impl Into<String>) -> Self {
        self.man = Some(man.into());
        self
    }

    pub fn with_action(mut self, action: impl Into<String>) -> Self {
        self.action = Some(action.into());
        self
    }

    pub fn with_range(mut self, min: f64, max: f64) -> Self {
        self.range = Some([min, max]);
        self
    }

    /// Files `child` under `name`, replacing a child of that name.
    pub fn with_child(mut self, name: impl Into<String>, child: Node) -> Self {
        self.children.insert(name.into(), child);
        self
    }

    pub fn child(&self, name: &str) -> Option<&Node> {
        self.children.get(name)
    }

    /// The action, unless it is missing or empty: an empty action names no
    /// handler, so the node is as inert as one without.
    pub fn action(&self) -> Option<&str> {
        self.action.as_deref().filter(|a| !a.is_empty())
    }

    /// The nodes of the subtree, this one included.
    pub fn count(&self) -> usize {
        // Not `walk`, which builds each node's path.
        let mut stack = vec![self];
        let mut count = 0;
        while let Some(node) = stack.pop() {
            count += 1;
            stack.extend(node.children.values());
        }
        count
    }

    /// Every node of the subtree in pre-order (a parent before its
    /// children, siblings in name order), each with its path of names from
    /// this node; this node itself comes first, with an empty path.
    pub fn walk(&self) -> Walk<'_> {
        Walk {
            stack: vec![(Vec::new(), self)],
        }
    }
}

/// The iterator of [`Node::walk`]. It keeps its own stack, so a deep tree
/// costs heap, not the thread's stack.
#[derive(Debug, Clone)]
pub struct Walk<'a> {
    stack: Vec<(Vec<&'a str>, &'a Node)>,
}

impl<'a> Iterator for Walk<'a> {
    type Item = (Vec<&'a str>, &'a Node);

    fn next(&mut self) -> Option<Self::Item> {
        let (path, node) = self.stack.pop()?;
        // Pushed in reverse so the first name is popped first.
        for (name, child) in node.children.iter().rev() {
            let mut child_path = path.clone();
            child_path.push(name.as_str());
            self.stack.push((child_path, child));
        }
        Some((path, node))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Node {
        Node::new("root")
            .with_child(
                "b",
                Node::new("b").with_child("c", Node::new("c").with_action("b.c")),
            )
            .with_child("a", Node::new("a"))
    }

    #[test]
    fn walk_is_pre_order_with_siblings_in_name_order() {
        let tree = sample();
        let paths: Vec<String> = tree.walk().map(|(p, _)| p.join(".")).collect();
        assert_eq!(paths, ["", "a", "b", "b.c"]);
        assert_eq!(tree.count(), 4);
    }

    #[test]
    fn serde_omits_empty_fields_and_keeps_children_an_object() {
        let json = serde_json::to_value(sample()).unwrap();
        assert_eq!(
            json,
            serde_json::json!({
                "help": "root",
                "children": {
                    "a": {"help": "a"},
                    "b": {"help": "b", "children": {"c": {"help": "c", "action": "b.c"}}}
                }
            })
        );
        let back: Node = serde_json::from_value(json).unwrap();
        assert_eq!(back, sample());
    }

    #[test]
    fn a_misspelt_field_is_an_error_not_an_inert_command() {
        let err = serde_json::from_str::<Node>(r#"{"help": "x", "acton": "y"}"#).unwrap_err();
        assert!(err.to_string().contains("acton"), "{err}");
    }

    #[test]
    fn an_empty_action_is_no_action() {
        assert_eq!(Node::new("x").with_action("").action(), None);
        assert_eq!(Node::new("x").with_action("go").action(), Some("go"));
    }
}
