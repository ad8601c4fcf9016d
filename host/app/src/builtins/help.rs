//! `/help [cmd]`: the list of commands, or one command's man page, read
//! from the same merged tree dispatch walks (plugin subtrees included).

use amber_core::commands::{man_page, tokenize, Invocation, Reply};

use super::{failed, Handled};
use crate::App;

pub fn help(_app: &mut App, inv: &Invocation<'_>) -> Handled {
    let words = tokenize(inv.arg.trim_start_matches('/')).map_err(|e| failed(e.to_string()))?;
    let mut node = inv.tree;
    let mut path = Vec::new();
    for word in &words {
        match node.child(word) {
            Some(child) => {
                node = child;
                path.push(word.clone());
            }
            None => {
                let at = if path.is_empty() {
                    String::new()
                } else {
                    format!(" under /{}", path.join(" "))
                };
                return Err(failed(format!("no command `{word}`{at} (try /help)")));
            }
        }
    }
    Ok(Reply::text(man_page(&path, node)))
}
