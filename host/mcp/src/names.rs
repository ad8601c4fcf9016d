//! The names amber gives a server's tools: `<server>__<tool>`, in the
//! characters every provider accepts (`[A-Za-z0-9_-]`), at most 64 long,
//! and unique in the session. Claude Code's `mcp__S__T` is amber's `S__T`
//! (amber-core's hooks::names maps the two).

use std::collections::BTreeMap;

/// The longest tool name the providers accept.
pub const MAX_NAME: usize = 64;

/// Between the server's name and the tool's.
pub const SEPARATOR: &str = "__";

/// A server name as written in config: 1–32 of `[A-Za-z0-9_-]`, without
/// the separator, so a tool name splits back into its server and tool.
pub fn check_server_name(name: &str) -> Result<(), String> {
    if name.is_empty() || name.len() > 32 {
        return Err(format!(
            "the MCP server name `{name}` must be 1 to 32 characters"
        ));
    }
    if let Some(c) = name
        .chars()
        .find(|c| !(c.is_ascii_alphanumeric() || *c == '_' || *c == '-'))
    {
        return Err(format!(
            "the MCP server name `{name}` has `{c}`: use letters, digits, `_` and `-`"
        ));
    }
    if name.contains(SEPARATOR) {
        return Err(format!(
            "the MCP server name `{name}` has `{SEPARATOR}`, which separates a server from its tool"
        ));
    }
    Ok(())
}

/// amber's name for `tool` of `server`: other characters become `_`, and
/// a name over [`MAX_NAME`] keeps its start and ends in a hash of the
/// whole, so two long names stay apart.
pub fn tool_name(server: &str, tool: &str) -> String {
    let safe: String = tool
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect();
    let full = format!("{server}{SEPARATOR}{safe}");
    if full.len() <= MAX_NAME {
        return full;
    }
    let hash = blake3::hash(format!("{server}\0{tool}").as_bytes()).to_hex();
    let suffix = format!("_{}", &hash[..8]);
    // Only ASCII is left, so any byte is a character boundary.
    format!("{}{suffix}", &full[..MAX_NAME - suffix.len()])
}

/// The tool names given out in a session, so a clash is refused rather
/// than one tool hiding another.
#[derive(Debug, Default)]
pub struct NameTable {
    /// amber's name → (server, the server's own tool name).
    given: BTreeMap<String, (String, String)>,
}

impl NameTable {
    /// amber's name for `tool` of `server`, or why it cannot have one:
    /// another server's tool (or another tool of the same server, after
    /// sanitising) already has it. The first to claim a name keeps it.
    pub fn claim(&mut self, server: &str, tool: &str) -> Result<String, String> {
        let name = tool_name(server, tool);
        match self.given.get(&name) {
            Some((s, t)) if s == server && t == tool => Ok(name),
            Some((s, t)) => Err(format!(
                "the tool `{tool}` of MCP server `{server}` is refused: its name `{name}` is taken by the tool `{t}` of `{s}`"
            )),
            None => {
                self.given
                    .insert(name.clone(), (server.to_string(), tool.to_string()));
                Ok(name)
            }
        }
    }

    /// Forgets every name of `server` (it was disconnected or relisted).
    pub fn release(&mut self, server: &str) {
        self.given.retain(|_, (s, _)| s != server);
    }

    /// The server and tool behind amber's `name`.
    pub fn resolve(&self, name: &str) -> Option<(&str, &str)> {
        self.given.get(name).map(|(s, t)| (s.as_str(), t.as_str()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_safe_and_prefixed() {
        assert_eq!(tool_name("github", "create_issue"), "github__create_issue");
        assert_eq!(tool_name("fs", "read file.v2"), "fs__read_file_v2");
        assert_eq!(tool_name("x", "écrire"), "x___crire");
    }

    #[test]
    fn a_long_name_is_cut_to_64_and_stays_unique() {
        let long = "a".repeat(100);
        let a = tool_name("server", &format!("{long}1"));
        let b = tool_name("server", &format!("{long}2"));
        assert_eq!(a.len(), MAX_NAME);
        assert_ne!(a, b);
        assert!(a.starts_with("server__aaaa"));
    }

    #[test]
    fn a_clash_is_refused_naming_both() {
        let mut table = NameTable::default();
        assert_eq!(table.claim("fs", "read.file").unwrap(), "fs__read_file");
        let err = table.claim("fs", "read_file").unwrap_err();
        assert!(
            err.contains("`read_file`") && err.contains("`read.file`"),
            "{err}"
        );
        // Claiming the same tool again is no clash.
        assert!(table.claim("fs", "read.file").is_ok());
        assert_eq!(table.resolve("fs__read_file"), Some(("fs", "read.file")));
        table.release("fs");
        assert!(table.claim("fs", "read_file").is_ok());
    }

    #[test]
    fn server_names_are_checked() {
        assert!(check_server_name("github-2").is_ok());
        assert!(check_server_name("").is_err());
        assert!(check_server_name("a b").is_err());
        assert!(check_server_name("a__b").unwrap_err().contains("separates"));
    }
}
