//! The slash-command line on any input: tokenize, dispatch and complete
//! never panic, and when the line tokenizes, a handler that ran was
//! reached by a real path of the tree whose node carries that action (the
//! walk never invents a node).
#![no_main]

use std::sync::OnceLock;

use amber_core::commands::{builtin_tree, handler, tokenize, CommandSet, Node, Outcome, Reply};

/// The built-in tree with a handler for every action it names, built once.
fn commands() -> &'static CommandSet<()> {
    static SET: OnceLock<CommandSet<()>> = OnceLock::new();
    SET.get_or_init(|| {
        let mut set = CommandSet::new(builtin_tree());
        for action in set.actions_in_tree() {
            set.register(action, handler(|_, _| Ok(Reply::text("ok"))));
        }
        set
    })
}

fn at<'a>(tree: &'a Node, path: &[String]) -> Option<&'a Node> {
    path.iter().try_fold(tree, |node, name| node.child(name))
}

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let Ok(line) = std::str::from_utf8(data) else {
        return;
    };
    let set = commands();
    let tokenized = tokenize(line);
    let outcome = set.dispatch(&mut (), line);
    if tokenized.is_ok() {
        if let Outcome::Ok { action, path, .. } = &outcome {
            let node = at(set.tree(), path);
            assert!(
                node.is_some(),
                "{line:?} ran {action} at a path not in the tree: {path:?}"
            );
            assert_eq!(node.and_then(Node::action), Some(action.as_str()));
        }
    }
    for candidate in set.complete(line) {
        assert!(
            !candidate.name.is_empty(),
            "{line:?} completes to an empty name"
        );
    }
});
