//! One repository's runnable parts, its hooks and its `config`: where a
//! `.git` leads, what they held before a command, and putting them back.
//!
//! git runs an executable file of `hooks/` (but `*.sample`) on checkout,
//! commit, merge and more, and its config can name programs to run. A
//! command that wrote either would get code run later, outside the
//! sandbox, by the user's own git. After a command: a hook that was not
//! there before is removed, one that changed or went is put back, and the
//! config keeps only safe keys plus what it held before
//! ([`super::git_config`]). Every change goes through [`Folder`], so no
//! symlink leads amber's own writes out of the repository.

use std::collections::BTreeMap;
use std::ffi::{OsStr, OsString};
use std::path::{Path, PathBuf};

use rustix::fs::FileType;

use super::beneath::{Changed, Folder};
use super::git_config;

/// A hook bigger than this is kept in a snapshot as a hash only: if it
/// changes it cannot be restored, and is removed (a real hook is a script
/// of a few kilobytes).
const MAX_HOOK_BYTES: u64 = 8 << 20;
/// A config bigger than this is not parsed.
const MAX_CONFIG_BYTES: u64 = 1 << 20;
/// What a `.git` file may hold; more is not a pointer.
const MAX_POINTER_BYTES: u64 = 4096;

/// Where a `.git` entry leads.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Leads {
    /// A repository folder inside the workspace (resolved).
    Inside(PathBuf),
    /// A folder outside it.
    Outside,
    /// Nothing git could use.
    Nowhere,
}

/// The repository a `.git` entry leads to, read as git reads it
/// (`read_gitfile_gently`): a folder (or a symlink to one); a file (or a
/// symlink to one) that holds `gitdir: PATH`, exactly that prefix, the
/// path being the rest of the file less its trailing CR and LF, relative
/// to the folder of the `.git`.
pub fn resolve(dot_git: &Path, root: &Path) -> Leads {
    let Ok(meta) = std::fs::metadata(dot_git) else {
        return Leads::Nowhere;
    };
    let target = if meta.is_file() {
        if meta.len() > MAX_POINTER_BYTES {
            return Leads::Nowhere;
        }
        let Ok(bytes) = std::fs::read(dot_git) else {
            return Leads::Nowhere;
        };
        let Some(rest) = bytes.strip_prefix(b"gitdir: ") else {
            return Leads::Nowhere;
        };
        let mut end = rest.len();
        while end > 0 && matches!(rest[end - 1], b'\n' | b'\r') {
            end -= 1;
        }
        let pointer = Path::new(<OsStr as std::os::unix::ffi::OsStrExt>::from_bytes(
            &rest[..end],
        ));
        match dot_git.parent() {
            Some(parent) => parent.join(pointer),
            None => return Leads::Nowhere,
        }
    } else if meta.is_dir() {
        dot_git.to_path_buf()
    } else {
        return Leads::Nowhere;
    };
    match target.canonicalize() {
        Ok(real) if real.is_dir() && real.starts_with(root) => Leads::Inside(real),
        Ok(real) if real.is_dir() => Leads::Outside,
        _ => Leads::Nowhere,
    }
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
    let real = gitdir
        .join(text.trim_end_matches(['\n', '\r']))
        .canonicalize()
        .ok()?;
    (real.is_dir() && real.starts_with(root) && real != gitdir).then_some(real)
}

/// One runnable hook as it was.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Hook {
    File {
        mode: u32,
        bytes: Vec<u8>,
    },
    /// Too big to keep: its hash.
    Big {
        mode: u32,
        hash: u64,
    },
    Link(OsString),
}

/// A repository's `config` as it was.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Config {
    Missing,
    Bytes(Vec<u8>),
    Link(OsString),
    /// A folder, a device, or a file too big to parse.
    Other,
}

/// A repository's hooks and config as they were before a command.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Snapshot {
    /// The runnable hooks, when `hooks` was a folder.
    hooks: BTreeMap<OsString, Hook>,
    /// `hooks` was a symlink to this.
    hooks_link: Option<OsString>,
    config: Config,
    /// The config's permissions (a config with tokens in its remote URLs
    /// may be private).
    config_mode: u32,
    /// What `commondir` held: it names where git takes config and hooks.
    commondir: Option<Vec<u8>>,
    /// Taken of a repository that existed; [`Snapshot::created`] stands
    /// for one the command made.
    existed: bool,
}

/// A file git would run as a hook: executable, or a symlink (git follows
/// it), and not one of git's `*.sample` files.
fn is_runnable(name: &OsStr, kind: FileType, mode: u32) -> bool {
    !name.to_string_lossy().ends_with(".sample")
        && (kind == FileType::Symlink || (kind == FileType::RegularFile && mode & 0o111 != 0))
}

/// The runnable hooks of the folder `hooks`, as they are now.
fn runnable_hooks(hooks: &Folder) -> BTreeMap<OsString, Hook> {
    let mut found = BTreeMap::new();
    for name in hooks.names().unwrap_or_default() {
        let Ok(stat) = hooks.stat(&name) else {
            continue;
        };
        if !is_runnable(&name, stat.kind, stat.mode) {
            continue;
        }
        let hook = if stat.kind == FileType::Symlink {
            match hooks.read_link(&name) {
                Ok(target) => Hook::Link(target),
                Err(_) => continue,
            }
        } else {
            // Read whole only up to the cap: a hook of a terabyte (sparse)
            // must not take amber's memory.
            match hooks.read(&name, MAX_HOOK_BYTES) {
                Ok(Some(bytes)) => Hook::File {
                    mode: stat.mode,
                    bytes,
                },
                _ => match hooks.hash(&name) {
                    Ok(hash) => Hook::Big {
                        mode: stat.mode,
                        hash,
                    },
                    Err(_) => continue,
                },
            }
        };
        found.insert(name, hook);
    }
    found
}

fn config_now(gitdir: &Folder) -> Config {
    let name = OsStr::new("config");
    let Ok(stat) = gitdir.stat(name) else {
        return Config::Missing;
    };
    match stat.kind {
        FileType::Symlink => gitdir
            .read_link(name)
            .map(Config::Link)
            .unwrap_or(Config::Other),
        FileType::RegularFile => match gitdir.read(name, MAX_CONFIG_BYTES) {
            Ok(Some(bytes)) => Config::Bytes(bytes),
            _ => Config::Other,
        },
        _ => Config::Other,
    }
}

impl Snapshot {
    /// What a repository the command created is compared with: nothing.
    pub fn created() -> Snapshot {
        Snapshot {
            hooks: BTreeMap::new(),
            hooks_link: None,
            config: Config::Missing,
            config_mode: 0o644,
            commondir: None,
            existed: false,
        }
    }

    pub fn take(gitdir: &Folder) -> Snapshot {
        let hooks_name = OsStr::new("hooks");
        let hooks_link = gitdir
            .stat(hooks_name)
            .ok()
            .filter(|s| s.kind == FileType::Symlink)
            .and_then(|_| gitdir.read_link(hooks_name).ok());
        let hooks = gitdir
            .child(hooks_name)
            .map(|h| runnable_hooks(&h))
            .unwrap_or_default();
        let config_mode = gitdir
            .stat(OsStr::new("config"))
            .map(|s| s.mode)
            .unwrap_or(0o644);
        Snapshot {
            hooks,
            hooks_link,
            config: config_now(gitdir),
            config_mode,
            commondir: gitdir
                .read(OsStr::new("commondir"), MAX_POINTER_BYTES)
                .ok()
                .flatten(),
            existed: true,
        }
    }
}

/// Whether anything git runs from in this repository changed at or after
/// `since`: the folder, `hooks/` and each hook, `config`, `commondir`.
/// Change times cannot be set back, so a repository that says no was not
/// touched by any command since then.
pub fn touched_since(gitdir: &Folder, since: Changed) -> bool {
    let after = |changed: Changed| changed >= since;
    if gitdir.changed().map_or(true, after) {
        return true;
    }
    for name in ["hooks", "config", "commondir"] {
        if gitdir
            .stat(OsStr::new(name))
            .is_ok_and(|s| after(s.changed))
        {
            return true;
        }
    }
    let Ok(hooks) = gitdir.child(OsStr::new("hooks")) else {
        return false;
    };
    hooks
        .names()
        .unwrap_or_default()
        .iter()
        .any(|name| hooks.stat(name).is_ok_and(|s| after(s.changed)))
}

/// Puts `gitdir`'s hooks and config back to `before` plus what is safe.
/// `common_outside`: its `commondir` leads out of the workspace (git would
/// take config and hooks from there). Returns what was done, one line
/// each, naming paths as `shown` (the repository folder relative to the
/// workspace) does.
pub fn restore(
    gitdir: &Folder,
    before: &Snapshot,
    shown: &str,
    common_outside: bool,
) -> Vec<String> {
    let mut done = Vec::new();
    restore_hooks(gitdir, before, shown, &mut done);
    restore_config(gitdir, before, shown, &mut done);
    let commondir = OsStr::new("commondir");
    if common_outside
        && gitdir.read(commondir, MAX_POINTER_BYTES).ok().flatten() != before.commondir
    {
        let label = format!("{shown}/commondir");
        done.push(said(
            gitdir.remove(commondir),
            format!("removed {label}, which leads out of the workspace"),
            &label,
        ));
    }
    done
}

/// Whether `gitdir`'s `commondir` names a folder out of `root` (or
/// nothing git could use).
pub fn common_outside(gitdir: &Path, root: &Path) -> bool {
    let file = gitdir.join("commondir");
    std::fs::symlink_metadata(&file).is_ok() && common_dir(gitdir, root).is_none()
}

fn said(result: std::io::Result<()>, done: String, label: &str) -> String {
    match result {
        Ok(()) => done,
        Err(e) => format!("could not put back {label}: {e}"),
    }
}

fn put_back(hooks: &Folder, name: &OsStr, hook: &Hook) -> std::io::Result<()> {
    match hook {
        Hook::File { mode, bytes } => hooks.write(name, bytes, *mode),
        Hook::Link(target) => hooks.symlink(target, name),
        Hook::Big { .. } => hooks.remove(name),
    }
}

fn restore_hooks(gitdir: &Folder, before: &Snapshot, shown: &str, done: &mut Vec<String>) {
    let name = OsStr::new("hooks");
    let label = format!("{shown}/hooks");
    let stat = gitdir.stat(name).ok();
    if stat.is_some_and(|s| s.kind == FileType::Symlink) {
        let now = gitdir.read_link(name).ok();
        if now.is_some() && now == before.hooks_link {
            return;
        }
        let result = gitdir.remove(name);
        done.push(said(
            result,
            format!("removed {label}, a symlink the command made"),
            &label,
        ));
    } else if stat.is_some_and(|s| s.kind != FileType::Directory) {
        let result = gitdir.remove(name);
        done.push(said(
            result,
            format!("removed {label}, which the command replaced"),
            &label,
        ));
    }
    if before.hooks.is_empty() && gitdir.child(name).is_err() {
        return;
    }
    // The hooks folder the repository had, made again if the command
    // removed or replaced it, so its hooks can come back.
    if gitdir.child(name).is_err() {
        let _ = gitdir.mkdir(name, 0o755);
    }
    let Ok(hooks) = gitdir.child(name) else {
        return;
    };
    let now = runnable_hooks(&hooks);
    for (name, hook) in &now {
        let label = format!("{label}/{}", name.to_string_lossy());
        match before.hooks.get(name) {
            Some(old) if old == hook => {}
            Some(old @ Hook::Big { .. }) => done.push(said(
                put_back(&hooks, name, old),
                format!(
                    "removed the hook {label}, which the command changed (it was too big to keep)"
                ),
                &label,
            )),
            Some(old) => done.push(said(
                put_back(&hooks, name, old),
                format!("restored the hook {label}, which the command changed"),
                &label,
            )),
            None => done.push(said(
                hooks.remove(name),
                format!("removed the hook {label}, which the command made"),
                &label,
            )),
        }
    }
    // A hook the command removed (a pre-commit that stopped secrets, say)
    // comes back.
    for (name, old) in &before.hooks {
        if now.contains_key(name) {
            continue;
        }
        let label = format!("{label}/{}", name.to_string_lossy());
        if matches!(old, Hook::Big { .. }) {
            done.push(format!("the hook {label} was removed by the command and cannot be put back (it was too big to keep)"));
            continue;
        }
        done.push(said(
            put_back(&hooks, name, old),
            format!("restored the hook {label}, which the command removed"),
            &label,
        ));
    }
}

/// What `git init` writes on Linux.
const DEFAULT_CONFIG: &str = "[core]\n\trepositoryformatversion = 0\n\tfilemode = true\n\tbare = false\n\tlogallrefupdates = true\n";

fn restore_config(gitdir: &Folder, before: &Snapshot, shown: &str, done: &mut Vec<String>) {
    let name = OsStr::new("config");
    let label = format!("{shown}/config");
    let now = config_now(gitdir);
    if before.existed && now == before.config {
        return;
    }
    let write = |text: &[u8]| gitdir.write(name, text, before.config_mode);
    let old_entries = match &before.config {
        Config::Bytes(old) => git_config::parse(&String::from_utf8_lossy(old)).unwrap_or_default(),
        _ => Vec::new(),
    };
    match (&before.config, &now) {
        (_, Config::Missing) if !before.existed => {}
        (Config::Missing, _) if before.existed => done.push(said(
            gitdir.remove(name),
            format!("removed {label}, which the command made"),
            &label,
        )),
        (Config::Link(target), _) => done.push(said(
            gitdir.symlink(target, name),
            format!("restored {label}, which the command changed"),
            &label,
        )),
        (Config::Other, now) if before.existed && !matches!(now, Config::Bytes(_)) => {
            done.push(format!("{label} changed and could not be put back (it was not a plain file amber could read)"));
        }
        (_, Config::Bytes(bytes)) => {
            // Rewritten whenever it changed, from what was parsed: no trick
            // of the syntax that git reads otherwise survives.
            match git_config::sanitize(&String::from_utf8_lossy(bytes), &old_entries) {
                Ok(out) => {
                    let text = match &before.config {
                        Config::Bytes(old) if out.kept == old_entries => old.clone(),
                        _ => git_config::render(&out.kept).into_bytes(),
                    };
                    let result = write(&text);
                    if !out.dropped.is_empty() || result.is_err() {
                        done.push(said(
                            result,
                            format!("reverted {} in {label}", out.dropped.join(", ")),
                            &label,
                        ));
                    }
                }
                Err(e) => {
                    let text = match &before.config {
                        Config::Bytes(old) => old.clone(),
                        _ => DEFAULT_CONFIG.as_bytes().to_vec(),
                    };
                    done.push(said(
                        write(&text),
                        format!("reset {label}, which git could not read either ({e})"),
                        &label,
                    ));
                }
            }
        }
        (old, _) => {
            let text = match old {
                Config::Bytes(old) => old.clone(),
                _ => DEFAULT_CONFIG.as_bytes().to_vec(),
            };
            done.push(said(
                write(&text),
                format!("reset {label}, which the command replaced"),
                &label,
            ));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;
    use std::os::unix::fs::PermissionsExt;

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

    fn open(gitdir: &Path) -> Folder {
        Folder::open_beneath(gitdir, Path::new("")).unwrap()
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
        let done = restore(&open(&gitdir), &Snapshot::created(), "r/.git", false);
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
        // Nothing more to report the second time.
        assert!(restore(&open(&gitdir), &Snapshot::created(), "r/.git", false).is_empty());
    }

    #[test]
    fn an_existing_repositorys_own_hooks_stay_and_changed_or_removed_ones_come_back() {
        let (_dir, gitdir) = repo();
        plant(
            &gitdir,
            "pre-commit",
            "#!/bin/sh\ncargo fmt --check\n",
            0o755,
        );
        plant(&gitdir, "pre-push", "#!/bin/sh\ncargo test\n", 0o755);
        let before = Snapshot::take(&open(&gitdir));
        plant(&gitdir, "pre-push", "#!/bin/sh\nevil\n", 0o755);
        fs::remove_file(gitdir.join("hooks/pre-commit")).unwrap();
        let done = restore(&open(&gitdir), &before, ".git", false);
        assert_eq!(
            done,
            [
                "restored the hook .git/hooks/pre-push, which the command changed",
                "restored the hook .git/hooks/pre-commit, which the command removed"
            ]
        );
        assert_eq!(
            fs::read_to_string(gitdir.join("hooks/pre-push")).unwrap(),
            "#!/bin/sh\ncargo test\n"
        );
        let mode = fs::metadata(gitdir.join("hooks/pre-commit"))
            .unwrap()
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o755);
    }

    #[test]
    fn an_unchanged_config_is_left_and_a_changed_one_goes_back_to_its_very_bytes() {
        let (_dir, gitdir) = repo();
        let original = "[core]\n\tbare = false\n  # the user's own comment\n";
        fs::write(gitdir.join("config"), original).unwrap();
        let before = Snapshot::take(&open(&gitdir));
        assert!(restore(&open(&gitdir), &before, ".git", false).is_empty());
        fs::write(gitdir.join("config"), format!("{original}\tpager = evil\n")).unwrap();
        let done = restore(&open(&gitdir), &before, ".git", false);
        assert_eq!(done, ["reverted core.pager in .git/config"]);
        assert_eq!(fs::read_to_string(gitdir.join("config")).unwrap(), original);
        // A config git cannot read goes back whole too.
        fs::write(gitdir.join("config"), "[core\n").unwrap();
        restore(&open(&gitdir), &before, ".git", false);
        assert_eq!(fs::read_to_string(gitdir.join("config")).unwrap(), original);
    }

    #[test]
    fn a_symlinked_hooks_folder_and_config_are_taken_back_without_following_them() {
        let (dir, gitdir) = repo();
        let elsewhere = dir.path().canonicalize().unwrap().join("elsewhere");
        fs::create_dir_all(&elsewhere).unwrap();
        fs::write(elsewhere.join("cfg"), "outside").unwrap();
        let before = Snapshot::take(&open(&gitdir));
        fs::remove_dir_all(gitdir.join("hooks")).unwrap();
        std::os::unix::fs::symlink(&elsewhere, gitdir.join("hooks")).unwrap();
        fs::remove_file(gitdir.join("config")).unwrap();
        std::os::unix::fs::symlink(elsewhere.join("cfg"), gitdir.join("config")).unwrap();
        let done = restore(&open(&gitdir), &before, ".git", false);
        assert_eq!(done.len(), 2, "{done:?}");
        assert!(!gitdir.join("hooks").exists());
        assert_eq!(
            fs::read_to_string(gitdir.join("config")).unwrap(),
            DEFAULT_CONFIG
        );
        assert_eq!(
            fs::read_to_string(elsewhere.join("cfg")).unwrap(),
            "outside"
        );
    }

    #[test]
    fn a_git_file_is_read_as_git_reads_it() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap().join("ws");
        fs::create_dir_all(root.join("evil")).unwrap();
        fs::create_dir_all(root.join(" evil")).unwrap();
        fs::create_dir_all(root.join("sub")).unwrap();
        let git = root.join("sub/.git");
        fs::write(&git, "gitdir: ../evil\n").unwrap();
        assert_eq!(resolve(&git, &root), Leads::Inside(root.join("evil")));
        // Exactly one space after the colon: the rest is the path.
        fs::write(&git, "gitdir:  ../evil\r\n").unwrap();
        assert_eq!(resolve(&git, &root), Leads::Nowhere);
        fs::write(&git, "gitdir: ../ evil\n").unwrap();
        assert_eq!(resolve(&git, &root), Leads::Inside(root.join(" evil")));
        fs::write(&git, "gitdir: ../../\n").unwrap();
        assert_eq!(resolve(&git, &root), Leads::Outside);
        // A symlink to a pointer file is followed, as git follows it.
        fs::write(root.join("pointer"), "gitdir: ../evil\n").unwrap();
        fs::remove_file(&git).unwrap();
        std::os::unix::fs::symlink(root.join("pointer"), &git).unwrap();
        assert_eq!(resolve(&git, &root), Leads::Inside(root.join("evil")));
        fs::write(root.join("evil/commondir"), "../sub\n").unwrap();
        assert_eq!(
            common_dir(&root.join("evil"), &root),
            Some(root.join("sub"))
        );
    }
}
