//! The built-in commands: completions.json, compiled in. Seed: "Command
//! tree structure" (completions.json is the single source of truth).

use std::sync::OnceLock;

use super::Node;

/// The built-in command tree as JSON: the root node, whose children are the
/// top-level commands. Every built-in command is documented here and only
/// here; the handlers (host/app) are looked up by the actions it names.
pub const COMPLETIONS_JSON: &str = include_str!("completions.json");

/// The built-in command tree, parsed from [`COMPLETIONS_JSON`].
pub fn builtin_tree() -> Node {
    parsed().clone()
}

/// Parsed once: the roots are asked about for every plugin a host enables.
#[allow(
    clippy::expect_used,
    reason = "the file is compiled in and a unit test parses it: a failure is a bug of this crate"
)]
fn parsed() -> &'static Node {
    static TREE: OnceLock<Node> = OnceLock::new();
    TREE.get_or_init(|| {
        // The file is compiled in and a unit test parses it, so a failure
        // here is a bug in this crate, never something a user or a plugin
        // can cause.
        serde_json::from_str(COMPLETIONS_JSON)
            .expect("completions.json is malformed (the unit test `builtin_tree_parses` says why)")
    })
}

/// The top-level names of the built-in tree, which no plugin may claim as
/// a command root: a plugin's `/set` would shadow the user's settings.
pub fn builtin_roots() -> Vec<String> {
    parsed().children.keys().cloned().collect()
}

pub fn is_builtin_root(name: &str) -> bool {
    parsed().children.contains_key(name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builtin_tree_parses() {
        let tree: Result<Node, _> = serde_json::from_str(COMPLETIONS_JSON);
        assert!(tree.is_ok(), "completions.json: {:?}", tree.err());
    }

    #[test]
    fn every_builtin_node_is_documented() {
        for (path, node) in builtin_tree().walk() {
            assert!(!node.help.is_empty(), "/{} has no help", path.join(" "));
        }
    }

    #[test]
    fn the_roots_are_the_documented_commands() {
        assert_eq!(
            builtin_roots(),
            [
                "agents",
                "clear",
                "commands",
                "compact",
                "cost",
                "diff",
                "fork",
                "get",
                "help",
                "hooks",
                "jobs",
                "mcp",
                "memory",
                "model",
                "permissions",
                "plan",
                "plugins",
                "quit",
                "rewind",
                "sessions",
                "set",
                "skills",
                "status",
                "todos",
                "tools"
            ]
        );
        assert!(is_builtin_root("set"));
        assert!(!is_builtin_root("git"));
    }

    #[test]
    fn set_prints_its_page_and_every_setting_and_choice_carries_set_value() {
        let tree = builtin_tree();
        let set = tree.child("set").unwrap();
        assert_eq!(set.action(), None);
        for (path, node) in set.walk().skip(1) {
            assert_eq!(node.action(), Some("set.value"), "/set {}", path.join(" "));
        }
        let policy = set.child("policy").unwrap();
        assert_eq!(
            policy.children.keys().collect::<Vec<_>>(),
            ["plan", "read", "write", "yolo"]
        );
        assert!(set.man.as_deref().unwrap().contains("--save"));
        assert_eq!(set.child("temperature").unwrap().range, Some([0.0, 2.0]));
        assert_eq!(
            set.child("max_iterations").unwrap().range,
            Some([1.0, 10000.0])
        );
        assert_eq!(
            set.child("compress_threshold").unwrap().range,
            Some([0.1, 1.0])
        );
    }
}
