//! A slash-command subtree written as a tree, flattened for the host.
//!
//! WIT has no recursive types, so `command.spec` returns the subtree as a
//! flat list in pre-order where each node names its parent's index. A
//! [`CommandSpec`] is the same subtree as nested values: build it with the
//! builders and hand [`CommandSpec::nodes`] to the host, and
//! [`CommandSpec::root`] to `roots()`, so the two never disagree.

use crate::{CommandNode, CommandRoot};

/// One command and the commands below it. A node is documented (help and
/// man) whether or not it runs; only nodes built [`with_handler`] run.
///
/// [`with_handler`]: CommandSpec::with_handler
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CommandSpec {
    pub name: String,
    /// One line, shown in completions and in the parent's listing.
    pub help: String,
    /// The full page, shown by `/help` and for a node that does not run.
    pub man: Option<String>,
    pub handler: bool,
    pub children: Vec<CommandSpec>,
}

impl CommandSpec {
    /// A documented node without a handler: typing it shows its man page.
    pub fn new(name: &str, help: &str) -> Self {
        CommandSpec {
            name: name.to_string(),
            help: help.to_string(),
            man: None,
            handler: false,
            children: Vec::new(),
        }
    }

    /// The man page.
    pub fn man(mut self, man: &str) -> Self {
        self.man = Some(man.to_string());
        self
    }

    /// Makes the node executable: the host calls `run` with its path.
    pub fn with_handler(mut self) -> Self {
        self.handler = true;
        self
    }

    /// Adds a child, after the ones added before it.
    pub fn child(mut self, child: CommandSpec) -> Self {
        self.children.push(child);
        self
    }

    /// This node as a declared root, for `CommandPlugin::roots`.
    pub fn root(&self) -> CommandRoot {
        CommandRoot {
            root: self.name.clone(),
            help: self.help.clone(),
        }
    }

    /// The subtree as `command.spec` returns it: pre-order, this node
    /// first with no parent, each other node naming its parent's index.
    pub fn nodes(&self) -> Vec<CommandNode> {
        let mut out = Vec::new();
        self.flatten(None, &mut out);
        out
    }

    fn flatten(&self, parent: Option<u32>, out: &mut Vec<CommandNode>) {
        let index = u32::try_from(out.len()).unwrap_or(u32::MAX);
        out.push(CommandNode {
            name: self.name.clone(),
            help: self.help.clone(),
            man: self.man.clone(),
            parent,
            handler: self.handler,
        });
        for child in &self.children {
            child.flatten(Some(index), out);
        }
    }

    /// The node at `path`, which starts with this node's name, as the host
    /// passes it to `run` (`["git", "status"]`).
    pub fn find(&self, path: &[String]) -> Option<&CommandSpec> {
        let (first, rest) = path.split_first()?;
        if *first != self.name {
            return None;
        }
        rest.iter().try_fold(self, |node, name| {
            node.children.iter().find(|c| c.name == *name)
        })
    }
}
