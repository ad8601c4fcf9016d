//! The journal: `<data>/coverage/<workspace key>/<session>.ndjson`, one
//! [`Record`] a line, appended by one writer only (the host, holding an
//! advisory lock on the file: a second writer is refused, naming the
//! file) at the end of each turn and fsynced then, so a crash loses at
//! most the turn in progress. Everything downstream reads it; a reader
//! skips a malformed line and counts it, never fails on one.

use std::fs::{File, OpenOptions};
use std::io::Write;
use std::os::fd::AsRawFd;
use std::path::{Path, PathBuf};

use crate::ledger::Record;

#[derive(Debug, thiserror::Error)]
pub enum JournalError {
    #[error("{}: {reason}", path.display())]
    Io { path: PathBuf, reason: String },
    #[error("{} is being written by another amber (its lock is held)", path.display())]
    Busy { path: PathBuf },
}

fn io(path: &Path) -> impl Fn(std::io::Error) -> JournalError + '_ {
    move |e| JournalError::Io {
        path: path.to_path_buf(),
        reason: e.to_string(),
    }
}

/// The journal's path for `session` of the workspace keyed `workspace_key`.
pub fn path(data: &Path, workspace_key: &str, session: &str) -> PathBuf {
    data.join("coverage")
        .join(workspace_key)
        .join(format!("{session}.ndjson"))
}

/// A stable key for a workspace root: its path made safe for a file
/// name (cut to 80 characters) and a 64-bit FNV-1a digest of the whole
/// path, so `/a/b_c` and `/a/b/c`, or two long paths alike at the start,
/// never share a journal folder.
pub fn workspace_key(root: &Path) -> String {
    let text = root.display().to_string();
    let safe: String = text
        .trim_start_matches('/')
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '.' {
                c
            } else {
                '_'
            }
        })
        .take(80)
        .collect();
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for byte in text.bytes() {
        hash ^= u64::from(byte);
        hash = hash.wrapping_mul(0x0100_0000_01b3);
    }
    format!("{}-{hash:016x}", if safe.is_empty() { "_" } else { &safe })
}

/// The one writer of a journal.
pub struct JournalWriter {
    file: File,
    path: PathBuf,
}

impl JournalWriter {
    /// Opens (creating) `path` for appending and takes its lock; another
    /// process holding it is an error at once, not a wait.
    pub fn open(path: &Path) -> Result<JournalWriter, JournalError> {
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).map_err(io(dir))?;
        }
        let file = OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
            .map_err(io(path))?;
        // SAFETY: flock on a descriptor this writer owns for its lifetime.
        let rc = unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) };
        if rc != 0 {
            return Err(JournalError::Busy {
                path: path.to_path_buf(),
            });
        }
        let mut writer = JournalWriter {
            file,
            path: path.to_path_buf(),
        };
        writer.end_a_cut_line()?;
        Ok(writer)
    }

    /// A line cut off by a crash stays a line of its own (skipped when
    /// read), so the next record is not glued to it.
    fn end_a_cut_line(&mut self) -> Result<(), JournalError> {
        use std::io::{Read, Seek, SeekFrom};
        let mut file = File::open(&self.path).map_err(io(&self.path))?;
        let len = file.metadata().map_err(io(&self.path))?.len();
        if len == 0 {
            return Ok(());
        }
        let mut last = [0u8; 1];
        file.seek(SeekFrom::Start(len - 1))
            .map_err(io(&self.path))?;
        file.read_exact(&mut last).map_err(io(&self.path))?;
        if last[0] != b'\n' {
            self.file.write_all(b"\n").map_err(io(&self.path))?;
        }
        Ok(())
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Appends `records` and fsyncs; nothing to write writes nothing.
    pub fn append(&mut self, records: &[Record]) -> Result<(), JournalError> {
        if records.is_empty() {
            return Ok(());
        }
        let mut text = String::new();
        for record in records {
            // A record is plain data: it always serialises.
            if let Ok(line) = serde_json::to_string(record) {
                text.push_str(&line);
                text.push('\n');
            }
        }
        self.file
            .write_all(text.as_bytes())
            .map_err(io(&self.path))?;
        self.file.sync_data().map_err(io(&self.path))
    }
}

/// A journal as read: its records, and how many lines were skipped.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct Journal {
    pub records: Vec<Record>,
    pub malformed: usize,
}

/// Reads `path`; a missing file is an empty journal. A line cut off by a
/// crash, or edited into nonsense, is skipped and counted.
pub fn read(path: &Path) -> Result<Journal, JournalError> {
    let bytes = match std::fs::read(path) {
        Ok(bytes) => bytes,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Journal::default()),
        Err(e) => return Err(io(path)(e)),
    };
    let text = String::from_utf8_lossy(&bytes);
    let mut journal = Journal::default();
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        match serde_json::from_str::<Record>(line) {
            Ok(record) => journal.records.push(record),
            Err(_) => journal.malformed += 1,
        }
    }
    Ok(journal)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::depth::Depth;
    use crate::ledger::Entry;

    fn record(symbol: &str) -> Record {
        Record::Read {
            agent: "main".into(),
            symbol: symbol.into(),
            entry: Entry {
                path: "src/a.rs".into(),
                depth: Depth::FullBody,
                hash: "b3:1".into(),
                turn: 1,
            },
        }
    }

    #[test]
    fn records_round_trip_and_a_line_cut_by_a_crash_is_skipped_and_counted() {
        let dir = tempfile::tempdir().unwrap();
        let path = path(dir.path(), "ws", "s1");
        let mut writer = JournalWriter::open(&path).unwrap();
        writer
            .append(&[record("f"), Record::Compacted { turn: 1 }])
            .unwrap();
        writer.append(&[]).unwrap();
        // A crash mid-line: the process and its lock are gone.
        drop(writer);
        std::fs::OpenOptions::new()
            .append(true)
            .open(&path)
            .unwrap()
            .write_all(b"{\"t\":\"read\",\"agent\":\"ma")
            .unwrap();
        let mut resumed = JournalWriter::open(&path).unwrap();
        resumed.append(&[record("g")]).unwrap();
        let journal = read(&path).unwrap();
        assert_eq!(
            journal.records,
            [record("f"), Record::Compacted { turn: 1 }, record("g")]
        );
        assert_eq!(journal.malformed, 1);
    }

    #[test]
    fn a_second_writer_is_refused_and_a_missing_journal_is_empty() {
        let dir = tempfile::tempdir().unwrap();
        let path = path(dir.path(), "ws", "s1");
        let _first = JournalWriter::open(&path).unwrap();
        assert!(matches!(
            JournalWriter::open(&path),
            Err(JournalError::Busy { .. })
        ));
        assert_eq!(
            read(&dir.path().join("none.ndjson")).unwrap(),
            Journal::default()
        );
    }

    #[test]
    fn workspace_keys_are_file_names_that_never_collide() {
        let key = workspace_key(Path::new("/work/my project"));
        assert!(key.starts_with("work_my_project-"), "{key}");
        assert_ne!(
            workspace_key(Path::new("/a/b_c")),
            workspace_key(Path::new("/a/b/c"))
        );
        assert!(workspace_key(Path::new(&"/x".repeat(500))).len() < 120);
        assert!(workspace_key(Path::new("/")).starts_with("_-"));
    }
}
