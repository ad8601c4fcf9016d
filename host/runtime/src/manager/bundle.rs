//! Bundled first-party plugins: an explicit list (`guests/bundled.txt`),
//! laid in a folder amber finds wherever its binary lives.
//!
//! The folders looked in, in order (the first holding any bundled
//! component wins):
//! 1. `$AMBER_BUNDLE_DIR` (when set, the only one);
//! 2. `<exe dir>/../share/amber/plugins`, where `cargo xtask install` puts it;
//! 3. `<exe dir>/plugins`, a bundle unpacked beside the binary;
//! 4. `<exe dir>/../guests`, for a binary built in `target/<profile>/`;
//! 5. the checkout amber was built from (`target/guests`), so `cargo install
//!    --path host/cli` after `cargo xtask guests` works while it stays.
//!
//! Only names on the list are loaded from there, so test guests built
//! beside them are never picked up. A bundle folder may hold a read-only
//! precompiled cache in `precompiled/` (see [`Bundle::precompiled`]).

use std::path::{Path, PathBuf};

/// The bundle, by guest name, one a line; `#` starts a comment.
const BUNDLED_LIST: &str = include_str!("../../../../guests/bundled.txt");

/// The bundled guests' names, in the list's order.
pub fn bundled_names() -> impl Iterator<Item = &'static str> {
    BUNDLED_LIST
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
}

/// A folder amber looked in for its bundle, and why it looked there.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BundlePlace {
    pub dir: PathBuf,
    pub why: &'static str,
}

/// The bundle folder found, and every place looked in.
#[derive(Debug, Clone)]
pub struct BundleSearch {
    pub found: Option<BundlePlace>,
    pub looked: Vec<BundlePlace>,
}

impl BundleSearch {
    /// Where amber looked, for an error that says how to fix it.
    pub fn not_found_message(&self) -> String {
        let places: Vec<String> = self
            .looked
            .iter()
            .map(|p| format!("{} ({})", p.dir.display(), p.why))
            .collect();
        format!(
            "amber's bundled plugins (providers, tools, parsers) were not found; looked in: {}. \
             Install them with `cargo xtask install` from amber's checkout, \
             or set AMBER_BUNDLE_DIR to a folder holding them",
            places.join("; ")
        )
    }

    pub fn dir(&self) -> Option<PathBuf> {
        self.found.as_ref().map(|p| p.dir.clone())
    }
}

/// The read-only precompiled cache of a bundle folder: the same layout as
/// amber's own cache (`compiled/`, `declarations/`), written at install.
pub fn precompiled(bundle_dir: &Path) -> PathBuf {
    bundle_dir.join("precompiled")
}

/// Looks for the bundle; see the module doc for the order.
pub fn find_bundle() -> BundleSearch {
    let mut looked = Vec::new();
    if let Some(dir) = std::env::var_os("AMBER_BUNDLE_DIR").filter(|d| !d.is_empty()) {
        looked.push(BundlePlace {
            dir: PathBuf::from(dir),
            why: "$AMBER_BUNDLE_DIR",
        });
    } else {
        if let Some(exe_dir) = std::env::current_exe()
            .ok()
            .and_then(|exe| exe.parent().map(Path::to_path_buf))
        {
            looked.push(BundlePlace {
                dir: exe_dir.join("../share/amber/plugins"),
                why: "installed beside the binary",
            });
            looked.push(BundlePlace {
                dir: exe_dir.join("plugins"),
                why: "unpacked beside the binary",
            });
            looked.push(BundlePlace {
                dir: exe_dir.join("../guests"),
                why: "a build in the checkout's target folder",
            });
        }
        let checkout = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../target/guests");
        looked.push(BundlePlace {
            dir: checkout,
            why: "the checkout amber was built from",
        });
    }
    for place in &mut looked {
        if let Ok(dir) = std::fs::canonicalize(&place.dir) {
            place.dir = dir;
        }
    }
    let found = looked.iter().find(|p| !files(&p.dir).is_empty()).cloned();
    BundleSearch { found, looked }
}

/// The bundled components present in `dir`.
pub fn files(dir: &Path) -> Vec<PathBuf> {
    bundled_names()
        .map(|name| dir.join(format!("{name}.wasm")))
        .filter(|p| p.is_file())
        .collect()
}

/// The bundled components missing from `dir`, by name.
pub fn missing(dir: &Path) -> Vec<&'static str> {
    bundled_names()
        .filter(|name| !dir.join(format!("{name}.wasm")).is_file())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_list_names_the_bundled_guests_and_no_test_guest() {
        let names: Vec<&str> = bundled_names().collect();
        assert!(names.contains(&"provider-openai") && names.contains(&"parser-rust"));
        assert!(names.contains(&"command-git"));
        assert!(names.contains(&"web-fetch") && names.contains(&"web-search"));
        assert_eq!(names.len(), 13);
        assert!(names
            .iter()
            .all(|n| !n.contains(' ') && !n.starts_with('#')));
        assert!(!names.contains(&"misbehave") && !names.contains(&"hello-tool"));
        assert!(!names.contains(&"command-hostile"));
    }

    #[test]
    fn files_and_missing_split_the_list() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("tools-fs.wasm"), b"x").unwrap();
        std::fs::write(dir.path().join("hello-tool.wasm"), b"x").unwrap();
        assert_eq!(files(dir.path()), [dir.path().join("tools-fs.wasm")]);
        assert_eq!(missing(dir.path()).len(), 12);
    }
}
