//! Skills: folders holding a `SKILL.md` (front matter `name`,
//! `description`, optional `allowed-tools`; then instructions) and files
//! beside it, as Claude Code, Codex and Gemini CLI read them
//! (docs/skills.md).
//!
//! Loading is progressive. [`index::SkillIndex`], a prompt block, lists
//! each skill's name and description within a token budget; the model
//! calls the native `skill` tool ([`tool::SkillTool`]) to load one, and
//! only then do its instructions and its list of files enter the context.

pub mod index;
pub mod tool;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde::Serialize;

/// Where a skill was found; later origins shadow earlier ones by name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Origin {
    /// The user's own, under amber's config dir.
    User,
    /// `~/.claude/skills/`.
    ClaudeUser,
    /// `~/.agents/skills/`.
    AgentsUser,
    /// The workspace's `.amber/skills/`.
    Workspace,
    /// The workspace's `.claude/skills/`.
    ClaudeWorkspace,
    /// The workspace's `.agents/skills/`.
    AgentsWorkspace,
    /// Written by compression for this workspace, not yet promoted.
    Candidate,
}

impl Origin {
    /// Says where the skill came from, for `/skills` and `amber skills`.
    pub fn describe(self) -> &'static str {
        match self {
            Origin::User => "yours",
            Origin::ClaudeUser => "~/.claude/skills",
            Origin::AgentsUser => "~/.agents/skills",
            Origin::Workspace => "workspace .amber/skills",
            Origin::ClaudeWorkspace => "workspace .claude/skills",
            Origin::AgentsWorkspace => "workspace .agents/skills",
            Origin::Candidate => "candidate (written by compression)",
        }
    }

    /// A workspace's files are untrusted content, as AGENTS.md is.
    pub fn from_workspace(self) -> bool {
        matches!(
            self,
            Origin::Workspace
                | Origin::ClaudeWorkspace
                | Origin::AgentsWorkspace
                | Origin::Candidate
        )
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Skill {
    pub name: String,
    pub description: String,
    /// The tools the model may call while the skill is active: it narrows
    /// what the mode allows, never widens it. `None`: no narrowing.
    pub allowed_tools: Option<Vec<String>>,
    /// The instructions: the text after the front matter.
    #[serde(skip)]
    pub instructions: String,
    /// The folder holding `SKILL.md`.
    pub dir: PathBuf,
    pub origin: Origin,
    /// Off through `[skills] disabled`: not in the index, not loadable.
    pub disabled: bool,
}

impl Skill {
    pub fn candidate(&self) -> bool {
        self.origin == Origin::Candidate
    }

    /// The files beside `SKILL.md`, relative to the skill's folder, in
    /// path order (at most [`MAX_LISTED`], three levels down).
    pub fn files(&self) -> Vec<String> {
        let mut out = Vec::new();
        list_files(&self.dir, &self.dir, 0, &mut out);
        out.retain(|f| f != SKILL_FILE);
        out
    }
}

/// A `SKILL.md` that is not a skill, and why: as a command file is.
pub use crate::file_commands::Skipped;

/// Every skill found, by name, and what was skipped.
#[derive(Debug, Clone, Default)]
pub struct Catalog {
    pub skills: Vec<Skill>,
    pub skipped: Vec<Skipped>,
}

impl Catalog {
    pub fn get(&self, name: &str) -> Option<&Skill> {
        self.skills.iter().find(|s| s.name == name)
    }

    /// The skills the model may see and load.
    pub fn enabled(&self) -> impl Iterator<Item = &Skill> {
        self.skills.iter().filter(|s| !s.disabled)
    }
}

pub const SKILL_FILE: &str = "SKILL.md";
/// Skill folders one skills folder holds at most.
const MAX_SKILLS: usize = 500;
/// Bytes a `SKILL.md` holds at most.
const MAX_SKILL_FILE: u64 = 256 * 1024;
/// Files a skill's listing names at most.
pub const MAX_LISTED: usize = 200;

/// The folders read, in order: later ones shadow earlier ones by name.
pub fn folders(
    config: &Path,
    data: &Path,
    workspace: &Path,
    home: Option<&Path>,
) -> Vec<(PathBuf, Origin)> {
    let mut folders = vec![(config.join("skills"), Origin::User)];
    if let Some(home) = home {
        folders.push((home.join(".claude/skills"), Origin::ClaudeUser));
        folders.push((home.join(".agents/skills"), Origin::AgentsUser));
    }
    folders.push((workspace.join(".amber/skills"), Origin::Workspace));
    folders.push((workspace.join(".claude/skills"), Origin::ClaudeWorkspace));
    folders.push((workspace.join(".agents/skills"), Origin::AgentsWorkspace));
    folders.push((
        amber_memory::skills::skills_dir(data, workspace),
        Origin::Candidate,
    ));
    folders
}

/// Every skill in `folders`, the later shadowing the earlier (except that
/// a compression candidate never shadows a person's skill), those named
/// in `disabled` marked so; and the folders skipped, with the file, line
/// and key of what was wrong.
pub fn discover(folders: &[(PathBuf, Origin)], disabled: &[String]) -> Catalog {
    let mut found: BTreeMap<String, Skill> = BTreeMap::new();
    let mut skipped = Vec::new();
    for (folder, origin) in folders {
        let in_workspace = origin.from_workspace() && *origin != Origin::Candidate;
        if in_workspace && !inside_its_workspace(folder) {
            continue;
        }
        let Ok(entries) = std::fs::read_dir(folder) else {
            continue;
        };
        // A workspace's skill folder that is a symlink is not followed:
        // the workspace cannot make amber read a folder outside it. Your
        // own folders may link to your dotfiles.
        let real_dir = |p: &PathBuf| match origin.from_workspace() {
            true => std::fs::symlink_metadata(p).is_ok_and(|m| m.is_dir()),
            false => p.is_dir(),
        };
        let mut dirs: Vec<PathBuf> = entries
            .flatten()
            .map(|e| e.path())
            .filter(real_dir)
            .collect();
        dirs.sort();
        for dir in dirs.into_iter().take(MAX_SKILLS) {
            let file = dir.join(SKILL_FILE);
            if !file.is_file() {
                continue;
            }
            match read(&file, *origin) {
                // A candidate never shadows a person's skill of its name.
                Ok(Some(skill)) if skill.candidate() && found.contains_key(&skill.name) => {}
                Ok(Some(mut skill)) => {
                    skill.disabled = disabled.contains(&skill.name);
                    found.insert(skill.name.clone(), skill);
                }
                Ok(None) => {}
                Err(reason) => skipped.push(Skipped { path: file, reason }),
            }
        }
    }
    Catalog {
        skills: found.into_values().collect(),
        skipped,
    }
}

/// Whether a workspace's folder (`<ws>/.amber/skills`,
/// `<ws>/.claude/agents`, …) really is inside that workspace: a `.claude`
/// or `skills` folder that is a symlink out of it is not read, so the
/// workspace cannot make amber read a folder outside it.
pub(crate) fn inside_its_workspace(folder: &Path) -> bool {
    let Some(workspace) = folder.parent().and_then(Path::parent) else {
        return false;
    };
    match (std::fs::canonicalize(folder), std::fs::canonicalize(workspace)) {
        (Ok(real), Ok(root)) => real.starts_with(root),
        // Not there: nothing to read.
        _ => false,
    }
}

/// A file's text, at most `max` bytes however it grows while read; what
/// is wrong names `what` (`a SKILL.md`).
pub(crate) fn read_capped(path: &Path, max: u64, what: &str) -> Result<String, String> {
    use std::io::Read;
    let file = std::fs::File::open(path).map_err(|e| format!("cannot read it: {e}"))?;
    let mut bytes = Vec::new();
    file.take(max + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| format!("cannot read it: {e}"))?;
    if bytes.len() as u64 > max {
        return Err(format!("over {max} bytes; {what} holds at most {max}"));
    }
    String::from_utf8(bytes).map_err(|_| "it is not UTF-8 text".to_string())
}

/// One `SKILL.md`; `None` for a candidate compression has deprecated.
fn read(file: &Path, origin: Origin) -> Result<Option<Skill>, String> {
    let dir = file.parent().unwrap_or(file).to_path_buf();
    if origin == Origin::Candidate {
        let size = std::fs::metadata(file).map_err(|e| e.to_string())?.len();
        if size > MAX_SKILL_FILE {
            return Err(format!(
                "{size} bytes; a SKILL.md holds at most {MAX_SKILL_FILE}"
            ));
        }
        // Compression writes its own strict format; its reader knows it.
        let skill = amber_memory::skills::read_skill(file).map_err(|e| e.to_string())?;
        if skill.deprecated {
            return Ok(None);
        }
        return Ok(Some(Skill {
            name: skill.name,
            description: skill.description,
            allowed_tools: None,
            instructions: skill.body,
            dir,
            origin,
            disabled: false,
        }));
    }
    let text = read_capped(file, MAX_SKILL_FILE, "a SKILL.md")?;
    parse(&text, dir, origin).map(Some)
}

/// A `SKILL.md`'s text as a skill. A missing or empty `name` or
/// `description` is named with the line the front matter starts on.
pub fn parse(text: &str, dir: PathBuf, origin: Origin) -> Result<Skill, String> {
    let doc = crate::frontmatter::parse(text).map_err(|e| e.to_string())?;
    if doc.fields.is_empty() {
        return Err(
            "line 1: no front matter; a SKILL.md starts with `---`, `name:` and `description:`"
                .into(),
        );
    }
    let required = |key: &str| -> Result<String, String> {
        doc.text(key)
            .map(|v| v.trim().to_string())
            .filter(|v| !v.is_empty())
            .ok_or_else(|| format!("line 1: key `{key}` is missing or empty"))
    };
    let name = required("name")?;
    if !valid_name(&name) {
        return Err(format!(
            "line {}: key `name`: `{name}` is not a skill name (1 to 64 of a-z, 0-9, `-` and `_`)",
            line_of(text, "name")
        ));
    }
    let description = required("description")?;
    let allowed_tools = doc
        .fields
        .contains_key("allowed-tools")
        .then(|| doc.list("allowed-tools"));
    Ok(Skill {
        name,
        description,
        allowed_tools,
        instructions: doc.body.trim().to_string(),
        dir,
        origin,
        disabled: false,
    })
}

/// The line `key:` is on (1-based), or 1 when it is not found. Custom
/// agents name their lines with it too.
pub(crate) fn line_of(text: &str, key: &str) -> usize {
    text.lines()
        .position(|line| {
            line.strip_prefix(key)
                .is_some_and(|rest| rest.trim_start().starts_with(':'))
        })
        .map_or(1, |i| i + 1)
}

/// A skill's or a custom agent's name: 1 to 64 of a-z, 0-9, `-`, `_`.
pub(crate) fn valid_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= 64
        && name
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || matches!(c, '-' | '_'))
}

fn list_files(root: &Path, folder: &Path, depth: usize, out: &mut Vec<String>) {
    let Ok(entries) = std::fs::read_dir(folder) else {
        return;
    };
    let mut paths: Vec<PathBuf> = entries.flatten().map(|e| e.path()).collect();
    paths.sort();
    for path in paths {
        if out.len() >= MAX_LISTED {
            return;
        }
        // A symlink is listed, never followed.
        let Ok(meta) = std::fs::symlink_metadata(&path) else {
            continue;
        };
        if meta.is_dir() {
            if depth < 3 {
                list_files(root, &path, depth + 1, out);
            }
        } else if let Ok(relative) = path.strip_prefix(root) {
            out.push(relative.to_string_lossy().into_owned());
        }
    }
}

/// The skills of one workspace, shared by the index block, the `skill`
/// tool and `/skills`: found again when `/skills` lists them or a skill
/// is enabled or disabled, so a folder added mid-session appears.
pub struct SkillSet {
    folders: Vec<(PathBuf, Origin)>,
    current: std::sync::RwLock<(Vec<String>, Arc<Catalog>)>,
}

impl SkillSet {
    pub fn new(folders: Vec<(PathBuf, Origin)>, disabled: Vec<String>) -> Self {
        let catalog = Arc::new(discover(&folders, &disabled));
        SkillSet {
            folders,
            current: std::sync::RwLock::new((disabled, catalog)),
        }
    }

    /// The catalog as last found.
    pub fn catalog(&self) -> Arc<Catalog> {
        self.current
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .1
            .clone()
    }

    /// Finds the skills again, with `disabled` when given (else the
    /// disabled names in force).
    pub fn refresh(&self, disabled: Option<Vec<String>>) -> Arc<Catalog> {
        let mut current = self.current.write().unwrap_or_else(|e| e.into_inner());
        if let Some(disabled) = disabled {
            current.0 = disabled;
        }
        current.1 = Arc::new(discover(&self.folders, &current.0));
        current.1.clone()
    }
}

/// Puts the skills index and the `skill` tool in the ledger, once per
/// ledger (a later session of the same host passes the set it has);
/// returns the set, and a warning when a plugin holds either name.
pub fn install(
    ledger: &amber_core::Ledger,
    carried: Option<Arc<SkillSet>>,
    dirs: &amber_runtime::AmberDirs,
    workspace: &Path,
    config: &amber_config::SkillsConfig,
    policy: &Arc<amber_core::policy::Policy>,
) -> (Option<Arc<SkillSet>>, Option<String>) {
    use amber_core::{Owner, Service};
    if ledger.tool(tool::TOOL_NAME).is_some() {
        return (carried, None);
    }
    let set = carried.unwrap_or_else(|| {
        Arc::new(SkillSet::new(
            folders_for(dirs, workspace),
            config.disabled.clone(),
        ))
    });
    let block = index::SkillIndex::new(set.clone(), config.index_tokens as usize);
    let tool = tool::SkillTool::new(set.clone(), policy.clone());
    let warning = ledger
        .install(&Owner::Host, Service::Prompt(Arc::new(block)))
        .and_then(|_| ledger.install(&Owner::Host, Service::Tool(Arc::new(tool))))
        .err()
        .map(|e| format!("{e}; skills are off for this run"));
    (Some(set), warning)
}

/// The folders of a workspace's skills under `dirs`, with `$HOME`'s.
pub fn folders_for(dirs: &amber_runtime::AmberDirs, workspace: &Path) -> Vec<(PathBuf, Origin)> {
    let home = std::env::var_os("HOME").map(PathBuf::from);
    folders(&dirs.config, &dirs.data, workspace, home.as_deref())
}

/// The catalog for a workspace: every folder of [`folders`], with the
/// config's disabled names.
pub fn catalog(
    dirs: &amber_runtime::AmberDirs,
    workspace: &Path,
    config: &amber_config::SkillsConfig,
) -> Catalog {
    discover(&folders_for(dirs, workspace), &config.disabled)
}

/// Moves candidate skill `name` into the workspace's `.amber/skills/`,
/// without `candidate: true`: a person owns it from then on, and
/// compression never writes over it.
pub fn promote(catalog: &Catalog, name: &str, workspace: &Path) -> Result<PathBuf, String> {
    let skill = catalog
        .get(name)
        .ok_or_else(|| format!("no skill `{name}` (see `amber skills list`)"))?;
    if !skill.candidate() {
        return Err(format!(
            "skill `{name}` is not a candidate: it is {}'s already",
            skill.origin.describe()
        ));
    }
    let target = workspace.join(".amber/skills").join(name);
    if target.exists() {
        return Err(format!("{} exists already", target.display()));
    }
    let text = format!(
        "---\nname: {name}\ndescription: {}\n---\n\n{}\n",
        one_line(&skill.description),
        skill.instructions
    );
    std::fs::create_dir_all(&target)
        .map_err(|e| format!("cannot create {}: {e}", target.display()))?;
    amber_state::atomic::write_atomic(&target.join(SKILL_FILE), text.as_bytes())
        .map_err(|e| format!("cannot write {}: {e}", target.join(SKILL_FILE).display()))?;
    std::fs::remove_dir_all(&skill.dir).map_err(|e| {
        format!(
            "wrote {} but cannot remove the candidate: {e}",
            target.display()
        )
    })?;
    Ok(target)
}

/// A description on one line, as front matter holds it plain.
fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(dir: &Path, text: &str) {
        std::fs::create_dir_all(dir).unwrap();
        std::fs::write(dir.join(SKILL_FILE), text).unwrap();
    }

    #[test]
    fn later_folders_shadow_earlier_ones_and_broken_files_are_named() {
        let tmp = tempfile::tempdir().unwrap();
        let user = tmp.path().join("user");
        let ws = tmp.path().join("ws");
        write(
            &user.join("pdf"),
            "---\nname: pdf\ndescription: the user's\n---\nUser's way.\n",
        );
        write(&ws.join("pdf"), "---\nname: pdf\ndescription: the workspace's\nallowed-tools:\n- read_file\n- grep\n---\nWorkspace way.\n");
        write(
            &ws.join("broken"),
            "---\nname: broken\n---\nNo description.\n",
        );
        write(
            &ws.join("junk"),
            "---\nname: junk\nthis is not a field\ndescription: x\n---\n",
        );
        let catalog = discover(
            &[(user, Origin::User), (ws.clone(), Origin::Workspace)],
            &["other".to_string()],
        );
        let pdf = catalog.get("pdf").unwrap();
        assert_eq!(pdf.description, "the workspace's");
        assert_eq!(pdf.origin, Origin::Workspace);
        assert_eq!(
            pdf.allowed_tools.as_deref(),
            Some(&["read_file".to_string(), "grep".to_string()][..])
        );
        assert_eq!(pdf.instructions, "Workspace way.");
        let reasons: Vec<String> = catalog
            .skipped
            .iter()
            .map(|s| {
                format!(
                    "{}: {}",
                    s.path.strip_prefix(&ws).unwrap().display(),
                    s.reason
                )
            })
            .collect();
        assert_eq!(
            reasons,
            [
                "broken/SKILL.md: line 1: key `description` is missing or empty",
                "junk/SKILL.md: line 3: `this is not a field` is not a `key: value` line of front matter",
            ]
        );
    }

    #[test]
    fn a_workspace_skill_folder_that_is_a_symlink_is_not_followed() {
        let tmp = tempfile::tempdir().unwrap();
        let outside = tmp.path().join("outside/s");
        write(&outside, "---\nname: s\ndescription: from outside\n---\n");
        let ws = tmp.path().join("ws");
        std::fs::create_dir_all(&ws).unwrap();
        std::os::unix::fs::symlink(&outside, ws.join("s")).unwrap();
        assert!(discover(&[(ws.clone(), Origin::Workspace)], &[])
            .skills
            .is_empty());
        assert_eq!(discover(&[(ws, Origin::User)], &[]).skills.len(), 1);
    }

    #[test]
    fn a_skill_lists_its_files_but_not_itself() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("s");
        write(&dir, "---\nname: s\ndescription: d\n---\n");
        std::fs::create_dir_all(dir.join("scripts")).unwrap();
        std::fs::write(dir.join("scripts/run.sh"), "echo").unwrap();
        std::fs::write(dir.join("REFERENCE.md"), "ref").unwrap();
        let skill = parse("---\nname: s\ndescription: d\n---\n", dir, Origin::User).unwrap();
        assert_eq!(skill.files(), ["REFERENCE.md", "scripts/run.sh"]);
        assert_eq!(skill.allowed_tools, None);
    }
}
