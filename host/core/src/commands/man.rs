//! The man page of a node, and the `help` handler that prints one. Seed:
//! "Command dispatch" (a node without an action, or whose action nobody
//! registered, prints its man page: documented, not executable).

use serde_json::json;

use super::suggest::nearest;
use super::{handler, CommandError, Handler, Node, Reply, Resolution};

/// A name longer than this does not widen the column for all the others.
const NAME_COLUMN_MAX: usize = 24;

/// The page of `node`, reached by `path` from the root: a title line with
/// the help, the man text, the children with their help in a column, and
/// the range of a numeric setting. The root's page is the list of
/// commands, each with its slash.
pub fn man_page(path: &[String], node: &Node) -> String {
    let mut page = title(path, node);
    if let Some(man) = node.man.as_deref().filter(|m| !m.is_empty()) {
        page.push_str("\n\n");
        page.push_str(man);
    }
    if !node.children.is_empty() {
        page.push_str("\n\n");
        let slash = if path.is_empty() { "/" } else { "" };
        let names: Vec<String> = node
            .children
            .keys()
            .map(|n| format!("{slash}{n}"))
            .collect();
        let width = names
            .iter()
            .map(|n| n.chars().count())
            .max()
            .unwrap_or(0)
            .min(NAME_COLUMN_MAX);
        let lines: Vec<String> = names
            .iter()
            .zip(node.children.values())
            .map(|(name, child)| {
                format!("  {name:<width$}  {}", child.help)
                    .trim_end()
                    .to_string()
            })
            .collect();
        page.push_str(&lines.join("\n"));
    }
    if let Some([min, max]) = node.range {
        page.push_str(&format!("\n\nrange: {min}..{max}"));
    }
    page
}

fn title(path: &[String], node: &Node) -> String {
    match (path.is_empty(), node.help.is_empty()) {
        (true, true) => "commands".to_string(),
        (true, false) => node.help.clone(),
        (false, true) => format!("/{}", path.join(" ")),
        (false, false) => format!("/{} — {}", path.join(" "), node.help),
    }
}

/// The page of a node that the line went past: `/set modle` lands on
/// `/set`, whose page then starts by saying what did not match and what
/// probably was meant. A node without children takes free words, so there
/// is nothing to say about them.
pub(crate) fn page_after(path: &[String], node: &Node, unmatched: Option<&str>) -> String {
    let page = man_page(path, node);
    let Some(word) = unmatched.filter(|_| !node.children.is_empty()) else {
        return page;
    };
    let here = path.join(" ");
    let mut note = format!("/{here} has no `{word}`");
    if let Some(near) = nearest(word, node.children.keys().map(String::as_str)) {
        note.push_str(&format!("; did you mean /{here} {near}?"));
    }
    format!("{note}\n\n{page}")
}

/// The handler of the `help` action: `/help` prints the list of commands,
/// `/help <command> [<subcommand> …]` that node's page (a leading slash is
/// fine). It reads the tree of the call, so plugin commands are included.
pub fn help_handler<C>() -> Handler<C> {
    handler(|_ctx: &mut C, inv| {
        let words: Vec<String> = inv
            .arg
            .split_whitespace()
            .enumerate()
            .map(|(i, w)| if i == 0 { w.trim_start_matches('/') } else { w })
            .filter(|w| !w.is_empty())
            .map(String::from)
            .collect();
        match inv.tree.resolve(&words) {
            Resolution::Found { path, node, arg } => {
                let unmatched = arg.split(' ').next().filter(|w| !w.is_empty());
                let children: Vec<&String> = node.children.keys().collect();
                Ok(
                    Reply::text(page_after(&path, node, unmatched)).with_data(json!({
                        "path": path,
                        "help": node.help,
                        "man": node.man,
                        "children": children,
                        "range": node.range,
                    })),
                )
            }
            Resolution::Unknown { suggestion } => {
                let word = words.first().map_or("", String::as_str);
                let mut message = format!("no command /{word} (try /help)");
                if let Some(near) = suggestion {
                    message.push_str(&format!("; did you mean {near}?"));
                }
                Err(CommandError::Failed(message))
            }
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::commands::builtin_tree;

    fn path(p: &[&str]) -> Vec<String> {
        p.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn a_page_has_title_man_children_aligned_and_range() {
        let tree = builtin_tree();
        let policy = tree.child("set").unwrap().child("policy").unwrap();
        let page = man_page(&path(&["set", "policy"]), policy);
        let mut lines = page.lines();
        assert_eq!(
            lines.next(),
            Some("/set policy — what tools may do without asking")
        );
        assert_eq!(lines.next(), Some(""));
        assert!(lines.next().unwrap().starts_with("The policy is"));
        assert_eq!(lines.next(), Some(""));
        assert_eq!(
            lines.next(),
            Some("  plan   read only, and the model proposes a plan to accept")
        );
        assert_eq!(
            lines.next(),
            Some("  read   tools may only read; every other call is denied")
        );
        assert!(lines.next().unwrap().starts_with("  write  benign"));
        assert!(lines.next().unwrap().starts_with("  yolo   everything"));
        assert_eq!(lines.next(), None);

        let temperature = tree.child("set").unwrap().child("temperature").unwrap();
        let page = man_page(&path(&["set", "temperature"]), temperature);
        assert!(page.ends_with("\n\nrange: 0..2"), "{page}");
    }

    #[test]
    fn the_root_page_lists_the_commands_with_their_slash() {
        let tree = builtin_tree();
        let page = man_page(&[], &tree);
        assert!(page.starts_with("amber's slash commands\n\n"), "{page}");
        assert!(page.contains("\n  /set          change a setting"), "{page}");
        assert!(page.contains("\n  /quit         leave amber"), "{page}");
    }

    #[test]
    fn a_node_without_help_or_man_still_has_a_title() {
        assert_eq!(man_page(&path(&["x"]), &Node::default()), "/x");
        assert_eq!(man_page(&[], &Node::default()), "commands");
    }

    #[test]
    fn a_word_past_the_match_is_named_with_the_likely_child() {
        let tree = builtin_tree();
        let set = tree.child("set").unwrap();
        let page = page_after(&path(&["set"]), set, Some("modle"));
        assert!(
            page.starts_with("/set has no `modle`; did you mean /set model?\n\n/set — "),
            "{page}"
        );
        let temperature = set.child("temperature").unwrap();
        let page = page_after(&path(&["set", "temperature"]), temperature, Some("9"));
        assert!(page.starts_with("/set temperature — "), "{page}");
    }
}
