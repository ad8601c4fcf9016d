//! The host's own file access inside the workspace: a cap-std `Dir` rooted
//! at the workspace, on top of the lexical confinement. The lexical check
//! refuses `..` and outside absolute paths before any I/O; the `Dir`
//! refuses what text cannot see, such as a symlink inside the workspace
//! that points out of it. Components get the same guarantee from their
//! WASI preopen.

use std::io::Read;
use std::path::{Path, PathBuf};

use cap_std::fs::{Dir, OpenOptions, OpenOptionsExt};

use crate::atomic;
use crate::confine::confine;

/// What [`WorkspaceDir::read_capped`] found.
#[derive(Debug, PartialEq, Eq)]
pub enum CappedRead {
    Bytes(Vec<u8>),
    /// The file's size, over the cap.
    TooLarge(u64),
}

/// `path` in `dir`, opened for reading if it is a regular file, with its
/// metadata. Opened without blocking, so a pipe planted in the workspace
/// fails instead of waiting for a writer that never comes; cap-std keeps
/// the open beneath `dir`.
fn open_regular(
    dir: &Dir,
    path: &Path,
) -> std::io::Result<(cap_std::fs::File, cap_std::fs::Metadata)> {
    let file = dir.open_with(
        path,
        OpenOptions::new().read(true).custom_flags(libc::O_NONBLOCK),
    )?;
    let metadata = file.metadata()?;
    if !metadata.is_file() {
        return Err(std::io::Error::other("not a regular file"));
    }
    Ok((file, metadata))
}

/// Reads `path` in `dir` if it is a regular file of at most `max` bytes,
/// or gives its size when it is larger (opened as [`open_regular`] opens).
pub fn read_regular(dir: &Dir, path: &Path, max: u64) -> std::io::Result<CappedRead> {
    let (file, metadata) = open_regular(dir, path)?;
    if metadata.len() > max {
        return Ok(CappedRead::TooLarge(metadata.len()));
    }
    // A file growing while we read is still cut at one byte past the cap.
    let mut bytes = Vec::with_capacity(metadata.len() as usize + 1);
    file.take(max.saturating_add(1)).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > max {
        return Ok(CappedRead::TooLarge(bytes.len() as u64));
    }
    Ok(CappedRead::Bytes(bytes))
}

/// The first `max` bytes of the regular file `path` in `dir`, and whether
/// there was more: a pipe or a device is refused, never waited on or read
/// without end.
pub fn read_head(dir: &Dir, path: &Path, max: u64) -> std::io::Result<(Vec<u8>, bool)> {
    let (file, _) = open_regular(dir, path)?;
    let mut bytes = Vec::new();
    file.take(max.saturating_add(1)).read_to_end(&mut bytes)?;
    let more = bytes.len() as u64 > max;
    bytes.truncate(max as usize);
    Ok((bytes, more))
}

/// Why the workspace, or a file in it, could not be used. Each says the
/// path as the caller gave it.
#[derive(Debug, thiserror::Error)]
pub enum WorkspaceError {
    #[error("cannot open the workspace {}: {reason}", root.display())]
    Open { root: PathBuf, reason: String },
    /// Refused before any I/O: `..`, or an absolute path outside.
    #[error(transparent)]
    Outside(#[from] crate::ConfineError),
    /// The OS refused, or the file is not what the call needs (a folder,
    /// a pipe, a symlink out of the workspace).
    #[error("cannot {action} {path}: {reason}")]
    Io {
        action: &'static str,
        path: String,
        reason: String,
    },
    /// A whole-file replace failed: "no space left on device (writing
    /// src/a.rs)".
    #[error("{reason} (writing {path})")]
    Replace { path: String, reason: String },
}

fn io(action: &'static str, path: &str, reason: impl std::fmt::Display) -> WorkspaceError {
    WorkspaceError::Io {
        action,
        path: path.to_string(),
        reason: reason.to_string(),
    }
}

pub struct WorkspaceDir {
    root: PathBuf,
    dir: Dir,
}

impl WorkspaceDir {
    pub fn open(root: &Path) -> Result<Self, WorkspaceError> {
        let dir = Dir::open_ambient_dir(root, cap_std::ambient_authority()).map_err(|e| {
            WorkspaceError::Open {
                root: root.to_path_buf(),
                reason: e.to_string(),
            }
        })?;
        Ok(WorkspaceDir {
            root: root.to_path_buf(),
            dir,
        })
    }

    /// The handle every access goes through.
    pub fn dir(&self) -> &Dir {
        &self.dir
    }

    /// `path` (relative, or absolute inside the root) relative to the root.
    pub fn relative(&self, path: &str) -> Result<PathBuf, WorkspaceError> {
        let confined = confine(&self.root, path)?;
        let relative = confined.strip_prefix(&self.root).unwrap_or(&confined);
        Ok(if relative.as_os_str().is_empty() {
            PathBuf::from(".")
        } else {
            relative.to_path_buf()
        })
    }

    pub fn is_file(&self, path: &str) -> bool {
        self.relative(path)
            .ok()
            .and_then(|p| self.dir.metadata(p).ok())
            .is_some_and(|m| m.is_file())
    }

    pub fn read(&self, path: &str) -> Result<Vec<u8>, WorkspaceError> {
        let relative = self.relative(path)?;
        self.dir.read(&relative).map_err(|e| io("read", path, e))
    }

    /// The bytes of a regular file of at most `max` bytes, or its size when
    /// it is larger (see [`read_regular`]).
    pub fn read_capped(&self, path: &str, max: u64) -> Result<CappedRead, WorkspaceError> {
        let relative = self.relative(path)?;
        read_regular(&self.dir, &relative, max).map_err(|e| io("read", path, e))
    }

    /// Replaces the file at `path` whole (see [`crate::atomic`]): its mode
    /// and owner kept, the old bytes intact if the write fails (a full
    /// disk), nothing half-written ever visible. A symlink inside the
    /// workspace is written through to its target, and stays a link; one
    /// that leads out, or to nothing, is refused. The error names `path`
    /// as given: "no space left on device (writing src/a.rs)".
    pub fn replace(&self, path: &str, bytes: &[u8]) -> Result<(), WorkspaceError> {
        let relative = self.relative(path)?;
        let failed = |e: std::io::Error| WorkspaceError::Replace {
            path: path.to_string(),
            reason: atomic::describe(&e),
        };
        let real = self.real_file(&relative).map_err(failed)?;
        let name = real
            .file_name()
            .ok_or_else(|| io("write", path, "it names no file"))?;
        let folder = match real.parent() {
            Some(parent) if !parent.as_os_str().is_empty() => self.dir.open_dir(parent),
            _ => self.dir.try_clone(),
        }
        .map_err(failed)?;
        atomic::replace_in(&folder, name, bytes, atomic::Options::STATE).map_err(failed)
    }

    /// Where writing `relative` writes: itself, or the end of its symlink
    /// chain, which cap-std keeps inside the workspace.
    fn real_file(&self, relative: &Path) -> std::io::Result<PathBuf> {
        match self.dir.symlink_metadata(relative) {
            Ok(meta) if meta.file_type().is_symlink() => {
                self.dir.canonicalize(relative).map_err(|e| {
                    if e.kind() == std::io::ErrorKind::NotFound {
                        std::io::Error::other("a symbolic link to a file that does not exist")
                    } else {
                        e
                    }
                })
            }
            _ => Ok(relative.to_path_buf()),
        }
    }

    /// The first `max` bytes of a regular file, and whether there was more
    /// (see [`read_head`]).
    pub fn read_head(&self, path: &str, max: u64) -> Result<(Vec<u8>, bool), WorkspaceError> {
        let relative = self.relative(path)?;
        read_head(&self.dir, &relative, max).map_err(|e| io("read", path, atomic::describe(&e)))
    }

    pub fn write(&self, path: &str, bytes: &[u8]) -> Result<(), WorkspaceError> {
        let relative = self.relative(path)?;
        self.dir
            .write(&relative, bytes)
            .map_err(|e| io("write", path, e))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_symlink_out_of_the_workspace_can_be_neither_read_nor_written() {
        let outside = tempfile::tempdir().unwrap();
        let secret = outside.path().join("secret.txt");
        std::fs::write(&secret, "top secret").unwrap();
        let ws = tempfile::tempdir().unwrap();
        let root = ws.path().canonicalize().unwrap();
        std::fs::write(root.join("ok.txt"), "fine").unwrap();
        std::os::unix::fs::symlink(&secret, root.join("link.txt")).unwrap();
        std::os::unix::fs::symlink(outside.path(), root.join("door")).unwrap();
        let dir = WorkspaceDir::open(&root).unwrap();
        assert_eq!(dir.read("ok.txt").unwrap(), b"fine");
        assert_eq!(
            dir.read(&root.join("ok.txt").to_string_lossy()).unwrap(),
            b"fine"
        );
        // The lexical check passes these; the Dir refuses them.
        assert!(dir.read("link.txt").is_err());
        assert!(dir.read("door/secret.txt").is_err());
        assert!(dir.write("door/new.txt", b"x").is_err());
        assert!(dir.write("link.txt", b"overwritten").is_err());
        assert!(!dir.is_file("link.txt"));
        assert_eq!(std::fs::read_to_string(&secret).unwrap(), "top secret");
        assert!(!outside.path().join("new.txt").exists());
        // And the lexical check refuses before any I/O.
        assert!(dir
            .read("../x")
            .unwrap_err()
            .to_string()
            .contains("outside the workspace"));
    }

    #[test]
    fn a_replace_keeps_the_mode_writes_through_inner_links_and_refuses_outer_ones() {
        use std::os::unix::fs::{MetadataExt, PermissionsExt};
        let outside = tempfile::tempdir().unwrap();
        std::fs::write(outside.path().join("secret.txt"), "top secret").unwrap();
        let ws = tempfile::tempdir().unwrap();
        let root = ws.path().canonicalize().unwrap();
        std::fs::create_dir(root.join("bin")).unwrap();
        std::fs::write(root.join("bin/run.sh"), "echo one\n").unwrap();
        std::fs::set_permissions(
            root.join("bin/run.sh"),
            std::fs::Permissions::from_mode(0o755),
        )
        .unwrap();
        std::os::unix::fs::symlink("bin/run.sh", root.join("run")).unwrap();
        std::os::unix::fs::symlink(outside.path().join("secret.txt"), root.join("out")).unwrap();
        std::os::unix::fs::symlink("bin/gone.sh", root.join("dangling")).unwrap();
        let dir = WorkspaceDir::open(&root).unwrap();

        dir.replace("run", b"echo two\n").unwrap();
        assert!(std::fs::symlink_metadata(root.join("run"))
            .unwrap()
            .file_type()
            .is_symlink());
        assert_eq!(
            std::fs::read_to_string(root.join("bin/run.sh")).unwrap(),
            "echo two\n"
        );
        assert_eq!(
            std::fs::metadata(root.join("bin/run.sh")).unwrap().mode() & 0o777,
            0o755
        );

        dir.replace("bin/new.txt", b"new").unwrap();
        assert_eq!(
            std::fs::read_to_string(root.join("bin/new.txt")).unwrap(),
            "new"
        );

        let err = dir.replace("out", b"x").unwrap_err().to_string();
        assert!(err.contains("(writing out)"), "{err}");
        assert_eq!(
            std::fs::read_to_string(outside.path().join("secret.txt")).unwrap(),
            "top secret"
        );
        let err = dir.replace("dangling", b"x").unwrap_err().to_string();
        assert!(err.contains("does not exist"), "{err}");
        assert!(dir
            .replace("../x", b"x")
            .unwrap_err()
            .to_string()
            .contains("outside the workspace"));
        assert!(dir
            .replace("bin", b"x")
            .unwrap_err()
            .to_string()
            .contains("not a regular file"));
    }

    #[test]
    fn a_capped_read_gives_the_bytes_or_the_size_and_reads_only_regular_files() {
        let ws = tempfile::tempdir().unwrap();
        let root = ws.path().canonicalize().unwrap();
        std::fs::write(root.join("small.txt"), "12345").unwrap();
        std::fs::create_dir(root.join("folder")).unwrap();
        let fifo = std::ffi::CString::new(root.join("pipe").to_string_lossy().as_bytes()).unwrap();
        // SAFETY: a valid, NUL-terminated path.
        assert_eq!(unsafe { libc::mkfifo(fifo.as_ptr(), 0o600) }, 0);
        let outside = tempfile::tempdir().unwrap();
        std::fs::write(outside.path().join("secret.txt"), "top secret").unwrap();
        std::os::unix::fs::symlink(outside.path().join("secret.txt"), root.join("link.txt"))
            .unwrap();
        let dir = WorkspaceDir::open(&root).unwrap();
        assert_eq!(
            dir.read_capped("small.txt", 5).unwrap(),
            CappedRead::Bytes(b"12345".to_vec())
        );
        assert_eq!(
            dir.read_capped("small.txt", 4).unwrap(),
            CappedRead::TooLarge(5)
        );
        // A pipe with no writer fails at once instead of blocking.
        for path in ["folder", "pipe"] {
            let err = dir.read_capped(path, 100).unwrap_err().to_string();
            assert!(err.contains("not a regular file"), "{path}: {err}");
        }
        assert!(dir.read_capped("link.txt", 100).is_err());
        assert!(dir.read_capped("../small.txt", 100).is_err());
    }
}
