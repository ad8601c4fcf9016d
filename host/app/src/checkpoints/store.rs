//! The checkpoint store: file contents under amber's data dir, named by
//! their BLAKE3 hash, so the same content is kept once however many turns
//! and sessions name it. Written atomically: a crash leaves an object
//! whole or absent, never half.

use std::path::{Path, PathBuf};

pub struct ObjectStore {
    dir: PathBuf,
}

impl ObjectStore {
    pub fn new(dir: impl Into<PathBuf>) -> ObjectStore {
        ObjectStore { dir: dir.into() }
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
        if path.exists() {
            return Ok((hash, false));
        }
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir)?;
        }
        amber_core::atomic::write_private(&path, bytes)?;
        Ok((hash, true))
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
