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

/// The empty tree's id for a repository whose HEAD is `head` (its length
/// says the hash: SHA-1 or SHA-256), with no process to ask.
pub fn empty_tree_of(head: &str) -> &'static str {
    if head.len() == 64 {
        "6ef19b41225c5369f1c104d45d8d85efa9b057b53b14b4b9b939dd74decc5321"
    } else {
        "4b825dc642cb6eb9a060e54bf8d69288fbee4904"
    }
}

/// A plumbing command's raw output (`-z` paths are bytes), with `input`
/// on its stdin; `attr_source`, when given, is the tree git reads the
/// attributes from instead of the work tree's (the empty tree: no filter
/// runs).
pub fn plumbing(
    workspace: &Path,
    args: &[&str],
    input: Option<&[u8]>,
    attr_source: Option<&str>,
) -> Option<Vec<u8>> {
    use std::io::Write;
    let mut command = git(workspace);
    if let Some(tree) = attr_source {
        // Attributes from that tree only: none from the work tree's
        // files, the user's or the system's, so none names a filter to
        // run (the repository's `info/attributes` is the caller's to rule
        // out).
        command
            .arg(format!("--attr-source={tree}"))
            .args(["-c", "core.attributesFile=/dev/null"])
            .env("GIT_ATTR_NOSYSTEM", "1");
    }
    command
        .args(args)
        .stdin(if input.is_some() { Stdio::piped() } else { Stdio::null() })
        .stdout(Stdio::piped())
        .stderr(Stdio::null());
    let mut child = command.spawn().ok()?;
    if let (Some(bytes), Some(mut stdin)) = (input, child.stdin.take()) {
        // Written from a thread: git may fill its stdout before it has
        // read all of its stdin.
        let bytes = bytes.to_vec();
        std::thread::spawn(move || {
            let _ = stdin.write_all(&bytes);
        });
    }
    let out = child.wait_with_output().ok()?;
    out.status.success().then_some(out.stdout)
}

/// The files git does not track (and does not ignore), relative.
pub fn untracked(workspace: &Path) -> Vec<String> {
    let mut command = git(workspace);
    command.args(["ls-files", "--others", "--exclude-standard"]);
    output(command)
        .map(|s| s.lines().map(String::from).collect())
        .unwrap_or_default()
}
