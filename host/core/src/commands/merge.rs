//! The deep merge of a feed into the command tree. Seed: "Command feeds"
//! (static fields preserved, children unioned, feeds never clobber docs).

use super::Node;

/// Merges `feed`, a partial tree from the same root, into `base`.
///
/// A node of `base` that has help is documented, and keeps all its fields
/// as they are: completions.json documents a command once, and no model
/// list or plugin may rewrite what `/set` says, give it a handler it does
/// not have, or change a range. A node without help was made by an earlier
/// feed only to hold children; the feed fills whichever of its fields are
/// empty, and never overwrites one that is set. Children only the feed has
/// are added whole; children both have are merged the same way, level by
/// level.
pub fn merge_completions_json(base: &mut Node, feed: &Node) {
    fill_empty_fields(base, feed);
    for (name, child) in &feed.children {
        match base.children.get_mut(name) {
            Some(existing) => merge_completions_json(existing, child),
            None => {
                base.children.insert(name.clone(), child.clone());
            }
        }
    }
}

/// The fields half of the merge, for one node; the rebuild folds it over
/// every tree that has a node.
pub(super) fn fill_empty_fields(base: &mut Node, feed: &Node) {
    let documented = !base.help.is_empty();
    if documented {
        return;
    }
    base.help.clone_from(&feed.help);
    if base.man.as_deref().is_none_or(str::is_empty) && feed.man.is_some() {
        base.man.clone_from(&feed.man);
    }
    if base.action().is_none() && feed.action.is_some() {
        base.action.clone_from(&feed.action);
    }
    if base.range.is_none() {
        base.range = feed.range;
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use proptest::prelude::*;

    use super::*;
    use crate::commands::builtin_tree;

    fn at<'a>(tree: &'a Node, path: &[&str]) -> Option<&'a Node> {
        path.iter().try_fold(tree, |node, name| node.child(name))
    }

    #[test]
    fn documented_fields_survive_a_feed_that_names_them_differently() {
        let mut tree = builtin_tree();
        let before = tree.child("set").unwrap().clone();
        let feed = Node::new("").with_child(
            "set",
            Node::new("clobbered")
                .with_man("clobbered")
                .with_action("evil")
                .with_child(
                    "policy",
                    Node::new("clobbered")
                        .with_child("read", Node::new("clobbered").with_action("evil")),
                ),
        );
        merge_completions_json(&mut tree, &feed);
        let set = tree.child("set").unwrap();
        assert_eq!(set.help, before.help);
        assert_eq!(set.man, before.man);
        assert_eq!(set.action, None, "a feed made the inert /set executable");
        let read = at(&tree, &["set", "policy", "read"]).unwrap();
        assert_eq!(read.help, "tools may only read; every other call is denied");
        assert_eq!(read.action(), Some("set.value"));
    }

    #[test]
    fn a_feed_fills_the_empty_fields_of_undocumented_nodes_only() {
        let mut base = Node::new("")
            .with_child("documented", Node::new("kept"))
            .with_child("holder", Node::new("").with_action("kept.action"));
        let feed = Node::new("root help")
            .with_child(
                "documented",
                Node::new("lost").with_man("man").with_range(0.0, 1.0),
            )
            .with_child(
                "holder",
                Node::new("filled")
                    .with_man("man")
                    .with_action("lost.action"),
            );
        merge_completions_json(&mut base, &feed);
        assert_eq!(base.help, "root help");
        assert_eq!(base.child("documented"), Some(&Node::new("kept")));
        let holder = base.child("holder").unwrap();
        assert_eq!(holder.help, "filled");
        assert_eq!(holder.man.as_deref(), Some("man"));
        assert_eq!(holder.action(), Some("kept.action"));
    }

    #[test]
    fn children_are_unioned_at_every_depth() {
        let mut tree = builtin_tree();
        let feed = Node::new("")
            .with_child(
                "set",
                Node::new("").with_child(
                    "model",
                    Node::new("")
                        .with_child("gpt-4o", Node::new("OpenAI").with_action("set.value"))
                        .with_child("opus", Node::new("Anthropic").with_action("set.value")),
                ),
            )
            .with_child(
                "git",
                Node::new("git helpers").with_child("log", Node::new("log")),
            );
        merge_completions_json(&mut tree, &feed);
        let model = at(&tree, &["set", "model"]).unwrap();
        assert_eq!(
            model.children.keys().collect::<Vec<_>>(),
            ["gpt-4o", "opus"]
        );
        assert_eq!(model.action(), Some("set.value"));
        assert!(at(&tree, &["set", "policy", "yolo"]).is_some());
        assert!(at(&tree, &["git", "log"]).is_some());
        assert!(tree.child("help").is_some());
    }

    fn name() -> impl Strategy<Value = String> {
        // Mostly the built-in names, so feeds land on documented nodes.
        prop_oneof![
            3 => prop::sample::select(vec![
                "set", "get", "policy", "model", "read", "write", "temperature",
                "plugins", "enable", "help", "quit",
            ])
            .prop_map(String::from),
            1 => "[a-z]{1,6}",
        ]
    }

    fn bare_node() -> impl Strategy<Value = Node> {
        (
            prop_oneof![Just(String::new()), ".{1,8}"],
            prop::option::of(".{0,8}"),
            prop::option::of("[a-z.]{0,8}"),
            prop::option::of((0.0..10.0f64, 0.0..10.0f64)),
        )
            .prop_map(|(help, man, action, range)| Node {
                help,
                man,
                action,
                range: range.map(|(a, b)| [a, b]),
                children: Default::default(),
            })
    }

    /// A random feed: its root and up to four levels below it.
    pub(crate) fn feed() -> impl Strategy<Value = Node> {
        bare_node().prop_recursive(4, 64, 4, |inner| {
            (
                bare_node(),
                prop::collection::btree_map(name(), inner, 0..4),
            )
                .prop_map(|(mut node, children)| {
                    node.children = children;
                    node
                })
        })
    }

    proptest! {
        #[test]
        fn a_random_feed_never_clobbers_docs_and_is_fully_merged(feed in feed()) {
            let base = builtin_tree();
            let mut merged = base.clone();
            merge_completions_json(&mut merged, &feed);
            for (path, doc) in base.walk() {
                let now = at(&merged, &path);
                prop_assert!(now.is_some(), "documented /{} is gone", path.join(" "));
                let now = now.unwrap();
                prop_assert_eq!(&now.help, &doc.help);
                prop_assert_eq!(&now.man, &doc.man);
                prop_assert_eq!(&now.action, &doc.action);
                prop_assert_eq!(now.range, doc.range);
            }
            for (path, node) in feed.walk() {
                let now = at(&merged, &path);
                prop_assert!(now.is_some(), "feed node /{} is missing", path.join(" "));
                if at(&base, &path).is_none() {
                    prop_assert_eq!(now.unwrap(), node, "a new subtree is copied whole");
                }
            }
        }
    }
}
