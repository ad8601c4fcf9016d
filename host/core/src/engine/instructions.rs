//! Project instructions: in each folder from the project root down to the
//! one amber was started in, `AGENTS.md`, or `CLAUDE.md` when there is no
//! AGENTS.md, read into the system prompt as other agents do. The nearer a
//! file, the later it comes, so its word is the last the model reads.

use std::path::{Path, PathBuf};

use crate::workspace_fs::{WorkspaceDir, WorkspaceError};

/// The file names looked for in each folder, in order; the first found
/// wins.
pub const INSTRUCTION_FILES: [&str; 2] = ["AGENTS.md", "CLAUDE.md"];

/// More than this of one file is cut, with a note, so one huge file cannot
/// eat the context window.
pub const MAX_INSTRUCTION_BYTES: usize = 64 * 1024;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Instructions {
    pub file: PathBuf,
    /// The file's path from the root, e.g. `AGENTS.md` or `src/AGENTS.md`.
    pub relative: String,
    pub text: String,
    pub truncated: bool,
}

impl Instructions {
    /// The file's name, e.g. `AGENTS.md`.
    pub fn name(&self) -> String {
        self.file
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default()
    }
}

/// An instruction file that could not be read, named.
#[derive(Debug, thiserror::Error)]
pub enum InstructionsError {
    #[error(transparent)]
    Workspace(#[from] WorkspaceError),
    #[error("{source} ({})", file.display())]
    Unreadable {
        file: PathBuf,
        source: WorkspaceError,
    },
}

/// Reads the instructions of the root `workspace` alone.
pub fn load(workspace: &Path) -> Result<Option<Instructions>, InstructionsError> {
    Ok(load_down_to(workspace, Path::new(""))?.pop())
}

/// Reads the instructions of every folder from `workspace` down to
/// `subdir` (relative to it), root first, through the workspace `Dir` (a
/// symlink out of the workspace is not followed). An unreadable file is an
/// error naming it.
pub fn load_down_to(
    workspace: &Path,
    subdir: &Path,
) -> Result<Vec<Instructions>, InstructionsError> {
    let dir = WorkspaceDir::open(workspace)?;
    let mut folders = vec![PathBuf::new()];
    for part in subdir.components() {
        let below = folders.last().cloned().unwrap_or_default().join(part);
        folders.push(below);
    }
    let mut found = Vec::new();
    for folder in folders {
        for name in INSTRUCTION_FILES {
            let relative = folder.join(name);
            let file = workspace.join(&relative);
            if std::fs::symlink_metadata(&file).is_err() {
                continue;
            }
            let relative = relative.to_string_lossy().into_owned();
            // Only the part that is kept is read: a FIFO or a link to
            // /dev/zero named AGENTS.md is refused, never waited on.
            let (kept, truncated) = dir
                .read_head(&relative, MAX_INSTRUCTION_BYTES as u64)
                .map_err(|source| InstructionsError::Unreadable {
                    file: file.clone(),
                    source,
                })?;
            let text = String::from_utf8_lossy(&kept).into_owned();
            found.push(Instructions {
                file,
                relative,
                text,
                truncated,
            });
            break;
        }
    }
    Ok(found)
}

/// The base system prompt, with the instructions appended, root first.
pub fn system_prompt(workspace: &str, instructions: &[Instructions]) -> String {
    let mut prompt = format!(
        "You are amber, a coding agent working in the project at {workspace}. \
         Use the tools to read and change the project; paths are relative to its root. \
         Each tool result is a JSON envelope {{\"status\": \"ok\"|\"error\"|\"denied\", \"output\", \"meta\"}}: \
         after an error or a denial, change your approach instead of repeating the call. \
         When the task is done, reply with a short summary of what you did."
    );
    for found in instructions {
        prompt.push_str(&format!(
            "\n\n# Project instructions (from {})\n\n{}",
            found.relative,
            found.text.trim_end()
        ));
        if found.truncated {
            prompt.push_str(&format!(
                "\n\n[the file is longer than {} KiB; the rest was left out]",
                MAX_INSTRUCTION_BYTES / 1024
            ));
        }
    }
    prompt
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn agents_md_wins_over_claude_md_and_neither_is_none() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(load(dir.path()).unwrap(), None);
        std::fs::write(dir.path().join("CLAUDE.md"), "use tabs").unwrap();
        assert_eq!(load(dir.path()).unwrap().unwrap().name(), "CLAUDE.md");
        std::fs::write(dir.path().join("AGENTS.md"), "use spaces").unwrap();
        let found = load(dir.path()).unwrap().unwrap();
        assert_eq!(
            (found.name().as_str(), found.text.as_str()),
            ("AGENTS.md", "use spaces")
        );
        let prompt = system_prompt("/w", std::slice::from_ref(&found));
        assert!(prompt.ends_with("# Project instructions (from AGENTS.md)\n\nuse spaces"));
    }

    #[test]
    fn an_agents_md_linking_out_of_the_workspace_is_refused() {
        let outside = tempfile::tempdir().unwrap();
        std::fs::write(outside.path().join("x.md"), "stolen").unwrap();
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        std::os::unix::fs::symlink(outside.path().join("x.md"), root.join("AGENTS.md")).unwrap();
        let err = load(&root).unwrap_err().to_string();
        assert!(err.starts_with("cannot read AGENTS.md"), "{err}");
    }

    #[test]
    fn a_huge_file_is_cut_with_a_note() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("AGENTS.md"),
            "x".repeat(MAX_INSTRUCTION_BYTES + 10),
        )
        .unwrap();
        let found = load(dir.path()).unwrap().unwrap();
        assert!(found.truncated && found.text.len() == MAX_INSTRUCTION_BYTES);
        assert!(system_prompt("/w", std::slice::from_ref(&found)).contains("the rest was left out"));
    }
}
