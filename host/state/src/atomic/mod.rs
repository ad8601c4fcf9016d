//! Replacing a file whole, so that nothing is ever lost: the new bytes go to
//! a uniquely named temporary file in the target's own folder, which takes
//! the target's mode and owner, is fsynced, and is renamed over the target;
//! then the folder is fsynced, so the rename itself survives a power cut.
//! A reader sees the old file or the new one, never half of either; a full
//! disk fails before the rename and leaves the old file as it was. A
//! symlink is written through (its target replaced, the link kept), as
//! `std::fs::write` would have done.
//!
//! Every state file amber keeps, the user's config, and the file tools'
//! writes in the workspace go through [`replace_in`]; the path-based calls
//! below open the folder and call it. (`write_file` over WASI truncated in
//! place: a full disk left an empty file.)

mod lock;
mod temp;
mod words;

use std::ffi::OsStr;
use std::io::Write;
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};

use cap_std::fs::{Dir, OpenOptions, OpenOptionsExt};

pub use lock::FileLock;
pub use temp::{is_temp_file, remove_stale_temps, StaleTemps};
pub use words::describe;

/// Who may read a file amber creates.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NewMode {
    /// `0666` less the umask, as any program makes a file. An existing
    /// file keeps its own mode.
    Ordinary,
    /// `0600` when created. An existing file keeps its own mode: the user
    /// chose it.
    PrivateIfNew,
    /// `0600`, always: the file names a secret or a trust decision, and no
    /// one else has any business reading it.
    Private,
}

/// How [`replace_in`] writes.
#[derive(Debug, Clone, Copy)]
pub struct Options {
    /// Fsync the file and then the folder. Off only for cache entries,
    /// whose readers treat anything broken as a miss.
    pub durable: bool,
    pub mode: NewMode,
}

impl Options {
    pub const STATE: Options = Options {
        durable: true,
        mode: NewMode::Ordinary,
    };
    pub const PRIVATE: Options = Options {
        durable: true,
        mode: NewMode::Private,
    };
    pub const CACHE: Options = Options {
        durable: false,
        mode: NewMode::Ordinary,
    };
}

/// Writes durably, keeping an existing file's mode and owner. For state.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    write_with(path, bytes, Options::STATE)
}

/// Writes durably, mode `0600` whatever the file had. For what names a
/// secret or a trust decision (grants, hook trust, MCP pins).
pub fn write_private(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    write_with(path, bytes, Options::PRIVATE)
}

/// Writes without waiting for the disk. For cache entries whose readers
/// validate what they read and treat anything broken as a miss.
pub fn write_cache_entry(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    write_with(path, bytes, Options::CACHE)
}

/// Writes `bytes` to `path` (through a symlink, to its target), making the
/// folder when missing.
pub fn write_with(path: &Path, bytes: &[u8], options: Options) -> std::io::Result<()> {
    let target = follow_links(path)?;
    let (folder, name) = split(&target)?;
    std::fs::create_dir_all(folder)?;
    let dir = Dir::open_ambient_dir(folder, cap_std::ambient_authority())?;
    replace_in(&dir, name, bytes, options)
}

/// Where writing `path` really writes: the end of its chain of symlinks
/// (at most 40, as the kernel allows), or `path` itself. A dangling link
/// leads to the file it names, which is then created.
pub fn follow_links(path: &Path) -> std::io::Result<PathBuf> {
    let mut at = path.to_path_buf();
    for _ in 0..40 {
        match std::fs::symlink_metadata(&at) {
            Ok(meta) if meta.file_type().is_symlink() => {
                let next = std::fs::read_link(&at)?;
                at = match at.parent() {
                    Some(parent) => parent.join(next),
                    None => next,
                };
            }
            _ => return Ok(at),
        }
    }
    Err(std::io::Error::other(format!(
        "{}: too many levels of symbolic links",
        path.display()
    )))
}

fn split(path: &Path) -> std::io::Result<(&Path, &OsStr)> {
    let name = path.file_name().ok_or_else(|| {
        std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            format!("{} names no file", path.display()),
        )
    })?;
    let folder = match path.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent,
        _ => Path::new("."),
    };
    Ok((folder, name))
}

/// What the target was before the write: its mode and owner are the new
/// file's.
struct Before {
    mode: u32,
    uid: u32,
    gid: u32,
}

/// The file `name` in `dir`, if there is one. Not followed: a symlink is
/// the caller's to resolve (a path through [`follow_links`], a workspace
/// file through its confined real path), and one left here is refused
/// rather than replaced by a file.
fn before(dir: &Dir, name: &OsStr) -> std::io::Result<Option<Before>> {
    let file = match dir.open_with(
        name,
        OpenOptions::new()
            .read(true)
            .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK),
    ) {
        Ok(file) => file,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) if e.raw_os_error() == Some(libc::ELOOP) => {
            return Err(std::io::Error::other(
                "it is a symbolic link; write the file it points to",
            ))
        }
        Err(e) => return Err(e),
    };
    let meta = file.into_std().metadata()?;
    if !meta.is_file() {
        return Err(std::io::Error::other(
            "not a regular file (a folder, a FIFO, a device or a socket)",
        ));
    }
    Ok(Some(Before {
        mode: meta.mode() & 0o7777,
        uid: meta.uid(),
        gid: meta.gid(),
    }))
}

/// Replaces (or creates) the file `name` in `dir` with `bytes`; see the
/// module's doc. On any failure the temporary file is removed and the
/// target is untouched.
pub fn replace_in(dir: &Dir, name: &OsStr, bytes: &[u8], options: Options) -> std::io::Result<()> {
    let before = before(dir, name)?;
    let tmp = temp::name_for(name);
    let create_mode = match (&before, options.mode) {
        (_, NewMode::Private) | (None, NewMode::PrivateIfNew) => 0o600,
        // The final mode is set below; until then only the owner reads.
        (Some(_), _) => 0o600,
        (None, NewMode::Ordinary) => 0o666,
    };
    let file = dir.open_with(
        &tmp,
        OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(create_mode),
    )?;
    let written = (|| {
        let mut file = file.into_std();
        file.write_all(bytes)?;
        if let Some(before) = &before {
            let mode = match options.mode {
                NewMode::Private => 0o600,
                _ => before.mode,
            };
            file.set_permissions(std::fs::Permissions::from_mode(mode))?;
            let meta = file.metadata()?;
            if meta.uid() != before.uid || meta.gid() != before.gid {
                // Only root (or the owner, for a group it is in) may give a
                // file away; where we may not, the file becomes ours, as an
                // editor's save-by-rename makes it.
                let _ = std::os::unix::fs::fchown(&file, Some(before.uid), Some(before.gid));
            }
        }
        if options.durable {
            file.sync_all()?;
        }
        drop(file);
        // Written whole, not yet in place: a kill here leaves the target
        // as it was and a temporary that the next amber removes.
        crate::crash_point::pass("atomic-write");
        dir.rename(&tmp, dir, name)?;
        if options.durable {
            sync_folder(dir)?;
        }
        Ok(())
    })();
    if written.is_err() {
        let _ = dir.remove_file(&tmp);
    }
    written
}

/// The rename is an entry in the folder: fsyncing the folder keeps it.
/// (cap-std holds the folder as an `O_PATH` handle, which cannot be
/// synced: the folder is opened again, for reading, to sync it.)
fn sync_folder(dir: &Dir) -> std::io::Result<()> {
    dir.open_with(".", OpenOptions::new().read(true))?
        .into_std()
        .sync_all()
}

#[cfg(test)]
mod tests;
