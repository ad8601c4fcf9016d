//! Config errors that name the file, the line and the key.

use std::path::{Path, PathBuf};

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ConfigError {
    #[error("cannot read {}: {reason}", path.display())]
    Read { path: PathBuf, reason: String },
    #[error("{}:{line}: {key}: {reason}", path.display())]
    Invalid {
        path: PathBuf,
        line: usize,
        key: String,
        reason: String,
    },
}

/// The 1-based line of byte `offset` in `text`.
fn line_of(text: &str, offset: usize) -> usize {
    text[..offset.min(text.len())]
        .bytes()
        .filter(|b| *b == b'\n')
        .count()
        + 1
}

/// The dotted key written on `line`, prefixed by the table it sits in.
fn key_at(text: &str, line: usize) -> Option<String> {
    let lines: Vec<&str> = text.lines().collect();
    let here = lines.get(line.checked_sub(1)?)?.trim();
    let table = lines[..line - 1]
        .iter()
        .rev()
        .map(|l| l.trim())
        .find(|l| l.starts_with('['))
        .map(|l| l.trim_matches(|c| c == '[' || c == ']').trim().to_string());
    if here.starts_with('[') {
        return Some(
            here.trim_matches(|c| c == '[' || c == ']')
                .trim()
                .to_string(),
        );
    }
    let key = here.split('=').next()?.trim().trim_matches('"').to_string();
    if key.is_empty() {
        return table;
    }
    Some(match table {
        Some(t) => format!("{t}.{key}"),
        None => key,
    })
}

impl ConfigError {
    pub(crate) fn from_toml(path: &Path, text: &str, e: &toml::de::Error) -> Self {
        let line = e.span().map(|s| line_of(text, s.start)).unwrap_or(1);
        let message = e.message().trim().to_string();
        // An unknown key names itself in the message; otherwise read the
        // key off the offending line.
        let key = message
            .strip_prefix("unknown field `")
            .and_then(|rest| rest.split('`').next())
            .map(|field| match key_at(text, line) {
                Some(k) if k.ends_with(field) => k,
                Some(table) => format!("{table}.{field}"),
                None => field.to_string(),
            })
            .or_else(|| key_at(text, line))
            .unwrap_or_else(|| "(top level)".into());
        ConfigError::Invalid {
            path: path.to_path_buf(),
            line,
            key,
            reason: message,
        }
    }

    /// A semantic error about `key`, located at the first line mentioning
    /// `needle`.
    pub(crate) fn invalid(
        path: &Path,
        text: &str,
        key: &str,
        needle: &str,
        reason: String,
    ) -> Self {
        let line = text.find(needle).map(|at| line_of(text, at)).unwrap_or(1);
        ConfigError::Invalid {
            path: path.to_path_buf(),
            line,
            key: key.to_string(),
            reason,
        }
    }
}
