//! Splitting a command line into words. Seed: "Command dispatch" (strip
//! the leading slash, trim, tokenize).
//!
//! POSIX-shell-like, because `amber /set …` is also typed in a shell and a
//! user should quote the same way in both: whitespace separates words;
//! `'…'` is literal; in `"…"` a backslash escapes only `"` and `\` (any
//! other backslash stays, as in sh); outside quotes a backslash escapes
//! the next character. Quoted and unquoted parts next to each other make
//! one word (`a"b c"` is `ab c`), and `""` is an empty word. Nothing is
//! expanded: `$HOME` and `~` are plain text.

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TokenizeError {
    #[error("unclosed quote ({quote}): close it, or escape it with a backslash")]
    UnclosedQuote { quote: char },
    #[error("a backslash at the end escapes nothing: remove it, or write \\\\ for a backslash")]
    TrailingBackslash,
}

/// The words of `line`, or why it has none.
pub fn tokenize(line: &str) -> Result<Vec<String>, TokenizeError> {
    let scan = scan(line);
    if let Some(quote) = scan.unclosed {
        return Err(TokenizeError::UnclosedQuote { quote });
    }
    if scan.trailing_backslash {
        return Err(TokenizeError::TrailingBackslash);
    }
    Ok(scan.tokens)
}

/// What a lenient reading of a line found: completion reads a line that is
/// still being typed, where an open quote is normal.
#[derive(Debug, Default, PartialEq, Eq)]
pub(crate) struct Scan {
    pub tokens: Vec<String>,
    /// The quote left open at the end, if any.
    pub unclosed: Option<char>,
    pub trailing_backslash: bool,
    /// The last word runs to the end of the line (no separator after it),
    /// so it may still grow: completion treats it as a prefix.
    pub open: bool,
}

pub(crate) fn scan(line: &str) -> Scan {
    let mut scan = Scan::default();
    let mut word = String::new();
    let mut in_word = false;
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        match c {
            c if c.is_whitespace() => {
                if in_word {
                    scan.tokens.push(std::mem::take(&mut word));
                    in_word = false;
                }
            }
            '\'' => {
                in_word = true;
                loop {
                    match chars.next() {
                        Some('\'') => break,
                        Some(c) => word.push(c),
                        None => {
                            scan.unclosed = Some('\'');
                            break;
                        }
                    }
                }
            }
            '"' => {
                in_word = true;
                loop {
                    match chars.next() {
                        Some('"') => break,
                        Some('\\') => match chars.next() {
                            Some(c @ ('"' | '\\')) => word.push(c),
                            Some(c) => {
                                word.push('\\');
                                word.push(c);
                            }
                            None => {
                                scan.unclosed = Some('"');
                                break;
                            }
                        },
                        Some(c) => word.push(c),
                        None => {
                            scan.unclosed = Some('"');
                            break;
                        }
                    }
                }
            }
            '\\' => {
                in_word = true;
                match chars.next() {
                    Some(c) => word.push(c),
                    None => scan.trailing_backslash = true,
                }
            }
            c => {
                in_word = true;
                word.push(c);
            }
        }
    }
    if in_word {
        scan.tokens.push(word);
    }
    scan.open = in_word;
    scan
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokenize_table() {
        use TokenizeError::*;
        let ok = |words: &[&str]| Ok(words.iter().map(|w| w.to_string()).collect());
        let cases: &[(&str, Result<Vec<String>, TokenizeError>)] = &[
            ("", ok(&[])),
            ("   \t ", ok(&[])),
            ("set policy read", ok(&["set", "policy", "read"])),
            ("  set   model\tgpt-4o  ", ok(&["set", "model", "gpt-4o"])),
            ("say 'a b  c'", ok(&["say", "a b  c"])),
            (r"say 'a\b'", ok(&["say", r"a\b"])),
            (r#"say "a \"b\" \\ c""#, ok(&["say", r#"a "b" \ c"#])),
            (r#"say "a\nb""#, ok(&["say", r"a\nb"])),
            (r"say a\ b", ok(&["say", "a b"])),
            (r"say \'x", ok(&["say", "'x"])),
            (r#"a"b c"d"#, ok(&["ab cd"])),
            (r#"x "" ''"#, ok(&["x", "", ""])),
            ("$HOME ~", ok(&["$HOME", "~"])),
            ("naïve 模型", ok(&["naïve", "模型"])),
            ("say 'open", Err(UnclosedQuote { quote: '\'' })),
            (r#"say "open"#, Err(UnclosedQuote { quote: '"' })),
            (r#"say "open\"#, Err(UnclosedQuote { quote: '"' })),
            (r"say end\", Err(TrailingBackslash)),
        ];
        for (line, want) in cases {
            assert_eq!(&tokenize(line), want, "line {line:?}");
        }
    }

    #[test]
    fn errors_say_what_to_do() {
        let err = tokenize("say 'x").unwrap_err().to_string();
        assert!(err.contains("unclosed quote (')"), "{err}");
        assert!(err.contains("close it"), "{err}");
    }

    #[test]
    fn the_lenient_scan_keeps_an_open_last_word() {
        let scan = scan(r#"set model "gpt 4"#);
        assert_eq!(scan.tokens, ["set", "model", "gpt 4"]);
        assert_eq!(scan.unclosed, Some('"'));
        assert!(scan.open);
        assert!(!super::scan("set ").open);
        assert!(super::scan("set").open);
        assert!(super::scan("set \"a ").open, "whitespace inside a quote");
    }
}
