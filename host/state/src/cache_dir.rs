//! A cache folder in layers: read-only folders first (an install's
//! precompiled cache), then amber's own, the only one written. The
//! compiled components and the plugins' declarations are kept this way;
//! `amber doctor` and `amber plugin precompile` count what one holds.
//! Entries are named by content (a hash in the name), so a hit is
//! correct whichever layer it came from, and an entry that cannot be
//! written only costs recomputing it next time.

use std::path::{Path, PathBuf};

use crate::atomic;

/// How an entry is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Durability {
    /// Synced to disk before it is renamed into place: worth it for what
    /// is expensive to make again (compiled code, seconds of compiling).
    Synced,
    /// Renamed into place whole, not synced: cheap to make again.
    Whole,
}

/// One cache folder and the read-only layers read before it.
#[derive(Debug, Clone)]
pub struct CacheDir {
    own: PathBuf,
    read_only: Vec<PathBuf>,
}

/// One entry of a cache folder, as listed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CacheEntry {
    pub name: String,
    pub bytes: u64,
}

impl CacheDir {
    /// The cache in `own`, with no read-only layer.
    pub fn new(own: impl Into<PathBuf>) -> CacheDir {
        CacheDir {
            own: own.into(),
            read_only: Vec::new(),
        }
    }

    /// Also reads from `layers`, before the own folder, never writing
    /// there.
    pub fn with_read_only(mut self, layers: Vec<PathBuf>) -> CacheDir {
        self.read_only = layers;
        self
    }

    /// The folder written to.
    pub fn own(&self) -> &Path {
        &self.own
    }

    /// The read-only layers, then the own folder: the order entries are
    /// looked up in.
    pub fn layers(&self) -> impl Iterator<Item = &Path> {
        self.read_only
            .iter()
            .map(PathBuf::as_path)
            .chain(std::iter::once(self.own.as_path()))
    }

    /// Where `name` is written in the own folder.
    pub fn entry(&self, name: &str) -> PathBuf {
        self.own.join(name)
    }

    /// The first layer's file named `name`, if any holds one.
    pub fn find(&self, name: &str) -> Option<PathBuf> {
        self.layers()
            .map(|layer| layer.join(name))
            .find(|path| path.is_file())
    }

    /// The bytes of the first readable entry named `name`.
    pub fn read(&self, name: &str) -> Option<Vec<u8>> {
        self.layers()
            .find_map(|layer| std::fs::read(layer.join(name)).ok())
    }

    /// Writes `name` in the own folder, whole (readers see the old entry
    /// or the new one, never a part).
    pub fn write(&self, name: &str, bytes: &[u8], durability: Durability) -> std::io::Result<()> {
        let entry = self.entry(name);
        match durability {
            Durability::Synced => atomic::write_atomic(&entry, bytes),
            Durability::Whole => atomic::write_cache_entry(&entry, bytes),
        }
    }

    /// The entries of the own folder, by name, with their sizes: files
    /// only, and no dotfile (a write under way is a hidden temporary).
    pub fn list(&self) -> Vec<CacheEntry> {
        let Ok(read) = std::fs::read_dir(&self.own) else {
            return Vec::new();
        };
        let mut entries: Vec<CacheEntry> = read
            .flatten()
            .filter_map(|entry| {
                let name = entry.file_name().to_string_lossy().into_owned();
                let meta = entry.metadata().ok()?;
                (meta.is_file() && !name.starts_with('.')).then_some(CacheEntry {
                    name,
                    bytes: meta.len(),
                })
            })
            .collect();
        entries.sort_by(|a, b| a.name.cmp(&b.name));
        entries
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_layers_first_writes_only_its_own_and_lists_whole_entries() {
        let dir = tempfile::tempdir().unwrap();
        let (shipped, own) = (dir.path().join("shipped"), dir.path().join("own"));
        std::fs::create_dir_all(&shipped).unwrap();
        std::fs::write(shipped.join("a.json"), "shipped").unwrap();
        let cache = CacheDir::new(&own).with_read_only(vec![shipped.clone()]);
        assert_eq!(cache.read("a.json").unwrap(), b"shipped");
        assert_eq!(cache.find("a.json"), Some(shipped.join("a.json")));
        assert_eq!(cache.find("b.json"), None);
        cache.write("a.json", b"own", Durability::Whole).unwrap();
        cache.write("b.json", b"bee", Durability::Synced).unwrap();
        // The read-only layer still answers first, and was not written.
        assert_eq!(cache.read("a.json").unwrap(), b"shipped");
        assert_eq!(std::fs::read(shipped.join("a.json")).unwrap(), b"shipped");
        assert_eq!(cache.read("b.json").unwrap(), b"bee");
        std::fs::write(own.join(".b.json.amber-tmp-1-1"), "part").unwrap();
        let listed = cache.list();
        assert_eq!(
            listed,
            [
                CacheEntry {
                    name: "a.json".into(),
                    bytes: 3
                },
                CacheEntry {
                    name: "b.json".into(),
                    bytes: 3
                }
            ]
        );
        assert!(CacheDir::new(dir.path().join("none")).list().is_empty());
    }
}
