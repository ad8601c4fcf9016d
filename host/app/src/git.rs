//! The few git questions the host asks itself: where HEAD is as a
//! session begins, and what changed since (`/diff`). A workspace's git
//! config can name programs git runs (an fsmonitor, an external diff, a
//! textconv filter), so every call turns those off: asking what changed
//! must not run the repository's code.

use std::path::Path;
use std::process::{Command, Stdio};

/// `git` in `workspace`, with what a repository could make it run off.
fn git(workspace: &Path) -> Command {
    let mut command = Command::new("git");
    command
        .arg("-C")
        .arg(workspace)
        .args([
            "-c",
            "core.fsmonitor=false",
            "-c",
            "core.hooksPath=/dev/null",
            "-c",
            "diff.external=",
        ])
        .env("GIT_TERMINAL_PROMPT", "0")
        .env("GIT_OPTIONAL_LOCKS", "0")
        .stdin(Stdio::null());
    command
}

fn output(mut command: Command) -> Option<String> {
    let out = command.stderr(Stdio::null()).output().ok()?;
    out.status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).into_owned())
}

/// The commit HEAD is at, when `workspace` is a git work tree with one.
pub fn head(workspace: &Path) -> Option<String> {
    let mut command = git(workspace);
    command.args(["rev-parse", "--verify", "--quiet", "HEAD"]);
    output(command)
        .map(|s| s.trim().to_string())
        .filter(|s| !s.is_empty())
}

/// The empty tree's id in this repository's hash: read from it, the
/// repository's own `.gitattributes` name no filter.
fn empty_tree(workspace: &Path) -> Option<String> {
    let mut command = git(workspace);
    command.args(["hash-object", "-t", "tree", "/dev/null"]);
    output(command)
        .map(|s| s.trim().to_string())
        .filter(|s| !s.is_empty())
}

/// The work tree's tracked files against `commit`, as a unified diff.
/// Comparing the work tree runs the `clean` filters its attributes name
/// (`.gitattributes` with `[filter "x"] clean = …`): the attributes are
/// read from the empty tree instead, so none runs.
pub fn diff_since(workspace: &Path, commit: &str) -> Result<String, String> {
    let empty = empty_tree(workspace)
        .ok_or_else(|| format!("git cannot read the repository in {}", workspace.display()))?;
    let mut command = git(workspace);
    command
        .arg(format!("--attr-source={empty}"))
        .args(["diff", "--no-ext-diff", "--no-textconv", "--no-color", "--end-of-options", commit, "--"]);
    output(command).ok_or_else(|| format!("`git diff {commit}` failed in {}", workspace.display()))
}

/// The files git does not track (and does not ignore), relative.
pub fn untracked(workspace: &Path) -> Vec<String> {
    let mut command = git(workspace);
    command.args(["ls-files", "--others", "--exclude-standard"]);
    output(command)
        .map(|s| s.lines().map(String::from).collect())
        .unwrap_or_default()
}
