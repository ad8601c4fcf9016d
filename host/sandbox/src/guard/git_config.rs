//! A repository's `config`, read as git reads it and written back with
//! only the keys a safe workflow sets.
//!
//! A command that may write a `.git` can turn git into a launcher: a
//! `core.fsmonitor`, `core.hooksPath`, `core.sshCommand`, pager, editor,
//! `filter.*`, `diff.*` or `alias.*` runs whatever it names the next time
//! the user runs git there, outside any sandbox. So after a command, a
//! repository's config keeps only what `git init` writes and what
//! `git config user.*`, `git remote add` and `git branch` write (the
//! allowlist below), plus whatever it held before the command. The file
//! is rewritten from what was parsed, never patched line by line, so no
//! trick of the syntax survives the rewrite.

/// One `section[.subsection].name = value` of a config file. Section and
/// name are lower-cased, as git compares them; the subsection keeps its
/// case. A bare `name` (git's "true") has no value.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Entry {
    pub section: String,
    pub subsection: Option<String>,
    pub name: String,
    pub value: Option<String>,
}

impl Entry {
    /// `section.subsection.name`, as `git config` names it.
    pub fn key(&self) -> String {
        match &self.subsection {
            Some(sub) => format!("{}.{sub}.{}", self.section, self.name),
            None => format!("{}.{}", self.section, self.name),
        }
    }

    /// A key that `git init`, `git config user.*`, `git remote add` or
    /// branch tracking writes, and that runs nothing.
    pub fn is_safe(&self) -> bool {
        let sub = self.subsection.is_some();
        match self.section.as_str() {
            "user" => true,
            "remote" => sub && matches!(self.name.as_str(), "url" | "fetch"),
            "branch" => sub,
            "init" => self.name == "defaultbranch",
            "core" => matches!(
                self.name.as_str(),
                "bare"
                    | "filemode"
                    | "logallrefupdates"
                    | "repositoryformatversion"
                    | "ignorecase"
                    // What `git init` writes where the filesystem needs it.
                    | "symlinks"
                    | "precomposeunicode"
            ),
            // A SHA-256 or reftable repository cannot be read without them.
            "extensions" => matches!(self.name.as_str(), "objectformat" | "refstorage"),
            _ => false,
        }
    }
}

/// Why a config could not be read; the caller then writes the safe
/// entries it knows instead (git itself refuses such a file).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("line {line}: {reason}")]
pub struct ParseError {
    pub line: usize,
    pub reason: &'static str,
}

/// Every entry of `text`, in order.
pub fn parse(text: &str) -> Result<Vec<Entry>, ParseError> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut parser = Parser {
        chars: text.chars().collect(),
        at: 0,
        line: 1,
    };
    parser.entries()
}

struct Parser {
    chars: Vec<char>,
    at: usize,
    line: usize,
}

impl Parser {
    fn peek(&self) -> Option<char> {
        self.chars.get(self.at).copied()
    }

    fn bump(&mut self) -> Option<char> {
        let c = self.peek()?;
        self.at += 1;
        if c == '\n' {
            self.line += 1;
        }
        Some(c)
    }

    fn fail(&self, reason: &'static str) -> ParseError {
        ParseError {
            line: self.line,
            reason,
        }
    }

    fn skip_blanks(&mut self) {
        while matches!(self.peek(), Some(' ' | '\t' | '\r')) {
            self.bump();
        }
    }

    fn skip_line(&mut self) {
        while let Some(c) = self.bump() {
            if c == '\n' {
                break;
            }
        }
    }

    fn entries(&mut self) -> Result<Vec<Entry>, ParseError> {
        let mut entries = Vec::new();
        let mut section: Option<(String, Option<String>)> = None;
        loop {
            self.skip_blanks();
            match self.peek() {
                None => return Ok(entries),
                Some('\n') => {
                    self.bump();
                }
                Some('#' | ';') => self.skip_line(),
                Some('[') => {
                    self.bump();
                    section = Some(self.header()?);
                    // git takes a variable on the header's own line.
                }
                Some(c) if c.is_ascii_alphabetic() => {
                    let Some((name, sub)) = &section else {
                        return Err(self.fail("a variable before any section"));
                    };
                    let (key, value) = self.variable()?;
                    entries.push(Entry {
                        section: name.clone(),
                        subsection: sub.clone(),
                        name: key,
                        value,
                    });
                }
                Some(_) => return Err(self.fail("not a section, a variable or a comment")),
            }
        }
    }

    /// After `[`: `name]`, `name "sub"]` or the old `name.sub]`.
    fn header(&mut self) -> Result<(String, Option<String>), ParseError> {
        let mut name = String::new();
        while let Some(c) = self.peek() {
            if c.is_ascii_alphanumeric() || c == '-' || c == '.' {
                name.push(c.to_ascii_lowercase());
                self.bump();
            } else {
                break;
            }
        }
        if name.is_empty() {
            return Err(self.fail("an empty section name"));
        }
        match self.bump() {
            Some(']') => Ok(match name.split_once('.') {
                Some((section, sub)) => (section.to_string(), Some(sub.to_string())),
                None => (name, None),
            }),
            Some(' ' | '\t') if !name.contains('.') => {
                self.skip_blanks();
                if self.bump() != Some('"') {
                    return Err(self.fail("a subsection must be quoted"));
                }
                let mut sub = String::new();
                loop {
                    match self.bump() {
                        None | Some('\n') => return Err(self.fail("an unclosed subsection")),
                        Some('"') => break,
                        Some('\\') => match self.bump() {
                            None | Some('\n') => return Err(self.fail("an unclosed subsection")),
                            Some(c) => sub.push(c),
                        },
                        Some(c) => sub.push(c),
                    }
                }
                if self.bump() != Some(']') {
                    return Err(self.fail("a section header must end with `]`"));
                }
                Ok((name, Some(sub)))
            }
            _ => Err(self.fail("a bad section header")),
        }
    }

    /// `name`, `name = value`, up to the end of the (continued) line.
    fn variable(&mut self) -> Result<(String, Option<String>), ParseError> {
        let mut name = String::new();
        while let Some(c) = self.peek() {
            if c.is_ascii_alphanumeric() || c == '-' {
                name.push(c.to_ascii_lowercase());
                self.bump();
            } else {
                break;
            }
        }
        self.skip_blanks();
        match self.peek() {
            None | Some('\n') => {
                self.bump();
                return Ok((name, None));
            }
            Some('#' | ';') => {
                self.skip_line();
                return Ok((name, None));
            }
            Some('=') => {
                self.bump();
            }
            Some(_) => return Err(self.fail("a bad variable name")),
        }
        Ok((name, Some(self.value()?)))
    }

    /// A value as git reads it: blanks trimmed outside quotes, escapes,
    /// a backslash at the end of a line continuing it, a comment ending it.
    fn value(&mut self) -> Result<String, ParseError> {
        let mut value = String::new();
        // Blanks are kept only between words, and inside quotes.
        let mut pending_blanks = String::new();
        let mut quoted = false;
        self.skip_blanks();
        loop {
            let Some(c) = self.bump() else {
                if quoted {
                    return Err(self.fail("an unclosed quote"));
                }
                return Ok(value);
            };
            match c {
                '\n' if quoted => return Err(self.fail("an unclosed quote")),
                '\n' => return Ok(value),
                '#' | ';' if !quoted => {
                    self.skip_line();
                    return Ok(value);
                }
                // As git: blanks before anything else are dropped, blanks
                // between words kept, blanks at the end dropped.
                ' ' | '\t' | '\r' if !quoted => {
                    if !value.is_empty() {
                        pending_blanks.push(c)
                    }
                }
                '"' => {
                    value.push_str(&std::mem::take(&mut pending_blanks));
                    quoted = !quoted;
                }
                '\\' => {
                    value.push_str(&std::mem::take(&mut pending_blanks));
                    match self.bump() {
                        Some('\n') => {}
                        Some('\r') if self.peek() == Some('\n') => {
                            self.bump();
                        }
                        Some('n') => value.push('\n'),
                        Some('t') => value.push('\t'),
                        // git keeps a backspace character; it erases nothing.
                        Some('b') => value.push('\u{8}'),
                        Some(c @ ('\\' | '"')) => value.push(c),
                        _ => return Err(self.fail("a bad escape")),
                    }
                }
                c => {
                    value.push_str(&std::mem::take(&mut pending_blanks));
                    value.push(c);
                }
            }
        }
    }
}

/// `entries` as a config file: one header per run of entries of the same
/// section, every value quoted and escaped.
pub fn render(entries: &[Entry]) -> String {
    let mut out = String::new();
    let mut current: Option<(&str, Option<&str>)> = None;
    for entry in entries {
        let this = (entry.section.as_str(), entry.subsection.as_deref());
        if current != Some(this) {
            match this.1 {
                Some(sub) => out.push_str(&format!("[{} \"{}\"]\n", this.0, escape(sub))),
                None => out.push_str(&format!("[{}]\n", this.0)),
            }
            current = Some(this);
        }
        match &entry.value {
            Some(value) => out.push_str(&format!("\t{} = \"{}\"\n", entry.name, escape(value))),
            None => out.push_str(&format!("\t{}\n", entry.name)),
        }
    }
    out
}

fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '"' => out.push_str("\\\""),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\u{8}' => out.push_str("\\b"),
            c => out.push(c),
        }
    }
    out
}

/// What a config becomes: the entries kept and the keys dropped.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Sanitized {
    pub kept: Vec<Entry>,
    /// Keys dropped, in order, each once.
    pub dropped: Vec<String>,
}

/// Keeps the safe entries of `text` and those `before` held already (a
/// repository's own settings from before the command).
pub fn sanitize(text: &str, before: &[Entry]) -> Result<Sanitized, ParseError> {
    let entries = parse(text)?;
    let mut kept = Vec::new();
    let mut dropped: Vec<String> = Vec::new();
    for entry in entries {
        if entry.is_safe() || before.contains(&entry) {
            kept.push(entry);
        } else {
            let key = entry.key();
            if !dropped.contains(&key) {
                dropped.push(key);
            }
        }
    }
    Ok(Sanitized { kept, dropped })
}

#[cfg(test)]
mod tests {
    use super::*;

    const GIT_INIT: &str = "[core]\n\trepositoryformatversion = 0\n\tfilemode = true\n\tbare = false\n\tlogallrefupdates = true\n";

    #[test]
    fn what_git_init_writes_is_kept_whole() {
        let out = sanitize(GIT_INIT, &[]).unwrap();
        assert!(out.dropped.is_empty());
        assert_eq!(out.kept.len(), 4);
    }

    #[test]
    fn launchers_are_dropped_and_safe_workflow_keys_kept() {
        let text = r#"[core]
	repositoryformatversion = 0
	fsmonitor = "touch /tmp/pwned"
	hooksPath = /tmp/hooks
[user]
	name = Ada ; a comment
	email = ada@example.com
[remote "origin"]
	url = https://example.com/r.git
	fetch = +refs/heads/*:refs/remotes/origin/*
	uploadpack = sh -c evil
[branch "main"]
	remote = origin
	merge = refs/heads/main
[include]
	path = ../evil.cfg
[includeIf "gitdir:/"]
	path = ../evil.cfg
[alias]
	st = !sh -c evil
[filter "lfs"]
	smudge = evil
[core] pager = less
"#;
        let out = sanitize(text, &[]).unwrap();
        assert_eq!(
            out.dropped,
            [
                "core.fsmonitor",
                "core.hookspath",
                "remote.origin.uploadpack",
                "include.path",
                "includeif.gitdir:/.path",
                "alias.st",
                "filter.lfs.smudge",
                "core.pager"
            ]
        );
        let keys: Vec<String> = out.kept.iter().map(Entry::key).collect();
        assert_eq!(
            keys,
            [
                "core.repositoryformatversion",
                "user.name",
                "user.email",
                "remote.origin.url",
                "remote.origin.fetch",
                "branch.main.remote",
                "branch.main.merge"
            ]
        );
        assert_eq!(out.kept[1].value.as_deref(), Some("Ada"));
    }

    #[test]
    fn a_setting_the_repository_had_before_stays() {
        let before = parse("[core]\n\tfsmonitor = watchman-hook\n").unwrap();
        let out = sanitize(
            "[core]\n\tfsmonitor = watchman-hook\n\tsshCommand = evil\n",
            &before,
        )
        .unwrap();
        assert_eq!(out.dropped, ["core.sshcommand"]);
        assert_eq!(out.kept, before);
    }

    #[test]
    fn values_with_quotes_escapes_and_continuations_read_as_git_reads_them() {
        let text =
            "[user]\n\tname = \"Ada \\\"A\\\" L\" ; c\n\temail = a\\\n@b  # c\n\tsigningkey\n";
        let entries = parse(text).unwrap();
        assert_eq!(entries[0].value.as_deref(), Some("Ada \"A\" L"));
        assert_eq!(entries[1].value.as_deref(), Some("a@b"));
        assert_eq!(entries[2].value, None);
        // `\b` is a character of the value, and blanks after an empty
        // quoted string are leading blanks.
        let entries = parse("[alias]\n\tx = \"rm;\\b\\bls\"\n\ty = \"\" a\n").unwrap();
        assert_eq!(entries[0].value.as_deref(), Some("rm;\u{8}\u{8}ls"));
        assert_eq!(entries[1].value.as_deref(), Some("a"));
    }

    #[test]
    fn a_rendered_config_parses_back_to_the_same_entries() {
        let entries = vec![
            Entry {
                section: "user".into(),
                subsection: None,
                name: "name".into(),
                value: Some("a \"b\" \\ c\nd\te ; # f\u{8}".into()),
            },
            Entry {
                section: "remote".into(),
                subsection: Some("o \"x\"".into()),
                name: "url".into(),
                value: Some("u".into()),
            },
            Entry {
                section: "user".into(),
                subsection: None,
                name: "useconfigonly".into(),
                value: None,
            },
        ];
        assert_eq!(parse(&render(&entries)).unwrap(), entries);
    }

    #[test]
    fn old_style_subsections_and_odd_files_are_read_or_refused() {
        let entries = parse("[remote.origin]\nurl = u\n").unwrap();
        assert_eq!(entries[0].key(), "remote.origin.url");
        assert!(parse("url = u\n").is_err());
        assert!(parse("[core\n").is_err());
        assert!(parse("[user]\nname = \"open\n").is_err());
    }
}
