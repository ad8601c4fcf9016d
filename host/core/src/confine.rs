//! Path confinement. Seed: "Path confinement".
//!
//! Purely lexical: the path is normalised without touching the filesystem,
//! and anything that leaves the root is rejected before any I/O happens.
//! Symlinks are the I/O layer's job (cap-std and WASI preopens refuse to
//! follow them out of the root).

use std::path::{Component, Path, PathBuf};

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ConfineError {
    #[error("empty path")]
    Empty,
    #[error("the workspace root `{0}` is not an absolute path")]
    RootNotAbsolute(PathBuf),
    #[error("`{path}` is outside the workspace `{root}`")]
    Escapes { path: String, root: PathBuf },
}

/// Normalises `.` and `..` lexically. Returns None when `..` climbs above
/// the start of the path.
fn normalise(path: &Path) -> Option<PathBuf> {
    let mut out = PathBuf::new();
    let mut depth = 0usize;
    for component in path.components() {
        match component {
            Component::Prefix(p) => out.push(p.as_os_str()),
            Component::RootDir => out.push(Component::RootDir.as_os_str()),
            Component::CurDir => {}
            Component::ParentDir => {
                if depth == 0 {
                    return None;
                }
                out.pop();
                depth -= 1;
            }
            Component::Normal(name) => {
                out.push(name);
                depth += 1;
            }
        }
    }
    Some(out)
}

/// Resolves `input` (relative to `root`, or absolute) to an absolute path
/// inside `root`, or says why not.
pub fn confine(root: &Path, input: &str) -> Result<PathBuf, ConfineError> {
    if input.is_empty() {
        return Err(ConfineError::Empty);
    }
    if !root.is_absolute() {
        return Err(ConfineError::RootNotAbsolute(root.to_path_buf()));
    }
    let escapes = || ConfineError::Escapes {
        path: input.to_string(),
        root: root.to_path_buf(),
    };
    let root = normalise(root).ok_or_else(escapes)?;
    let joined = root.join(input);
    let normal = normalise(&joined).ok_or_else(escapes)?;
    // Component-wise prefix matching is the slash-terminated match: `/ws2`
    // does not start with the components of `/ws`.
    if normal.starts_with(&root) {
        Ok(normal)
    } else {
        Err(escapes())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ok(input: &str) -> PathBuf {
        confine(Path::new("/ws"), input).unwrap()
    }

    fn rejected(input: &str) -> bool {
        confine(Path::new("/ws"), input).is_err()
    }

    #[test]
    fn relative_and_absolute_inside_paths_resolve() {
        assert_eq!(ok("src/main.rs"), PathBuf::from("/ws/src/main.rs"));
        assert_eq!(ok("./a/../b"), PathBuf::from("/ws/b"));
        assert_eq!(ok("/ws/x"), PathBuf::from("/ws/x"));
        assert_eq!(ok("."), PathBuf::from("/ws"));
    }

    #[test]
    fn escapes_and_sibling_prefixes_are_rejected() {
        assert!(rejected(""));
        assert!(rejected("../etc/passwd"));
        assert!(rejected("a/../../x"));
        assert!(rejected("/etc/passwd"));
        assert!(rejected("/ws2/file"));
        assert!(rejected("/ws/../ws2"));
    }

    #[test]
    fn a_relative_root_is_refused() {
        let err = confine(Path::new("ws"), "a").unwrap_err();
        assert_eq!(err, ConfineError::RootNotAbsolute(PathBuf::from("ws")));
    }
}
