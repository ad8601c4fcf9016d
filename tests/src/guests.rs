//! Where every test finds the built guests, and the check that they are
//! not older than their sources. A test never builds a guest (a build
//! inside a test would race the other tests and hide a stale build); it
//! stops and names `cargo xtask guests` instead.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::time::SystemTime;

use crate::repo_root;

/// What every guest is built from besides its own folder: the WIT, the
/// SDK, the guests' workspace manifest and lockfile, and the shared
/// parser crate.
const SHARED_INPUTS: &[&str] = &[
    "wit",
    "sdk/rust",
    "guests/Cargo.toml",
    "guests/Cargo.lock",
    "guests/parser-core",
];

/// The folder of built guests: `$AMBER_GUESTS_DIR`, else `target/guests`.
/// Panics, naming the command to run, when it is missing or when a guest
/// in it is older than its sources.
pub fn guests_dir() -> PathBuf {
    static CHECKED: OnceLock<Result<PathBuf, String>> = OnceLock::new();
    let checked = CHECKED.get_or_init(|| {
        let dir = std::env::var_os("AMBER_GUESTS_DIR")
            .map(PathBuf::from)
            .unwrap_or_else(|| repo_root().join("target/guests"));
        check_fresh(&dir, &repo_root()).map(|()| dir)
    });
    match checked {
        Ok(dir) => dir.clone(),
        Err(why) => panic!("{why}"),
    }
}

/// The built component `name` (e.g. `hello-tool`); panics with what to
/// run when it is missing or stale.
pub fn guest(name: &str) -> PathBuf {
    let path = guests_dir().join(format!("{name}.wasm"));
    assert!(
        path.exists(),
        "{} is missing: run `cargo xtask guests` (or `cargo xtask test`)",
        path.display()
    );
    path
}

/// Every `.wasm` in `dir` built from a guest under `repo/guests` is at
/// least as new as that guest's sources.
pub fn check_fresh(dir: &Path, repo: &Path) -> Result<(), String> {
    let entries = std::fs::read_dir(dir).map_err(|e| {
        format!(
            "{}: {e}: run `cargo xtask guests` (or `cargo xtask test`)",
            dir.display()
        )
    })?;
    let sources = guest_sources(&repo.join("guests"));
    let shared = SHARED_INPUTS
        .iter()
        .filter_map(|p| newest(&repo.join(p)))
        .max();
    let mut stale = Vec::new();
    for entry in entries.flatten() {
        let path = entry.path();
        let Some(name) = path
            .file_name()
            .and_then(|n| n.to_str())
            .and_then(|n| n.strip_suffix(".wasm"))
        else {
            continue;
        };
        let Some(source) = sources.get(name) else {
            continue;
        };
        let built = modified(&path);
        let inputs = newest(source).into_iter().chain(shared).max();
        if let (Some(built), Some(inputs)) = (built, inputs) {
            if inputs > built {
                stale.push(format!("{name} (from {})", source.display()));
            }
        }
    }
    if stale.is_empty() {
        return Ok(());
    }
    stale.sort();
    Err(format!(
        "guests in {} are older than their sources: {}; run `cargo xtask guests` \
         (tests never build guests themselves)",
        dir.display(),
        stale.join(", ")
    ))
}

/// Each guest package's name and folder: the folders under `guests/`
/// with a Cargo.toml whose `[package]` has a `name`.
fn guest_sources(guests: &Path) -> HashMap<String, PathBuf> {
    let mut out = HashMap::new();
    let mut folders = vec![guests.to_path_buf()];
    while let Some(folder) = folders.pop() {
        let Ok(entries) = std::fs::read_dir(&folder) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() && path.file_name().is_some_and(|n| n != "target") {
                folders.push(path);
            }
        }
        if folder == guests {
            continue;
        }
        let manifest = std::fs::read_to_string(folder.join("Cargo.toml")).unwrap_or_default();
        if let Some(name) = package_name(&manifest) {
            out.insert(name, folder);
        }
    }
    out
}

/// `name` in the `[package]` table of a manifest.
fn package_name(manifest: &str) -> Option<String> {
    let mut in_package = false;
    for line in manifest.lines().map(str::trim) {
        if line.starts_with('[') {
            in_package = line == "[package]";
        } else if in_package {
            if let Some((key, value)) = line.split_once('=') {
                if key.trim() == "name" {
                    return Some(value.trim().trim_matches('"').to_string());
                }
            }
        }
    }
    None
}

fn modified(path: &Path) -> Option<SystemTime> {
    std::fs::metadata(path).and_then(|m| m.modified()).ok()
}

/// The newest modification time of `path` or anything under it, build
/// output (`target/`) aside.
fn newest(path: &Path) -> Option<SystemTime> {
    let meta = std::fs::metadata(path).ok()?;
    if !meta.is_dir() {
        return meta.modified().ok();
    }
    std::fs::read_dir(path)
        .ok()?
        .flatten()
        .filter(|e| e.file_name() != "target")
        .filter_map(|e| newest(&e.path()))
        .max()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    fn touch(path: &Path, at: SystemTime) {
        std::fs::File::options()
            .write(true)
            .open(path)
            .unwrap()
            .set_modified(at)
            .unwrap();
    }

    #[test]
    fn a_guest_older_than_its_sources_is_named_with_the_command_to_run() {
        let repo = tempfile::tempdir().unwrap();
        let src = repo.path().join("guests/hostile/misbehave/src");
        std::fs::create_dir_all(&src).unwrap();
        std::fs::write(
            repo.path().join("guests/hostile/misbehave/Cargo.toml"),
            "[package]\nname = \"misbehave\"\n",
        )
        .unwrap();
        std::fs::write(src.join("lib.rs"), "// v1").unwrap();
        let built = repo.path().join("built");
        std::fs::create_dir_all(&built).unwrap();
        std::fs::write(built.join("misbehave.wasm"), b"\0asm").unwrap();
        std::fs::write(built.join("not-a-guest.wasm"), b"\0asm").unwrap();
        let now = SystemTime::now();
        touch(&src.join("lib.rs"), now - Duration::from_secs(60));
        touch(&built.join("misbehave.wasm"), now);
        assert_eq!(check_fresh(&built, repo.path()), Ok(()));

        touch(&src.join("lib.rs"), now + Duration::from_secs(60));
        let err = check_fresh(&built, repo.path()).unwrap_err();
        assert!(err.contains("misbehave (from "), "{err}");
        assert!(err.contains("run `cargo xtask guests`"), "{err}");
        assert!(!err.contains("not-a-guest"), "{err}");
    }

    #[test]
    fn a_missing_folder_names_the_command_to_run() {
        let err = check_fresh(Path::new("/nonexistent/guests"), Path::new("/")).unwrap_err();
        assert!(err.contains("run `cargo xtask guests`"), "{err}");
    }
}
