//! A folder opened beneath the workspace without following a symlink
//! anywhere on the way, and file operations relative to it.
//!
//! The guard removes and rewrites files in repositories as amber, outside
//! any sandbox, while another command of the same turn may still run: a
//! path checked and then used could meanwhile lead through a symlink to
//! `~/.ssh`. So every operation here goes through a descriptor of a folder
//! opened component by component with `O_NOFOLLOW`, and names one entry of
//! it, never a path.

use std::ffi::{OsStr, OsString};
use std::io;
use std::os::fd::OwnedFd;
use std::os::unix::ffi::OsStrExt;
use std::path::{Component, Path};

use rustix::fs::{AtFlags, FileType, Mode, OFlags};

/// An open folder.
#[derive(Debug)]
pub struct Folder {
    fd: OwnedFd,
}

/// What one entry of a folder is, not following a symlink.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EntryStat {
    pub kind: FileType,
    pub mode: u32,
    pub size: u64,
    /// The status-change time, which no command can set back.
    pub changed: Changed,
}

/// A status-change time: seconds and nanoseconds since the epoch.
pub type Changed = (i64, i64);

/// `time` as a status-change time.
pub fn changed_at(time: std::time::SystemTime) -> Changed {
    match time.duration_since(std::time::UNIX_EPOCH) {
        Ok(d) => (d.as_secs() as i64, i64::from(d.subsec_nanos())),
        Err(_) => (0, 0),
    }
}

/// Which folder this is, whatever its name: a moved repository is the same.
pub type Identity = (u64, u64);

const DIR_FLAGS: OFlags = OFlags::RDONLY
    .union(OFlags::DIRECTORY)
    .union(OFlags::NOFOLLOW)
    .union(OFlags::CLOEXEC);

impl Folder {
    /// `root`, then each component of `relative` (`Normal` ones only),
    /// none of them a symlink.
    pub fn open_beneath(root: &Path, relative: &Path) -> io::Result<Folder> {
        let mut folder = Folder {
            fd: rustix::fs::open(root, DIR_FLAGS, Mode::empty())?,
        };
        for component in relative.components() {
            match component {
                Component::Normal(name) => folder = folder.child(name)?,
                Component::CurDir => {}
                _ => {
                    return Err(io::Error::new(
                        io::ErrorKind::InvalidInput,
                        "not a path below the workspace",
                    ))
                }
            }
        }
        Ok(folder)
    }

    /// The folder `name` inside this one, if it is a folder (not a
    /// symlink to one).
    pub fn child(&self, name: &OsStr) -> io::Result<Folder> {
        Ok(Folder {
            fd: rustix::fs::openat(&self.fd, name, DIR_FLAGS, Mode::empty())?,
        })
    }

    pub fn identity(&self) -> io::Result<Identity> {
        let stat = rustix::fs::fstat(&self.fd)?;
        Ok((stat.st_dev as u64, stat.st_ino as u64))
    }

    /// This folder's own status-change time.
    pub fn changed(&self) -> io::Result<Changed> {
        let stat = rustix::fs::fstat(&self.fd)?;
        Ok((stat.st_ctime as i64, stat.st_ctime_nsec as i64))
    }

    pub fn mkdir(&self, name: &OsStr, mode: u32) -> io::Result<()> {
        rustix::fs::mkdirat(&self.fd, name, Mode::from_raw_mode(mode as _))?;
        Ok(())
    }

    /// A hash of the file `name`'s bytes, read in pieces (however big).
    pub fn hash(&self, name: &OsStr) -> io::Result<u64> {
        use std::hash::Hasher;
        let flags = OFlags::RDONLY | OFlags::NOFOLLOW | OFlags::CLOEXEC | OFlags::NONBLOCK;
        let mut file =
            std::fs::File::from(rustix::fs::openat(&self.fd, name, flags, Mode::empty())?);
        let mut hasher = std::collections::hash_map::DefaultHasher::new();
        let mut buf = vec![0u8; 64 * 1024];
        loop {
            let n = io::Read::read(&mut file, &mut buf)?;
            if n == 0 {
                return Ok(hasher.finish());
            }
            hasher.write(&buf[..n]);
        }
    }

    /// The names in this folder (`.` and `..` left out).
    pub fn names(&self) -> io::Result<Vec<OsString>> {
        let mut dir = rustix::fs::Dir::read_from(&self.fd)?;
        let mut names = Vec::new();
        while let Some(entry) = dir.read() {
            let entry = entry?;
            let name = entry.file_name().to_bytes();
            if name != b"." && name != b".." {
                names.push(OsStr::from_bytes(name).to_os_string());
            }
        }
        Ok(names)
    }

    pub fn stat(&self, name: &OsStr) -> io::Result<EntryStat> {
        let stat = rustix::fs::statat(&self.fd, name, AtFlags::SYMLINK_NOFOLLOW)?;
        Ok(EntryStat {
            kind: FileType::from_raw_mode(stat.st_mode as _),
            mode: stat.st_mode as u32 & 0o7777,
            size: stat.st_size as u64,
            changed: (stat.st_ctime as i64, stat.st_ctime_nsec as i64),
        })
    }

    /// The bytes of the file `name`, if it is a regular file of at most
    /// `max` bytes.
    pub fn read(&self, name: &OsStr, max: u64) -> io::Result<Option<Vec<u8>>> {
        let flags = OFlags::RDONLY | OFlags::NOFOLLOW | OFlags::CLOEXEC | OFlags::NONBLOCK;
        let fd = rustix::fs::openat(&self.fd, name, flags, Mode::empty())?;
        let stat = rustix::fs::fstat(&fd)?;
        if FileType::from_raw_mode(stat.st_mode as _) != FileType::RegularFile
            || stat.st_size as u64 > max
        {
            return Ok(None);
        }
        let mut bytes = Vec::with_capacity((stat.st_size as u64).min(max) as usize);
        io::Read::read_to_end(
            &mut io::Read::take(std::fs::File::from(fd), max),
            &mut bytes,
        )?;
        Ok(Some(bytes))
    }

    pub fn read_link(&self, name: &OsStr) -> io::Result<OsString> {
        let target = rustix::fs::readlinkat(&self.fd, name, Vec::new())?;
        Ok(OsStr::from_bytes(target.as_bytes()).to_os_string())
    }

    /// Removes the entry `name`: a file, a symlink (not what it leads
    /// to), or a folder with everything in it.
    pub fn remove(&self, name: &OsStr) -> io::Result<()> {
        if self.stat(name)?.kind == FileType::Directory {
            let inner = self.child(name)?;
            for entry in inner.names()? {
                inner.remove(&entry)?;
            }
            rustix::fs::unlinkat(&self.fd, name, AtFlags::REMOVEDIR)?;
        } else {
            rustix::fs::unlinkat(&self.fd, name, AtFlags::empty())?;
        }
        Ok(())
    }

    /// Writes `bytes` as the file `name` with `mode`, in place of whatever
    /// is there: a new file renamed over it, never written through a
    /// symlink.
    pub fn write(&self, name: &OsStr, bytes: &[u8], mode: u32) -> io::Result<()> {
        let mut temporary = OsString::from(".amber-guard-");
        temporary.push(name);
        let _ = rustix::fs::unlinkat(&self.fd, &temporary, AtFlags::empty());
        let flags =
            OFlags::WRONLY | OFlags::CREATE | OFlags::EXCL | OFlags::NOFOLLOW | OFlags::CLOEXEC;
        let fd = rustix::fs::openat(&self.fd, &temporary, flags, Mode::from_raw_mode(mode as _))?;
        let mut file = std::fs::File::from(fd);
        io::Write::write_all(&mut file, bytes)?;
        // The umask may have narrowed the mode; the old file's is wanted.
        file.set_permissions(std::os::unix::fs::PermissionsExt::from_mode(mode))?;
        drop(file);
        if self.stat(name).is_ok_and(|s| s.kind == FileType::Directory) {
            self.remove(name)?;
        }
        rustix::fs::renameat(&self.fd, &temporary, &self.fd, name)?;
        Ok(())
    }

    pub fn symlink(&self, target: &OsStr, name: &OsStr) -> io::Result<()> {
        let _ = self.remove(name);
        rustix::fs::symlinkat(target, &self.fd, name)?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_symlink_on_the_way_is_refused_and_writes_never_follow_one() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        std::fs::create_dir_all(root.join("ws/repo")).unwrap();
        std::fs::create_dir_all(root.join("elsewhere")).unwrap();
        std::os::unix::fs::symlink(root.join("elsewhere"), root.join("ws/link")).unwrap();
        assert!(Folder::open_beneath(&root.join("ws"), Path::new("link")).is_err());
        assert!(Folder::open_beneath(&root.join("ws"), Path::new("../elsewhere")).is_err());
        let repo = Folder::open_beneath(&root.join("ws"), Path::new("repo")).unwrap();
        std::fs::write(root.join("elsewhere/target"), "keep").unwrap();
        std::os::unix::fs::symlink(root.join("elsewhere/target"), root.join("ws/repo/config"))
            .unwrap();
        repo.write(OsStr::new("config"), b"new", 0o644).unwrap();
        assert_eq!(
            std::fs::read_to_string(root.join("elsewhere/target")).unwrap(),
            "keep"
        );
        assert_eq!(
            std::fs::read_to_string(root.join("ws/repo/config")).unwrap(),
            "new"
        );
        std::fs::create_dir_all(root.join("ws/repo/sub/deeper")).unwrap();
        repo.remove(OsStr::new("sub")).unwrap();
        assert!(!root.join("ws/repo/sub").exists());
    }
}
