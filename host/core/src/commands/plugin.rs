//! A plugin's command subtree, made ready to merge. Seed: "Command
//! binding" (the plugin declares root · help · man · subtree · handlers;
//! the host merges the subtree into the command tree with executable
//! leaf action = `plugin.{id}.{path}`; a leaf with no handler is
//! documented, not executable).
//!
//! The list comes from a plugin, so nothing about it is trusted: a parent
//! index that does not point at an earlier node, an empty name or a node
//! too deep is dropped with everything below it, and a repeated name under
//! one parent keeps the first. None of it can panic or recurse without
//! bound.

use crate::ports::{CommandNode, CommandRoot};

use super::Node;

/// How many levels below its root a plugin's subtree may have. Deeper
/// nodes are dropped: nobody types twenty words to reach a command, and
/// the tree's clone, merge and drop recurse once per level.
pub const MAX_PLUGIN_DEPTH: usize = 16;

/// The action of a plugin's node: `plugin.<id>.<path>`, the path from the
/// command root (`plugin.git-tools.git.log`). Unique per plugin and node,
/// so two plugins' handlers never meet.
pub fn plugin_action(id: &str, path: &[String]) -> String {
    format!("plugin.{id}.{}", path.join("."))
}

/// The tree a plugin's command root contributes, as a partial tree from
/// the command tree's root (`{<root>: …}`), ready to be a feed's tree or
/// merged into one. `nodes` is the command port's flat pre-order list: a
/// parentless node named like the root is the root itself (its man and
/// handler apply to `/<root>`); any other parentless node sits right
/// below the root. Each node with a handler carries
/// [`plugin_action`]`(id, path)`; the host registers one closure per such
/// action that finds the plugin in the live registry at call time.
pub fn plugin_subtree(id: &str, root: &CommandRoot, nodes: &[CommandNode]) -> Node {
    let mut top = Node::new(root.help.clone());
    // Each listed node's path below the root; `None` when it was dropped.
    let mut paths: Vec<Option<Vec<String>>> = Vec::with_capacity(nodes.len());
    for (index, listed) in nodes.iter().enumerate() {
        let parent_path = match listed.parent {
            None => Some(Vec::new()),
            Some(parent) => usize::try_from(parent)
                .ok()
                .filter(|&p| p < index)
                .and_then(|p| paths.get(p).cloned().flatten()),
        };
        let path = parent_path.and_then(|mut path| {
            if listed.parent.is_none() && listed.name == root.root {
                return Some(path);
            }
            if listed.name.is_empty() || path.len() >= MAX_PLUGIN_DEPTH {
                return None;
            }
            path.push(listed.name.clone());
            Some(path)
        });
        if let Some(path) = &path {
            place(&mut top, id, &root.root, path, listed);
        }
        paths.push(path);
    }
    Node::default().with_child(root.root.clone(), top)
}

/// Puts `listed` at `path` below `top`, unless a node is there already.
fn place(top: &mut Node, id: &str, root: &str, path: &[String], listed: &CommandNode) {
    let mut full_path = vec![root.to_string()];
    full_path.extend_from_slice(path);
    let action = listed.handler.then(|| plugin_action(id, &full_path));
    let Some((name, parents)) = path.split_last() else {
        // The root itself: the declared root help stays first.
        if top.help.is_empty() {
            top.help.clone_from(&listed.help);
        }
        top.man = top.man.take().or_else(|| listed.man.clone());
        top.action = top.action.take().or(action);
        return;
    };
    let Some(parent) = parents
        .iter()
        .try_fold(top, |node, step| node.children.get_mut(step))
    else {
        return;
    };
    parent.children.entry(name.clone()).or_insert_with(|| Node {
        help: listed.help.clone(),
        man: listed.man.clone(),
        action,
        ..Node::default()
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    fn listed(name: &str, parent: Option<u32>, handler: bool) -> CommandNode {
        CommandNode {
            name: name.into(),
            help: format!("{name} help"),
            man: None,
            parent,
            handler,
        }
    }

    fn git_root() -> CommandRoot {
        CommandRoot {
            root: "git".into(),
            help: "git helpers".into(),
        }
    }

    #[test]
    fn handlers_get_plugin_actions_and_the_rest_stay_inert() {
        let nodes = [
            listed("log", None, true),
            listed("branch", None, false),
            listed("new", Some(1), true),
        ];
        let tree = plugin_subtree("git-tools", &git_root(), &nodes);
        let git = tree.child("git").unwrap();
        assert_eq!(git.help, "git helpers");
        assert_eq!(git.action(), None);
        assert_eq!(
            git.child("log").unwrap().action(),
            Some("plugin.git-tools.git.log")
        );
        let branch = git.child("branch").unwrap();
        assert_eq!(branch.action(), None);
        assert_eq!(
            branch.child("new").unwrap().action(),
            Some("plugin.git-tools.git.branch.new")
        );
    }

    #[test]
    fn a_listed_root_node_is_the_root_itself() {
        let mut root = listed("git", None, true);
        root.man = Some("Git, briefly.".into());
        let nodes = [root, listed("log", Some(0), true)];
        let tree = plugin_subtree("g", &git_root(), &nodes);
        let git = tree.child("git").unwrap();
        assert_eq!(git.help, "git helpers");
        assert_eq!(git.man.as_deref(), Some("Git, briefly."));
        assert_eq!(git.action(), Some("plugin.g.git"));
        assert_eq!(git.child("log").unwrap().action(), Some("plugin.g.git.log"));
        assert_eq!(tree.count(), 3);
    }

    #[test]
    fn bad_parents_empty_names_and_repeats_are_dropped_with_their_subtrees() {
        let nodes = [
            listed("self", Some(0), true),  // its own parent
            listed("ahead", Some(5), true), // a later node
            listed("far", Some(u32::MAX), true),
            listed("under-self", Some(0), true),
            listed("", None, true),
            listed("under-empty", Some(4), true),
            listed("log", None, true),
            listed("log", None, false), // a repeat: the first stays
        ];
        let tree = plugin_subtree("g", &git_root(), &nodes);
        let git = tree.child("git").unwrap();
        assert_eq!(git.children.keys().collect::<Vec<_>>(), ["log"]);
        assert_eq!(git.child("log").unwrap().action(), Some("plugin.g.git.log"));
    }

    #[test]
    fn a_chain_deeper_than_the_limit_is_cut_there() {
        let nodes: Vec<CommandNode> = (0..1000u32)
            .map(|i| listed(&format!("n{i}"), i.checked_sub(1), true))
            .collect();
        let tree = plugin_subtree("g", &git_root(), &nodes);
        assert_eq!(tree.count(), 2 + MAX_PLUGIN_DEPTH);
    }
}
