//! The front matter of a Markdown file: the `---` block at its top that
//! Claude Code, Codex and Gemini CLI put on commands, skills and agents
//! (`description`, `argument-hint`, `model`, `allowed-tools`, `name`). One
//! reader for all of them, lenient about the shapes those tools accept:
//! a value plain, quoted or folded over indented lines, a list in
//! brackets, as `- item` lines or as a comma-separated string. What is
//! not a `key: value` line is an error naming its line, so a file with
//! broken front matter is listed with the reason and skipped.

use std::collections::BTreeMap;

/// A value: one text, or a list of them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Value {
    Text(String),
    List(Vec<String>),
}

/// A Markdown file split into its front matter and its body.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Document {
    pub fields: BTreeMap<String, Value>,
    /// The text after the front matter (all of it, when there is none).
    pub body: String,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FrontMatterError {
    #[error("line {line}: the front matter is not closed by a `---` line")]
    Unclosed { line: usize },
    #[error("line {line}: `{text}` is not a `key: value` line of front matter")]
    NotAField { line: usize, text: String },
}

impl Document {
    /// The text of `key`; a list is joined with ", ".
    pub fn text(&self, key: &str) -> Option<String> {
        match self.fields.get(key)? {
            Value::Text(text) => Some(text.clone()),
            Value::List(items) => Some(items.join(", ")),
        }
    }

    /// The items of `key`: a list, or a text split at commas (Claude Code
    /// writes `allowed-tools: Bash(git add:*), Read` as often as a list).
    /// Commas inside parentheses do not split.
    pub fn list(&self, key: &str) -> Vec<String> {
        match self.fields.get(key) {
            Some(Value::List(items)) => items.clone(),
            Some(Value::Text(text)) => split_commas(text),
            None => Vec::new(),
        }
    }
}

/// Splits `text` into its front matter and body.
pub fn parse(text: &str) -> Result<Document, FrontMatterError> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut lines = text.split_inclusive('\n');
    let starts = lines
        .clone()
        .next()
        .is_some_and(|first| first.trim_end() == "---");
    if !starts {
        return Ok(Document {
            fields: BTreeMap::new(),
            body: text.to_string(),
        });
    }
    lines.next();
    let mut block: Vec<(usize, &str)> = Vec::new();
    let mut closed_at = None;
    let mut consumed = 0usize;
    for (i, line) in lines.by_ref().enumerate() {
        consumed += line.len();
        let number = i + 2;
        if line.trim_end() == "---" {
            closed_at = Some(number);
            break;
        }
        block.push((number, line.trim_end_matches(['\n', '\r'])));
    }
    if closed_at.is_none() {
        return Err(FrontMatterError::Unclosed { line: 1 });
    }
    let first_len = text.split_inclusive('\n').next().map_or(0, str::len);
    let body = &text[(first_len + consumed).min(text.len())..];
    Ok(Document {
        fields: fields(&block)?,
        body: body.to_string(),
    })
}

/// The `key: value` lines of a front matter block.
fn fields(block: &[(usize, &str)]) -> Result<BTreeMap<String, Value>, FrontMatterError> {
    let mut fields = BTreeMap::new();
    let mut i = 0;
    while i < block.len() {
        let (number, line) = block[i];
        i += 1;
        let trimmed = line.trim();
        if trimmed.is_empty() || trimmed.starts_with('#') {
            continue;
        }
        let Some((key, value)) = line.split_once(':').filter(|(k, _)| is_key(k)) else {
            return Err(FrontMatterError::NotAField {
                line: number,
                text: trimmed.to_string(),
            });
        };
        let value = value.trim();
        // What follows, indented: `- item` lines, or a folded text. YAML
        // also lets a list's items start at the key's own column.
        let mut more: Vec<&str> = Vec::new();
        let item = |line: &str| value.is_empty() && (line == "-" || line.starts_with("- "));
        while i < block.len()
            && (block[i].1.starts_with([' ', '\t']) || block[i].1.is_empty() || item(block[i].1))
        {
            let next = block[i].1.trim();
            if !next.is_empty() {
                more.push(next);
            }
            i += 1;
        }
        let parsed = if value.starts_with('[') && value.ends_with(']') {
            Value::List(
                split_commas(&value[1..value.len() - 1])
                    .into_iter()
                    .map(|v| unquote(&v))
                    .collect(),
            )
        } else if value.is_empty() && !more.is_empty() && more.iter().all(|m| m.starts_with('-'))
        {
            Value::List(
                more.iter()
                    .map(|m| unquote(m.trim_start_matches('-').trim()))
                    .collect(),
            )
        } else {
            // `>` and `|` introduce a folded or literal text; a plain value
            // may go on over indented lines.
            let head = if matches!(value, ">" | "|" | ">-" | "|-") {
                ""
            } else {
                value
            };
            let joiner = if value.starts_with('|') { "\n" } else { " " };
            let mut parts = vec![unquote(head)];
            parts.extend(more.iter().map(|m| m.to_string()));
            let text = parts
                .into_iter()
                .filter(|p| !p.is_empty())
                .collect::<Vec<_>>()
                .join(joiner);
            Value::Text(text)
        };
        fields.insert(key.trim().to_string(), parsed);
    }
    Ok(fields)
}

fn is_key(key: &str) -> bool {
    let key = key.trim();
    !key.is_empty()
        && !key.starts_with([' ', '-'])
        && key
            .chars()
            .all(|c| c.is_alphanumeric() || matches!(c, '-' | '_' | '.'))
}

/// `"x"` or `'x'` without its quotes.
fn unquote(text: &str) -> String {
    let text = text.trim();
    for quote in ['"', '\''] {
        if text.len() >= 2 && text.starts_with(quote) && text.ends_with(quote) {
            return text[1..text.len() - 1].to_string();
        }
    }
    text.to_string()
}

/// `a, b(c, d), e` as `a`, `b(c, d)`, `e`.
fn split_commas(text: &str) -> Vec<String> {
    let mut items = Vec::new();
    let mut depth = 0i32;
    let mut current = String::new();
    for c in text.chars() {
        match c {
            '(' | '[' => depth += 1,
            ')' | ']' => depth -= 1,
            ',' if depth <= 0 => {
                items.push(std::mem::take(&mut current));
                continue;
            }
            _ => {}
        }
        current.push(c);
    }
    items.push(current);
    items
        .into_iter()
        .map(|i| unquote(&i))
        .filter(|i| !i.is_empty())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn claude_code_command_front_matter_in_its_shapes() {
        let doc = parse(
            "---\nallowed-tools: Bash(git add:*), Bash(git status:*)\nargument-hint: [message]\ndescription: \"Create a git commit\"\nmodel: claude-3-5-haiku-20241022\n---\n\n## Context\n\nDo it: $ARGUMENTS\n",
        )
        .unwrap();
        assert_eq!(doc.text("description").as_deref(), Some("Create a git commit"));
        assert_eq!(doc.list("allowed-tools"), ["Bash(git add:*)", "Bash(git status:*)"]);
        assert_eq!(doc.list("argument-hint"), ["message"]);
        assert_eq!(doc.text("model").as_deref(), Some("claude-3-5-haiku-20241022"));
        assert_eq!(doc.body, "\n## Context\n\nDo it: $ARGUMENTS\n");
    }

    #[test]
    fn lists_as_lines_folded_text_and_no_front_matter() {
        let doc = parse("---\nname: x\nallowed-tools:\n  - Read\n  - Grep\ndescription: >\n  one\n  two\n---\nbody").unwrap();
        assert_eq!(doc.list("allowed-tools"), ["Read", "Grep"]);
        assert_eq!(doc.text("description").as_deref(), Some("one two"));
        assert_eq!(doc.body, "body");
        // Items at the key's own column, as YAML allows.
        let flush = parse("---\nallowed-tools:\n- read_file\n- grep\nname: y\n---\n").unwrap();
        assert_eq!(flush.list("allowed-tools"), ["read_file", "grep"]);
        assert_eq!(flush.text("name").as_deref(), Some("y"));
        let plain = parse("just a prompt\n").unwrap();
        assert!(plain.fields.is_empty());
        assert_eq!(plain.body, "just a prompt\n");
    }

    #[test]
    fn broken_front_matter_names_its_line() {
        assert_eq!(
            parse("---\ndescription: ok\nthis is not a field\n---\n"),
            Err(FrontMatterError::NotAField {
                line: 3,
                text: "this is not a field".into()
            })
        );
        assert_eq!(
            parse("---\ndescription: never closed\n"),
            Err(FrontMatterError::Unclosed { line: 1 })
        );
    }
}
