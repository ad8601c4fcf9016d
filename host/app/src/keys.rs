//! The TUI's key table: every binding, where it works and what it does.
//! One table owns them: `/help keys` (and `/keys`) prints it, in the TUI
//! and from the shell, docs/tui.md shows it (a test holds the two in
//! step), and a new binding (plan mode, todos, rewind) is added here
//! first, where a clash shows.

/// Where a key works.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Place {
    /// Typing a prompt (the composer), a turn running or not.
    Prompt,
    /// While a turn runs.
    Turn,
    /// The approval dialog.
    Dialog,
    /// "Execute this plan?", after plan mode proposed one.
    Plan,
    /// A pane over the transcript: a man page, the plugin view, the
    /// session picker, the model picker, the diff pager.
    Pane,
}

impl Place {
    pub fn as_str(self) -> &'static str {
        match self {
            Place::Prompt => "prompt",
            Place::Turn => "turn",
            Place::Dialog => "dialog",
            Place::Plan => "plan",
            Place::Pane => "pane",
        }
    }
}

/// One binding.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Key {
    pub keys: &'static str,
    pub place: Place,
    pub does: &'static str,
}

const fn key(keys: &'static str, place: Place, does: &'static str) -> Key {
    Key { keys, place, does }
}

/// Every binding of the TUI.
pub const TABLE: &[Key] = &[
    key("enter", Place::Prompt, "send the prompt (queued while a turn runs)"),
    key("shift-enter, alt-enter, ctrl-j", Place::Prompt, "break the line"),
    key("up, down", Place::Prompt, "move between lines; on the first or last, the prompts sent before"),
    key("tab", Place::Prompt, "complete a /command or an @path"),
    key("@path", Place::Prompt, "attach a file's content (or a folder's listing) to the prompt"),
    key("!command", Place::Prompt, "run a shell command in the sandbox; its output joins the context"),
    key("pageup, pagedown", Place::Prompt, "scroll the transcript"),
    key("ctrl-o", Place::Prompt, "expand or fold the tool cards"),
    key("ctrl-t", Place::Prompt, "expand or fold the thinking"),
    key("ctrl-g", Place::Prompt, "show the whole todo list, or fold it to one line"),
    key("shift-tab", Place::Prompt, "cycle the mode: write → plan → read → write"),
    key("ctrl-p", Place::Prompt, "the plugin view"),
    key("ctrl-r", Place::Prompt, "the session picker"),
    key("ctrl-c", Place::Prompt, "clear the prompt; on an empty one, twice to quit"),
    key("ctrl-d", Place::Prompt, "quit on an empty prompt"),
    key("esc", Place::Prompt, "close the completion drawer"),
    key("esc esc", Place::Prompt, "on an idle prompt: the session's turns, to rewind (/rewind)"),
    key("esc, ctrl-c", Place::Turn, "interrupt the turn; the session is saved"),
    key("y", Place::Dialog, "approve once"),
    key("1-9, a", Place::Dialog, "approve for this session (a: the broadest scope)"),
    key("n", Place::Dialog, "deny, then type a reason for the model (enter sends it)"),
    key("esc, ctrl-c", Place::Dialog, "deny"),
    key("up, down, j, k, pageup, pagedown", Place::Dialog, "scroll the diff"),
    key("o", Place::Dialog, "open the whole diff in a pager (q or esc returns)"),
    key("y", Place::Plan, "execute the plan: write mode, and the plan is the next prompt"),
    key("a", Place::Plan, "execute the plan in yolo mode: nothing asks"),
    key("n, esc", Place::Plan, "keep planning: type what to change"),
    key("up, down, j, k, pageup, pagedown", Place::Pane, "scroll or move the selection"),
    key("enter", Place::Pane, "choose (a session, a model, a plugin's switch)"),
    key("q, esc, ctrl-c", Place::Pane, "close the pane"),
];

/// The table as text: one line per binding, under a heading per place.
pub fn page() -> String {
    let width = TABLE.iter().map(|k| k.keys.len()).max().unwrap_or(0);
    let mut out = String::from(
        "The TUI's keys. Typing @ completes workspace paths; ! runs a command.\n",
    );
    for place in [Place::Prompt, Place::Turn, Place::Dialog, Place::Plan, Place::Pane] {
        out.push_str(&format!("\n{}\n", heading(place)));
        for k in TABLE.iter().filter(|k| k.place == place) {
            out.push_str(&format!("  {:<width$}  {}\n", k.keys, k.does));
        }
    }
    out
}

fn heading(place: Place) -> &'static str {
    match place {
        Place::Prompt => "At the prompt",
        Place::Turn => "While a turn runs",
        Place::Dialog => "In the approval dialog",
        Place::Plan => "When a plan is proposed",
        Place::Pane => "In a pane",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// No key does two things in one place.
    #[test]
    fn no_binding_clashes() {
        let mut seen = std::collections::BTreeMap::new();
        for k in TABLE {
            for one in k.keys.split(", ") {
                if let Some(before) = seen.insert((k.place.as_str(), one), k.does) {
                    panic!("`{one}` in {}: `{before}` and `{}`", k.place.as_str(), k.does);
                }
            }
        }
    }

    /// docs/tui.md shows the same table.
    #[test]
    fn the_docs_show_every_binding() {
        let docs = std::fs::read_to_string(
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/tui.md"),
        )
        .unwrap();
        for k in TABLE {
            let row = format!("| `{}` | {} | {} |", k.keys, k.place.as_str(), k.does);
            assert!(docs.contains(&row), "docs/tui.md lacks the row\n{row}");
        }
    }
}
