//! Custom agents: Markdown files whose front matter names a sub-agent
//! (`name`, `description`, optionally `tools`, `model`, `mode`,
//! `max_iterations`) and whose body is its system prompt, as Claude Code
//! writes them in `.claude/agents/` (docs/agents.md).
//!
//! This module only finds and reads the files; the core runs them as
//! [`AgentProfile`]s through the `task` tool, where every key can only
//! narrow what the parent has. So a workspace's file is read like any
//! other, but never followed through a symlink.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use amber_core::engine::task::AgentProfile;
use amber_core::policy::Mode;
use serde::Serialize;

use crate::skills::{line_of, valid_name};

/// A file that is not an agent, and why: as a command file is.
pub use crate::file_commands::Skipped;

/// Where an agent file was found; later origins shadow earlier ones by
/// name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Origin {
    /// The user's own, under amber's config dir.
    User,
    /// `~/.claude/agents/`.
    ClaudeUser,
    /// The workspace's `.amber/agents/`.
    Workspace,
    /// The workspace's `.claude/agents/`.
    ClaudeWorkspace,
}

impl Origin {
    /// Says where the agent came from, for `/agents` and `amber agents`.
    pub fn describe(self) -> &'static str {
        match self {
            Origin::User => "yours",
            Origin::ClaudeUser => "~/.claude/agents",
            Origin::Workspace => "workspace .amber/agents",
            Origin::ClaudeWorkspace => "workspace .claude/agents",
        }
    }

    /// A workspace's files are untrusted content, as AGENTS.md is.
    pub fn from_workspace(self) -> bool {
        matches!(self, Origin::Workspace | Origin::ClaudeWorkspace)
    }
}

/// One agent file, read.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct AgentDef {
    pub name: String,
    pub description: String,
    /// The tools it may call, by amber name (Claude Code's mapped);
    /// `None`: all its parent's.
    pub tools: Option<Vec<String>>,
    /// The commands `shell` may run, from `Bash(…)` patterns; `None`: any
    /// the mode allows.
    pub commands: Option<Vec<String>>,
    /// A provider preset or a model name; `None`: its parent's.
    pub model: Option<String>,
    /// Its mode; the parent's when the parent's is stricter.
    pub mode: Option<Mode>,
    /// Model calls per run; never more than the parent's cap.
    pub max_iterations: Option<u32>,
    /// The system prompt: the text after the front matter. Left out of
    /// lists; `show` prints it.
    #[serde(skip)]
    pub prompt: String,
    pub path: PathBuf,
    pub origin: Origin,
}

impl AgentDef {
    /// What the core's `task` tool runs it as.
    pub fn profile(&self) -> AgentProfile {
        AgentProfile {
            name: self.name.clone(),
            description: self.description.clone(),
            tools: self.tools.clone(),
            commands: self.commands.clone(),
            // Claude Code's aliases name its own models, which another
            // provider does not serve: the session's model runs them.
            model: self
                .model
                .clone()
                .filter(|m| !CLAUDE_ALIASES.contains(&m.as_str())),
            mode: self.mode,
            max_iterations: self.max_iterations,
            from_workspace: self.origin.from_workspace(),
            system_prompt: self.prompt.clone(),
            source: self.path.display().to_string(),
        }
    }
}

/// Claude Code's `model` aliases.
const CLAUDE_ALIASES: [&str; 3] = ["sonnet", "opus", "haiku"];

/// Every agent found, by name, and what was skipped.
#[derive(Debug, Clone, Default)]
pub struct Catalog {
    pub agents: Vec<AgentDef>,
    pub skipped: Vec<Skipped>,
}

impl Catalog {
    pub fn get(&self, name: &str) -> Option<&AgentDef> {
        self.agents.iter().find(|a| a.name == name)
    }
}

/// Agent files one folder holds at most: a runaway folder is not read
/// whole.
const MAX_FILES: usize = 500;
/// Bytes an agent file holds at most.
const MAX_FILE: u64 = 256 * 1024;

/// The folders read, in order: later ones shadow earlier ones by name.
pub fn folders(config: &Path, workspace: &Path, home: Option<&Path>) -> Vec<(PathBuf, Origin)> {
    let mut folders = vec![(config.join("agents"), Origin::User)];
    if let Some(home) = home {
        folders.push((home.join(".claude/agents"), Origin::ClaudeUser));
    }
    folders.push((workspace.join(".amber/agents"), Origin::Workspace));
    folders.push((workspace.join(".claude/agents"), Origin::ClaudeWorkspace));
    folders
}

/// Every agent in `folders`' `*.md` files, the later shadowing the
/// earlier by name; and the files skipped, with the line and key of what
/// was wrong.
pub fn discover(folders: &[(PathBuf, Origin)]) -> Catalog {
    let mut found: BTreeMap<String, AgentDef> = BTreeMap::new();
    let mut skipped = Vec::new();
    for (folder, origin) in folders {
        for path in markdown_files(folder, *origin) {
            match read(&path, *origin) {
                Ok(agent) => {
                    found.insert(agent.name.clone(), agent);
                }
                Err(reason) => skipped.push(Skipped { path, reason }),
            }
        }
    }
    Catalog {
        agents: found.into_values().collect(),
        skipped,
    }
}

/// The `.md` files directly in `folder`, in path order, at most
/// [`MAX_FILES`]. A workspace's file that is a symlink is not followed:
/// the workspace cannot make amber read a file outside it. Your own
/// folders may link to your dotfiles.
fn markdown_files(folder: &Path, origin: Origin) -> Vec<PathBuf> {
    if origin.from_workspace() && !crate::skills::inside_its_workspace(folder) {
        return Vec::new();
    }
    let Ok(entries) = std::fs::read_dir(folder) else {
        return Vec::new();
    };
    let regular = |p: &PathBuf| match origin.from_workspace() {
        true => std::fs::symlink_metadata(p).is_ok_and(|m| m.is_file()),
        false => p.is_file(),
    };
    let mut files: Vec<PathBuf> = entries
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .filter(regular)
        .collect();
    files.sort();
    files.truncate(MAX_FILES);
    files
}

fn read(path: &Path, origin: Origin) -> Result<AgentDef, String> {
    let text = crate::skills::read_capped(path, MAX_FILE, "an agent file")?;
    parse(&text, path.to_path_buf(), origin)
}

/// An agent file's text as an agent. What is wrong is named with its
/// line and key; a missing key with the line the front matter starts on.
pub fn parse(text: &str, path: PathBuf, origin: Origin) -> Result<AgentDef, String> {
    let doc = crate::frontmatter::parse(text).map_err(|e| e.to_string())?;
    if doc.fields.is_empty() {
        return Err(
            "line 1: no front matter; an agent file starts with `---`, `name:` and `description:`"
                .into(),
        );
    }
    let field = |key: &str| {
        doc.text(key)
            .map(|v| v.trim().to_string())
            .filter(|v| !v.is_empty())
    };
    let required =
        |key: &str| field(key).ok_or_else(|| format!("line 1: key `{key}` is missing or empty"));
    let wrong = |key: &str, why: String| format!("line {}: key `{key}`: {why}", line_of(text, key));
    let name = required("name")?;
    if !valid_name(&name) {
        return Err(wrong(
            "name",
            format!("`{name}` is not an agent name (1 to 64 of a-z, 0-9, `-` and `_`)"),
        ));
    }
    let description = required("description")?;
    let mode = field("mode")
        .map(|m| {
            m.parse::<Mode>().map_err(|_| {
                wrong(
                    "mode",
                    format!("`{m}` is not a mode (plan, read, write or yolo)"),
                )
            })
        })
        .transpose()?;
    let max_iterations = field("max_iterations")
        .map(|n| match n.parse::<u32>() {
            Ok(cap) if cap > 0 => Ok(cap),
            _ => Err(wrong(
                "max_iterations",
                format!("`{n}` is not a positive integer"),
            )),
        })
        .transpose()?;
    Ok(AgentDef {
        name,
        description,
        tools: tools(&doc),
        commands: crate::skills::tool::command_patterns(&doc.list("tools")),
        model: field("model").filter(|m| m != "inherit"),
        mode,
        max_iterations,
        prompt: doc.body.trim().to_string(),
        path,
        origin,
    })
}

/// `tools`, a list or Claude Code's comma-separated string, in amber's
/// names, each once. Absent or empty: `None`, all the parent's.
fn tools(doc: &crate::frontmatter::Document) -> Option<Vec<String>> {
    let mut names: Vec<String> = Vec::new();
    for item in doc.list("tools") {
        let name = crate::skills::tool::tool_name(&item);
        if !name.is_empty() && !names.contains(&name) {
            names.push(name);
        }
    }
    (!names.is_empty()).then_some(names)
}

/// The agents of a workspace under `dirs`, with `$HOME`'s: read from
/// disk now, so a file added mid-session appears.
pub fn catalog(dirs: &amber_runtime::AmberDirs, workspace: &Path) -> Catalog {
    let home = std::env::var_os("HOME").map(PathBuf::from);
    discover(&folders(&dirs.config, workspace, home.as_deref()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(dir: &Path, file: &str, text: &str) {
        std::fs::create_dir_all(dir).unwrap();
        std::fs::write(dir.join(file), text).unwrap();
    }

    fn reasons(catalog: &Catalog, root: &Path) -> Vec<String> {
        catalog
            .skipped
            .iter()
            .map(|s| {
                let path = s.path.strip_prefix(root).unwrap().display();
                format!("{path}: {}", s.reason)
            })
            .collect()
    }

    #[test]
    fn folders_are_read_user_then_claude_then_workspace_then_claude_workspace() {
        let found = folders(
            Path::new("/cfg"),
            Path::new("/ws"),
            Some(Path::new("/home")),
        );
        let order: Vec<(String, Origin)> = found
            .into_iter()
            .map(|(p, o)| (p.display().to_string(), o))
            .collect();
        assert_eq!(
            order,
            [
                ("/cfg/agents".to_string(), Origin::User),
                ("/home/.claude/agents".to_string(), Origin::ClaudeUser),
                ("/ws/.amber/agents".to_string(), Origin::Workspace),
                ("/ws/.claude/agents".to_string(), Origin::ClaudeWorkspace),
            ]
        );
    }

    #[test]
    fn later_folders_shadow_earlier_ones_by_name() {
        let tmp = tempfile::tempdir().unwrap();
        let user = tmp.path().join("user");
        let ws = tmp.path().join("ws");
        let claude_ws = tmp.path().join("claude-ws");
        write(
            &user,
            "a.md",
            "---\nname: reviewer\ndescription: the user's\n---\nUser.\n",
        );
        write(
            &user,
            "other.md",
            "---\nname: other\ndescription: only here\n---\n",
        );
        // The file's name is not the agent's: `name` is.
        write(
            &ws,
            "b.md",
            "---\nname: reviewer\ndescription: the workspace's\n---\nWorkspace.\n",
        );
        write(
            &claude_ws,
            "c.md",
            "---\nname: reviewer\ndescription: claude's\n---\nClaude.\n",
        );
        write(
            &claude_ws,
            "notes.txt",
            "---\nname: txt\ndescription: not markdown\n---\n",
        );
        let catalog = discover(&[
            (user, Origin::User),
            (ws, Origin::Workspace),
            (claude_ws, Origin::ClaudeWorkspace),
        ]);
        let names: Vec<&str> = catalog.agents.iter().map(|a| a.name.as_str()).collect();
        assert_eq!(names, ["other", "reviewer"]);
        let reviewer = catalog.get("reviewer").unwrap();
        assert_eq!(reviewer.description, "claude's");
        assert_eq!(reviewer.origin, Origin::ClaudeWorkspace);
        assert_eq!(reviewer.prompt, "Claude.");
        assert!(catalog.skipped.is_empty());
    }

    #[test]
    fn tools_as_a_comma_string_or_a_list_map_claude_names_once() {
        let path = PathBuf::from("a.md");
        let comma = parse(
            "---\nname: a\ndescription: d\ntools: Read, Grep, Bash(git diff:*), Bash(git log:*), mcp__docs__search\n---\n",
            path.clone(),
            Origin::ClaudeUser,
        )
        .unwrap();
        assert_eq!(
            comma.tools.as_deref(),
            Some(&["read_file", "grep", "shell", "mcp__docs__search"].map(String::from)[..])
        );
        let list = parse(
            "---\nname: a\ndescription: d\ntools:\n  - Edit\n  - MultiEdit\n  - read_file\n---\n",
            path.clone(),
            Origin::User,
        )
        .unwrap();
        assert_eq!(
            list.tools.as_deref(),
            Some(&["edit_file", "read_file"].map(String::from)[..])
        );
        let none = parse(
            "---\nname: a\ndescription: d\ntools:\n---\n",
            path,
            Origin::User,
        )
        .unwrap();
        assert_eq!(none.tools, None);
    }

    #[test]
    fn model_inherit_or_absent_is_the_parents_and_the_rest_is_read() {
        let path = PathBuf::from("a.md");
        let agent = |extra: &str| {
            parse(
                &format!("---\nname: a\ndescription: d\n{extra}---\nBe brief.\n"),
                path.clone(),
                Origin::User,
            )
            .unwrap()
        };
        assert_eq!(agent("model: inherit\n").model, None);
        assert_eq!(agent("model: \"\"\n").model, None);
        assert_eq!(agent("").model, None);
        let full = agent("model: sonnet\nmode: plan\nmax_iterations: 8\n");
        assert_eq!(full.model.as_deref(), Some("sonnet"));
        assert_eq!(full.mode, Some(Mode::Plan));
        assert_eq!(full.max_iterations, Some(8));
        let profile = full.profile();
        assert_eq!(profile.system_prompt, "Be brief.");
        assert_eq!(profile.source, "a.md");
        assert_eq!(profile.mode, Some(Mode::Plan));
    }

    #[test]
    fn a_broken_file_is_skipped_naming_its_line_and_key() {
        let tmp = tempfile::tempdir().unwrap();
        let ws = tmp.path().join("ws");
        write(
            &ws,
            "fast.md",
            "---\nname: fast\nmode: fast\ndescription: d\n---\n",
        );
        write(
            &ws,
            "nodesc.md",
            "---\nname: nodesc\n---\nNo description.\n",
        );
        write(
            &ws,
            "zero.md",
            "---\nname: zero\ndescription: d\nmax_iterations: 0\n---\n",
        );
        write(&ws, "upper.md", "---\ndescription: d\nname: Upper\n---\n");
        write(&ws, "plain.md", "Just a prompt.\n");
        write(&ws, "ok.md", "---\nname: ok\ndescription: d\n---\n");
        let catalog = discover(&[(ws.clone(), Origin::Workspace)]);
        assert_eq!(catalog.agents.len(), 1);
        assert_eq!(
            reasons(&catalog, &ws),
            [
                "fast.md: line 3: key `mode`: `fast` is not a mode (plan, read, write or yolo)",
                "nodesc.md: line 1: key `description` is missing or empty",
                "plain.md: line 1: no front matter; an agent file starts with `---`, `name:` and `description:`",
                "upper.md: line 3: key `name`: `Upper` is not an agent name (1 to 64 of a-z, 0-9, `-` and `_`)",
                "zero.md: line 4: key `max_iterations`: `0` is not a positive integer",
            ]
        );
    }

    #[test]
    fn a_workspace_file_that_is_a_symlink_is_not_followed() {
        let tmp = tempfile::tempdir().unwrap();
        let outside = tmp.path().join("outside");
        write(
            &outside,
            "x.md",
            "---\nname: x\ndescription: from outside\n---\n",
        );
        let ws = tmp.path().join("ws");
        std::fs::create_dir_all(&ws).unwrap();
        std::os::unix::fs::symlink(outside.join("x.md"), ws.join("x.md")).unwrap();
        assert!(discover(&[(ws.clone(), Origin::ClaudeWorkspace)])
            .agents
            .is_empty());
        assert_eq!(discover(&[(ws, Origin::ClaudeUser)]).agents.len(), 1);
    }

    #[test]
    fn a_workspace_folder_that_links_out_of_the_workspace_is_not_read() {
        let tmp = tempfile::tempdir().unwrap();
        let outside = tmp.path().join("outside");
        write(
            &outside.join("agents"),
            "x.md",
            "---\nname: x\ndescription: from outside\n---\n",
        );
        let ws = tmp.path().join("ws");
        std::fs::create_dir_all(&ws).unwrap();
        std::os::unix::fs::symlink(&outside, ws.join(".claude")).unwrap();
        let found = discover(&folders(&tmp.path().join("cfg"), &ws, None));
        assert!(found.agents.is_empty(), "{:?}", found.agents);
        // A link that stays inside the workspace is read.
        write(
            &ws.join("shared"),
            "y.md",
            "---\nname: y\ndescription: inside\n---\n",
        );
        std::fs::create_dir_all(ws.join(".amber")).unwrap();
        std::os::unix::fs::symlink(ws.join("shared"), ws.join(".amber/agents")).unwrap();
        let found = discover(&folders(&tmp.path().join("cfg"), &ws, None));
        assert_eq!(found.agents.len(), 1);
        assert_eq!(found.agents[0].name, "y");
    }
}
