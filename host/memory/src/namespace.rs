//! Namespaces keep one project's memories apart from another's in the
//! one database of a user's data dir.

use std::path::Path;

/// The default namespace of a workspace: its root path, canonical when
/// it can be, so `-C .` and an absolute path name the same project.
pub fn for_workspace(root: &Path) -> String {
    let root = root.canonicalize().unwrap_or_else(|_| root.to_path_buf());
    format!("project:{}", root.display())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_same_directory_spelled_twice_is_one_namespace() {
        let dir = tempfile::tempdir().unwrap();
        let dotted = dir.path().join(".");
        assert_eq!(for_workspace(dir.path()), for_workspace(&dotted));
        assert!(for_workspace(dir.path()).starts_with("project:/"));
    }
}
