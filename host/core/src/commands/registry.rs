//! Every node of a command tree, findable by its display path. Seed:
//! "Command tree structure" (SettingRegistry indexes every node; namespaces
//! keyed by full display path, get.model is not set.model; resolve_key
//! exact → get.key → set.key; unresolved → empty).

use serde::Serialize;

use super::Node;

/// One node, flattened for the settings UI, `/get`, `/set` validation and
/// `--json` output.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Entry {
    /// The names from the root joined by dots, e.g. `set.policy`.
    pub path: String,
    pub help: String,
    pub man: Option<String>,
    pub action: Option<String>,
    /// The children's names, in name order.
    pub children: Vec<String>,
    /// The values a setting accepts: its children, by the tree's
    /// convention (`set.policy` → read, write, yolo). Empty means free.
    pub choices: Vec<String>,
    pub range: Option<[f64; 2]>,
}

/// The nodes of one tree by full display path. Keying by the whole path
/// keeps namespaces apart: `get.model` (show it) is not `set.model`
/// (change it), though both end in `model`.
#[derive(Debug, Clone, Default)]
pub struct SettingRegistry {
    /// Sorted by path, for lookup by binary search and listing in order.
    entries: Vec<Entry>,
}

impl SettingRegistry {
    /// Indexes every node of `tree` but the root. Names are joined with
    /// dots, so a name that holds a dot (a model `gpt-4.1`) could make two
    /// nodes share a path; the first in pre-order keeps it.
    pub fn new(tree: &Node) -> Self {
        // Node::walk keeps its own stack, so a deep tree costs no recursion.
        let mut entries: Vec<Entry> = tree
            .walk()
            .skip(1)
            .map(|(path, node)| {
                let children: Vec<String> = node.children.keys().cloned().collect();
                Entry {
                    path: path.join("."),
                    help: node.help.clone(),
                    man: node.man.clone(),
                    action: node.action.clone(),
                    choices: children.clone(),
                    children,
                    range: node.range,
                }
            })
            .collect();
        // Stable, so the first of two equal paths in pre-order stays first.
        entries.sort_by(|a, b| a.path.cmp(&b.path));
        entries.dedup_by(|later, first| later.path == first.path);
        SettingRegistry { entries }
    }

    /// The node at exactly `path` (e.g. `set.policy`).
    pub fn get(&self, path: &str) -> Option<&Entry> {
        self.entries
            .binary_search_by(|e| e.path.as_str().cmp(path))
            .ok()
            .and_then(|i| self.entries.get(i))
    }

    /// What a bare key means: the node at `key` itself, else the value to
    /// show (`get.<key>`), else the setting to change (`set.<key>`). `None`
    /// is for the caller to report as an unknown command.
    pub fn resolve_key(&self, key: &str) -> Option<&Entry> {
        self.get(key)
            .or_else(|| self.get(&format!("get.{key}")))
            .or_else(|| self.get(&format!("set.{key}")))
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Every entry, in path order.
    pub fn entries(&self) -> impl Iterator<Item = &Entry> {
        self.entries.iter()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::commands::builtin_tree;

    #[test]
    fn every_node_but_the_root_is_indexed() {
        let tree = builtin_tree();
        let registry = SettingRegistry::new(&tree);
        assert_eq!(registry.len(), tree.count() - 1);
        assert!(!registry.is_empty());
        assert!(registry.get("").is_none());
        let paths: Vec<&str> = registry.entries().map(|e| e.path.as_str()).collect();
        let mut sorted = paths.clone();
        sorted.sort_unstable();
        assert_eq!(paths, sorted);
    }

    #[test]
    fn get_model_is_not_set_model() {
        let registry = SettingRegistry::new(&builtin_tree());
        let get = registry.get("get.model").unwrap();
        let set = registry.get("set.model").unwrap();
        assert_eq!(get.action.as_deref(), Some("get.value"));
        assert_eq!(set.action.as_deref(), Some("set.value"));
        assert_ne!(get, set);
    }

    #[test]
    fn a_settings_choices_are_its_children_and_its_range_is_kept() {
        let registry = SettingRegistry::new(&builtin_tree());
        let policy = registry.get("set.policy").unwrap();
        assert_eq!(policy.choices, ["plan", "read", "write", "yolo"]);
        assert_eq!(policy.children, policy.choices);
        assert_eq!(policy.action.as_deref(), Some("set.value"));
        let temperature = registry.get("set.temperature").unwrap();
        assert_eq!(temperature.range, Some([0.0, 2.0]));
        assert!(temperature.choices.is_empty());
    }

    #[test]
    fn resolve_key_tries_exact_then_get_then_set() {
        let mut tree = builtin_tree();
        // Only under set: the fallback has to reach the third step.
        tree.children
            .get_mut("set")
            .unwrap()
            .children
            .insert("only_set".into(), Node::new("only under set"));
        let registry = SettingRegistry::new(&tree);
        assert_eq!(registry.resolve_key("set.model").unwrap().path, "set.model");
        assert_eq!(registry.resolve_key("plugins").unwrap().path, "plugins");
        // `/model` is a command of its own: exact first.
        assert_eq!(registry.resolve_key("model").unwrap().path, "model");
        assert_eq!(registry.resolve_key("policy").unwrap().path, "get.policy");
        assert_eq!(
            registry.resolve_key("only_set").unwrap().path,
            "set.only_set"
        );
        assert!(registry.resolve_key("nonsense").is_none());
        assert!(registry.resolve_key("").is_none());
    }

    #[test]
    fn a_dotted_name_sharing_a_path_keeps_the_first_in_pre_order() {
        let tree = Node::new("")
            .with_child("a", Node::new("a").with_child("b", Node::new("nested")))
            .with_child("a.b", Node::new("dotted"));
        let registry = SettingRegistry::new(&tree);
        assert_eq!(registry.len(), 2);
        assert_eq!(registry.get("a.b").unwrap().help, "nested");
    }
}
