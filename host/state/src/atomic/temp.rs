//! The temporary files of [`super::replace_in`]: named after their target
//! and the writing process, so that a `kill -9` mid-write leaves a file a
//! person recognises (`.config.toml.amber-tmp-4242-0`) and the next amber
//! can tell is stale and remove.

use std::ffi::{OsStr, OsString};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, SystemTime};

const MARK: &str = ".amber-tmp-";

/// A temp file older than this is stale even if its writer's pid lives
/// again (pids are reused): a write takes milliseconds.
const OLDEST_LIVE: Duration = Duration::from_secs(3600);

/// `.NAME.amber-tmp-PID-N`, unique in this process.
pub(super) fn name_for(target: &OsStr) -> OsString {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    let mut name = OsString::from(".");
    name.push(target);
    name.push(format!("{MARK}{}-{n}", std::process::id()));
    name
}

/// The writer's pid when `name` is one of our temp files: this scheme's,
/// or the `.tmp-PID-N` of amber before it.
fn is_temp_name(name: &str) -> Option<u32> {
    let tail = match name.rfind(MARK) {
        Some(at) if name.starts_with('.') => &name[at + MARK.len()..],
        _ => name.strip_prefix(".tmp-")?,
    };
    let (pid, n) = tail.split_once('-')?;
    n.parse::<u64>().ok()?;
    pid.parse().ok()
}

/// Whether `name` is one of amber's temporary files, whoever wrote it:
/// a walk of the workspace leaves them out (they are amber's, and gone
/// when the write ends).
pub fn is_temp_file(name: &OsStr) -> bool {
    name.to_str().and_then(is_temp_name).is_some()
}

fn alive(pid: u32) -> bool {
    let Ok(pid) = libc::pid_t::try_from(pid) else {
        return false;
    };
    // SAFETY: signal 0 sends nothing; it only asks whether the pid exists.
    let rc = unsafe { libc::kill(pid, 0) };
    rc == 0 || std::io::Error::last_os_error().raw_os_error() == Some(libc::EPERM)
}

/// What [`remove_stale_temps`] found.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct StaleTemps {
    pub removed: Vec<PathBuf>,
    /// Stale, but removing them failed: (path, why).
    pub kept: Vec<(PathBuf, String)>,
}

/// Removes the temp files in `folder` (not below it) left by a writer that
/// is gone: its pid no longer runs, or the file is over an hour old. A
/// missing folder has none.
pub fn remove_stale_temps(folder: &Path) -> StaleTemps {
    let mut found = StaleTemps::default();
    let Ok(entries) = std::fs::read_dir(folder) else {
        return found;
    };
    let now = SystemTime::now();
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(pid) = name.to_str().and_then(is_temp_name) else {
            continue;
        };
        let Ok(meta) = entry.metadata() else {
            continue;
        };
        if !meta.is_file() {
            continue;
        }
        let old = meta
            .modified()
            .ok()
            .and_then(|m| now.duration_since(m).ok())
            .is_some_and(|age| age > OLDEST_LIVE);
        if pid == std::process::id() || (alive(pid) && !old) {
            continue;
        }
        let path = entry.path();
        match std::fs::remove_file(&path) {
            Ok(()) => found.removed.push(path),
            Err(e) => found.kept.push((path, super::describe(&e))),
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn temp_names_give_their_writer() {
        let name = name_for(OsStr::new("config.toml"));
        let name = name.to_str().unwrap();
        assert!(name.starts_with(".config.toml.amber-tmp-"), "{name}");
        assert_eq!(is_temp_name(name), Some(std::process::id()));
        assert_eq!(is_temp_name(".tmp-12-3"), Some(12));
        assert_eq!(is_temp_name("config.toml"), None);
        assert_eq!(is_temp_name(".tmp-x-3"), None);
        assert_eq!(is_temp_name("notes.amber-tmp-12-3"), None);
    }

    #[test]
    fn only_a_gone_writers_temps_are_removed() {
        let dir = tempfile::tempdir().unwrap();
        // A pid that cannot run: above the kernel's maximum.
        let dead = dir.path().join(".a.json.amber-tmp-4194305-0");
        let old_style = dir.path().join(".tmp-4194305-7");
        let ours = dir
            .path()
            .join(format!(".b.amber-tmp-{}-0", std::process::id()));
        let user = dir.path().join("notes.txt");
        for path in [&dead, &old_style, &ours, &user] {
            std::fs::write(path, "x").unwrap();
        }
        let found = remove_stale_temps(dir.path());
        assert_eq!(found.removed.len(), 2, "{found:?}");
        assert!(!dead.exists() && !old_style.exists());
        assert!(ours.exists() && user.exists());
        assert_eq!(
            remove_stale_temps(&dir.path().join("missing")),
            StaleTemps::default()
        );
    }
}
