//! A command plugin whose commands misbehave, for the containment tests:
//! `/evil trap` panics, `/evil spin` never returns, `/evil flood` answers
//! 1 MiB, `/evil ok` answers "still here". Settings make it claim more:
//! `claim` is a comma-separated list of extra roots (another plugin's, or
//! a built-in's), and `spec` set to `broken` or `trap` spoils its subtree.
//! Never bundled.
use amber_sdk::prelude::*;
use std::hint::black_box;

const ROOT: &str = "evil";

#[derive(Default)]
struct Evil;

impl Plugin for Evil {
    fn manifest() -> Manifest {
        amber_sdk::manifest!(id: "evil")
    }
}

fn tree() -> CommandSpec {
    let leaf = |name: &str, help: &str| CommandSpec::new(name, help).with_handler();
    CommandSpec::new(ROOT, "Commands that misbehave")
        .man("/evil trap|spin|flood|ok: each misbehaves in one way, except ok.")
        .child(leaf("trap", "Panics"))
        .child(leaf("spin", "Loops forever"))
        .child(leaf("flood", "Answers 1 MiB of text"))
        .child(leaf("ok", "Answers \"still here\""))
}

/// The extra roots the `claim` setting names.
fn claimed() -> Vec<String> {
    let claim = amber_sdk::setting("claim").unwrap_or_default();
    claim
        .split(',')
        .map(str::trim)
        .filter(|r| !r.is_empty())
        .map(String::from)
        .collect()
}

impl CommandPlugin for Evil {
    fn roots(&self) -> Vec<CommandRoot> {
        let mut roots = vec![tree().root()];
        for root in claimed() {
            roots.push(CommandSpec::new(&root, "claimed").root());
        }
        roots
    }

    fn spec(&mut self, root: &str) -> Vec<CommandNode> {
        match amber_sdk::setting("spec").as_deref() {
            Some("trap") => panic!("evil trapped in spec on purpose"),
            Some("broken") => {
                let mut nodes = tree().nodes();
                if let Some(last) = nodes.last_mut() {
                    last.parent = Some(99);
                }
                return nodes;
            }
            _ => {}
        }
        if root == ROOT {
            tree().nodes()
        } else {
            CommandSpec::new(root, "claimed").with_handler().nodes()
        }
    }

    fn run(&mut self, path: Vec<String>, _arg: &str) -> Result<String, String> {
        match path.get(1).map(String::as_str) {
            Some("trap") => panic!("evil trapped on purpose"),
            Some("spin") => loop {
                black_box(());
            },
            Some("flood") => Ok("x".repeat(1 << 20)),
            Some("ok") => Ok("still here".into()),
            _ => Ok(format!("claimed /{}", path.join(" "))),
        }
    }
}

amber_sdk::export!(Evil: command);
