//! An exclusive advisory lock for a read-modify-write of a file that is
//! replaced by rename. The lock cannot be on the file itself: the rename
//! puts a new file (a new inode) in its place, and the next writer would
//! lock that one while the first still holds the old. So it is a file of
//! its own beside the target, `.NAME.lock`, left in place (removing it
//! would let two writers lock two different files of the same name), and
//! released by the kernel however its holder ends.

use std::fs::{File, OpenOptions};
use std::path::{Path, PathBuf};

/// Held while it lives.
#[derive(Debug)]
pub struct FileLock {
    _file: File,
    path: PathBuf,
}

impl FileLock {
    /// Waits for, then takes, the lock that guards `target` (its real
    /// file: pass the end of its symlinks). Makes the folder when missing.
    pub fn for_file(target: &Path) -> std::io::Result<FileLock> {
        let name = target.file_name().ok_or_else(|| {
            std::io::Error::new(
                std::io::ErrorKind::InvalidInput,
                format!("{} names no file", target.display()),
            )
        })?;
        let mut lock_name = std::ffi::OsString::from(".");
        lock_name.push(name);
        lock_name.push(".lock");
        let path = target.with_file_name(lock_name);
        Self::at(&path)
    }

    /// Waits for, then takes, the lock file at `path`.
    pub fn at(path: &Path) -> std::io::Result<FileLock> {
        if let Some(folder) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
            std::fs::create_dir_all(folder)?;
        }
        let mut options = OpenOptions::new();
        options.create(true).truncate(false).write(true);
        std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
        let file = options.open(path)?;
        file.lock()?;
        Ok(FileLock {
            _file: file,
            path: path.to_path_buf(),
        })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::Arc;

    #[test]
    fn one_holder_at_a_time() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("config.toml");
        let inside = Arc::new(AtomicUsize::new(0));
        let most = Arc::new(AtomicUsize::new(0));
        let threads: Vec<_> = (0..6)
            .map(|_| {
                let (target, inside, most) = (target.clone(), inside.clone(), most.clone());
                std::thread::spawn(move || {
                    let lock = FileLock::for_file(&target).unwrap();
                    let now = inside.fetch_add(1, Ordering::SeqCst) + 1;
                    most.fetch_max(now, Ordering::SeqCst);
                    std::thread::sleep(std::time::Duration::from_millis(5));
                    inside.fetch_sub(1, Ordering::SeqCst);
                    drop(lock);
                })
            })
            .collect();
        for t in threads {
            t.join().unwrap();
        }
        assert_eq!(most.load(Ordering::SeqCst), 1);
        assert!(dir.path().join(".config.toml.lock").exists());
    }
}
