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
    // An absolute path must name the root first; what follows is then
    // read as a relative path below it.
    let below = if Path::new(input).is_absolute() {
        Path::new(input)
            .strip_prefix(&root)
            .map_err(|_| escapes())?
    } else {
        Path::new(input)
    };
    // A path may not climb above the root even on the way: `../a/../ws`
    // and `/ws/../ws/x` end inside, but pass through the parent, which
    // the filesystem may resolve otherwise (a symlink's `..`).
    if normalise(below).is_none() {
        return Err(escapes());
    }
    let joined = root.join(below);
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
    use proptest::prelude::*;

    fn ok(input: &str) -> PathBuf {
        confine(Path::new("/ws"), input).unwrap()
    }

    fn rejected(input: &str) -> bool {
        confine(Path::new("/ws"), input).is_err()
    }

    /// Found by the property test below: the path ends at the root, but
    /// passes through its parent on the way.
    #[test]
    fn a_path_through_the_parent_is_refused_even_when_it_ends_inside() {
        assert!(rejected("../a/../a/../ws"));
        assert!(rejected("../ws/src/main.rs"));
        assert!(rejected("/ws/../ws/src/main.rs"));
        assert!(rejected("/tmp/../ws/src/main.rs"));
        assert_eq!(ok("/ws/a/../b"), PathBuf::from("/ws/b"));
        assert_eq!(ok("a/../b"), PathBuf::from("/ws/b"));
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

    /// A path of `depth`-changing components, and whether it ever climbs
    /// above the root (what a correct confinement must reject).
    fn walk() -> impl Strategy<Value = (String, bool)> {
        let component = prop_oneof![
            3 => "[a-z]{1,4}".prop_map(|s| s),
            2 => Just("..".to_string()),
            1 => Just(".".to_string()),
        ];
        proptest::collection::vec(component, 1..12).prop_map(|parts| {
            let mut depth = 0i32;
            let mut escaped = false;
            for p in &parts {
                match p.as_str() {
                    ".." => depth -= 1,
                    "." => {}
                    _ => depth += 1,
                }
                escaped |= depth < 0;
            }
            (parts.join("/"), escaped)
        })
    }

    proptest! {
        #[test]
        fn a_relative_path_is_accepted_exactly_when_it_never_climbs_out((path, escaped) in walk()) {
            let result = confine(Path::new("/ws"), &path);
            prop_assert_eq!(result.is_err(), escaped, "{}", path);
        }

        #[test]
        fn whatever_is_accepted_is_inside_the_root_normal_and_stable((path, _) in walk()) {
            if let Ok(inside) = confine(Path::new("/ws/project"), &path) {
                prop_assert!(inside.starts_with("/ws/project"));
                prop_assert!(!inside.components().any(|c| matches!(c, Component::ParentDir | Component::CurDir)));
                let again = confine(Path::new("/ws/project"), &inside.to_string_lossy());
                prop_assert_eq!(again, Ok(inside));
            }
        }

        #[test]
        fn absolute_paths_count_only_inside_the_root(name in "[a-z]{1,6}", tail in "[a-z]{1,6}") {
            // A sibling sharing the root's prefix is outside: `/ws2` is not in `/ws`.
            let sibling = format!("/ws{name}/{tail}");
            prop_assert!(confine(Path::new("/ws"), &sibling).is_err());
            let inside = format!("/ws/{name}/{tail}");
            prop_assert_eq!(confine(Path::new("/ws"), &inside), Ok(PathBuf::from(&inside)));
            let outside = format!("/{name}/{tail}");
            prop_assert_eq!(confine(Path::new("/ws"), &outside).is_err(), name != "ws");
        }
    }

    #[test]
    fn a_relative_root_is_refused() {
        let err = confine(Path::new("ws"), "a").unwrap_err();
        assert_eq!(err, ConfineError::RootNotAbsolute(PathBuf::from("ws")));
    }
}
