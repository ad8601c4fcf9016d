//! The plugin state directory: JSON files written atomically (a temporary
//! file, then a rename) and changed only under an exclusive `flock`, so two
//! amber processes adding plugins at once lose nothing.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use amber_state::atomic::{self, FileLock, Options};

use serde::de::DeserializeOwned;
use serde::Serialize;

use super::grants::GrantRecord;
use super::installed::Installed;
use crate::error::LoadError;

const INSTALLED: &str = "installed.json";
const GRANTS: &str = "grants.json";

fn io_error(path: &Path, e: impl std::fmt::Display) -> LoadError {
    LoadError::Read {
        path: path.to_path_buf(),
        reason: e.to_string(),
    }
}

/// The lock every read-modify-write of the state dir holds.
fn lock(dir: &Path) -> Result<FileLock, LoadError> {
    let path = dir.join(".lock");
    FileLock::at(&path).map_err(|e| io_error(&path, e))
}

/// Writes `bytes` to `path` atomically.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), LoadError> {
    atomic::write_atomic(path, bytes).map_err(|e| io_error(path, e))
}

fn read_json<T: DeserializeOwned + Default>(path: &Path) -> Result<T, LoadError> {
    match std::fs::read(path) {
        Ok(bytes) => serde_json::from_slice(&bytes)
            .map_err(|e| io_error(path, format!("corrupt state file: {e}"))),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(T::default()),
        Err(e) => Err(io_error(path, e)),
    }
}

fn write_json<T: Serialize>(path: &Path, value: &T, options: Options) -> Result<(), LoadError> {
    let bytes = serde_json::to_vec_pretty(value).map_err(|e| io_error(path, e))?;
    atomic::write_with(path, &bytes, options).map_err(|e| io_error(path, e))
}

/// `data/plugins/`.
pub struct StateDir {
    dir: PathBuf,
}

impl StateDir {
    /// The directory itself (`<data>/plugins`).
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    pub fn new(dir: PathBuf) -> Self {
        StateDir { dir }
    }

    pub fn read_installed(&self) -> Result<Installed, LoadError> {
        read_json(&self.dir.join(INSTALLED))
    }

    pub fn read_grants(&self) -> Result<BTreeMap<String, GrantRecord>, LoadError> {
        read_json(&self.dir.join(GRANTS))
    }

    /// Read-modify-write of `installed.json` under the lock.
    pub fn update_installed(&self, change: impl FnOnce(&mut Installed)) -> Result<(), LoadError> {
        let _lock = lock(&self.dir)?;
        let path = self.dir.join(INSTALLED);
        let mut installed: Installed = read_json(&path)?;
        let before = installed.clone();
        change(&mut installed);
        if installed == before {
            return Ok(());
        }
        write_json(&path, &installed, Options::STATE)
    }

    /// Read-modify-write of `grants.json` under the lock.
    pub fn update_grants(
        &self,
        change: impl FnOnce(&mut BTreeMap<String, GrantRecord>),
    ) -> Result<(), LoadError> {
        let _lock = lock(&self.dir)?;
        let path = self.dir.join(GRANTS);
        let mut grants: BTreeMap<String, GrantRecord> = read_json(&path)?;
        let before = grants.clone();
        change(&mut grants);
        if grants == before {
            return Ok(());
        }
        // Trust decisions: the user's alone to read.
        write_json(&path, &grants, Options::PRIVATE)
    }

    /// Keeps a copy of the component as `<id>/<hash>.wasm`; returns its
    /// path. A copy already there is kept only if its bytes still hash to
    /// `hash`: one damaged on disk is written again, not reported as kept.
    pub fn store_wasm(&self, id: &str, hash: &str, bytes: &[u8]) -> Result<PathBuf, LoadError> {
        let path = self.dir.join(id).join(format!("{hash}.wasm"));
        let intact =
            std::fs::read(&path).is_ok_and(|kept| blake3::hash(&kept).to_hex().as_str() == hash);
        if intact {
            // Added again: the newest copy in its folder, so a running
            // amber's live reload takes it over an older drop-in.
            let touched = std::fs::OpenOptions::new()
                .write(true)
                .open(&path)
                .and_then(|f| f.set_modified(std::time::SystemTime::now()));
            touched.map_err(|e| io_error(&path, e))?;
            return Ok(path);
        }
        write_atomic(&path, bytes)?;
        Ok(path)
    }

    /// Deletes the stored copies of `id`; its log stays.
    pub fn remove_wasm(&self, id: &str) {
        let Ok(entries) = std::fs::read_dir(self.dir.join(id)) else {
            return;
        };
        for entry in entries.flatten() {
            if entry.path().extension().is_some_and(|e| e == "wasm") {
                let _ = std::fs::remove_file(entry.path());
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn concurrent_updates_under_the_lock_lose_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let threads: Vec<_> = (0..8)
            .map(|i| {
                let state = StateDir::new(dir.path().to_path_buf());
                std::thread::spawn(move || {
                    for j in 0..10 {
                        state
                            .update_installed(|inst| {
                                inst.removed_bundled.insert(format!("p{i}-{j}"));
                            })
                            .unwrap();
                    }
                })
            })
            .collect();
        for t in threads {
            t.join().unwrap();
        }
        let state = StateDir::new(dir.path().to_path_buf());
        assert_eq!(state.read_installed().unwrap().removed_bundled.len(), 80);
    }

    #[test]
    fn a_corrupt_state_file_is_an_error_naming_it() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join(INSTALLED), "{not json").unwrap();
        let err = StateDir::new(dir.path().to_path_buf())
            .read_installed()
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("installed.json") && err.contains("corrupt state file"),
            "{err}"
        );
    }
}
