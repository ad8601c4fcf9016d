//! Text shown to people in one line: a session's title, a tool call in the
//! terminal.

/// `text` with its whitespace runs collapsed to single spaces, cut to at
/// most `max_chars` characters with an ellipsis when longer.
pub fn one_line(text: &str, max_chars: usize) -> String {
    let line = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if line.chars().count() <= max_chars {
        return line;
    }
    let cut: String = line.chars().take(max_chars.saturating_sub(1)).collect();
    format!("{cut}…")
}

#[cfg(test)]
mod tests {
    use super::one_line;

    #[test]
    fn whitespace_collapses_and_long_lines_end_in_an_ellipsis() {
        assert_eq!(one_line("fix\n the   bug", 72), "fix the bug");
        assert_eq!(one_line("abcdef", 4), "abc…");
        assert_eq!(one_line("abcd", 4), "abcd");
    }
}
