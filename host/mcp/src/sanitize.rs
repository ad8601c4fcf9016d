//! What a server says goes to the model only once cleaned: a tool's
//! description, a resource's or a prompt's. A server can hide
//! instructions in characters a person never sees (zero-width spaces,
//! bidirectional overrides, Unicode tag characters, variation selectors)
//! or in control characters, and can make a description as long as it
//! likes. Those characters are taken out and the length is capped; what
//! was taken out is said at the end, so the person reading the pin diff
//! knows.

use amber_core::printable::is_invisible;

/// The longest description a model is shown, in characters.
pub const MAX_DESCRIPTION: usize = 2000;

/// `text` without control characters (but newlines and tabs) and
/// invisible characters, at most `cap` characters long.
pub fn clean(text: &str, cap: usize) -> String {
    let mut out = String::with_capacity(text.len().min(cap * 4));
    let mut removed = 0usize;
    let mut kept = 0usize;
    let mut cut = 0usize;
    for c in text.chars() {
        if (c.is_control() && c != '\n' && c != '\t') || is_invisible(c) {
            removed += 1;
            continue;
        }
        if kept == cap {
            cut += 1;
            continue;
        }
        out.push(c);
        kept += 1;
    }
    let mut notes = Vec::new();
    if cut > 0 {
        notes.push(format!("{cut} more characters cut"));
    }
    if removed > 0 {
        notes.push(format!("{removed} hidden or control characters removed"));
    }
    if !notes.is_empty() {
        out.push_str(&format!(" [amber: {}]", notes.join("; ")));
    }
    out
}

/// A tool's description, cleaned and capped at [`MAX_DESCRIPTION`].
pub fn description(text: &str) -> String {
    clean(text, MAX_DESCRIPTION)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hidden_characters_are_removed_and_counted() {
        let poisoned = "Reads a file.\u{200B}\u{E0049}\u{E0067}\u{202E}\u{1b}[2K ok";
        let clean = description(poisoned);
        assert_eq!(
            clean,
            "Reads a file.[2K ok [amber: 5 hidden or control characters removed]"
        );
    }

    #[test]
    fn newlines_and_tabs_stay_and_plain_text_is_untouched() {
        assert_eq!(description("a\n\tb"), "a\n\tb");
        assert_eq!(description("Ünïcödé 漢字"), "Ünïcödé 漢字");
    }

    #[test]
    fn an_oversized_description_is_capped_saying_so() {
        let long = "x".repeat(MAX_DESCRIPTION + 500);
        let clean = description(&long);
        assert!(clean.starts_with(&"x".repeat(MAX_DESCRIPTION)));
        assert!(
            clean.ends_with("[amber: 500 more characters cut]"),
            "{}",
            &clean[clean.len() - 40..]
        );
    }
}
