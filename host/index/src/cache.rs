//! The outline cache: one snapshot per project root under the cache dir,
//! holding every file's outline keyed by the file's content hash and
//! language. A re-index hashes each file and parses only those whose hash
//! is not here; renaming a file or switching branches back and forth costs
//! no parse. One file per root, not one per source file, so a warm
//! re-index opens one cache file instead of thousands.

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

use amber_core::ports::Symbol;
use serde::{Deserialize, Serialize};

/// Bumped whenever the snapshot's layout or the hashing changes.
const FORMAT: u32 = 2;

/// A file's outline as parsed, with each symbol's hash.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct CachedOutline {
    pub symbols: Vec<Symbol>,
    pub hashes: Vec<[u8; 32]>,
}

#[derive(Debug, Default, Serialize, Deserialize)]
struct Snapshot {
    format: u32,
    /// Per language, what parsed its outlines (plugin id and wasm hash).
    fingerprints: BTreeMap<String, String>,
    outlines: HashMap<([u8; 32], String), CachedOutline>,
}

/// The snapshot of one root, loaded or empty.
pub struct OutlineCache {
    path: PathBuf,
    /// Per language, the parser now serving it.
    fingerprints: BTreeMap<String, String>,
    outlines: HashMap<([u8; 32], String), CachedOutline>,
    /// Keys used by this run; the rest are dropped on save.
    used: std::collections::HashSet<([u8; 32], String)>,
    /// The outlines of languages no parser serves this run (a parser
    /// disabled for a while), with the fingerprint that made them: kept
    /// as they are, so turning the parser back on finds them.
    dormant: HashMap<([u8; 32], String), CachedOutline>,
    dormant_fingerprints: BTreeMap<String, String>,
    changed: bool,
}

impl OutlineCache {
    /// The cache of `root` under `cache_dir`, keeping the outlines of the
    /// languages whose parser is still the one that made them (`current`
    /// names a language's parser, empty for none): updating one parser
    /// keeps the others' outlines, and the outlines of a language with no
    /// parser now are put aside untouched. A missing, unreadable or older
    /// snapshot is an empty cache, never an error: the cache only saves
    /// time.
    pub fn load(cache_dir: &Path, root: &Path, current: &dyn Fn(&str) -> String) -> Self {
        let key = blake3::hash(root.to_string_lossy().as_bytes()).to_hex();
        let path = cache_dir
            .join("index")
            .join(format!("{}.snapshot", &key[..16]));
        let snapshot = std::fs::read(&path)
            .ok()
            .and_then(|bytes| postcard::from_bytes::<Snapshot>(&bytes).ok())
            .filter(|s| s.format == FORMAT)
            .unwrap_or_default();
        let mut fingerprints = BTreeMap::new();
        let mut dormant_fingerprints = BTreeMap::new();
        for (language, made_by) in &snapshot.fingerprints {
            match current(language) {
                now if now.is_empty() => {
                    dormant_fingerprints.insert(language.clone(), made_by.clone());
                }
                now => {
                    fingerprints.insert(language.clone(), now);
                }
            }
        }
        let mut outlines = snapshot.outlines;
        let dormant: HashMap<_, _> = outlines
            .extract_if(|(_, language), _| dormant_fingerprints.contains_key(language))
            .collect();
        outlines.retain(|(_, language), _| {
            snapshot.fingerprints.get(language) == fingerprints.get(language)
        });
        OutlineCache {
            path,
            fingerprints,
            outlines,
            used: Default::default(),
            dormant,
            dormant_fingerprints,
            changed: false,
        }
    }

    pub fn contains(&self, content: [u8; 32], language: &str) -> bool {
        self.outlines.contains_key(&(content, language.to_string()))
    }

    pub fn get(&mut self, content: [u8; 32], language: &str) -> Option<&CachedOutline> {
        let key = (content, language.to_string());
        let found = self.outlines.get(&key);
        if found.is_some() {
            self.used.insert(key);
        }
        found
    }

    /// Stores an outline made by `fingerprint`, the language's parser.
    pub fn put(
        &mut self,
        content: [u8; 32],
        language: &str,
        fingerprint: &str,
        outline: CachedOutline,
    ) {
        self.fingerprints
            .insert(language.to_string(), fingerprint.to_string());
        let key = (content, language.to_string());
        self.used.insert(key.clone());
        self.outlines.insert(key, outline);
        self.changed = true;
    }

    /// Writes the snapshot if anything changed. After a run over the whole
    /// project (`whole`), only the outlines it used are kept, so the cache
    /// never grows past the project. Written to a temporary file and
    /// renamed, so a crash leaves the old snapshot.
    pub fn save(mut self, whole: bool) -> std::io::Result<()> {
        let before = self.outlines.len();
        if whole {
            let used = std::mem::take(&mut self.used);
            self.outlines.retain(|k, _| used.contains(k));
        }
        if !self.changed && self.outlines.len() == before {
            return Ok(());
        }
        let kept: std::collections::HashSet<&String> =
            self.outlines.keys().map(|(_, language)| language).collect();
        let mut fingerprints: BTreeMap<String, String> = self
            .fingerprints
            .iter()
            .filter(|(language, _)| kept.contains(language))
            .map(|(l, f)| (l.clone(), f.clone()))
            .collect();
        let mut outlines = self.outlines;
        for (language, made_by) in self.dormant_fingerprints {
            fingerprints.entry(language).or_insert(made_by);
        }
        for (key, outline) in self.dormant {
            outlines.entry(key).or_insert(outline);
        }
        let snapshot = Snapshot {
            format: FORMAT,
            fingerprints,
            outlines,
        };
        let bytes = postcard::to_stdvec(&snapshot).map_err(std::io::Error::other)?;
        // Whole or not at all, through amber-state as every cache entry:
        // its temporary is one a later start sweeps if this one is killed.
        if let Some(dir) = self.path.parent() {
            std::fs::create_dir_all(dir)?;
        }
        amber_state::atomic::write_cache_entry(&self.path, &bytes)
    }
}
