//! One repository's runnable parts, its hooks and its `config`: where a
//! `.git` leads, what they held before a command, and putting them back.
//!
//! git runs an executable file of `hooks/` (but `*.sample`) on checkout,
//! commit, merge and more, and its config can name programs to run. A
//! command that wrote either would get code run later, outside the
//! sandbox, by the user's own git. After a command: a hook that was not
//! there before is removed, one that changed is restored, and the config
//! keeps only safe keys plus what it held before ([`super::git_config`]).

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use super::git_config;

/// A hook bigger than this is not kept in a snapshot: it is restored as
/// removed (a real hook is a script of a few kilobytes).
const MAX_HOOK_BYTES: u64 = 1 << 20;
/// A config bigger than this is not parsed: it is reset.
const MAX_CONFIG_BYTES: u64 = 1 << 20;
/// What a `.git` file may hold (`gitdir: …`); more is not a pointer.
const MAX_POINTER_BYTES: u64 = 4096;

/// The repository a `.git` entry leads to, if it lies inside `root`: the
/// folder itself, a symlink's target, or a `.git` file's `gitdir:`.
pub fn resolve(dot_git: &Path, root: &Path) -> Option<PathBuf> {
    let meta = std::fs::symlink_metadata(dot_git).ok()?;
    let target = if meta.is_file() {
        if meta.len() > MAX_POINTER_BYTES {
            return None;
        }
        let text = std::fs::read_to_string(dot_git).ok()?;
        let pointer = text.lines().next()?.strip_prefix("gitdir:")?.trim();
        dot_git.parent()?.join(pointer)
    } else {
        dot_git.to_path_buf()
    };
    let real = target.canonicalize().ok()?;
    (real.is_dir() && real.starts_with(root)).then_some(real)
}

/// The other repository folder a worktree's gitdir shares its config and
/// hooks with (`commondir`), if inside `root`.
pub fn common_dir(gitdir: &Path, root: &Path) -> Option<PathBuf> {
    let file = gitdir.join("commondir");
    let meta = std::fs::symlink_metadata(&file).ok()?;
    if !meta.is_file() || meta.len() > MAX_POINTER_BYTES {
        return None;
    }
    let text = std::fs::read_to_string(&file).ok()?;
    let real = gitdir.join(text.trim()).canonicalize().ok()?;
    (real.is_dir() && real.starts_with(root) && real != gitdir).then_some(real)
}

#[derive(Debug, Clone, PartialEq, Eq)]
struct Hook {
    mode: u32,
    bytes: Vec<u8>,
}

/// A repository's hooks and config as they were before a command.
#[derive(Debug, Clone, Default)]
pub struct Snapshot {
    /// The runnable hooks (symlinks included, as their target's bytes).
    hooks: BTreeMap<OsString, Option<Hook>>,
    /// `hooks` was a symlink.
    hooks_linked: bool,
    config: Option<Vec<u8>>,
    /// Taken of a repository that existed (the default stands for one
    /// the command created).
    existed: bool,
}

/// A file git would run as a hook: executable, or a symlink (git follows
/// it), and not one of git's `*.sample` files.
fn runnable(path: &Path, name: &str) -> Option<std::fs::Metadata> {
    if name.ends_with(".sample") {
        return None;
    }
    let meta = std::fs::symlink_metadata(path).ok()?;
    let runs =
        meta.file_type().is_symlink() || (meta.is_file() && meta.permissions().mode() & 0o111 != 0);
    runs.then_some(meta)
}

fn runnable_hooks(gitdir: &Path) -> Vec<(OsString, PathBuf, std::fs::Metadata)> {
    let Ok(read) = std::fs::read_dir(gitdir.join("hooks")) else {
        return Vec::new();
    };
    read.flatten()
        .filter_map(|entry| {
            let name = entry.file_name();
            let path = entry.path();
            let meta = runnable(&path, &name.to_string_lossy())?;
            Some((name, path, meta))
        })
        .collect()
}

fn read_hook(path: &Path, meta: &std::fs::Metadata) -> Option<Hook> {
    if meta.file_type().is_symlink() || meta.len() > MAX_HOOK_BYTES {
        return None;
    }
    Some(Hook {
        mode: meta.permissions().mode(),
        bytes: std::fs::read(path).ok()?,
    })
}

impl Snapshot {
    pub fn take(gitdir: &Path) -> Snapshot {
        let hooks_linked = std::fs::symlink_metadata(gitdir.join("hooks"))
            .is_ok_and(|m| m.file_type().is_symlink());
        let hooks = if hooks_linked {
            BTreeMap::new()
        } else {
            runnable_hooks(gitdir)
                .into_iter()
                .map(|(name, path, meta)| (name, read_hook(&path, &meta)))
                .collect()
        };
        let config_file = gitdir.join("config");
        let config = std::fs::symlink_metadata(&config_file)
            .ok()
            .filter(|m| m.is_file() && m.len() <= MAX_CONFIG_BYTES)
            .and_then(|_| std::fs::read(&config_file).ok());
        Snapshot {
            hooks,
            hooks_linked,
            config,
            existed: true,
        }
    }
}

/// Puts `gitdir`'s hooks and config back to `before` plus what is safe
/// (`before` empty: a repository the command created). Returns what was
/// done, one line each, with paths shown as `shown` (the folder's name
/// relative to the workspace).
pub fn restore(gitdir: &Path, before: &Snapshot, shown: &str) -> Vec<String> {
    let mut done = Vec::new();
    restore_hooks(gitdir, before, shown, &mut done);
    restore_config(gitdir, before, shown, &mut done);
    done
}

fn restore_hooks(gitdir: &Path, before: &Snapshot, shown: &str, done: &mut Vec<String>) {
    let hooks = gitdir.join("hooks");
    let linked = std::fs::symlink_metadata(&hooks).is_ok_and(|m| m.file_type().is_symlink());
    if linked {
        if !before.hooks_linked && std::fs::remove_file(&hooks).is_ok() {
            done.push(format!("removed {shown}/hooks, a symlink the command made"));
        }
        return;
    }
    for (name, path, meta) in runnable_hooks(gitdir) {
        let label = format!("{shown}/hooks/{}", name.to_string_lossy());
        let now = read_hook(&path, &meta);
        match before.hooks.get(&name) {
            Some(old) if old.is_some() && *old == now => {}
            // A symlink or a big hook that was there before: kept, as
            // it cannot be compared.
            Some(None) if now.is_none() => {}
            Some(Some(old)) => {
                let back = std::fs::remove_file(&path)
                    .and_then(|()| std::fs::write(&path, &old.bytes))
                    .and_then(|()| {
                        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(old.mode))
                    });
                done.push(match back {
                    Ok(()) => format!("restored the hook {label}, which the command changed"),
                    Err(e) => format!("could not restore the hook {label}: {e}"),
                });
            }
            _ => {
                done.push(match std::fs::remove_file(&path) {
                    Ok(()) => format!("removed the hook {label}, which the command made"),
                    Err(e) => format!("could not remove the hook {label}: {e}"),
                });
            }
        }
    }
}

fn restore_config(gitdir: &Path, before: &Snapshot, shown: &str, done: &mut Vec<String>) {
    let file = gitdir.join("config");
    let Ok(meta) = std::fs::symlink_metadata(&file) else {
        return;
    };
    let label = format!("{shown}/config");
    let before_text = before
        .config
        .as_deref()
        .map(|b| String::from_utf8_lossy(b).into_owned())
        .unwrap_or_default();
    let before_entries = git_config::parse(&before_text).unwrap_or_default();
    let mut write = |text: String, line: String| {
        let written = replace_with(&file, &text);
        done.push(match written {
            Ok(()) => line,
            Err(e) => format!("could not rewrite {label}: {e}"),
        });
    };
    // What to write when the file cannot be read as a config at all: the
    // safe part of what it held before.
    let fallback = || {
        let kept: Vec<_> = before_entries
            .iter()
            .filter(|e| e.is_safe())
            .cloned()
            .collect();
        if kept.is_empty() {
            DEFAULT_CONFIG.to_string()
        } else {
            git_config::render(&kept)
        }
    };
    if !meta.is_file() || meta.len() > MAX_CONFIG_BYTES {
        let text = before
            .config
            .as_deref()
            .map(|b| String::from_utf8_lossy(b).into_owned())
            .unwrap_or_else(fallback);
        write(text, format!("reset {label}, which the command replaced"));
        return;
    }
    let Ok(bytes) = std::fs::read(&file) else {
        return;
    };
    if before.config.as_deref() == Some(&bytes[..]) {
        return;
    }
    if before.existed && before.config.is_none() {
        done.push(match std::fs::remove_file(&file) {
            Ok(()) => format!("removed {label}, which the command made"),
            Err(e) => format!("could not remove {label}: {e}"),
        });
        return;
    }
    let text = String::from_utf8_lossy(&bytes);
    match git_config::sanitize(&text, &before_entries) {
        Ok(out) if out.dropped.is_empty() => {}
        Ok(out) => {
            // Back to the very bytes it had when nothing else changed.
            let text = match &before.config {
                Some(old) if out.kept == before_entries => {
                    String::from_utf8_lossy(old).into_owned()
                }
                _ => git_config::render(&out.kept),
            };
            write(
                text,
                format!("reverted {} in {label}", out.dropped.join(", ")),
            )
        }
        Err(e) => write(
            fallback(),
            format!("reset {label}, which git could not read either ({e})"),
        ),
    }
}

/// Writes `text` at `path` in place of whatever is there: a file, a
/// symlink (never followed) or a folder.
fn replace_with(path: &Path, text: &str) -> std::io::Result<()> {
    match std::fs::symlink_metadata(path) {
        Ok(meta) if meta.is_dir() => std::fs::remove_dir_all(path)?,
        Ok(_) => std::fs::remove_file(path)?,
        Err(_) => {}
    }
    std::fs::write(path, text)
}

/// What `git init` writes on Linux.
const DEFAULT_CONFIG: &str = "[core]\n\trepositoryformatversion = 0\n\tfilemode = true\n\tbare = false\n\tlogallrefupdates = true\n";

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;

    fn repo() -> (tempfile::TempDir, PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let gitdir = dir.path().canonicalize().unwrap().join("r/.git");
        fs::create_dir_all(gitdir.join("hooks")).unwrap();
        fs::write(gitdir.join("config"), DEFAULT_CONFIG).unwrap();
        fs::write(gitdir.join("hooks/pre-commit.sample"), "#!/bin/sh\n").unwrap();
        fs::set_permissions(
            gitdir.join("hooks/pre-commit.sample"),
            fs::Permissions::from_mode(0o755),
        )
        .unwrap();
        (dir, gitdir)
    }

    fn plant(gitdir: &Path, name: &str, body: &str, mode: u32) {
        let path = gitdir.join("hooks").join(name);
        fs::write(&path, body).unwrap();
        fs::set_permissions(&path, fs::Permissions::from_mode(mode)).unwrap();
    }

    #[test]
    fn a_new_repositorys_planted_hook_and_fsmonitor_are_reverted() {
        let (_dir, gitdir) = repo();
        plant(&gitdir, "post-checkout", "#!/bin/sh\nevil\n", 0o755);
        plant(&gitdir, "notes.txt", "not runnable", 0o644);
        fs::write(
            gitdir.join("config"),
            format!("{DEFAULT_CONFIG}\tfsmonitor = evil\n[user]\n\tname = A\n"),
        )
        .unwrap();
        let done = restore(&gitdir, &Snapshot::default(), "r/.git");
        assert_eq!(
            done,
            [
                "removed the hook r/.git/hooks/post-checkout, which the command made",
                "reverted core.fsmonitor in r/.git/config"
            ]
        );
        assert!(!gitdir.join("hooks/post-checkout").exists());
        assert!(gitdir.join("hooks/notes.txt").exists());
        assert!(gitdir.join("hooks/pre-commit.sample").exists());
        let config = fs::read_to_string(gitdir.join("config")).unwrap();
        assert!(!config.contains("fsmonitor") && config.contains("name = \"A\""));
        // Nothing more to do the second time.
        assert!(restore(&gitdir, &Snapshot::default(), "r/.git").is_empty());
    }

    #[test]
    fn an_existing_repositorys_own_hooks_stay_and_a_changed_one_is_restored() {
        let (_dir, gitdir) = repo();
        plant(
            &gitdir,
            "pre-commit",
            "#!/bin/sh\ncargo fmt --check\n",
            0o755,
        );
        plant(&gitdir, "pre-push", "#!/bin/sh\ncargo test\n", 0o755);
        let before = Snapshot::take(&gitdir);
        plant(&gitdir, "pre-push", "#!/bin/sh\nevil\n", 0o755);
        let done = restore(&gitdir, &before, ".git");
        assert_eq!(
            done,
            ["restored the hook .git/hooks/pre-push, which the command changed"]
        );
        assert_eq!(
            fs::read_to_string(gitdir.join("hooks/pre-push")).unwrap(),
            "#!/bin/sh\ncargo test\n"
        );
        let mode = fs::metadata(gitdir.join("hooks/pre-push"))
            .unwrap()
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o755);
    }

    #[test]
    fn a_symlinked_hooks_folder_and_config_are_taken_back() {
        let (dir, gitdir) = repo();
        let elsewhere = dir.path().join("elsewhere");
        fs::create_dir_all(&elsewhere).unwrap();
        fs::remove_dir_all(gitdir.join("hooks")).unwrap();
        std::os::unix::fs::symlink(&elsewhere, gitdir.join("hooks")).unwrap();
        let before = Snapshot {
            config: Some(DEFAULT_CONFIG.as_bytes().to_vec()),
            ..Snapshot::default()
        };
        fs::remove_file(gitdir.join("config")).unwrap();
        std::os::unix::fs::symlink(elsewhere.join("cfg"), gitdir.join("config")).unwrap();
        let done = restore(&gitdir, &before, ".git");
        assert_eq!(done.len(), 2, "{done:?}");
        assert!(!gitdir.join("hooks").exists());
        assert_eq!(
            fs::read_to_string(gitdir.join("config")).unwrap(),
            DEFAULT_CONFIG
        );
    }

    #[test]
    fn a_git_file_resolves_inside_the_root_only() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap().join("ws");
        fs::create_dir_all(root.join("evil")).unwrap();
        fs::create_dir_all(root.join("sub")).unwrap();
        fs::write(root.join("sub/.git"), "gitdir: ../evil\n").unwrap();
        assert_eq!(
            resolve(&root.join("sub/.git"), &root),
            Some(root.join("evil"))
        );
        fs::write(root.join("sub/.git"), "gitdir: ../../\n").unwrap();
        assert_eq!(resolve(&root.join("sub/.git"), &root), None);
        fs::write(root.join("evil/commondir"), "../sub\n").unwrap();
        assert_eq!(
            common_dir(&root.join("evil"), &root),
            Some(root.join("sub"))
        );
    }
}
