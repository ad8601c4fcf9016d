//! A small POSIX-shell reader, enough to classify a command line: words
//! with their quotes removed, the control operators that separate simple
//! commands (`|`, `||`, `&&`, `;`, `&`, newlines, subshell parentheses),
//! redirections with their targets, and the text of command substitutions
//! (`$(…)` and backticks), which are classified as commands of their own.
//! It never expands anything: a word keeps `$VAR` and `~` as written, and
//! says so, because what they name cannot be known before running.

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Word {
    /// The word with quotes and escapes removed.
    pub text: String,
    /// It holds an unquoted `$`, a substitution, or `~` at the start: its
    /// value is only known at run time. (A glob stays lexical: `src/*.rs`
    /// cannot leave `src`.)
    pub expands: bool,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RedirectKind {
    /// `<`, `<<<`: reads the target.
    Read,
    /// `>`, `>>`, `>|`, `&>`, `2>` and the like: writes the target.
    Write,
    /// `>&2`, `2>&1`: duplicates a descriptor, touches no file.
    Dup,
    /// `<<`: a here-document; the target is its delimiter.
    HereDoc,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Redirect {
    pub kind: RedirectKind,
    pub target: Word,
}

/// One simple command: `VAR=x prog args… >file`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SimpleCommand {
    pub assignments: Vec<String>,
    pub argv: Vec<Word>,
    pub redirects: Vec<Redirect>,
    /// Its stdin comes from the previous command of a pipeline.
    pub piped_in: bool,
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Parsed {
    pub commands: Vec<SimpleCommand>,
    /// The text inside every `$(…)`, `<(…)` and backtick pair.
    pub substitutions: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LexError {
    #[error("an unterminated {0}")]
    Unterminated(&'static str),
    #[error("a redirection without a target")]
    MissingTarget,
}

#[derive(Debug, PartialEq)]
enum Token {
    Word(Word),
    /// `|`, `||`, `&&`, `;`, `&`, newline, `(`, `)`.
    Control(&'static str),
    Redirect(RedirectKind),
}

/// Reads a command line.
pub fn parse(line: &str) -> Result<Parsed, LexError> {
    let mut substitutions = Vec::new();
    let tokens = tokenize(line, &mut substitutions)?;
    let mut commands = Vec::new();
    let mut current = SimpleCommand::default();
    let mut tokens = tokens.into_iter().peekable();
    while let Some(token) = tokens.next() {
        match token {
            Token::Word(word) => {
                let is_assignment = current.argv.is_empty()
                    && word
                        .text
                        .split_once('=')
                        .is_some_and(|(name, _)| is_name(name));
                if is_assignment {
                    current.assignments.push(word.text);
                } else {
                    current.argv.push(word);
                }
            }
            Token::Redirect(kind) => match tokens.next() {
                Some(Token::Word(target)) => current.redirects.push(Redirect { kind, target }),
                _ if kind == RedirectKind::Dup => {}
                _ => return Err(LexError::MissingTarget),
            },
            Token::Control(op) => {
                let piped = op == "|";
                if !current.argv.is_empty() || !current.redirects.is_empty() {
                    commands.push(std::mem::take(&mut current));
                }
                current.piped_in = piped;
            }
        }
    }
    if !current.argv.is_empty() || !current.redirects.is_empty() {
        commands.push(current);
    }
    Ok(Parsed {
        commands,
        substitutions,
    })
}

fn is_name(s: &str) -> bool {
    let mut chars = s.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// Reads from `chars[start]` (just after an opening `(`) to its matching
/// `)`, respecting quotes; returns the inner text and the index after it.
fn balanced(chars: &[char], start: usize) -> Result<(String, usize), LexError> {
    let mut depth = 1;
    let mut i = start;
    let mut quote: Option<char> = None;
    while i < chars.len() {
        let c = chars[i];
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some('"'), '\\') => i += 1,
            (Some(_), _) => {}
            (None, '\'' | '"') => quote = Some(c),
            (None, '\\') => i += 1,
            (None, '(') => depth += 1,
            (None, ')') => {
                depth -= 1;
                if depth == 0 {
                    return Ok((chars[start..i].iter().collect(), i + 1));
                }
            }
            _ => {}
        }
        i += 1;
    }
    Err(LexError::Unterminated("`$(`"))
}

fn tokenize(line: &str, substitutions: &mut Vec<String>) -> Result<Vec<Token>, LexError> {
    let chars: Vec<char> = line.chars().collect();
    let mut tokens = Vec::new();
    let mut word = String::new();
    let mut in_word = false;
    let mut expands = false;
    let mut i = 0;
    let flush =
        |tokens: &mut Vec<Token>, word: &mut String, in_word: &mut bool, expands: &mut bool| {
            if *in_word {
                tokens.push(Token::Word(Word {
                    text: std::mem::take(word),
                    expands: *expands,
                }));
            }
            *in_word = false;
            *expands = false;
        };
    while i < chars.len() {
        let c = chars[i];
        let next = chars.get(i + 1).copied();
        match c {
            ' ' | '\t' => {
                flush(&mut tokens, &mut word, &mut in_word, &mut expands);
                i += 1;
            }
            '#' if !in_word => {
                // A comment runs to the end of the line.
                while i < chars.len() && chars[i] != '\n' {
                    i += 1;
                }
            }
            '\\' => {
                if next == Some('\n') {
                    i += 2;
                    continue;
                }
                if let Some(n) = next {
                    word.push(n);
                }
                in_word = true;
                i += 2;
            }
            '\'' => {
                in_word = true;
                let end = chars[i + 1..]
                    .iter()
                    .position(|&c| c == '\'')
                    .ok_or(LexError::Unterminated("single quote"))?;
                word.extend(&chars[i + 1..i + 1 + end]);
                i += end + 2;
            }
            '"' => {
                in_word = true;
                i += 1;
                loop {
                    let Some(&c) = chars.get(i) else {
                        return Err(LexError::Unterminated("double quote"));
                    };
                    match c {
                        '"' => {
                            i += 1;
                            break;
                        }
                        '\\' if matches!(chars.get(i + 1), Some('"' | '\\' | '$' | '`')) => {
                            word.push(chars[i + 1]);
                            i += 2;
                        }
                        '$' if chars.get(i + 1) == Some(&'(') => {
                            i = substitution(&chars, i, substitutions, &mut word)?;
                            expands = true;
                        }
                        '`' => {
                            i = substitution(&chars, i, substitutions, &mut word)?;
                            expands = true;
                        }
                        '$' => {
                            expands = true;
                            word.push(c);
                            i += 1;
                        }
                        _ => {
                            word.push(c);
                            i += 1;
                        }
                    }
                }
            }
            '$' if next == Some('(') => {
                i = substitution(&chars, i, substitutions, &mut word)?;
                in_word = true;
                expands = true;
            }
            '`' => {
                i = substitution(&chars, i, substitutions, &mut word)?;
                in_word = true;
                expands = true;
            }
            '<' | '>' if next == Some('(') && !in_word => {
                // Process substitution: a command of its own.
                let (inner, after) = balanced(&chars, i + 2)?;
                substitutions.push(inner);
                tokens.push(Token::Word(Word {
                    text: "/dev/fd/63".into(),
                    expands: true,
                }));
                i = after;
            }
            '|' | '&' | ';' | '\n' | '(' | ')' | '<' | '>' => {
                // A descriptor number right before a redirection belongs
                // to it: `2>` is one operator, not the word `2`.
                let fd_prefix = in_word
                    && matches!(c, '<' | '>')
                    && !word.is_empty()
                    && word.chars().all(|d| d.is_ascii_digit());
                if fd_prefix {
                    word.clear();
                    in_word = false;
                } else {
                    flush(&mut tokens, &mut word, &mut in_word, &mut expands);
                }
                let (token, len) = operator(&chars[i..]);
                tokens.push(token);
                i += len;
            }
            '~' if !in_word => {
                expands = true;
                in_word = true;
                word.push(c);
                i += 1;
            }
            '$' => {
                expands = true;
                in_word = true;
                word.push(c);
                i += 1;
            }
            _ => {
                in_word = true;
                word.push(c);
                i += 1;
            }
        }
    }
    flush(&mut tokens, &mut word, &mut in_word, &mut expands);
    Ok(tokens)
}

/// Reads the `$(…)` or backtick substitution starting at `chars[at]`:
/// records its text as a command of its own, keeps it in `word` as
/// written, and returns the index after it.
fn substitution(
    chars: &[char],
    at: usize,
    substitutions: &mut Vec<String>,
    word: &mut String,
) -> Result<usize, LexError> {
    let (inner, after) = if chars[at] == '`' {
        let (inner, after) = backtick(chars, at + 1)?;
        word.push_str(&format!("`{inner}`"));
        (inner, after)
    } else {
        let (inner, after) = balanced(chars, at + 2)?;
        word.push_str(&format!("$({inner})"));
        (inner, after)
    };
    substitutions.push(inner);
    Ok(after)
}

fn backtick(chars: &[char], start: usize) -> Result<(String, usize), LexError> {
    let end = chars[start..]
        .iter()
        .position(|&c| c == '`')
        .ok_or(LexError::Unterminated("backtick"))?;
    Ok((chars[start..start + end].iter().collect(), start + end + 1))
}

/// The operator at the start of `rest`, and its length.
fn operator(rest: &[char]) -> (Token, usize) {
    let s: String = rest.iter().take(4).collect();
    let table: [(&str, Token); 19] = [
        ("&>>", Token::Redirect(RedirectKind::Write)),
        ("<<<", Token::Redirect(RedirectKind::Read)),
        (">&", Token::Redirect(RedirectKind::Dup)),
        ("<&", Token::Redirect(RedirectKind::Dup)),
        ("&>", Token::Redirect(RedirectKind::Write)),
        (">>", Token::Redirect(RedirectKind::Write)),
        (">|", Token::Redirect(RedirectKind::Write)),
        ("<<", Token::Redirect(RedirectKind::HereDoc)),
        ("||", Token::Control("||")),
        ("&&", Token::Control("&&")),
        (";;", Token::Control(";")),
        ("|&", Token::Control("|")),
        ("|", Token::Control("|")),
        ("&", Token::Control("&")),
        (";", Token::Control(";")),
        ("\n", Token::Control("\n")),
        ("(", Token::Control("(")),
        (")", Token::Control(")")),
        ("<", Token::Redirect(RedirectKind::Read)),
    ];
    for (op, token) in table {
        if s.starts_with(op) {
            return (token, op.chars().count());
        }
    }
    // Only `>` is left.
    (Token::Redirect(RedirectKind::Write), 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn argv(line: &str) -> Vec<Vec<String>> {
        parse(line)
            .unwrap()
            .commands
            .iter()
            .map(|c| c.argv.iter().map(|w| w.text.clone()).collect())
            .collect()
    }

    #[test]
    fn quotes_escapes_and_operators_split_as_the_shell_does() {
        assert_eq!(
            argv(r#"echo 'a b' "c \"d\"" e\ f && ls -la|wc -l; (cd x) || true"#),
            [
                vec!["echo", "a b", "c \"d\"", "e f"],
                vec!["ls", "-la"],
                vec!["wc", "-l"],
                vec!["cd", "x"],
                vec!["true"],
            ]
        );
    }

    #[test]
    fn redirections_keep_their_targets_and_descriptor_numbers() {
        let parsed = parse("cmd 2>err.log >out 2>&1 <in &>>all").unwrap();
        let c = &parsed.commands[0];
        assert_eq!(c.argv.len(), 1);
        let r: Vec<(RedirectKind, &str)> = c
            .redirects
            .iter()
            .map(|r| (r.kind.clone(), r.target.text.as_str()))
            .collect();
        assert_eq!(
            r,
            [
                (RedirectKind::Write, "err.log"),
                (RedirectKind::Write, "out"),
                (RedirectKind::Dup, "1"),
                (RedirectKind::Read, "in"),
                (RedirectKind::Write, "all"),
            ]
        );
    }

    #[test]
    fn substitutions_are_collected_and_expansions_marked() {
        let parsed = parse(r#"echo "$(rm -rf x)" `id` $HOME ~/x 'lit$'"#).unwrap();
        assert_eq!(parsed.substitutions, ["rm -rf x", "id"]);
        let expands: Vec<bool> = parsed.commands[0].argv.iter().map(|w| w.expands).collect();
        assert_eq!(expands, [false, true, true, true, true, false]);
    }

    #[test]
    fn assignments_pipes_and_errors() {
        let parsed = parse("FOO=1 BAR=2 make | tee log").unwrap();
        assert_eq!(parsed.commands[0].assignments, ["FOO=1", "BAR=2"]);
        assert!(parsed.commands[1].piped_in && !parsed.commands[0].piped_in);
        assert!(parse("echo 'oops").is_err());
        assert!(parse("echo >").is_err());
    }
}
