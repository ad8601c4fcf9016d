//! Skill folders (seed 000, "Memory extraction": `skill_ops` upsert or
//! deprecate skills by name with a trigger phrase). Each skill is a folder
//! holding a `SKILL.md` ([`skill_md`]), in amber's data dir under one
//! folder per workspace:
//!
//! ```text
//! <data>/skills/<workspace key>/workspace.txt      the workspace's path, for a person
//! <data>/skills/<workspace key>/<name>/SKILL.md
//! ```
//!
//! The key is derived from the workspace's memory namespace, so every
//! spelling of one workspace finds the same folder and nothing in a path
//! (length, characters) has to fit a file name. A skill's name is checked
//! before it becomes a path, so no name leads out of the folder.
//!
//! Compression writes skills as candidates. One whose `SKILL.md` says
//! `candidate: false`, or that amber cannot read, is a person's: the
//! learner leaves it as it is.

use std::path::{Path, PathBuf};

use amber_core::ports::SkillOp;
use amber_core::text::one_line;

use crate::namespace;

pub mod skill_md;

pub use skill_md::Skill;

/// The folder under amber's data dir that holds every workspace's skills.
pub const SKILLS_FOLDER: &str = "skills";
/// The file that makes a folder a skill.
pub const SKILL_FILE: &str = "SKILL.md";
/// The file beside a workspace's skill folders that names the workspace.
/// Its `.` keeps it apart from every skill name.
pub const WORKSPACE_FILE: &str = "workspace.txt";

/// The longest skill name (a folder name).
pub const MAX_NAME_BYTES: usize = 64;
/// Limits on what a skill says, in bytes: about four times the extract
/// schema's limits in characters, so any reply the schema accepts fits.
pub const MAX_DESCRIPTION_BYTES: usize = 2 * 1024;
pub const MAX_TRIGGER_BYTES: usize = 1024;
pub const MAX_BODY_BYTES: usize = 128 * 1024;
pub const MAX_REASON_BYTES: usize = 2 * 1024;

/// The folder of `workspace`'s skills in `data_dir`: `skills/` and the
/// first 16 hex digits of blake3 of the workspace's namespace. The app
/// and the skill loader both find it here.
pub fn skills_dir(data_dir: &Path, workspace: &Path) -> PathBuf {
    let key = blake3::hash(namespace::for_workspace(workspace).as_bytes()).to_hex();
    data_dir.join(SKILLS_FOLDER).join(&key.as_str()[..16])
}

#[derive(Debug, thiserror::Error)]
pub enum SkillError {
    #[error(
        "invalid skill name {name:?}: a name is 1 to {MAX_NAME_BYTES} lowercase letters, digits and `-`, starting with a letter or digit"
    )]
    Name { name: String },
    #[error("skill `{name}`: {field} {reason}")]
    Invalid {
        name: String,
        field: &'static str,
        reason: String,
    },
    #[error("cannot {action} {path}: {source}")]
    Io {
        action: &'static str,
        path: PathBuf,
        source: std::io::Error,
    },
    #[error(
        "{path} is a file or a link, not a skill folder; move it away to let amber write the skill"
    )]
    NotAFolder { path: PathBuf },
    #[error("{path}: line {line}: {reason}")]
    Malformed {
        path: PathBuf,
        line: usize,
        reason: String,
    },
}

/// Checks a skill name: `^[a-z0-9][a-z0-9-]{0,63}$`.
pub fn check_name(name: &str) -> Result<(), SkillError> {
    let mut bytes = name.bytes();
    let first_ok = bytes
        .next()
        .is_some_and(|b| b.is_ascii_lowercase() || b.is_ascii_digit());
    let rest_ok = bytes.all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-');
    if first_ok && rest_ok && name.len() <= MAX_NAME_BYTES {
        return Ok(());
    }
    Err(SkillError::Name {
        name: one_line(name, 80),
    })
}

/// Checks an op before anything is written: its name, and for an upsert
/// a description, trigger and body that are not empty and within limits.
pub fn check_op(op: &SkillOp) -> Result<(), SkillError> {
    check_name(op.name())?;
    let invalid = |field, reason: String| SkillError::Invalid {
        name: op.name().to_string(),
        field,
        reason,
    };
    let fields = match op {
        SkillOp::Upsert {
            description,
            trigger,
            body,
            ..
        } => vec![
            ("description", description.as_str(), MAX_DESCRIPTION_BYTES),
            ("trigger", trigger.as_str(), MAX_TRIGGER_BYTES),
            ("body", body.as_str(), MAX_BODY_BYTES),
        ],
        SkillOp::Deprecate { reason, .. } => {
            if let Some(reason) = reason.as_deref() {
                if reason.len() > MAX_REASON_BYTES {
                    return Err(invalid(
                        "reason",
                        format!("is {} bytes; the limit is {MAX_REASON_BYTES}", reason.len()),
                    ));
                }
            }
            return Ok(());
        }
    };
    for (field, text, limit) in fields {
        if text.trim().is_empty() {
            return Err(invalid(field, "is empty".into()));
        }
        if text.len() > limit {
            return Err(invalid(
                field,
                format!("is {} bytes; the limit is {limit}", text.len()),
            ));
        }
    }
    Ok(())
}

/// Who changed a skill, and when.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Stamp {
    pub session: Option<String>,
    pub model: Option<String>,
    /// Unix seconds.
    pub at: i64,
}

/// What a change did to a skill folder.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// The `SKILL.md` at this path was written.
    Written(PathBuf),
    /// A deprecation of a skill that does not exist: nothing was created.
    Unknown,
    /// The `SKILL.md` at this path is a person's (not a candidate, or not
    /// readable as a skill); it was left as it is.
    PersonOwned(PathBuf),
}

/// One workspace's skill folders, as compression writes them.
#[derive(Debug, Clone)]
pub struct SkillFolders {
    dir: PathBuf,
    /// The workspace's path as a person reads it, for [`WORKSPACE_FILE`].
    workspace: String,
}

impl SkillFolders {
    /// The folders in `dir` (normally [`skills_dir`]) of `workspace`.
    pub fn new(dir: PathBuf, workspace: &Path) -> Self {
        let workspace = workspace
            .canonicalize()
            .unwrap_or_else(|_| workspace.to_path_buf());
        SkillFolders {
            dir,
            workspace: workspace.display().to_string(),
        }
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Applies one op: see [`SkillFolders::upsert`] and
    /// [`SkillFolders::deprecate`].
    pub fn apply(&self, op: &SkillOp, stamp: &Stamp) -> Result<Outcome, SkillError> {
        check_op(op)?;
        match op {
            SkillOp::Upsert {
                name,
                description,
                trigger,
                body,
            } => self.upsert(
                Skill {
                    name: name.clone(),
                    description: description.trim().to_string(),
                    trigger: Some(trigger.trim().to_string()),
                    candidate: true,
                    deprecated: false,
                    deprecated_reason: None,
                    session: None,
                    model: None,
                    updated: None,
                    body: skill_md::tidy_body(body).to_string(),
                },
                stamp,
            ),
            SkillOp::Deprecate { name, reason } => self.deprecate(name, reason.as_deref(), stamp),
        }
    }

    /// Writes `skill` as a candidate stamped with `stamp`, creating its
    /// folder or replacing its `SKILL.md` whole (an upsert of a deprecated
    /// skill brings it back). A person's skill is left as it is.
    pub fn upsert(&self, mut skill: Skill, stamp: &Stamp) -> Result<Outcome, SkillError> {
        check_name(&skill.name)?;
        self.mark_workspace()?;
        let folder = self.folder(&skill.name)?;
        let path = folder.join(SKILL_FILE);
        if let Existing::PersonOwned = existing(&path)? {
            return Ok(Outcome::PersonOwned(path));
        }
        create_dir(&folder)?;
        skill.candidate = true;
        skill.session = stamp.session.clone();
        skill.model = stamp.model.clone();
        skill.updated = Some(stamp.at);
        write_atomically(&path, &skill.render())?;
        Ok(Outcome::Written(path))
    }

    /// Marks the skill `name` deprecated (with `reason` when given),
    /// keeping its description, trigger and body. An unknown skill is
    /// [`Outcome::Unknown`] and no folder is made: there is nothing to
    /// warn a later session away from.
    pub fn deprecate(
        &self,
        name: &str,
        reason: Option<&str>,
        stamp: &Stamp,
    ) -> Result<Outcome, SkillError> {
        check_name(name)?;
        let path = self.folder(name)?.join(SKILL_FILE);
        let mut skill = match existing(&path)? {
            Existing::Absent => return Ok(Outcome::Unknown),
            Existing::PersonOwned => return Ok(Outcome::PersonOwned(path)),
            Existing::Candidate(skill) => skill,
        };
        skill.deprecated = true;
        skill.deprecated_reason = reason
            .map(str::trim)
            .filter(|r| !r.is_empty())
            .map(str::to_string);
        skill.session = stamp.session.clone();
        skill.model = stamp.model.clone();
        skill.updated = Some(stamp.at);
        write_atomically(&path, &skill.render())?;
        Ok(Outcome::Written(path))
    }

    /// The folder of skill `name`, refusing one that is a file or a link
    /// (a link could lead out of the skills folder).
    fn folder(&self, name: &str) -> Result<PathBuf, SkillError> {
        let folder = self.dir.join(name);
        match std::fs::symlink_metadata(&folder) {
            Ok(meta) if !meta.is_dir() => Err(SkillError::NotAFolder { path: folder }),
            Ok(_) => Ok(folder),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(folder),
            Err(source) => Err(SkillError::Io {
                action: "read",
                path: folder,
                source,
            }),
        }
    }

    /// Writes [`WORKSPACE_FILE`] once, so a person can tell the workspace
    /// folders apart.
    fn mark_workspace(&self) -> Result<(), SkillError> {
        create_dir(&self.dir)?;
        let path = self.dir.join(WORKSPACE_FILE);
        if exists(&path)? {
            return Ok(());
        }
        write_atomically(&path, &format!("{}\n", self.workspace))
    }
}

/// What a skill folder holds before a change.
enum Existing {
    Absent,
    Candidate(Skill),
    /// Not a candidate, or not readable as a skill (not UTF-8, or not
    /// front matter amber reads).
    PersonOwned,
}

fn existing(path: &Path) -> Result<Existing, SkillError> {
    if !exists(path)? {
        return Ok(Existing::Absent);
    }
    match read_skill(path) {
        Ok(skill) if skill.candidate => Ok(Existing::Candidate(skill)),
        Ok(_) | Err(SkillError::Malformed { .. }) => Ok(Existing::PersonOwned),
        Err(SkillError::Io { source, .. }) if source.kind() == std::io::ErrorKind::InvalidData => {
            Ok(Existing::PersonOwned)
        }
        Err(e) => Err(e),
    }
}

/// Reads the `SKILL.md` at `path`.
pub fn read_skill(path: &Path) -> Result<Skill, SkillError> {
    let text = std::fs::read_to_string(path).map_err(|source| SkillError::Io {
        action: "read",
        path: path.to_path_buf(),
        source,
    })?;
    Skill::parse(&text).map_err(|(line, reason)| SkillError::Malformed {
        path: path.to_path_buf(),
        line,
        reason,
    })
}

fn exists(path: &Path) -> Result<bool, SkillError> {
    path.try_exists().map_err(|source| SkillError::Io {
        action: "read",
        path: path.to_path_buf(),
        source,
    })
}

fn create_dir(dir: &Path) -> Result<(), SkillError> {
    std::fs::create_dir_all(dir).map_err(|source| SkillError::Io {
        action: "create the folder",
        path: dir.to_path_buf(),
        source,
    })
}

/// Writes `text` to `path` atomically (`amber_state::atomic`), so a reader
/// sees the old file or the new one, never half of one.
fn write_atomically(path: &Path, text: &str) -> Result<(), SkillError> {
    amber_state::atomic::write_atomic(path, text.as_bytes()).map_err(|source| SkillError::Io {
        action: "write",
        path: path.to_path_buf(),
        source,
    })
}

#[cfg(test)]
mod tests;
