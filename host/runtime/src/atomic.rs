//! Atomic file writes: a uniquely named temporary file in the same
//! directory, fsynced, then renamed into place, so a reader never sees a
//! half-written file and concurrent writers never collide.

use std::io::Write;
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};

/// Writes durably: the data is fsynced before the rename. For state.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    write(path, bytes, true)
}

/// Writes without waiting for the disk. For cache entries whose readers
/// validate what they read and treat anything broken as a miss.
pub fn write_cache_entry(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    write(path, bytes, false)
}

fn write(path: &Path, bytes: &[u8], durable: bool) -> std::io::Result<()> {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let dir = path.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir)?;
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    let tmp = dir.join(format!(".tmp-{}-{n}", std::process::id()));
    let written = (|| {
        let mut file = std::fs::File::create(&tmp)?;
        file.write_all(bytes)?;
        if durable {
            file.sync_all()?;
        }
        std::fs::rename(&tmp, path)
    })();
    if written.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    written
}
