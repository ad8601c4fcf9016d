//! Scenario files: found under the paths given (a folder is searched for
//! `*.toml`, in name order), parsed, and given their suite. A file that
//! does not parse is set aside with its path, line and key, and the
//! others still run.

use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::fake_llm::Transcript;

/// The largest scenario file read; its transcripts may be inline.
const SCENARIO_MAX: u64 = 64 << 20;

/// A scenario ready to run.
#[derive(Debug, Clone)]
pub struct Scenario {
    pub path: PathBuf,
    /// `name`, else the file's stem.
    pub name: String,
    /// `suite`, else the name of the file's folder.
    pub suite: String,
    pub transcript: Transcript,
}

impl Scenario {
    /// With scripted replies it runs against the fake server; without,
    /// against a real model.
    pub fn scripted(&self) -> bool {
        !self.transcript.turns.is_empty()
    }
}

/// A scenario file that could not be used, and where it went wrong.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Invalid {
    pub path: PathBuf,
    /// 1-based; None when the file could not be read at all.
    pub line: Option<usize>,
    /// The key at fault, when the parser points at one.
    pub key: Option<String>,
    pub message: String,
}

impl std::fmt::Display for Invalid {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.path.display())?;
        if let Some(line) = self.line {
            write!(f, ":{line}")?;
        }
        if let Some(key) = &self.key {
            write!(f, ": key `{key}`")?;
        }
        write!(f, ": {}", self.message)
    }
}

/// What was found under the paths given.
#[derive(Debug, Default)]
pub struct Loaded {
    pub scenarios: Vec<Scenario>,
    pub invalid: Vec<Invalid>,
}

/// Every scenario under `paths`: files as given, folders searched for
/// `*.toml` (recursively, in name order).
pub fn load(paths: &[PathBuf]) -> Loaded {
    let mut loaded = Loaded::default();
    for path in paths {
        let mut files = Vec::new();
        if path.is_dir() {
            collect_toml(path, &mut files);
        } else {
            files.push(path.clone());
        }
        for file in files {
            match load_one(&file) {
                Ok(scenario) => loaded.scenarios.push(scenario),
                Err(invalid) => loaded.invalid.push(invalid),
            }
        }
    }
    loaded
}

fn collect_toml(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut paths: Vec<PathBuf> = entries.flatten().map(|e| e.path()).collect();
    paths.sort();
    for path in paths {
        if path.is_dir() {
            collect_toml(&path, out);
        } else if path.extension().is_some_and(|e| e == "toml") {
            out.push(path);
        }
    }
}

/// One scenario file.
pub fn load_one(path: &Path) -> Result<Scenario, Invalid> {
    // A scenario may come with a repository: a FIFO or a link to
    // /dev/zero is refused in a line, not waited on or read without end.
    let cannot = |message: String| Invalid {
        path: path.to_path_buf(),
        line: None,
        key: None,
        message,
    };
    let text = amber_core::bounded::read_text(path, SCENARIO_MAX)
        .map_err(|e| cannot(format!("cannot read it: {e}")))?
        .ok_or_else(|| cannot("cannot read it: no such file or directory".into()))?;
    let transcript = parse(&text).map_err(|(line, key, message)| Invalid {
        path: path.to_path_buf(),
        line,
        key,
        message,
    })?;
    let transcript = transcript.resolved_beside(path);
    let stem = path
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let folder = path
        .parent()
        .and_then(Path::file_name)
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| "scenarios".into());
    let name = Some(transcript.name.clone())
        .filter(|n| !n.is_empty())
        .unwrap_or(stem);
    let suite = transcript.suite.clone().unwrap_or(folder);
    if transcript.prompt.trim().is_empty() {
        return Err(Invalid {
            path: path.to_path_buf(),
            line: None,
            key: Some("prompt".into()),
            message: "a scenario needs a prompt".into(),
        });
    }
    Ok(Scenario {
        path: path.to_path_buf(),
        name,
        suite,
        transcript,
    })
}

/// The transcript, or the line, key and message of what is wrong.
fn parse(text: &str) -> Result<Transcript, (Option<usize>, Option<String>, String)> {
    toml::from_str::<Transcript>(text).map_err(|e| {
        let message = e.message().trim().to_string();
        let Some(span) = e.span() else {
            return (None, None, message);
        };
        let start = span.start.min(text.len());
        let line = text[..start].matches('\n').count() + 1;
        let key = key_named(&message).or_else(|| key_on_line(text, line));
        (Some(line), key, message)
    })
}

/// The field an "unknown field `x`" or "missing field `x`" names.
fn key_named(message: &str) -> Option<String> {
    let rest = message
        .strip_prefix("unknown field `")
        .or_else(|| message.strip_prefix("missing field `"))?;
    Some(rest.split('`').next()?.to_string())
}

/// The key written on `line` (`key = value`), or the table it opens.
fn key_on_line(text: &str, line: usize) -> Option<String> {
    let written = text.lines().nth(line.checked_sub(1)?)?.trim();
    if let Some((key, _)) = written.split_once('=') {
        return Some(key.trim().trim_matches('"').to_string()).filter(|k| !k.is_empty());
    }
    let table = written.trim_start_matches('[').trim_end_matches(']');
    Some(table.trim().to_string()).filter(|t| !t.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn invalid(text: &str) -> Invalid {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("bad.toml");
        std::fs::write(&path, text).unwrap();
        load_one(&path).unwrap_err()
    }

    #[test]
    fn a_bad_file_is_named_with_its_line_and_key() {
        let bad = invalid("prompt = \"p\"\n\n[budget]\nmax_steps = \"three\"\n");
        assert_eq!(bad.line, Some(4), "{bad}");
        assert_eq!(bad.key.as_deref(), Some("max_steps"), "{bad}");
        assert!(bad.message.contains("invalid type"), "{bad}");
        assert!(
            bad.to_string().contains("bad.toml:4: key `max_steps`"),
            "{bad}"
        );

        let unknown = invalid("prompt = \"p\"\npromt = \"q\"\n");
        assert_eq!(unknown.line, Some(2), "{unknown}");
        assert_eq!(unknown.key.as_deref(), Some("promt"), "{unknown}");

        let syntax = invalid("prompt = \"p\n");
        assert_eq!(syntax.line, Some(1), "{syntax}");

        let empty = invalid("name = \"n\"\n");
        assert_eq!(empty.key.as_deref(), Some("prompt"), "{empty}");
    }

    #[test]
    fn folders_are_searched_in_order_and_the_bad_file_does_not_stop_the_rest() {
        let dir = tempfile::tempdir().unwrap();
        let suite = dir.path().join("fixes");
        std::fs::create_dir_all(&suite).unwrap();
        std::fs::write(suite.join("b.toml"), "prompt = \"b\"\n").unwrap();
        std::fs::write(suite.join("a.toml"), "prompt = \"a\"\nsuite = \"own\"\n").unwrap();
        std::fs::write(suite.join("c.toml"), "prompt = [\n").unwrap();
        std::fs::write(suite.join("notes.md"), "not a scenario").unwrap();
        let loaded = load(&[dir.path().to_path_buf()]);
        let names: Vec<_> = loaded
            .scenarios
            .iter()
            .map(|s| (s.name.as_str(), s.suite.as_str(), s.scripted()))
            .collect();
        assert_eq!(names, [("a", "own", false), ("b", "fixes", false)]);
        assert_eq!(loaded.invalid.len(), 1);
        assert!(loaded.invalid[0].path.ends_with("c.toml"));
    }
}
