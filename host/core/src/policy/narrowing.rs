//! A skill's narrowing of the callable tools, a file of its own below the
//! policy so a call's scope can name it.

/// What a skill's `allowed-tools` leaves callable: it narrows what the
/// mode allows and never widens it; a second skill narrows further.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Narrowing {
    /// The skills (or custom agent) that narrowed, in order.
    pub by: Vec<String>,
    pub tools: Vec<String>,
    /// The shell commands allowed, as Claude Code writes them inside
    /// `Bash(…)`: `git diff:*` (the command and any arguments) or an exact
    /// line. `None`: any command the mode allows.
    pub commands: Option<Vec<String>>,
}

impl Narrowing {
    pub fn allows(&self, tool: &str) -> bool {
        self.tools.iter().any(|t| t == tool)
    }

    /// Whether `line` is a command the list names. Under a list only a
    /// simple line matches: one that chains, pipes, substitutes or
    /// redirects could run anything after the part that matched.
    pub fn allows_command(&self, line: &str) -> bool {
        let Some(patterns) = &self.commands else {
            return true;
        };
        let line = line.trim();
        const SHELL_SYNTAX: &[char] = &[';', '&', '|', '`', '$', '<', '>', '\n', '(', ')'];
        if line.contains(SHELL_SYNTAX) {
            return false;
        }
        let words: Vec<&str> = line.split_whitespace().collect();
        patterns.iter().any(|pattern| {
            let (wanted, any_args) = match pattern.trim().strip_suffix(":*") {
                Some(prefix) => (prefix, true),
                None => (pattern.trim(), false),
            };
            let wanted: Vec<&str> = wanted.split_whitespace().collect();
            if any_args {
                words.starts_with(&wanted)
            } else {
                words == wanted
            }
        })
    }

    /// This narrowing narrowed again by `by`: the tools both allow, and
    /// the commands both lists name (a list against none is that list).
    pub fn within(mut self, by: &str, tools: &[String], commands: Option<&[String]>) -> Narrowing {
        self.tools.retain(|t| tools.contains(t));
        self.by.push(by.to_string());
        self.commands = match (self.commands.take(), commands) {
            (Some(mut now), Some(more)) => {
                now.retain(|c| more.contains(c));
                Some(now)
            }
            (now, more) => now.or_else(|| more.map(<[String]>::to_vec)),
        };
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn list(patterns: &[&str]) -> Narrowing {
        Narrowing {
            by: vec!["reviewer".into()],
            tools: vec!["shell".into()],
            commands: Some(patterns.iter().map(|p| p.to_string()).collect()),
        }
    }

    #[test]
    fn a_command_list_matches_whole_words_and_refuses_chained_lines() {
        let narrowing = list(&["git diff:*", "cargo test"]);
        assert!(narrowing.allows_command("git diff"));
        assert!(narrowing.allows_command("git  diff --stat src/"));
        assert!(narrowing.allows_command("cargo test"));
        assert!(!narrowing.allows_command("cargo test --release"));
        assert!(!narrowing.allows_command("git difftool"));
        assert!(!narrowing.allows_command("git diff; rm -rf ~"));
        assert!(!narrowing.allows_command("git diff && curl x | sh"));
        assert!(!narrowing.allows_command("git diff $(rm -rf ~)"));
        assert!(!narrowing.allows_command("git diff > /etc/passwd"));
        let open = Narrowing {
            commands: None,
            ..list(&[])
        };
        assert!(open.allows_command("anything | goes"));
    }

    #[test]
    fn narrowing_again_keeps_what_both_allow() {
        let first = list(&["git diff:*", "git log:*"]);
        let tools = vec!["shell".to_string(), "read_file".to_string()];
        let again = first
            .clone()
            .within("b", &tools, Some(&["git log:*".to_string()]));
        assert_eq!(again.commands, Some(vec!["git log:*".to_string()]));
        assert_eq!(again.tools, ["shell"]);
        let unlisted = first.within("c", &tools, None);
        assert_eq!(unlisted.commands.unwrap().len(), 2);
    }
}
