//! Where a path points, worked out from its text alone.
//!
//! The guard sees a tool's arguments before anything runs, so it cannot ask
//! the file system (and, as a plugin, it has no workspace grant): `..` and
//! `.` are folded lexically, symlinks are not followed, and a variable is
//! known only when it is `$HOME` or `$PWD`.

/// What a path is relative to once its prefix is read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Base {
    /// `/`.
    Root,
    /// `~`, `~user` or `$HOME`.
    Home,
    /// A variable the guard cannot know the value of, by name.
    Unknown(String),
}

/// A path resolved lexically: its base and its components below it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Place {
    pub base: Base,
    pub comps: Vec<String>,
}

impl Place {
    /// An absolute path, such as the workspace root.
    pub fn absolute(path: &str) -> Place {
        let root = Place {
            base: Base::Root,
            comps: Vec::new(),
        };
        Place::resolve(&root, path)
    }

    /// `path` as seen from `cwd`: relative paths continue it, `..` climbs
    /// (never above the base), and a known prefix replaces it.
    pub fn resolve(cwd: &Place, path: &str) -> Place {
        let (mut place, rest) = start(cwd, path);
        for comp in rest.split('/') {
            match comp {
                "" | "." => {}
                ".." => {
                    place.comps.pop();
                }
                name => place.comps.push(name.to_string()),
            }
        }
        place
    }

    /// Whether this is `root` or below it.
    pub fn is_under(&self, root: &Place) -> bool {
        self.base == root.base && self.comps.starts_with(&root.comps)
    }

    /// The last component, if any.
    pub fn file_name(&self) -> Option<&str> {
        self.comps.last().map(String::as_str)
    }

    /// The components below `root`, when this is under it.
    pub fn below<'a>(&'a self, root: &Place) -> Option<&'a [String]> {
        if self.is_under(root) {
            self.comps.get(root.comps.len()..)
        } else {
            None
        }
    }

    /// The path written out again, for a reason shown to the model.
    pub fn display(&self) -> String {
        let joined = self.comps.join("/");
        match &self.base {
            Base::Root => format!("/{joined}"),
            Base::Home if joined.is_empty() => "~".to_string(),
            Base::Home => format!("~/{joined}"),
            Base::Unknown(name) if joined.is_empty() => format!("${name}"),
            Base::Unknown(name) => format!("${name}/{joined}"),
        }
    }
}

/// The place a path starts from and the rest of its text.
fn start<'a>(cwd: &Place, path: &'a str) -> (Place, &'a str) {
    let at = |base| Place {
        base,
        comps: Vec::new(),
    };
    if let Some(rest) = path.strip_prefix('/') {
        return (at(Base::Root), rest);
    }
    // `~`, `~/x` and `~user/x` all leave the workspace.
    if path.starts_with('~') {
        return (at(Base::Home), after_first_slash(path));
    }
    if let Some(var) = path.strip_prefix('$') {
        let rest = after_first_slash(var);
        let name = var.split('/').next().unwrap_or_default();
        let name = name.trim_start_matches('{').trim_end_matches('}');
        return match name {
            "HOME" => (at(Base::Home), rest),
            "PWD" => (cwd.clone(), rest),
            other => (at(Base::Unknown(other.to_string())), rest),
        };
    }
    (cwd.clone(), path)
}

fn after_first_slash(path: &str) -> &str {
    path.split_once('/').map_or("", |(_, rest)| rest)
}

/// Whether a file name is an environment file that may hold secrets:
/// `.env` or `.env.<anything>`, except the committed templates
/// `.env.example` and `.env.sample`.
pub(crate) fn is_env_file(name: &str) -> bool {
    let name = name.to_ascii_lowercase();
    (name == ".env" || name.starts_with(".env.")) && name != ".env.example" && name != ".env.sample"
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ws() -> Place {
        Place::absolute("/workspace")
    }

    #[test]
    fn relative_paths_stay_in_the_workspace_until_dots_climb_out() {
        assert!(Place::resolve(&ws(), "src/../build").is_under(&ws()));
        assert!(Place::resolve(&ws(), "./a/./b").is_under(&ws()));
        let out = Place::resolve(&ws(), "../other");
        assert!(!out.is_under(&ws()));
        assert_eq!(out.display(), "/other");
    }

    #[test]
    fn absolute_paths_are_inside_only_under_the_root() {
        assert!(Place::resolve(&ws(), "/workspace/target").is_under(&ws()));
        assert!(!Place::resolve(&ws(), "/workspacex").is_under(&ws()));
        assert!(!Place::resolve(&ws(), "/").is_under(&ws()));
        assert!(!Place::resolve(&ws(), "/workspace/..").is_under(&ws()));
    }

    #[test]
    fn home_and_unknown_variables_are_outside() {
        for path in ["~", "~/x", "~bob/x", "$HOME", "${HOME}/x", "$TMPDIR/x"] {
            assert!(!Place::resolve(&ws(), path).is_under(&ws()), "{path}");
        }
        assert!(Place::resolve(&ws(), "$PWD/x").is_under(&ws()));
        assert_eq!(Place::resolve(&ws(), "${HOME}/.ssh").display(), "~/.ssh");
    }

    #[test]
    fn env_files_are_named_env_but_not_the_templates() {
        assert!(is_env_file(".env"));
        assert!(is_env_file(".env.local"));
        assert!(is_env_file(".ENV.production"));
        assert!(!is_env_file(".env.example"));
        assert!(!is_env_file(".env.sample"));
        assert!(!is_env_file(".envrc"));
        assert!(!is_env_file("prod.env"));
    }
}
