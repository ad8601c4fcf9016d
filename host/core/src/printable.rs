//! Text from elsewhere made safe to show on a terminal. A workspace file,
//! an MCP server, a plugin or a model can put escape sequences in a name,
//! a command or a log line (`\x1b[2K` erases the line it is on, `\r`
//! writes over it, an OSC sequence sets the window title or a clipboard)
//! or characters that render as nothing or reorder what is around them
//! (bidi overrides, zero-width spaces). Everything amber prints that came
//! from outside goes through [`printable`] (one-line fields) or
//! [`printable_lines`] (text whose lines are its own), which escape them
//! as Rust does (`\u{1b}`), so a person sees them instead of obeying them.

/// Characters that render as nothing, or reorder what is around them.
pub fn is_invisible(c: char) -> bool {
    matches!(c,
        '\u{00AD}'                  // soft hyphen
        | '\u{034F}'                // combining grapheme joiner
        | '\u{061C}'                // Arabic letter mark (bidi)
        | '\u{115F}' | '\u{1160}'   // Hangul fillers
        | '\u{17B4}' | '\u{17B5}'
        | '\u{180B}'..='\u{180F}'   // Mongolian selectors and separator
        | '\u{200B}'..='\u{200F}'   // zero-width space, joiners, marks
        | '\u{202A}'..='\u{202E}'   // bidi embeddings and overrides
        | '\u{2060}'..='\u{2064}'   // word joiner, invisible operators
        | '\u{2066}'..='\u{206F}'   // bidi isolates, deprecated formats
        | '\u{3164}'                // Hangul filler
        | '\u{FE00}'..='\u{FE0F}'   // variation selectors
        | '\u{FEFF}'                // zero-width no-break space
        | '\u{FFA0}'
        | '\u{FFF9}'..='\u{FFFB}'   // interlinear annotations
        | '\u{E0000}'..='\u{E007F}' // tag characters
        | '\u{E0100}'..='\u{E01EF}' // variation selectors supplement
    )
}

fn escape_into(out: &mut String, c: char, keep: &[char]) {
    if keep.contains(&c) {
        out.push(c);
    } else if c.is_control() {
        out.extend(c.escape_default());
    } else if is_invisible(c) {
        out.extend(c.escape_unicode());
    } else {
        out.push(c);
    }
}

fn escaped(text: &str, keep: &[char]) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        escape_into(&mut out, c, keep);
    }
    out
}

/// `text` for one line of a terminal: every control character (newlines
/// and tabs too) and every invisible one escaped.
pub fn printable(text: &str) -> String {
    escaped(text, &[])
}

/// `text` whose own lines are kept: as [`printable`], but newlines and
/// tabs pass.
pub fn printable_lines(text: &str) -> String {
    escaped(text, &['\n', '\t'])
}

/// Whether `text` holds anything [`printable`] would escape.
pub fn has_hidden(text: &str) -> bool {
    text.chars().any(|c| c.is_control() || is_invisible(c))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_are_shown_not_obeyed() {
        assert_eq!(printable("ok\r\u{1b}[2K"), "ok\\r\\u{1b}[2K");
        assert_eq!(printable("a\nb\tc"), "a\\nb\\tc");
        assert_eq!(printable_lines("a\nb\tc\u{7}"), "a\nb\tc\\u{7}");
        assert_eq!(printable("evil\u{202e}txt"), "evil\\u{202e}txt");
        assert_eq!(printable("plain ünïcode ✓"), "plain ünïcode ✓");
        assert!(has_hidden("x\u{200b}") && !has_hidden("fine"));
    }
}
