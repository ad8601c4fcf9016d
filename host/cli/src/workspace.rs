//! The project root (`amber_core::project`), resolved once per process so
//! everything that confines paths (dispatch, shell_classify, exec) uses
//! this one root, and the paths a user types on the command line.

use std::path::{Path, PathBuf};

use amber_core::project::{self, ProjectRoot};
use anyhow::Context;

pub fn resolve(flag: Option<&Path>) -> anyhow::Result<ProjectRoot> {
    project::resolve_once(flag).map_err(anyhow::Error::from)
}

/// A path typed on the command line, as a path from the root: a relative
/// one is read from the folder amber was started in (the root itself under
/// `-C` or `$AMBER_WORKSPACE`), as every command-line tool reads it; an
/// absolute one must be inside the root.
pub fn typed_path(project: &ProjectRoot, typed: &Path) -> anyhow::Result<PathBuf> {
    let text = typed.to_string_lossy();
    let start = project.start_dir();
    let absolute = if typed.is_absolute() {
        typed.to_path_buf()
    } else {
        amber_core::confine(&project.root, &project.subdir.join(typed).to_string_lossy())
            .with_context(|| format!("`{text}` (from {})", start.display()))?
    };
    let inside = amber_core::confine(&project.root, &absolute.to_string_lossy())
        .with_context(|| format!("`{text}`"))?;
    Ok(inside
        .strip_prefix(&project.root)
        .map(Path::to_path_buf)
        .unwrap_or_default())
}

#[cfg(test)]
mod tests {
    use super::*;
    use amber_core::project::RootRule;

    fn project(subdir: &str) -> ProjectRoot {
        ProjectRoot {
            root: PathBuf::from("/ws"),
            rule: RootRule::Marker(".git"),
            subdir: PathBuf::from(subdir),
        }
    }

    #[test]
    fn relative_paths_are_read_from_the_start_folder() {
        let p = project("src/app");
        let path = |s: &str| typed_path(&p, Path::new(s)).unwrap();
        assert_eq!(path("main.rs"), PathBuf::from("src/app/main.rs"));
        assert_eq!(path("../lib.rs"), PathBuf::from("src/lib.rs"));
        assert_eq!(path("/ws/README.md"), PathBuf::from("README.md"));
        assert_eq!(path("."), PathBuf::from("src/app"));
        assert_eq!(
            typed_path(&project(""), Path::new("a.rs")).unwrap(),
            PathBuf::from("a.rs")
        );
    }

    #[test]
    fn a_path_out_of_the_root_is_refused() {
        let p = project("src");
        assert!(typed_path(&p, Path::new("../../etc/passwd")).is_err());
        assert!(typed_path(&p, Path::new("/etc/passwd")).is_err());
    }
}
