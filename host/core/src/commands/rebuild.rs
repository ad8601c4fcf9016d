//! Keeping the merged tree current when one feed changes. Seed: "Command
//! binding" (enable / disable rebuilds the tree, no restart), at the cost
//! of the feed that changed rather than of every feed: a heavy user's tree
//! has thousands of model and plugin leaves, and a plugin toggle should
//! not copy them all again.
//!
//! The result is exactly what merging the base and every feed in order
//! from scratch gives ([`merge_completions_json`](super::merge_completions_json)):
//! a node exists when any tree has it, and its fields are the merge's fold
//! over the trees that have it, in merge order. So only the nodes of the
//! feed that changed need looking at: a node it alone had comes or goes
//! with its subtree, and a node it shares has its fields folded again.

use super::merge::fill_empty_fields;
use super::Node;

/// Takes `old`, a feed's tree that is no longer among `sources`, out of
/// `merged`. `sources` are the trees that remain at this node, in merge
/// order, the base first.
pub(super) fn unmerge(merged: &mut Node, old: &Node, sources: &[&Node]) {
    refold(merged, sources);
    for (name, old_child) in &old.children {
        let child_sources: Vec<&Node> = sources.iter().filter_map(|s| s.child(name)).collect();
        if child_sources.is_empty() {
            // Nobody else has it, so nobody else has anything below it.
            merged.children.remove(name);
        } else if let Some(merged_child) = merged.children.get_mut(name) {
            unmerge(merged_child, old_child, &child_sources);
        }
    }
}

/// Puts `new`, a feed's tree, into `merged`. `sources` are all the trees
/// at this node in merge order, `new` among them.
pub(super) fn merge_in(merged: &mut Node, new: &Node, sources: &[&Node]) {
    refold(merged, sources);
    for (name, new_child) in &new.children {
        match merged.children.get_mut(name) {
            Some(merged_child) => {
                let child_sources: Vec<&Node> =
                    sources.iter().filter_map(|s| s.child(name)).collect();
                merge_in(merged_child, new_child, &child_sources);
            }
            // Nobody else has it: the merge would copy it whole.
            None => {
                merged.children.insert(name.clone(), new_child.clone());
            }
        }
    }
}

/// Swaps `old`, a feed's previous tree, for `new`, its tree now, in
/// `merged`. `sources` are all the trees at this node in merge order,
/// `new` among them and `old` not. Only where the two differ is anything
/// done, so a plugin added to a feed of a hundred costs that plugin.
pub(super) fn replace(merged: &mut Node, old: &Node, new: &Node, sources: &[&Node]) {
    if old == new {
        return;
    }
    if !same_fields(old, new) {
        refold(merged, sources);
    }
    let child_sources =
        |name: &str| -> Vec<&Node> { sources.iter().filter_map(|s| s.child(name)).collect() };
    for (name, old_child) in &old.children {
        let Some(merged_child) = merged.children.get_mut(name) else {
            continue;
        };
        match new.child(name) {
            Some(new_child) => replace(merged_child, old_child, new_child, &child_sources(name)),
            None => {
                let others = child_sources(name);
                if others.is_empty() {
                    merged.children.remove(name);
                } else {
                    unmerge(merged_child, old_child, &others);
                }
            }
        }
    }
    for (name, new_child) in &new.children {
        if !old.children.contains_key(name) {
            match merged.children.get_mut(name) {
                Some(merged_child) => merge_in(merged_child, new_child, &child_sources(name)),
                None => {
                    merged.children.insert(name.clone(), new_child.clone());
                }
            }
        }
    }
}

fn same_fields(a: &Node, b: &Node) -> bool {
    a.help == b.help && a.man == b.man && a.action == b.action && a.range == b.range
}

/// Sets the fields (not the children) of `node` to the merge's fold over
/// `sources`: the first tree's fields, then each later one filling what
/// the rule lets it fill.
fn refold(node: &mut Node, sources: &[&Node]) {
    let mut fields = Node::default();
    for source in sources {
        fill_empty_fields(&mut fields, source);
    }
    node.help = fields.help;
    node.man = fields.man;
    node.action = fields.action;
    node.range = fields.range;
}
