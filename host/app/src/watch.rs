//! The plugin directory, watched (notify: inotify on Linux) so a plugin
//! copied in, changed or removed while amber runs is picked up without a
//! restart (`App::sync_plugin_dir` does the work; docs/plugins.md).
//!
//! Only what can change a plugin wakes the host: a `.wasm` file, or a
//! folder directly in the directory. amber's own writes there (the state
//! files, their temporary files, plugin logs) do not.

use std::path::{Path, PathBuf};

use std::time::Duration;

use anyhow::{Context, Result};
use notify::{EventKind, RecursiveMode, Watcher};

/// The quiet a front end waits for after an event before it reads the
/// directory: a burst (a copy, an editor's save) ends when no event came
/// for this long, and is read once. A file still being written after a
/// longer pause is read half, fails with a notice, and is read again at
/// its next event.
pub const QUIET: Duration = Duration::from_millis(20);

/// The longest a burst is waited out: a file written for longer is read
/// as it is then (and again at its next event).
pub const SETTLE_AT_MOST: Duration = Duration::from_secs(2);

/// Waits until `more` (which says whether an event came within the
/// given time) reports a quiet period of [`QUIET`], or [`SETTLE_AT_MOST`]
/// has passed.
pub fn settle(mut more: impl FnMut(Duration) -> bool) {
    let start = std::time::Instant::now();
    while start.elapsed() < SETTLE_AT_MOST && more(QUIET) {}
}

/// Watches until dropped.
pub struct PluginWatcher {
    _watcher: notify::RecommendedWatcher,
    dir: PathBuf,
}

/// Whether a change of `path` can change a plugin in `dir`.
pub fn concerns_plugins(dir: &Path, path: &Path) -> bool {
    let hidden = path
        .file_name()
        .is_some_and(|n| n.to_string_lossy().starts_with('.'));
    if hidden {
        return false;
    }
    let is_wasm = path.extension().is_some_and(|e| e == "wasm");
    // A folder made or removed directly in the directory (no extension:
    // `installed.json`, `grants.json` and logs inside folders are not).
    let is_folder = path.parent() == Some(dir) && path.extension().is_none();
    is_wasm || is_folder
}

impl PluginWatcher {
    /// Watches `dir` (made if missing) and its folders; `changed` runs on
    /// the watcher's own thread after each event that concerns plugins.
    pub fn start(dir: &Path, changed: impl Fn() + Send + 'static) -> Result<PluginWatcher> {
        std::fs::create_dir_all(dir)
            .with_context(|| format!("cannot make the plugin directory {}", dir.display()))?;
        let root = dir.to_path_buf();
        let mut watcher =
            notify::recommended_watcher(move |event: notify::Result<notify::Event>| {
                let Ok(event) = event else {
                    return;
                };
                if matches!(event.kind, EventKind::Access(_)) {
                    return;
                }
                if event.paths.iter().any(|p| concerns_plugins(&root, p)) {
                    changed();
                }
            })
            .context("cannot watch the plugin directory")?;
        watcher
            .watch(dir, RecursiveMode::Recursive)
            .with_context(|| format!("cannot watch {}", dir.display()))?;
        Ok(PluginWatcher {
            _watcher: watcher,
            dir: dir.to_path_buf(),
        })
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_wasm_files_and_plugin_folders_concern_plugins() {
        let dir = Path::new("/data/plugins");
        assert!(concerns_plugins(dir, &dir.join("lint/v2.wasm")));
        assert!(concerns_plugins(dir, &dir.join("lint")));
        assert!(!concerns_plugins(dir, &dir.join("installed.json")));
        assert!(!concerns_plugins(dir, &dir.join(".tmp-12-0")));
        assert!(!concerns_plugins(dir, &dir.join("lint/log")));
        assert!(!concerns_plugins(dir, &dir.join("lint/.tmp-3-1")));
    }

    #[test]
    fn a_wasm_copied_in_wakes_the_watcher() {
        let dir = tempfile::tempdir().unwrap();
        let (tx, rx) = std::sync::mpsc::channel();
        let watcher = PluginWatcher::start(dir.path(), move || {
            let _ = tx.send(());
        })
        .unwrap();
        std::fs::write(dir.path().join("installed.json"), "{}").unwrap();
        std::fs::create_dir(dir.path().join("lint")).unwrap();
        rx.recv_timeout(std::time::Duration::from_secs(5))
            .expect("a new folder wakes it");
        // What the folder's creation sent is drained first, so what
        // follows is the wasm's own event.
        std::thread::sleep(std::time::Duration::from_millis(300));
        while rx.try_recv().is_ok() {}
        std::fs::write(dir.path().join("lint/log"), b"a log line").unwrap();
        std::thread::sleep(std::time::Duration::from_millis(300));
        assert!(rx.try_recv().is_err(), "a log write does not wake it");
        std::fs::write(dir.path().join("lint/v1.wasm"), b"\0asm").unwrap();
        rx.recv_timeout(std::time::Duration::from_secs(5))
            .expect("a new wasm wakes it");
        assert_eq!(watcher.dir(), dir.path());
    }
}
