//! Content hashes of component files, remembered by the file's identity,
//! so a start does not read and hash every plugin (17 MB for the bundled
//! set, most of a TUI's first frame and of its resident memory).
//!
//! A remembered hash is used only while the file's device, inode, size,
//! mtime and ctime are all as they were. Any write or rename changes the
//! ctime or the inode, and a process cannot set the ctime back. As git
//! does for its index, a file whose ctime is too recent is not
//! remembered: on a file system with coarse timestamps a write in the same
//! tick as the hashing would leave the ctime as it was.
//!
//! What the hash unlocks is only ever content-addressed (the declaration
//! cache, the compiled code): a stale memo can name code that was
//! validated for other bytes, never skip validation of new bytes. When
//! the bytes are read after all (a compile), they are checked against the
//! remembered hash.

use std::collections::BTreeMap;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Serialize};

/// How old a file's last change must be before its hash is remembered.
const SETTLED: Duration = Duration::from_secs(2);

/// What identifies one version of a file on disk.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
struct Stamp {
    dev: u64,
    ino: u64,
    size: u64,
    mtime_ns: i128,
    ctime_ns: i128,
}

impl Stamp {
    fn of(meta: &std::fs::Metadata) -> Stamp {
        let ns = |s: i64, n: i64| i128::from(s) * 1_000_000_000 + i128::from(n);
        Stamp {
            dev: meta.dev(),
            ino: meta.ino(),
            size: meta.size(),
            mtime_ns: ns(meta.mtime(), meta.mtime_nsec()),
            ctime_ns: ns(meta.ctime(), meta.ctime_nsec()),
        }
    }

    /// Whether the last change is old enough that a later one would show.
    fn settled(&self, now: SystemTime) -> bool {
        let now_ns = now
            .duration_since(UNIX_EPOCH)
            .map(|d| d.as_nanos() as i128)
            .unwrap_or(0);
        now_ns - self.ctime_ns >= SETTLED.as_nanos() as i128
    }
}

#[derive(Debug, Clone, Serialize, Deserialize)]
struct Memo {
    stamp: Stamp,
    hash: String,
}

/// The memo file (`<cache>/file-hashes.json`): absolute path → memo.
pub struct FileHashes {
    file: PathBuf,
    memos: Mutex<BTreeMap<PathBuf, Memo>>,
}

impl FileHashes {
    /// The memos in `file`; a missing or unreadable file is an empty memo
    /// (everything is hashed again, nothing else changes).
    pub fn at(file: PathBuf) -> FileHashes {
        let memos = read(&file).unwrap_or_default();
        FileHashes {
            file,
            memos: Mutex::new(memos),
        }
    }

    /// The remembered hash of `path`, if the file is still the version it
    /// was hashed as (`meta` is its metadata, taken now).
    pub fn lookup(&self, path: &Path, meta: &std::fs::Metadata) -> Option<String> {
        let memos = self.memos.lock().unwrap_or_else(|e| e.into_inner());
        let memo = memos.get(path)?;
        (memo.stamp == Stamp::of(meta)).then(|| memo.hash.clone())
    }

    /// Remembers that `path`, as `meta` describes it, hashes to `hash`.
    /// Saved at once (merged, under the memo file's lock, with what other
    /// processes saved meanwhile); a memo that cannot be saved only costs
    /// a hash next time.
    pub fn remember(&self, path: &Path, meta: &std::fs::Metadata, hash: &str) {
        let stamp = Stamp::of(meta);
        if !stamp.settled(SystemTime::now()) {
            return;
        }
        self.save(
            path,
            Memo {
                stamp,
                hash: hash.to_string(),
            },
        );
    }

    fn save(&self, path: &Path, memo: Memo) {
        let mut memos = self.memos.lock().unwrap_or_else(|e| e.into_inner());
        // Read, merged and written under the file's lock: two amber
        // processes starting at once keep each other's memos. Without the
        // lock (a read-only cache folder) the merge still happens, and the
        // last writer wins.
        let _locked = crate::atomic::FileLock::for_file(&self.file);
        let mut on_disk = read(&self.file).unwrap_or_default();
        on_disk.insert(path.to_path_buf(), memo);
        // Files that are gone are dropped, so the memo does not grow with
        // every plugin version ever seen.
        on_disk.retain(|p, _| p.exists());
        if let Ok(text) = serde_json::to_vec(&on_disk) {
            let _ = crate::atomic::write_cache_entry(&self.file, &text);
        }
        *memos = on_disk;
    }
}

fn read(file: &Path) -> Option<BTreeMap<PathBuf, Memo>> {
    let text = std::fs::read(file).ok()?;
    serde_json::from_slice(&text).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_fresh_file_is_not_remembered() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("p.wasm");
        std::fs::write(&file, b"one").unwrap();
        let memo = FileHashes::at(dir.path().join("memo.json"));
        let meta = std::fs::metadata(&file).unwrap();
        memo.remember(&file, &meta, "h1");
        assert_eq!(memo.lookup(&file, &meta), None);
    }

    #[test]
    fn a_settled_stamp_is_judged_by_its_ctime() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("p.wasm");
        std::fs::write(&file, b"one").unwrap();
        let stamp = Stamp::of(&std::fs::metadata(&file).unwrap());
        assert!(!stamp.settled(SystemTime::now()));
        assert!(stamp.settled(SystemTime::now() + SETTLED + Duration::from_millis(10)));
    }

    #[test]
    fn any_change_to_the_file_forgets_its_hash() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("p.wasm");
        std::fs::write(&file, b"one").unwrap();
        let meta = std::fs::metadata(&file).unwrap();
        let memo_file = dir.path().join("memo.json");
        // Written as `remember` would once the file has settled.
        let mut memos = BTreeMap::new();
        memos.insert(
            file.clone(),
            Memo {
                stamp: Stamp::of(&meta),
                hash: "h1".into(),
            },
        );
        std::fs::write(&memo_file, serde_json::to_vec(&memos).unwrap()).unwrap();
        let memo = FileHashes::at(memo_file.clone());
        assert_eq!(memo.lookup(&file, &meta).as_deref(), Some("h1"));
        // Same size, same mtime set back: the ctime still moves (waited
        // for, on a file system whose clock ticks in seconds).
        let mut changed = std::fs::metadata(&file).unwrap();
        for _ in 0..300 {
            std::fs::write(&file, b"two").unwrap();
            set_mtime(&file, filetime_of(&meta));
            changed = std::fs::metadata(&file).unwrap();
            if Stamp::of(&changed).ctime_ns != Stamp::of(&meta).ctime_ns {
                break;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        assert_eq!(changed.len(), meta.len());
        assert_eq!(memo.lookup(&file, &changed), None);
        // A broken memo file is an empty memo.
        std::fs::write(&memo_file, b"{not json").unwrap();
        assert_eq!(FileHashes::at(memo_file).lookup(&file, &meta), None);
    }

    #[test]
    fn a_memo_saved_while_another_process_writes_keeps_its_entry() {
        let dir = tempfile::tempdir().unwrap();
        let memo_file = dir.path().join("memo.json");
        let (a, b) = (dir.path().join("a.wasm"), dir.path().join("b.wasm"));
        std::fs::write(&a, b"a").unwrap();
        std::fs::write(&b, b"b").unwrap();
        let memo_of = |path: &Path, hash: &str| Memo {
            stamp: Stamp::of(&std::fs::metadata(path).unwrap()),
            hash: hash.into(),
        };
        // "Another process" holds the memo file's lock while it writes b.
        let other = crate::atomic::FileLock::for_file(&memo_file).unwrap();
        let saving = std::thread::spawn({
            let (memo_file, a, memo) = (memo_file.clone(), a.clone(), memo_of(&a, "ha"));
            move || FileHashes::at(memo_file).save(&a, memo)
        });
        // Long enough for the save to have read the file, were it not
        // waiting for the lock.
        std::thread::sleep(Duration::from_millis(100));
        let mut theirs = BTreeMap::new();
        theirs.insert(b.clone(), memo_of(&b, "hb"));
        std::fs::write(&memo_file, serde_json::to_vec(&theirs).unwrap()).unwrap();
        drop(other);
        saving.join().unwrap();
        let on_disk = read(&memo_file).unwrap();
        assert_eq!(
            on_disk.get(&b).map(|m| m.hash.as_str()),
            Some("hb"),
            "{on_disk:?}"
        );
        assert_eq!(
            on_disk.get(&a).map(|m| m.hash.as_str()),
            Some("ha"),
            "{on_disk:?}"
        );
    }

    fn filetime_of(meta: &std::fs::Metadata) -> SystemTime {
        meta.modified().unwrap()
    }

    fn set_mtime(path: &Path, when: SystemTime) {
        let file = std::fs::OpenOptions::new().write(true).open(path).unwrap();
        file.set_modified(when).unwrap();
    }
}
