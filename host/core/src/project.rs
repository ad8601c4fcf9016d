//! The project root: where amber works, found the way Codex and Claude
//! Code find it, so symbol ids, the index, sessions and the memory
//! namespace are the same from any folder of a project.
//!
//! Order: `-C DIR`, then `$AMBER_WORKSPACE`, then the nearest folder at or
//! above the current one that holds `.amber/` or `.git` (a folder, or the
//! file a worktree has), then the current folder. A marker in the home
//! folder or above it is not taken unless amber runs there: a home kept in
//! git (dotfiles) must not make the whole home one project, which the
//! sandbox would refuse anyway since it holds amber's own state.

use std::path::{Path, PathBuf};

/// The markers of a project's root, nearest first wins; `.amber/` before
/// `.git` in the same folder only matters for the name reported.
pub const ROOT_MARKERS: [&str; 2] = [".amber", ".git"];

/// How the root was found; `amber doctor` reports it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RootRule {
    /// `-C DIR`.
    Flag,
    /// `$AMBER_WORKSPACE`.
    Environment,
    /// The nearest folder holding this marker (`.amber` or `.git`).
    Marker(&'static str),
    /// No marker between here and the home folder.
    CurrentDir,
}

impl RootRule {
    /// The rule in a few words, for people.
    pub fn describe(&self) -> String {
        match self {
            RootRule::Flag => "given with -C".into(),
            RootRule::Environment => "$AMBER_WORKSPACE".into(),
            RootRule::Marker(marker) => {
                format!("the nearest folder holding {marker}, walking up from the current one")
            }
            RootRule::CurrentDir => {
                "the current folder: no .amber/ or .git above it, up to the home folder".into()
            }
        }
    }

    /// A short stable name, for `--json`.
    pub fn name(&self) -> &'static str {
        match self {
            RootRule::Flag => "flag",
            RootRule::Environment => "env",
            RootRule::Marker(".amber") => "amber-marker",
            RootRule::Marker(_) => "git-marker",
            RootRule::CurrentDir => "current-dir",
        }
    }
}

/// The root, how it was found, and where inside it amber was started.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProjectRoot {
    /// Absolute and canonical (symlinks resolved once, here).
    pub root: PathBuf,
    pub rule: RootRule,
    /// The current folder relative to the root when the root was found by
    /// walking up (empty at the root). With `-C` or `$AMBER_WORKSPACE` it
    /// is empty: amber works as if started in the root, as `git -C` does.
    pub subdir: PathBuf,
}

impl ProjectRoot {
    /// The folder relative paths on the command line are read from.
    pub fn start_dir(&self) -> PathBuf {
        self.root.join(&self.subdir)
    }

    /// The folders from the root down to [`Self::start_dir`], root first.
    pub fn folders_down_to_start(&self) -> Vec<PathBuf> {
        let mut folders = vec![self.root.clone()];
        let mut at = self.root.clone();
        for part in self.subdir.components() {
            at.push(part);
            folders.push(at.clone());
        }
        folders
    }
}

/// Where to look, injected so the walk is testable without changing the
/// process's current directory or environment.
/// Why no root could be chosen.
#[derive(Debug, thiserror::Error)]
pub enum RootError {
    #[error("cannot read the current directory: {0}")]
    CurrentDir(std::io::Error),
    #[error("workspace {} does not exist ({source})", dir.display())]
    Missing {
        dir: PathBuf,
        source: std::io::Error,
    },
}

pub struct RootInputs<'a> {
    pub flag: Option<&'a Path>,
    pub env: Option<PathBuf>,
    pub current_dir: PathBuf,
    pub home: Option<PathBuf>,
}

impl RootInputs<'_> {
    /// The inputs of this process.
    pub fn from_process(flag: Option<&Path>) -> Result<RootInputs<'_>, RootError> {
        let var = |key: &str| std::env::var_os(key).filter(|v| !v.is_empty());
        Ok(RootInputs {
            flag,
            env: var("AMBER_WORKSPACE").map(PathBuf::from),
            current_dir: std::env::current_dir().map_err(RootError::CurrentDir)?,
            home: var("HOME").map(PathBuf::from),
        })
    }
}

/// The root, once resolved: every later resolution in the process gets the
/// same one, so nothing can move the workspace under a running session.
/// Process-wide on purpose: it is the `amber` binary's answer to "where
/// am I working", read from its flags and its folder, which are the
/// process's. An App is handed its `ProjectRoot` and never asks this, so
/// two Apps in one process may work in two roots.
static RESOLVED: std::sync::OnceLock<ProjectRoot> = std::sync::OnceLock::new();

/// The root of this process (see [`find_root`]), resolved on the first
/// call; later calls return the same one whatever `flag` says.
pub fn resolve_once(flag: Option<&Path>) -> Result<ProjectRoot, RootError> {
    if let Some(found) = RESOLVED.get() {
        return Ok(found.clone());
    }
    let found = find_root(&RootInputs::from_process(flag)?)?;
    Ok(RESOLVED.get_or_init(|| found).clone())
}

/// Finds the root; see the module doc for the order. Fails only when the
/// chosen folder does not exist.
pub fn find_root(inputs: &RootInputs<'_>) -> Result<ProjectRoot, RootError> {
    let canonical = |dir: &Path| {
        std::fs::canonicalize(dir).map_err(|source| RootError::Missing {
            dir: dir.to_path_buf(),
            source,
        })
    };
    let given = match (inputs.flag, &inputs.env) {
        (Some(dir), _) => Some((inputs.current_dir.join(dir), RootRule::Flag)),
        (None, Some(dir)) => Some((inputs.current_dir.join(dir), RootRule::Environment)),
        (None, None) => None,
    };
    if let Some((dir, rule)) = given {
        return Ok(ProjectRoot {
            root: canonical(&dir)?,
            rule,
            subdir: PathBuf::new(),
        });
    }
    let current = canonical(&inputs.current_dir)?;
    let home = inputs
        .home
        .as_deref()
        .and_then(|h| std::fs::canonicalize(h).ok());
    for dir in current.ancestors() {
        // The home and its parents count only when amber runs right there.
        let at_or_above_home = home.as_deref().is_some_and(|h| h.starts_with(dir));
        if at_or_above_home && dir != current {
            break;
        }
        if let Some(marker) = ROOT_MARKERS.iter().find(|m| dir.join(m).exists()) {
            let subdir = current
                .strip_prefix(dir)
                .unwrap_or(Path::new(""))
                .to_path_buf();
            return Ok(ProjectRoot {
                root: dir.to_path_buf(),
                rule: RootRule::Marker(marker),
                subdir,
            });
        }
    }
    Ok(ProjectRoot {
        root: current,
        rule: RootRule::CurrentDir,
        subdir: PathBuf::new(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Tree {
        _dir: tempfile::TempDir,
        top: PathBuf,
    }

    /// `top/home/proj/.git`, `top/home/proj/a/b`, `top/home/loose/c`.
    fn tree() -> Tree {
        let dir = tempfile::tempdir().unwrap();
        let top = dir.path().canonicalize().unwrap();
        std::fs::create_dir_all(top.join("home/proj/.git")).unwrap();
        std::fs::create_dir_all(top.join("home/proj/a/b")).unwrap();
        std::fs::create_dir_all(top.join("home/loose/c")).unwrap();
        Tree { _dir: dir, top }
    }

    fn find(t: &Tree, cwd: &str, flag: Option<&str>, env: Option<&str>) -> ProjectRoot {
        let flag = flag.map(PathBuf::from);
        find_root(&RootInputs {
            flag: flag.as_deref(),
            env: env.map(|e| t.top.join(e)),
            current_dir: t.top.join(cwd),
            home: Some(t.top.join("home")),
        })
        .unwrap()
    }

    #[test]
    fn a_subfolder_finds_the_git_root_and_remembers_where_it_started() {
        let t = tree();
        let found = find(&t, "home/proj/a/b", None, None);
        assert_eq!(found.root, t.top.join("home/proj"));
        assert_eq!(found.rule, RootRule::Marker(".git"));
        assert_eq!(found.subdir, PathBuf::from("a/b"));
        assert_eq!(
            found.folders_down_to_start(),
            [
                t.top.join("home/proj"),
                t.top.join("home/proj/a"),
                t.top.join("home/proj/a/b")
            ]
        );
        assert_eq!(find(&t, "home/proj", None, None).subdir, PathBuf::new());
    }

    #[test]
    fn the_nearest_amber_folder_wins_over_a_git_root_above_it() {
        let t = tree();
        std::fs::create_dir_all(t.top.join("home/proj/a/.amber")).unwrap();
        let found = find(&t, "home/proj/a/b", None, None);
        assert_eq!(
            (found.root, found.rule),
            (t.top.join("home/proj/a"), RootRule::Marker(".amber"))
        );
    }

    #[test]
    fn the_flag_then_the_environment_win_and_start_at_the_root() {
        let t = tree();
        let flag = t.top.join("home/loose").to_string_lossy().into_owned();
        let found = find(&t, "home/proj/a", Some(&flag), Some("home/proj"));
        assert_eq!((found.rule, found.subdir), (RootRule::Flag, PathBuf::new()));
        let found = find(&t, "home/proj/a", None, Some("home/loose"));
        assert_eq!(
            (found.root, found.rule),
            (t.top.join("home/loose"), RootRule::Environment)
        );
    }

    #[test]
    fn no_marker_below_the_home_means_the_current_folder() {
        let t = tree();
        // A dotfiles repository in the home is not a project root for its
        // subfolders ...
        std::fs::create_dir_all(t.top.join("home/.git")).unwrap();
        let found = find(&t, "home/loose/c", None, None);
        assert_eq!(
            (found.root, found.rule),
            (t.top.join("home/loose/c"), RootRule::CurrentDir)
        );
        // ... but is one when amber runs in the home itself.
        let found = find(&t, "home", None, None);
        assert_eq!(found.rule, RootRule::Marker(".git"));
    }

    #[test]
    fn a_missing_folder_is_named() {
        let t = tree();
        let err = find_root(&RootInputs {
            flag: Some(Path::new("nope")),
            env: None,
            current_dir: t.top.clone(),
            home: None,
        })
        .unwrap_err()
        .to_string();
        assert!(
            err.contains("nope") && err.contains("does not exist"),
            "{err}"
        );
    }
}
