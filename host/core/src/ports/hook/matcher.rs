//! Which tools a hook is for. A matcher is a regular expression over the
//! whole tool name, as in Claude Code (`Edit|Write`, `mcp__github__.*`);
//! empty or `*` matches every tool. It is tested against amber's name and
//! against Claude Code's name for the same tool, so a matcher written for
//! either works (names.rs holds the table).

use std::fmt;

use super::names;

/// A matcher that is not a regular expression.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("the matcher `{matcher}` is not a regular expression: {reason}")]
pub struct MatcherError {
    pub matcher: String,
    pub reason: String,
}

#[derive(Clone, Default)]
pub struct Matcher {
    /// `None`: every tool.
    pattern: Option<(String, regex::Regex)>,
}

impl Matcher {
    /// Every tool.
    pub fn any() -> Self {
        Matcher::default()
    }

    /// `text` as a matcher; an invalid expression is refused with the
    /// reason, naming it.
    pub fn parse(text: Option<&str>) -> Result<Self, MatcherError> {
        let text = text.map(str::trim).unwrap_or_default();
        if text.is_empty() || text == "*" {
            return Ok(Matcher::any());
        }
        let anchored = format!("^(?:{text})$");
        let regex = regex::Regex::new(&anchored).map_err(|e| MatcherError {
            matcher: text.to_string(),
            reason: e.to_string(),
        })?;
        Ok(Matcher {
            pattern: Some((text.to_string(), regex)),
        })
    }

    /// Whether a hook with this matcher sees a call of `tool`.
    pub fn matches(&self, tool: &str) -> bool {
        let Some((_, regex)) = &self.pattern else {
            return true;
        };
        regex.is_match(tool) || regex.is_match(&names::claude_tool(tool))
    }

    /// The expression as written; `None` for every tool.
    pub fn as_str(&self) -> Option<&str> {
        self.pattern.as_ref().map(|(text, _)| text.as_str())
    }
}

impl fmt::Debug for Matcher {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str().unwrap_or("*"))
    }
}

impl PartialEq for Matcher {
    fn eq(&self, other: &Self) -> bool {
        self.as_str() == other.as_str()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn empty_and_star_match_everything() {
        for m in [None, Some(""), Some("*")] {
            assert!(Matcher::parse(m).unwrap().matches("shell"));
        }
    }

    #[test]
    fn the_whole_name_must_match_in_either_naming() {
        let m = Matcher::parse(Some("Edit|Write")).unwrap();
        assert!(m.matches("edit_file"));
        assert!(m.matches("write_file"));
        assert!(!m.matches("read_file"));
        let m = Matcher::parse(Some("shell")).unwrap();
        assert!(m.matches("shell"));
        assert!(!m.matches("shell2"));
        let m = Matcher::parse(Some("mcp__github__.*")).unwrap();
        assert!(m.matches("github__create_issue"));
    }

    #[test]
    fn a_bad_expression_is_refused_naming_it() {
        let err = Matcher::parse(Some("(")).unwrap_err().to_string();
        assert!(err.contains("`(`"), "{err}");
    }
}
