//! The checks of hook-guard, amber's first-party `pre-tool` hook: what a tool
//! call must not do, decided from the tool's name and arguments alone.
//!
//! One crate serves two builds: the `hook-guard` guest wraps it in a
//! component, and the host's benchmark compiles it natively into a command
//! hook, so the two hooks it compares run the same checks and only the
//! way they are called differs. It has no SDK types for that reason.
//!
//! A call is denied when it
//! - deletes recursively outside the workspace through `shell`
//!   (`rm -rf ~/x`, `cd /tmp && rm -r y`; the `shell` module says what it misses);
//! - may write inside a `.git` folder: any tool with a `path` or
//!   `file_path` argument except the known readers;
//! - reads an environment file (`.env`, `.env.local`, not `.env.example`
//!   or `.env.sample`), through a path argument or `cat`, `grep`, `source`
//!   and the like in `shell`;
//! - matches the user's [`Rules`]: a `deny_paths` glob or a
//!   `deny_commands` substring.

mod glob;
mod place;
mod shell;

use place::{is_env_file, Place};
use serde_json::Value;

/// The workspace root as the tools see it, in the sandbox.
pub const WORKSPACE: &str = "/workspace";

/// The tool whose `command` argument is a shell command.
const SHELL: &str = "shell";

/// The arguments that name a file, in amber's tools and most others.
const PATH_KEYS: &[&str] = &["path", "file_path"];

/// Tools known to only read what their path names; every other tool with
/// a path is taken to possibly write there.
const READERS: &[&str] = &["read_file", "list_dir", "glob", "grep", "outline"];

/// What the user adds to the built-in checks, and where the workspace is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rules {
    /// The workspace root: relative paths are inside it. [`WORKSPACE`]
    /// unless the host mounted it elsewhere.
    pub workspace: String,
    /// Globs of paths no tool may name (see the `glob` module's doc for
    /// the syntax): `*.pem`, `config/prod/**`, `~/.ssh`.
    pub deny_paths: Vec<String>,
    /// Text a shell command may not contain, matched as is.
    pub deny_commands: Vec<String>,
}

impl Default for Rules {
    fn default() -> Self {
        Rules {
            workspace: WORKSPACE.to_string(),
            deny_paths: Vec::new(),
            deny_commands: Vec::new(),
        }
    }
}

impl Rules {
    /// Rules from the two settings, each a comma-separated list (blank
    /// items dropped); None is an empty list.
    pub fn from_settings(deny_paths: Option<&str>, deny_commands: Option<&str>) -> Rules {
        Rules {
            deny_paths: list(deny_paths),
            deny_commands: list(deny_commands),
            ..Rules::default()
        }
    }
}

fn list(setting: Option<&str>) -> Vec<String> {
    setting
        .unwrap_or_default()
        .split(',')
        .map(str::trim)
        .filter(|item| !item.is_empty())
        .map(str::to_string)
        .collect()
}

/// The reason to deny calling `tool` with `args`, or None to allow it.
/// Arguments of the wrong shape are left to the tool's schema.
pub fn check_call(tool: &str, args: &Value, rules: &Rules) -> Option<String> {
    let workspace = Place::absolute(&rules.workspace);
    if tool == SHELL {
        if let Some(command) = args.get("command").and_then(Value::as_str) {
            if let Some(reason) = check_command(command, &workspace, rules) {
                return Some(reason);
            }
        }
    }
    PATH_KEYS
        .iter()
        .filter_map(|key| args.get(key).and_then(Value::as_str))
        .find_map(|path| check_path(tool, path, &workspace, rules))
}

fn check_command(command: &str, workspace: &Place, rules: &Rules) -> Option<String> {
    if let Some(denied) = rules
        .deny_commands
        .iter()
        .find(|text| command.contains(text.as_str()))
    {
        return Some(format!(
            "the command contains `{denied}`, which hook-guard's `deny_commands` setting denies"
        ));
    }
    shell::check(command, workspace)
}

fn check_path(tool: &str, path: &str, workspace: &Place, rules: &Rules) -> Option<String> {
    let place = Place::resolve(workspace, path);
    let in_git = place.comps.iter().any(|c| c.eq_ignore_ascii_case(".git"));
    if in_git && !READERS.contains(&tool) {
        return Some(format!(
            "`{tool}` would change `{path}`, inside a `.git` folder; change the repository \
             through git commands instead"
        ));
    }
    if place.file_name().is_some_and(is_env_file) {
        return Some(format!(
            "`{path}` is an environment file, which usually holds secrets; \
             read `.env.example` for the variable names instead"
        ));
    }
    rules
        .deny_paths
        .iter()
        .find(|pattern| glob::denies(pattern, &place, workspace))
        .map(|pattern| {
            format!("`{path}` matches `{pattern}`, which hook-guard's `deny_paths` setting denies")
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn check(tool: &str, args: Value) -> Option<String> {
        check_call(tool, &args, &Rules::default())
    }

    #[test]
    fn writes_into_git_are_denied_reads_are_not() {
        assert!(check("write_file", json!({"path": ".git/hooks/pre-commit"})).is_some());
        assert!(check("edit_file", json!({"path": "sub/.git/config"})).is_some());
        assert!(check(
            "mcp__fs__write",
            json!({"file_path": "/workspace/.git/HEAD"})
        )
        .is_some());
        assert!(check("read_file", json!({"path": ".git/HEAD"})).is_none());
        assert!(check("write_file", json!({"path": ".github/workflows/ci.yml"})).is_none());
        assert!(check("write_file", json!({"path": "src/git.rs"})).is_none());
    }

    #[test]
    fn env_files_are_denied_to_any_tool_by_path() {
        assert!(check("read_file", json!({"path": ".env"})).is_some());
        assert!(check("grep", json!({"pattern": "KEY", "path": "app/.env.local"})).is_some());
        assert!(check("read_file", json!({"path": ".env.example"})).is_none());
    }

    #[test]
    fn shell_commands_are_checked_and_other_tools_commands_are_not() {
        assert!(check("shell", json!({"command": "rm -rf ~"})).is_some());
        assert!(check("shell", json!({"command": "cat .env"})).is_some());
        assert!(check("run", json!({"command": "rm -rf ~"})).is_none());
        assert!(check("shell", json!({"command": 3})).is_none());
        assert!(check("shell", json!("rm -rf /")).is_none());
    }

    #[test]
    fn the_settings_add_paths_and_commands() {
        let rules = Rules::from_settings(Some(" *.pem, ,config/prod/** "), Some("git push,curl "));
        assert_eq!(rules.deny_paths, vec!["*.pem", "config/prod/**"]);
        assert_eq!(rules.deny_commands, vec!["git push", "curl"]);
        let denied = |tool, args| check_call(tool, &args, &rules);
        assert!(denied("read_file", json!({"path": "certs/a.pem"})).is_some());
        assert!(denied("write_file", json!({"path": "config/prod/x.yml"})).is_some());
        let reason = denied("shell", json!({"command": "git push --force"})).unwrap_or_default();
        assert!(reason.contains("deny_commands"), "{reason}");
        assert!(denied("shell", json!({"command": "git status"})).is_none());
    }

    #[test]
    fn no_settings_deny_nothing_extra() {
        assert_eq!(Rules::from_settings(None, Some("")), Rules::default());
    }
}
