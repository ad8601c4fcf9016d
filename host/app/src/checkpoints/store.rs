//! The checkpoint store: file contents under amber's data dir, named by
//! their BLAKE3 hash, so the same content is kept once however many turns
//! and sessions name it. Written atomically: a crash leaves an object
//! whole or absent, never half. A file is cloned in (a reflink: no byte
//! copied, the blocks shared until one side changes) where the filesystem
//! can (btrfs, XFS, bcachefs), and read and written where it cannot.

use std::os::fd::AsRawFd;
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

pub struct ObjectStore {
    dir: PathBuf,
    /// The filesystem said it cannot clone: not asked again.
    no_clones: AtomicBool,
}

/// Where a clone is made before it is named: amber's temporary name, so a
/// kill mid-clone leaves what the next prune's sweep removes.
fn clone_name() -> String {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    format!(".clone.amber-tmp-{}-{n}", std::process::id())
}

impl ObjectStore {
    pub fn new(dir: impl Into<PathBuf>) -> ObjectStore {
        ObjectStore {
            dir: dir.into(),
            no_clones: AtomicBool::new(false),
        }
    }

    /// Keeps the content of the file at `path`: cloned where the
    /// filesystem can, read and written where not. Returns its hash and
    /// whether it was new.
    pub fn put_file(&self, path: &Path) -> std::io::Result<(String, bool)> {
        if !self.no_clones.load(Ordering::Relaxed) {
            if let Some(kept) = self.clone_in(path)? {
                return Ok(kept);
            }
        }
        self.put(&std::fs::read(path)?)
    }

    /// Clones `path` into the store and names the clone by its own hash (a
    /// snapshot: what the file does after cannot change it). `None` when
    /// the filesystem cannot clone.
    fn clone_in(&self, path: &Path) -> std::io::Result<Option<(String, bool)>> {
        std::fs::create_dir_all(&self.dir)?;
        let source = std::fs::File::open(path)?;
        let tmp = self.dir.join(clone_name());
        let clone = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o600)
            .open(&tmp)?;
        // SAFETY: FICLONE takes the source's descriptor; both are open
        // files owned by this function.
        let rc = unsafe { libc::ioctl(clone.as_raw_fd(), libc::FICLONE, source.as_raw_fd()) };
        if rc != 0 {
            let err = std::io::Error::last_os_error();
            let _ = std::fs::remove_file(&tmp);
            if matches!(
                err.raw_os_error(),
                Some(libc::EOPNOTSUPP | libc::EXDEV | libc::EINVAL | libc::ENOTTY | libc::ENOSYS)
            ) {
                self.no_clones.store(true, Ordering::Relaxed);
            }
            return Ok(None);
        }
        let named = (|| {
            clone.sync_all()?;
            let hash = hash_file(&tmp).ok_or_else(|| std::io::Error::other("the clone is gone"))?;
            let Some(path) = self.path(&hash) else {
                return Err(std::io::Error::other("a hash that is no hash"));
            };
            if self.touch(&hash) {
                std::fs::remove_file(&tmp)?;
                return Ok((hash, false));
            }
            let Some(dir) = path.parent() else {
                return Err(std::io::Error::other("an object path has no folder"));
            };
            std::fs::create_dir_all(dir)?;
            std::fs::rename(&tmp, &path)?;
            // The rename is an entry of the folder: kept past a power cut.
            std::fs::File::open(dir)?.sync_all()?;
            Ok((hash, true))
        })();
        if named.is_err() {
            let _ = std::fs::remove_file(&tmp);
        }
        named.map(Some)
    }

    /// Whether the filesystem under the store was found unable to clone.
    pub fn clones(&self) -> bool {
        !self.no_clones.load(Ordering::Relaxed)
    }

    /// Where the object of `hash` is (two levels, as git does).
    fn path(&self, hash: &str) -> Option<PathBuf> {
        let valid = hash.len() == 64 && hash.chars().all(|c| c.is_ascii_hexdigit());
        valid.then(|| self.dir.join(&hash[..2]).join(&hash[2..]))
    }

    /// Keeps `bytes`; returns their hash and whether they were new.
    pub fn put(&self, bytes: &[u8]) -> std::io::Result<(String, bool)> {
        let hash = hash_of(bytes);
        let Some(path) = self.path(&hash) else {
            return Err(std::io::Error::other("a hash that is no hash"));
        };
        if self.touch(&hash) {
            return Ok((hash, false));
        }
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir)?;
        }
        amber_core::atomic::write_private(&path, bytes)?;
        Ok((hash, true))
    }

    /// Whether the content of `hash` is kept; if it is, its time is made
    /// now, so a prune (which spares what is younger than an hour) does
    /// not take what a turn in flight just found here.
    pub fn touch(&self, hash: &str) -> bool {
        let Some(path) = self.path(hash) else {
            return false;
        };
        match std::fs::File::options().write(true).open(&path) {
            Ok(file) => {
                let _ = file.set_modified(std::time::SystemTime::now());
                true
            }
            Err(_) => path.is_file(),
        }
    }

    /// Whether the content of `hash` is kept.
    pub fn has(&self, hash: &str) -> bool {
        self.path(hash).is_some_and(|p| p.is_file())
    }

    /// The content of `hash`, checked against it.
    pub fn get(&self, hash: &str) -> std::io::Result<Vec<u8>> {
        let path = self
            .path(hash)
            .ok_or_else(|| std::io::Error::other(format!("`{hash}` is not a content hash")))?;
        let bytes = std::fs::read(&path)?;
        if hash_of(&bytes) != hash {
            return Err(std::io::Error::other(format!(
                "{} does not hold the content it is named for",
                path.display()
            )));
        }
        Ok(bytes)
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }
}

pub fn hash_of(bytes: &[u8]) -> String {
    blake3::hash(bytes).to_hex().to_string()
}

/// The hash of the regular file at `path`, read as a stream (a file of
/// any size costs no more memory than a buffer); `None` when it is not a
/// regular file. Not followed through a symlink.
pub fn hash_file(path: &Path) -> Option<String> {
    let meta = std::fs::symlink_metadata(path).ok()?;
    if !meta.is_file() {
        return None;
    }
    let file = std::fs::File::open(path).ok()?;
    let mut hasher = blake3::Hasher::new();
    hasher.update_reader(file).ok()?;
    Some(hasher.finalize().to_hex().to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_is_kept_by_a_clone_or_a_copy_and_named_by_its_content() {
        let tmp = tempfile::tempdir().unwrap();
        let store = ObjectStore::new(tmp.path().join("store"));
        let file = tmp.path().join("f");
        std::fs::write(&file, b"content").unwrap();
        let (hash, new) = store.put_file(&file).unwrap();
        assert!(new);
        assert_eq!(hash, hash_of(b"content"));
        // The file changes after: the kept content does not.
        std::fs::write(&file, b"other").unwrap();
        assert_eq!(store.get(&hash).unwrap(), b"content");
        assert!(!store.put(b"content").unwrap().1);
        // No temporary is left, whichever way it went (this machine's ext4
        // cannot clone: the copy was taken, and the store knows).
        let names: Vec<_> = std::fs::read_dir(store.dir())
            .unwrap()
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|n| n.contains("amber-tmp"))
            .collect();
        assert!(names.is_empty(), "{names:?}");
    }
}
