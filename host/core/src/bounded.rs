//! Reading a file a workspace (or a repository cloned into one) may hold,
//! without trusting it to be a file. A `.mcp.json` that is a symlink to
//! `/dev/zero` would be read until memory runs out; a FIFO named
//! `AGENTS.md` would block amber's start forever. So such a file is opened
//! without blocking, read only if what the path leads to (symlinks
//! followed) is a regular file, and only up to a cap, and a refusal is one
//! line naming the file.

use std::io::Read;
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};

/// Caps for the kinds of file read this way.
pub const SETTINGS_MAX: u64 = 1 << 20;

/// Why a file was not read.
#[derive(Debug, thiserror::Error)]
pub enum BoundedError {
    #[error("{} is not read: it is not a regular file (a FIFO, a device, a socket or a folder)", path.display())]
    NotRegular { path: PathBuf },
    #[error("{} is not read: it is {size} bytes, over the {max}-byte limit for it", path.display())]
    TooLarge { path: PathBuf, size: u64, max: u64 },
    #[error("cannot read {}: {reason}", path.display())]
    Io { path: PathBuf, reason: String },
}

/// The bytes of the regular file at `path`, at most `max` of them, or
/// `None` when there is nothing at `path` (a dangling symlink included).
pub fn read(path: &Path, max: u64) -> Result<Option<Vec<u8>>, BoundedError> {
    let io = |e: std::io::Error| BoundedError::Io {
        path: path.to_path_buf(),
        reason: crate::atomic::describe(&e),
    };
    let file = match std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK | libc::O_NOCTTY)
        .open(path)
    {
        Ok(file) => file,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(io(e)),
    };
    let meta = file.metadata().map_err(io)?;
    if !meta.is_file() {
        return Err(BoundedError::NotRegular {
            path: path.to_path_buf(),
        });
    }
    let too_large = |size| BoundedError::TooLarge {
        path: path.to_path_buf(),
        size,
        max,
    };
    if meta.len() > max {
        return Err(too_large(meta.len()));
    }
    // A file that grows while it is read is still cut one byte past the cap.
    let mut bytes = Vec::with_capacity(meta.len() as usize);
    file.take(max.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(io)?;
    if bytes.len() as u64 > max {
        return Err(too_large(bytes.len() as u64));
    }
    Ok(Some(bytes))
}

/// [`read`] as UTF-8 text; invalid UTF-8 is an error naming the file.
pub fn read_text(path: &Path, max: u64) -> Result<Option<String>, BoundedError> {
    let Some(bytes) = read(path, max)? else {
        return Ok(None);
    };
    String::from_utf8(bytes)
        .map(Some)
        .map_err(|_| BoundedError::Io {
            path: path.to_path_buf(),
            reason: "it is not UTF-8 text".into(),
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_regular_files_are_read_and_only_up_to_the_cap() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("settings.json");
        std::fs::write(&file, "{}").unwrap();
        assert_eq!(read_text(&file, 10).unwrap().unwrap(), "{}");
        assert!(read(&dir.path().join("missing"), 10).unwrap().is_none());
        let err = read(&file, 1).unwrap_err().to_string();
        assert!(
            err.ends_with("is not read: it is 2 bytes, over the 1-byte limit for it"),
            "{err}"
        );

        let zero = dir.path().join(".mcp.json");
        std::os::unix::fs::symlink("/dev/zero", &zero).unwrap();
        let fifo = dir.path().join("AGENTS.md");
        let name = std::ffi::CString::new(fifo.to_string_lossy().as_bytes()).unwrap();
        // SAFETY: a valid, NUL-terminated path.
        assert_eq!(unsafe { libc::mkfifo(name.as_ptr(), 0o600) }, 0);
        for path in [&zero, &fifo, &dir.path().to_path_buf()] {
            let err = read(path, 1 << 20).unwrap_err().to_string();
            assert!(
                err.contains("is not read: it is not a regular file"),
                "{err}"
            );
            assert!(err.starts_with(&path.display().to_string()), "{err}");
        }
    }
}
