//! One command tree and the handlers behind it. Seeds: "Command feeds"
//! (the documented tree and the runtime feeds merge into one tree; each
//! feed registers the closures of the leaves it generates; drawer,
//! completions and dispatch read that one tree) and "Command binding"
//! (enable/disable rebuilds the tree, no restart).

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::fmt;
use std::sync::OnceLock;

use super::rebuild::{merge_in, replace, unmerge};
use super::{Handler, Node, Resolution, SettingRegistry};

/// Leaves generated at runtime (the model list, the plugins, plugin
/// commands, …) and the handlers of the actions they carry.
pub struct Feed<C> {
    /// Names the feed, e.g. `models`, `plugins`, `plugin-commands`;
    /// setting a feed of the same name replaces it.
    pub name: String,
    /// A partial tree from the root, merged with
    /// [`merge_completions_json`](super::merge_completions_json):
    /// `{set: {model: {gpt-4o: …}}}`.
    pub tree: Node,
    /// Each generated action and its closure.
    pub handlers: Vec<(String, Handler<C>)>,
}

impl<C> Feed<C> {
    pub fn new(name: impl Into<String>, tree: Node) -> Self {
        Feed {
            name: name.into(),
            tree,
            handlers: Vec::new(),
        }
    }

    pub fn with_handler(mut self, action: impl Into<String>, handler: Handler<C>) -> Self {
        self.handlers.push((action.into(), handler));
        self
    }
}

/// A feed as kept: its handlers by action.
struct Installed<C> {
    tree: Node,
    handlers: HashMap<String, Handler<C>>,
}

/// The command tree and its handlers, generic over what handlers act on
/// (`C`, the host's session or app). One tree, three readers: the drawer
/// and settings UI read [`tree`](Self::tree) and
/// [`registry`](Self::registry), completion reads
/// [`complete`](Self::complete), and [`dispatch`](Self::dispatch) runs a
/// line.
pub struct CommandSet<C> {
    /// The documented tree (completions.json), never changed.
    base: Node,
    /// By name: they merge in name order, so the tree does not depend on
    /// the order the host happened to set them in.
    feeds: BTreeMap<String, Installed<C>>,
    builtins: HashMap<String, Handler<C>>,
    /// Derived: `base` with every feed merged in name order, kept current
    /// feed by feed (see `rebuild`).
    tree: Node,
    /// Derived from `tree` when first asked for after a change: dispatch
    /// and completion never need it, and a toggle should not pay for
    /// indexing thousands of nodes nobody reads.
    registry: OnceLock<SettingRegistry>,
}

impl<C> CommandSet<C> {
    /// A set over `base`, usually [`builtin_tree`](super::builtin_tree),
    /// with no feeds and no handlers yet.
    pub fn new(base: Node) -> Self {
        CommandSet {
            tree: base.clone(),
            base,
            feeds: BTreeMap::new(),
            builtins: HashMap::new(),
            registry: OnceLock::new(),
        }
    }

    /// Registers a built-in handler. A built-in handler wins over a feed's
    /// for the same action: a plugin cannot take over `set.value`.
    pub fn register(&mut self, action: impl Into<String>, handler: Handler<C>) {
        self.builtins.insert(action.into(), handler);
    }

    /// Whether anything (built-in or a feed) handles `action` now.
    pub fn is_registered(&self, action: &str) -> bool {
        self.handler(action).is_some()
    }

    /// The handler of `action`, looked up at the time of the call: a
    /// built-in first, then the feeds in name order.
    pub(crate) fn handler(&self, action: &str) -> Option<&Handler<C>> {
        self.builtins
            .get(action)
            .or_else(|| self.feeds.values().find_map(|f| f.handlers.get(action)))
    }

    /// Every action some node of the merged tree carries.
    pub fn actions_in_tree(&self) -> BTreeSet<String> {
        self.tree
            .walk()
            .filter_map(|(_, node)| node.action())
            .map(String::from)
            .collect()
    }

    /// Replaces the feed of the same name (its leaves and its handlers;
    /// the old handlers are dropped) and rebuilds the merged tree and the
    /// registry. The work is in proportion to what changed between the
    /// old and the new feed, not to the whole tree: a feed set again with
    /// the same tree only swaps its handlers.
    pub fn set_feed(&mut self, feed: Feed<C>) {
        let new = Installed {
            tree: feed.tree,
            handlers: feed.handlers.into_iter().collect(),
        };
        let old = self.feeds.insert(feed.name.clone(), new);
        let sources = sources(&self.base, &self.feeds);
        let Some(new) = self.feeds.get(&feed.name) else {
            return; // just inserted
        };
        match &old {
            Some(old) if old.tree == new.tree => return,
            Some(old) => replace(&mut self.tree, &old.tree, &new.tree, &sources),
            None => merge_in(&mut self.tree, &new.tree, &sources),
        }
        self.registry = OnceLock::new();
    }

    /// Takes a feed out, leaves and handlers, and rebuilds. Removing a feed
    /// that is not there changes nothing.
    pub fn remove_feed(&mut self, name: &str) {
        if let Some(old) = self.feeds.remove(name) {
            self.take_out(&old.tree);
        }
    }

    /// Unmerges a feed's tree that is no longer in `feeds`.
    fn take_out(&mut self, old: &Node) {
        unmerge(&mut self.tree, old, &sources(&self.base, &self.feeds));
        self.registry = OnceLock::new();
    }

    /// The names of the feeds in the tree, in merge order.
    pub fn feed_names(&self) -> impl Iterator<Item = &str> {
        self.feeds.keys().map(String::as_str)
    }

    /// The merged tree: the documented one with every feed.
    pub fn tree(&self) -> &Node {
        &self.tree
    }

    /// The merged tree's index by display path (built on the first call
    /// after a change).
    pub fn registry(&self) -> &SettingRegistry {
        self.registry
            .get_or_init(|| SettingRegistry::new(&self.tree))
    }

    /// The node `words` lead to in the merged tree (see [`Node::resolve`]).
    pub fn resolve(&self, words: &[String]) -> Resolution<'_> {
        self.tree.resolve(words)
    }
}

/// Every tree in merge order: the base, then the feeds by name.
fn sources<'a, C>(base: &'a Node, feeds: &'a BTreeMap<String, Installed<C>>) -> Vec<&'a Node> {
    std::iter::once(base)
        .chain(feeds.values().map(|f| &f.tree))
        .collect()
}

impl<C> fmt::Debug for CommandSet<C> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut builtins: Vec<&String> = self.builtins.keys().collect();
        builtins.sort();
        f.debug_struct("CommandSet")
            .field("nodes", &self.tree.count())
            .field("feeds", &self.feeds.keys().collect::<Vec<_>>())
            .field("builtins", &builtins)
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;
    use crate::commands::merge::tests::feed;
    use crate::commands::{builtin_tree, handler, merge_completions_json, Outcome, Reply};

    fn reply(text: &'static str) -> Handler<()> {
        handler(move |_, _| Ok(Reply::text(text)))
    }

    fn models(names: &[&str], text: &'static str) -> Feed<()> {
        let model = names.iter().fold(Node::default(), |node, name| {
            node.with_child(*name, Node::new("a model").with_action("models.pick"))
        });
        Feed::new(
            "models",
            Node::default().with_child("set", Node::default().with_child("model", model)),
        )
        .with_handler("models.pick", reply(text))
    }

    fn model_names(set: &CommandSet<()>) -> Vec<String> {
        let model = set.tree().child("set").unwrap().child("model").unwrap();
        model.children.keys().cloned().collect()
    }

    #[test]
    fn set_feed_replaces_the_feeds_leaves_and_handlers() {
        let mut set = CommandSet::new(builtin_tree());
        set.set_feed(models(&["gpt-4o", "opus"], "old"));
        assert_eq!(model_names(&set), ["gpt-4o", "opus"]);
        assert!(set.registry().get("set.model.opus").is_some());

        set.set_feed(models(&["sonnet"], "new"));
        assert_eq!(model_names(&set), ["sonnet"], "the old leaves are gone");
        assert!(set.registry().get("set.model.opus").is_none());
        let Outcome::Ok { reply, .. } = set.dispatch(&mut (), "/set model sonnet") else {
            panic!("the new leaf runs");
        };
        assert_eq!(reply.text, "new", "the old handler was dropped");
        let Outcome::Man { .. } = set.dispatch(&mut (), "/set model opus") else {
            panic!("the old leaf no longer exists, so /set model itself is reached");
        };
    }

    #[test]
    fn remove_feed_leaves_the_documented_tree() {
        let mut set = CommandSet::new(builtin_tree());
        set.set_feed(models(&["gpt-4o"], "x"));
        assert!(set.is_registered("models.pick"));
        set.remove_feed("models");
        set.remove_feed("never-set");
        assert_eq!(set.tree(), &builtin_tree());
        assert!(!set.is_registered("models.pick"));
        assert_eq!(set.feed_names().count(), 0);
    }

    #[test]
    fn feeds_merge_in_name_order_whatever_order_they_were_set_in() {
        let feed = |name: &str, help: &str| {
            Feed::<()>::new(
                name,
                Node::default().with_child("x", Node::new(help).with_action(help)),
            )
        };
        let mut ab = CommandSet::new(Node::default());
        ab.set_feed(feed("a", "from a"));
        ab.set_feed(feed("b", "from b"));
        let mut ba = CommandSet::new(Node::default());
        ba.set_feed(feed("b", "from b"));
        ba.set_feed(feed("a", "from a"));
        assert_eq!(ab.tree(), ba.tree());
        assert_eq!(ab.tree().child("x").unwrap().help, "from a");
    }

    #[test]
    fn a_builtin_handler_wins_over_a_feeds_for_the_same_action() {
        let mut set = CommandSet::new(builtin_tree());
        set.register("status", reply("built-in"));
        set.set_feed(
            Feed::new("plugin-commands", Node::default()).with_handler("status", reply("plugin")),
        );
        let Outcome::Ok { reply, .. } = set.dispatch(&mut (), "/status") else {
            panic!("status runs");
        };
        assert_eq!(reply.text, "built-in");
    }

    /// What the tree must equal: the base and every feed merged in name
    /// order, from scratch.
    fn merged_from_scratch(set: &CommandSet<()>) -> Node {
        let mut tree = set.base.clone();
        for feed in set.feeds.values() {
            merge_completions_json(&mut tree, &feed.tree);
        }
        tree
    }

    proptest! {
        #[test]
        fn feed_by_feed_updates_equal_a_merge_from_scratch(
            ops in prop::collection::vec(
                (prop::sample::select(vec!["a", "b", "c"]), prop::option::of(feed())),
                1..8,
            )
        ) {
            let mut set = CommandSet::<()>::new(builtin_tree());
            for (name, tree) in ops {
                match tree {
                    Some(tree) => set.set_feed(Feed::new(name, tree)),
                    None => set.remove_feed(name),
                }
                let expected = merged_from_scratch(&set);
                prop_assert_eq!(set.tree(), &expected);
                let registry = SettingRegistry::new(&expected);
                prop_assert!(set.registry().entries().eq(registry.entries()));
            }
        }
    }

    #[test]
    fn actions_in_tree_include_the_feeds() {
        let mut set = CommandSet::<()>::new(builtin_tree());
        assert!(set.actions_in_tree().contains("set.value"));
        assert!(!set.actions_in_tree().contains("models.pick"));
        set.set_feed(models(&["gpt-4o"], "x"));
        assert!(set.actions_in_tree().contains("models.pick"));
    }
}
