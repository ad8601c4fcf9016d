//! The one table of names between Claude Code's hooks and amber's: events,
//! tools, argument keys and MCP tool names. docs/hooks.md prints the same
//! table; the coverage and MCP work read the tool names from here.

use serde_json::Value;

use super::HookEvent;

/// Claude Code's name of an event.
pub fn claude_event(event: HookEvent) -> &'static str {
    event.claude_name()
}

/// Claude Code's tool names and amber's, pair by pair.
pub const TOOLS: [(&str, &str); 6] = [
    ("Bash", "shell"),
    ("Read", "read_file"),
    ("Edit", "edit_file"),
    ("Write", "write_file"),
    ("Glob", "glob"),
    ("Grep", "grep"),
];

/// amber's tools Claude Code knows under a name another amber tool has:
/// `process_start` is its `Bash` with `run_in_background`, so a hook
/// matching `Bash` guards both. One way only: `Bash` is `shell`.
const ALSO: [(&str, &str); 1] = [("Bash", "process_start")];

/// An MCP tool: Claude Code's `mcp__<server>__<tool>` is amber's
/// `<server>__<tool>`.
const MCP_PREFIX: &str = "mcp__";

/// Claude Code's name for amber's tool `name`.
pub fn claude_tool(name: &str) -> String {
    if let Some((claude, _)) = TOOLS.iter().chain(&ALSO).find(|(_, amber)| *amber == name) {
        return (*claude).to_string();
    }
    if name.contains("__") {
        return format!("{MCP_PREFIX}{name}");
    }
    name.to_string()
}

/// amber's name for Claude Code's tool `name`.
pub fn amber_tool(name: &str) -> String {
    if let Some((_, amber)) = TOOLS.iter().find(|(claude, _)| *claude == name) {
        return (*amber).to_string();
    }
    match name.strip_prefix(MCP_PREFIX) {
        Some(rest) if rest.contains("__") => rest.to_string(),
        _ => name.to_string(),
    }
}

/// Argument keys: Claude Code's and amber's, pair by pair.
pub const ARGS: [(&str, &str); 1] = [("file_path", "path")];

/// The tools whose arguments are renamed: Claude Code's Read, Edit and
/// Write take `file_path`; its Glob and Grep take `path`, as amber's do.
const RENAMED: [&str; 3] = ["read_file", "edit_file", "write_file"];

/// `args` of amber's tool `tool` with Claude Code's keys (`path` →
/// `tool_input.file_path` for Read, Edit and Write), for a command
/// hook's stdin.
pub fn claude_args(tool: &str, args: &Value) -> Value {
    if !RENAMED.contains(&tool) {
        return args.clone();
    }
    rename_keys(args, |key| {
        ARGS.iter()
            .find(|(_, amber)| *amber == key)
            .map(|(claude, _)| *claude)
    })
}

/// `args` of amber's tool `tool` with amber's keys, for a command hook's
/// rewritten `tool_input`.
pub fn amber_args(tool: &str, args: &Value) -> Value {
    if !RENAMED.contains(&tool) {
        return args.clone();
    }
    rename_keys(args, |key| {
        ARGS.iter()
            .find(|(claude, _)| *claude == key)
            .map(|(_, amber)| *amber)
    })
}

fn rename_keys(args: &Value, rename: impl Fn(&str) -> Option<&'static str>) -> Value {
    match args {
        Value::Object(map) => Value::Object(
            map.iter()
                .map(|(k, v)| {
                    (
                        rename(k).map(str::to_string).unwrap_or(k.clone()),
                        v.clone(),
                    )
                })
                .collect(),
        ),
        other => other.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tool_names_map_both_ways() {
        for (claude, amber) in TOOLS {
            assert_eq!(claude_tool(amber), claude);
            assert_eq!(amber_tool(claude), amber);
        }
        assert_eq!(claude_tool("process_start"), "Bash");
        assert_eq!(amber_tool("Bash"), "shell");
        assert_eq!(
            claude_tool("github__create_issue"),
            "mcp__github__create_issue"
        );
        assert_eq!(
            amber_tool("mcp__github__create_issue"),
            "github__create_issue"
        );
        assert_eq!(amber_tool("mcp__odd"), "mcp__odd");
        assert_eq!(claude_tool("outline"), "outline");
    }

    #[test]
    fn every_event_parses_from_both_names() {
        for event in HookEvent::ALL {
            assert_eq!(HookEvent::parse(event.as_str()), Some(event));
            assert_eq!(HookEvent::parse(claude_event(event)), Some(event));
        }
        assert_eq!(HookEvent::parse("PreTool"), None);
    }

    #[test]
    fn path_and_file_path_swap() {
        let amber = serde_json::json!({"path": "a.rs", "content": "x"});
        let claude = claude_args("write_file", &amber);
        assert_eq!(
            claude,
            serde_json::json!({"file_path": "a.rs", "content": "x"})
        );
        assert_eq!(amber_args("write_file", &claude), amber);
        // Claude Code's Grep and Glob take `path` too.
        assert_eq!(claude_args("grep", &amber), amber);
    }
}
