//! The `SKILL.md` format: YAML front matter between `---` lines, then the
//! skill's instructions as markdown.
//!
//! amber writes a small, fixed subset of YAML so that no YAML library is
//! needed and every value round-trips: each key on one line, strings in
//! double quotes with JSON-style escapes (a newline is `\n`, a quote `\"`),
//! `true`/`false`, and integers. Reading accepts a little more, for files
//! a person edits: plain and single-quoted scalars, `#` comments, blank
//! lines, CRLF line ends, and unknown keys (skipped with any indented lines
//! under them). A block scalar (`|`, `>`) or a nested value of a key amber
//! reads is refused with its line, rather than misread.

use std::fmt::Write as _;

use amber_core::text::utc_minute;

/// One skill as its `SKILL.md` holds it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Skill {
    /// The folder name: 1 to 64 of `a-z`, `0-9` and `-`, starting with a
    /// letter or digit.
    pub name: String,
    /// What the skill is for, in one sentence or two.
    pub description: String,
    /// The phrase that should bring the skill to mind. Compression always
    /// writes one; a skill a person wrote may have none.
    pub trigger: Option<String>,
    /// Learned and not yet accepted by a person. A file without the key
    /// is not a candidate: a person wrote or adopted it.
    pub candidate: bool,
    /// No longer to be used.
    pub deprecated: bool,
    pub deprecated_reason: Option<String>,
    /// The session and model of the compression cycle that last changed
    /// the skill, when known.
    pub session: Option<String>,
    pub model: Option<String>,
    /// When the skill was last changed, in Unix seconds.
    pub updated: Option<i64>,
    /// The instructions, markdown, without leading blank lines or trailing
    /// whitespace.
    pub body: String,
}

/// The line that opens and closes the front matter.
const FENCE: &str = "---";

impl Skill {
    /// The file's text. The body is tidied as [`tidy_body`] does, so
    /// [`Skill::parse`] gives back what was rendered.
    pub fn render(&self) -> String {
        let mut out = String::with_capacity(self.body.len() + 256);
        out.push_str(FENCE);
        out.push('\n');
        let mut line = |key: &str, value: String| {
            let _ = writeln!(out, "{key}: {value}");
        };
        line("name", quote(&self.name));
        line("description", quote(&self.description));
        if let Some(trigger) = &self.trigger {
            line("trigger", quote(trigger));
        }
        line("candidate", self.candidate.to_string());
        if self.deprecated {
            line("deprecated", "true".to_string());
        }
        if let Some(reason) = &self.deprecated_reason {
            line("deprecated_reason", quote(reason));
        }
        if let Some(session) = &self.session {
            line("session", quote(session));
        }
        if let Some(model) = &self.model {
            line("model", quote(model));
        }
        if let Some(at) = self.updated {
            // The comment is for a person; reading takes the number.
            line("updated", format!("{at}  # {}", utc_minute(at)));
        }
        out.push_str(FENCE);
        out.push_str("\n\n");
        out.push_str(tidy_body(&self.body));
        out.push('\n');
        out
    }

    /// Reads a `SKILL.md`. An error is the 1-based line it concerns and
    /// what is wrong there.
    pub fn parse(text: &str) -> Result<Skill, (usize, String)> {
        let text = text.strip_prefix('\u{feff}').unwrap_or(text);
        let mut lines = text.split('\n').map(|l| l.strip_suffix('\r').unwrap_or(l));
        if lines.next().map(str::trim_end) != Some(FENCE) {
            return Err((1, "a SKILL.md starts with a `---` line".to_string()));
        }
        let mut fields = Fields::default();
        let mut number = 1;
        let mut skipping_unknown = false;
        let mut closed = false;
        for line in lines.by_ref() {
            number += 1;
            if line.trim_end() == FENCE {
                closed = true;
                break;
            }
            let trimmed = line.trim();
            if trimmed.is_empty() || trimmed.starts_with('#') {
                continue;
            }
            if line.starts_with([' ', '\t']) {
                if skipping_unknown {
                    continue;
                }
                return Err((number, "nested values are not supported here".into()));
            }
            let Some((key, value)) = line.split_once(':') else {
                return Err((number, "expected `key: value`".into()));
            };
            skipping_unknown = !fields.read(key.trim(), value).map_err(|e| (number, e))?;
        }
        if !closed {
            return Err((
                1,
                "the front matter opened here has no closing `---` line".into(),
            ));
        }
        let body: Vec<&str> = lines.collect();
        let body = tidy_body(&body.join("\n")).to_string();
        fields.into_skill(body).map_err(|e| (1, e))
    }
}

/// `body` without leading blank lines or trailing whitespace. The first
/// line keeps its indentation, which means something in markdown.
pub fn tidy_body(body: &str) -> &str {
    let body = body.trim_end();
    let first = body.len() - body.trim_start().len();
    let line_start = body[..first].rfind('\n').map_or(0, |n| n + 1);
    &body[line_start..]
}

/// The front matter's values as they are read.
#[derive(Default)]
struct Fields {
    name: Option<String>,
    description: Option<String>,
    trigger: Option<String>,
    candidate: Option<bool>,
    deprecated: Option<bool>,
    deprecated_reason: Option<String>,
    session: Option<String>,
    model: Option<String>,
    updated: Option<i64>,
}

impl Fields {
    /// Reads one `key: value`. False for a key amber does not know, which
    /// is skipped with the indented lines under it.
    fn read(&mut self, key: &str, raw: &str) -> Result<bool, String> {
        fn set<T>(slot: &mut Option<T>, key: &str, value: T) -> Result<bool, String> {
            if slot.replace(value).is_some() {
                return Err(format!("`{key}` is given twice"));
            }
            Ok(true)
        }
        match key {
            "name" => set(&mut self.name, key, string(raw)?),
            "description" => set(&mut self.description, key, string(raw)?),
            "trigger" => set(&mut self.trigger, key, string(raw)?),
            "deprecated_reason" => set(&mut self.deprecated_reason, key, string(raw)?),
            "session" => set(&mut self.session, key, string(raw)?),
            "model" => set(&mut self.model, key, string(raw)?),
            "candidate" => set(&mut self.candidate, key, boolean(key, raw)?),
            "deprecated" => set(&mut self.deprecated, key, boolean(key, raw)?),
            "updated" => {
                let value = plain(raw)?;
                let at = value
                    .parse()
                    .map_err(|_| format!("`updated` is Unix seconds, not `{value}`"))?;
                set(&mut self.updated, key, at)
            }
            _ => Ok(false),
        }
    }

    fn into_skill(self, body: String) -> Result<Skill, String> {
        let name = self.name.ok_or("the front matter has no `name`")?;
        let description = self
            .description
            .ok_or("the front matter has no `description`")?;
        Ok(Skill {
            name,
            description,
            trigger: self.trigger,
            candidate: self.candidate.unwrap_or(false),
            deprecated: self.deprecated.unwrap_or(false),
            deprecated_reason: self.deprecated_reason,
            session: self.session,
            model: self.model,
            updated: self.updated,
            body,
        })
    }
}

/// `s` as a YAML double-quoted scalar. Only JSON's escapes are used, which
/// YAML shares; a control character, a Unicode line separator or a byte
/// order mark is escaped too, since YAML does not allow them raw.
pub fn quote(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if c.is_control()
                || matches!(
                    c,
                    '\u{2028}' | '\u{2029}' | '\u{feff}' | '\u{fffe}' | '\u{ffff}'
                ) =>
            {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// A string value: double-quoted, single-quoted or plain.
fn string(raw: &str) -> Result<String, String> {
    let value = raw.trim_start();
    let (text, rest) = match value.chars().next() {
        Some('"') => double_quoted(&value[1..])?,
        Some('\'') => single_quoted(&value[1..])?,
        _ => return plain(raw).map(str::to_string),
    };
    let rest = rest.trim();
    if !(rest.is_empty() || rest.starts_with('#')) {
        return Err(format!("unexpected `{rest}` after the quoted value"));
    }
    Ok(text)
}

/// A plain scalar: the rest of the line, without a trailing ` # comment`.
fn plain(raw: &str) -> Result<&str, String> {
    let value = match raw.find(" #") {
        Some(at) => &raw[..at],
        None => raw,
    }
    .trim();
    match value.chars().next() {
        None => Err("the value is empty".into()),
        Some('|' | '>') => Err(
            "block scalars are not supported; write the value on one line in double quotes".into(),
        ),
        Some('[' | '{' | '&' | '*' | '!') => Err(format!(
            "`{value}` is not a plain value; put it in double quotes"
        )),
        Some(_) => Ok(value),
    }
}

fn boolean(key: &str, raw: &str) -> Result<bool, String> {
    match plain(raw)? {
        "true" => Ok(true),
        "false" => Ok(false),
        other => Err(format!("`{key}` is `true` or `false`, not `{other}`")),
    }
}

/// The text of a double-quoted scalar whose opening quote is already
/// taken, and what follows its closing quote. Reads JSON's escapes and
/// YAML's others (`\0`, `\a`, `\e`, `\v`, `\N`, `\_`, `\L`, `\P`, `\xXX`,
/// `\UXXXXXXXX`, `\ `).
fn double_quoted(s: &str) -> Result<(String, &str), String> {
    let mut out = String::with_capacity(s.len());
    let mut chars = s.char_indices();
    while let Some((at, c)) = chars.next() {
        match c {
            '"' => return Ok((out, &s[at + 1..])),
            '\\' => {
                let (_, escape) = chars.next().ok_or("the value ends inside an escape")?;
                let decoded = match escape {
                    '"' | '\\' | '/' | ' ' => escape,
                    'n' => '\n',
                    'r' => '\r',
                    't' | '\t' => '\t',
                    'b' => '\u{8}',
                    'f' => '\u{c}',
                    '0' => '\0',
                    'a' => '\u{7}',
                    'e' => '\u{1b}',
                    'v' => '\u{b}',
                    'N' => '\u{85}',
                    '_' => '\u{a0}',
                    'L' => '\u{2028}',
                    'P' => '\u{2029}',
                    'x' => hex_char(&mut chars, 2)?,
                    'u' => utf16_char(&mut chars)?,
                    'U' => hex_char(&mut chars, 8)?,
                    other => return Err(format!("unknown escape `\\{other}`")),
                };
                out.push(decoded);
            }
            c => out.push(c),
        }
    }
    Err("the double-quoted value has no closing `\"` on its line".into())
}

fn hex(chars: &mut std::str::CharIndices<'_>, digits: usize) -> Result<u32, String> {
    let text: String = chars.by_ref().take(digits).map(|(_, c)| c).collect();
    if text.len() != digits {
        return Err(format!("an escape needs {digits} hex digits"));
    }
    u32::from_str_radix(&text, 16).map_err(|_| format!("`{text}` is not hex"))
}

fn hex_char(chars: &mut std::str::CharIndices<'_>, digits: usize) -> Result<char, String> {
    let code = hex(chars, digits)?;
    char::from_u32(code).ok_or_else(|| format!("U+{code:X} is not a character"))
}

/// `\uXXXX`, joining a JSON-style surrogate pair (`\ud83d\ude00`).
fn utf16_char(chars: &mut std::str::CharIndices<'_>) -> Result<char, String> {
    let high = hex(chars, 4)?;
    if !(0xd800..0xdc00).contains(&high) {
        return char::from_u32(high).ok_or_else(|| format!("U+{high:X} is not a character"));
    }
    let rest = chars.as_str();
    if !rest.starts_with("\\u") {
        return Err(format!("a lone surrogate U+{high:X}"));
    }
    chars.nth(1);
    let low = hex(chars, 4)?;
    if !(0xdc00..0xe000).contains(&low) {
        return Err(format!("U+{high:X} is not followed by a low surrogate"));
    }
    let code = 0x10000 + ((high - 0xd800) << 10) + (low - 0xdc00);
    char::from_u32(code).ok_or_else(|| format!("U+{code:X} is not a character"))
}

/// The text of a single-quoted scalar whose opening quote is already
/// taken (`''` is one quote), and what follows its closing quote.
fn single_quoted(s: &str) -> Result<(String, &str), String> {
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    loop {
        let Some(at) = rest.find('\'') else {
            return Err("the single-quoted value has no closing `'` on its line".into());
        };
        out.push_str(&rest[..at]);
        rest = &rest[at + 1..];
        match rest.strip_prefix('\'') {
            Some(after) => {
                out.push('\'');
                rest = after;
            }
            None => return Ok((out, rest)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn skill() -> Skill {
        Skill {
            name: "cut-a-release".into(),
            description: "How to cut a release: bump, tag, \"publish\"\nthen announce".into(),
            trigger: Some("cutting a release # or a patch".into()),
            candidate: true,
            deprecated: false,
            deprecated_reason: None,
            session: Some("s-1".into()),
            model: Some("m: 1".into()),
            updated: Some(1_796_083_200),
            body: "1. Bump the version.\n\n---\n\n2. Tag it.".into(),
        }
    }

    #[test]
    fn a_rendered_skill_parses_back_to_itself() {
        let skill = skill();
        assert_eq!(Skill::parse(&skill.render()), Ok(skill.clone()));
        let odd = Skill {
            description: "ctl \u{1} del \u{7f} ls \u{2028} bom \u{feff} emoji 😀 \\ tab\t".into(),
            deprecated: true,
            deprecated_reason: Some("wrong: see #12".into()),
            trigger: None,
            session: None,
            model: None,
            updated: None,
            ..skill
        };
        assert_eq!(Skill::parse(&odd.render()), Ok(odd));
    }

    #[test]
    fn the_rendered_front_matter_is_one_line_per_key() {
        let text = skill().render();
        assert!(text.starts_with(
            "---\nname: \"cut-a-release\"\n\
             description: \"How to cut a release: bump, tag, \\\"publish\\\"\\nthen announce\"\n\
             trigger: \"cutting a release # or a patch\"\ncandidate: true\n"
        ));
        assert!(text.contains("updated: 1796083200  # 2026-12-01 00:00Z\n---\n\n1. Bump"));
    }

    #[test]
    fn a_hand_written_file_reads_with_plain_values_comments_and_unknown_keys() {
        let text = "\u{feff}---\r\n# a person wrote this\r\nname: tidy-imports\r\n\
                    description: 'Sort imports, don''t merge them'  # why\r\n\
                    allowed-tools:\r\n  - Bash\r\n  - Read\r\n\
                    metadata: {a: 1}\r\n---\r\n\r\n\r\n    indented first line\r\nmore\r\n\r\n";
        let skill = Skill::parse(text).unwrap();
        assert_eq!(skill.name, "tidy-imports");
        assert_eq!(skill.description, "Sort imports, don't merge them");
        assert!(!skill.candidate && !skill.deprecated && skill.trigger.is_none());
        assert_eq!(skill.body, "    indented first line\nmore");
        let escapes =
            "---\nname: \"a\\x41\\u00e9\\ud83d\\ude00\\U0001F600\\/\"\ndescription: d\n---\n";
        assert_eq!(Skill::parse(escapes).unwrap().name, "aAé😀😀/");
    }

    #[test]
    fn what_amber_cannot_read_is_refused_with_its_line() {
        let cases = [
            ("name: x\n", 1, "starts with"),
            ("---\nname: x\ndescription: d\n", 1, "closing"),
            (
                "---\nname: x\ndescription: |\n  two\n  lines\n---\n",
                3,
                "block scalars",
            ),
            ("---\nname: x\n  nested: y\n---\n", 3, "nested"),
            ("---\nname: \"x\ndescription: d\n---\n", 2, "closing `\"`"),
            ("---\nname: x\nname: y\n---\n", 3, "twice"),
            (
                "---\nname: x\ncandidate: yes\n---\n",
                3,
                "`true` or `false`",
            ),
            ("---\nname: \"x\" y\n---\n", 2, "after the quoted"),
            ("---\nname: \"\\q\"\n---\n", 2, "unknown escape"),
            ("---\nname: \"\\ud800\"\n---\n", 2, "lone surrogate"),
            ("---\njust words\n---\n", 2, "key: value"),
            ("---\nname: x\n---\nbody\n", 1, "no `description`"),
        ];
        for (text, line, says) in cases {
            let (at, reason) = Skill::parse(text).unwrap_err();
            assert_eq!(at, line, "{text:?}: {reason}");
            assert!(reason.contains(says), "{text:?}: {reason}");
        }
    }
}
