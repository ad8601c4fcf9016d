//! The `skill` tool: the model loads a skill by name, and its
//! instructions and the list of its files enter the context; with `file`,
//! one of those files (a skill outside the workspace is out of the file
//! tools' reach). A skill's `allowed-tools` narrows what the model may
//! call until the end of the user's request (`Policy::narrow`).

use std::sync::Arc;

use amber_core::policy::Policy;
use amber_core::ports::{Tool, ToolError, ToolOutput, ToolSpec};
use serde_json::{json, Value};

use super::{Skill, SkillSet};

pub const TOOL_NAME: &str = "skill";

/// Bytes of one skill file the tool returns at most.
const MAX_FILE_BYTES: u64 = 256 * 1024;

pub struct SkillTool {
    spec: ToolSpec,
    skills: Arc<SkillSet>,
    policy: Arc<Policy>,
}

impl SkillTool {
    pub fn new(skills: Arc<SkillSet>, policy: Arc<Policy>) -> Self {
        SkillTool {
            spec: ToolSpec {
                name: TOOL_NAME.into(),
                description: "Load a skill (see the list of skills) by name: its instructions and the files beside it. With `file`, read one of those files.".into(),
                input_schema: json!({
                    "type": "object",
                    "properties": {
                        "name": {"type": "string", "description": "The skill's name."},
                        "file": {"type": "string", "description": "A file the skill lists, relative to its folder."}
                    },
                    "required": ["name"],
                    "additionalProperties": false
                }),
                // Loading instructions changes nothing; read and plan
                // modes load skills too.
                read_only: true,
                gated_by_exec: false,
                approval_group: None,
            },
            skills,
            policy,
        }
    }
}

/// amber's names for the tools Claude Code's `allowed-tools` names, so a
/// skill written for it narrows to the same tools here. `Bash(git add:*)`
/// is `shell`, its pattern a command list ([`command_patterns`]) the
/// policy checks each command against.
/// The command pattern of a Claude Code `Bash(…)` item (`git diff:*`),
/// which narrows the commands `shell` may run; `None` for any other item,
/// and for `Bash` alone (any command).
pub fn command_pattern(allowed: &str) -> Option<String> {
    let inner = allowed.trim().strip_prefix("Bash(")?.strip_suffix(')')?;
    let inner = inner.trim();
    (!inner.is_empty() && inner != "*").then(|| inner.to_string())
}

/// The command list of a set of `allowed-tools` (or an agent's `tools`):
/// the patterns of its `Bash(…)` items, `None` when one is `Bash` alone
/// or none names a pattern.
pub fn command_patterns(allowed: &[String]) -> Option<Vec<String>> {
    let shells: Vec<&String> = allowed.iter().filter(|a| tool_name(a) == "shell").collect();
    let patterns: Vec<String> = shells.iter().filter_map(|a| command_pattern(a)).collect();
    (!shells.is_empty() && patterns.len() == shells.len()).then_some(patterns)
}

pub fn tool_name(allowed: &str) -> String {
    let base = allowed.split('(').next().unwrap_or(allowed).trim();
    match base {
        "Read" => "read_file",
        "Write" => "write_file",
        "Edit" | "MultiEdit" => "edit_file",
        "LS" => "list_dir",
        "Glob" => "glob",
        "Grep" => "grep",
        "Bash" => "shell",
        "Task" => "task",
        other => other,
    }
    .to_string()
}

fn load(skill: &Skill) -> String {
    let mut out = format!(
        "Skill `{}` ({}) is loaded. Follow its instructions for this request.\n",
        skill.name,
        skill.origin.describe()
    );
    if skill.origin.from_workspace() {
        out.push_str(
            "It comes from the workspace: it is the workspace's content, like AGENTS.md, and commands it names still go through the policy and the sandbox.\n",
        );
    }
    out.push('\n');
    out.push_str(&skill.instructions);
    out.push('\n');
    let files = skill.files();
    if !files.is_empty() {
        out.push_str(&format!(
            "\nFiles beside it (read one with `skill` and `file`): {}\n",
            files.join(", ")
        ));
    }
    out
}

fn read_file(skill: &Skill, file: &str) -> Result<String, ToolError> {
    let listed = skill.files();
    if !listed.iter().any(|f| f == file) {
        return Err(ToolError::InvalidArgs(format!(
            "skill `{}` has no file `{file}`; it has: {}",
            skill.name,
            if listed.is_empty() {
                "none".to_string()
            } else {
                listed.join(", ")
            }
        )));
    }
    let path = skill.dir.join(file);
    // Only a regular file inside the skill's folder: a symlink (to a key
    // under ~/.ssh, say) is refused, and so is a path whose real location
    // is elsewhere, so a skill cannot reach past what the file tools may.
    let meta = std::fs::symlink_metadata(&path)
        .map_err(|e| ToolError::Failed(format!("cannot read {file}: {e}")))?;
    let inside = match (path.canonicalize(), skill.dir.canonicalize()) {
        (Ok(real), Ok(dir)) => real.starts_with(dir),
        _ => false,
    };
    if !meta.is_file() || !inside {
        return Err(ToolError::Failed(format!(
            "{file} is not a regular file inside skill `{}`'s folder",
            skill.name
        )));
    }
    let size = meta.len();
    if size > MAX_FILE_BYTES {
        return Err(ToolError::Failed(format!(
            "{file} is {size} bytes; the skill tool returns at most {MAX_FILE_BYTES}"
        )));
    }
    let bytes =
        std::fs::read(&path).map_err(|e| ToolError::Failed(format!("cannot read {file}: {e}")))?;
    String::from_utf8(bytes).map_err(|_| ToolError::Failed(format!("{file} is not UTF-8 text")))
}

impl Tool for SkillTool {
    fn spec(&self) -> &ToolSpec {
        &self.spec
    }

    fn call(&self, args: &Value) -> Result<ToolOutput, ToolError> {
        let name = args["name"]
            .as_str()
            .ok_or_else(|| ToolError::InvalidArgs("`name` must be a skill's name".into()))?;
        let catalog = self.skills.catalog();
        let skill = catalog.enabled().find(|s| s.name == name).ok_or_else(|| {
            let names: Vec<&str> = catalog.enabled().map(|s| s.name.as_str()).collect();
            ToolError::InvalidArgs(format!(
                "no skill `{name}`; the skills are: {}",
                if names.is_empty() {
                    "none".to_string()
                } else {
                    names.join(", ")
                }
            ))
        })?;
        if let Some(file) = args["file"].as_str() {
            return read_file(skill, file).map(|content| ToolOutput {
                content,
                meta: None,
                images: Vec::new(),
            });
        }
        let mut content = load(skill);
        if let Some(allowed) = &skill.allowed_tools {
            let mut tools: Vec<String> = allowed.iter().map(|t| tool_name(t)).collect();
            // Loading another skill or a file of this one stays possible.
            tools.push(TOOL_NAME.to_string());
            tools.dedup();
            // The calling agent's own view: a sub-agent's skill narrows
            // the sub-agent only.
            let commands = command_patterns(allowed);
            let narrowing = match amber_core::policy::scope::current() {
                Some(call) => call.policy.narrow(&skill.name, &tools, commands.as_deref()),
                None => self.policy.narrow(&skill.name, &tools, commands.as_deref()),
            };
            content.push_str(&format!(
                "\nUntil this request ends you may call only: {}.\n",
                narrowing.tools.join(", ")
            ));
            if let Some(commands) = &narrowing.commands {
                content.push_str(&format!(
                    "`shell` may run only: {} (one simple command a line).\n",
                    commands.join(", ")
                ));
            }
        }
        Ok(ToolOutput {
            content,
            meta: Some(json!({ "skill": skill.name, "origin": skill.origin })),
            images: Vec::new(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_skill_file_is_read_only_when_it_is_a_regular_file_inside() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("s");
        std::fs::create_dir_all(dir.join("sub")).unwrap();
        std::fs::write(tmp.path().join("secret"), "key").unwrap();
        std::fs::write(dir.join("sub/ok.md"), "fine").unwrap();
        std::os::unix::fs::symlink(tmp.path().join("secret"), dir.join("link")).unwrap();
        let skill = super::super::parse(
            "---\nname: s\ndescription: d\n---\n",
            dir,
            super::super::Origin::Workspace,
        )
        .unwrap();
        assert_eq!(read_file(&skill, "sub/ok.md").unwrap(), "fine");
        let err = read_file(&skill, "link").unwrap_err();
        assert!(
            matches!(&err, ToolError::Failed(m) if m.contains("not a regular file inside")),
            "{err:?}"
        );
        assert!(matches!(
            read_file(&skill, "../secret"),
            Err(ToolError::InvalidArgs(_))
        ));
    }

    #[test]
    fn claude_code_tool_names_map_to_amber_s() {
        assert_eq!(tool_name("Read"), "read_file");
        assert_eq!(tool_name("Bash(git add:*)"), "shell");
        assert_eq!(tool_name("read_file"), "read_file");
        assert_eq!(tool_name("WebFetch"), "WebFetch");
        let items = |list: &[&str]| list.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert_eq!(
            command_patterns(&items(&["Read", "Bash(git diff:*)", "Bash(npm test)"])),
            Some(vec!["git diff:*".to_string(), "npm test".to_string()])
        );
        // `Bash` alone, or no shell at all: no command list.
        assert_eq!(command_patterns(&items(&["Bash(git diff:*)", "Bash"])), None);
        assert_eq!(command_patterns(&items(&["Read"])), None);
    }
}
