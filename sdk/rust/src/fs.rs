//! `std::fs` that names the permission a plugin lacks. Without a workspace
//! grant a plugin has no preopen at all, so WASI answers every path with
//! "No such file or directory (os error 44)", which reads as a wrong path
//! to the model and the user alike. These wrappers turn a failure the
//! missing grant explains into "not granted: workspace-read (grant it with
//! `amber plugin grant <id> workspace-read`)"; with the grant, errors pass
//! through untouched. [`explain`] does the same for any other `std::fs` call.

use std::cell::RefCell;
use std::fs::{File, Metadata, ReadDir};
use std::io;
use std::path::Path;

use crate::Permission;

/// What the host granted this instance, as `initialize` was told.
struct Granted {
    plugin: String,
    permissions: Vec<Permission>,
}

thread_local! {
    // Unknown until `initialize` (and natively, where there is no host):
    // then nothing is explained, since nothing is known to be missing.
    static GRANTED: RefCell<Option<Granted>> = const { RefCell::new(None) };
}

/// Records the grants `initialize` received; the SDK's glue calls it.
pub(crate) fn remember(plugin: String, permissions: &[Permission]) {
    let granted = Granted {
        plugin,
        permissions: permissions.to_vec(),
    };
    GRANTED.with(|cell| *cell.borrow_mut() = Some(granted));
}

/// A permission the plugin needs for what it tried, and was not granted.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("not granted: {permission} (grant it with `amber plugin grant {plugin} {permission}`)")]
pub struct NotGranted {
    /// As the user types it: `workspace-read`, `workspace-write`, `exec`,
    /// `http`.
    pub permission: &'static str,
    pub plugin: String,
}

/// The name a user types for `permission`.
pub fn permission_name(permission: Permission) -> &'static str {
    match permission {
        Permission::WorkspaceRead => "workspace-read",
        Permission::WorkspaceWrite => "workspace-write",
        Permission::Exec => "exec",
        Permission::Http => "http",
    }
}

/// `Err` when the host said at `initialize` that `permission` is not
/// granted. Reading is granted by `workspace-read` or `workspace-write`
/// (which mounts the workspace read-write), as the host decides.
pub fn require(permission: Permission) -> Result<(), NotGranted> {
    GRANTED.with(|cell| {
        let granted = cell.borrow();
        let Some(granted) = granted.as_ref() else {
            return Ok(());
        };
        let has = |p: Permission| granted.permissions.contains(&p);
        let ok = match permission {
            Permission::WorkspaceRead => {
                has(Permission::WorkspaceRead) || has(Permission::WorkspaceWrite)
            }
            other => has(other),
        };
        if ok {
            return Ok(());
        }
        Err(NotGranted {
            permission: permission_name(permission),
            plugin: granted.plugin.clone(),
        })
    })
}

/// `error` from a file operation that needed `permission`, replaced by
/// [`NotGranted`] (kind `PermissionDenied`) when that permission is
/// missing, since then it is the cause whatever WASI said.
pub fn explain(permission: Permission, error: io::Error) -> io::Error {
    match require(permission) {
        Ok(()) => error,
        Err(missing) => io::Error::new(io::ErrorKind::PermissionDenied, missing),
    }
}

/// True when `error` came from [`explain`] for a missing grant, so a
/// caller can skip advice about paths.
pub fn is_not_granted(error: &io::Error) -> bool {
    error
        .get_ref()
        .is_some_and(|inner| inner.is::<NotGranted>())
}

fn reading<T>(result: io::Result<T>) -> io::Result<T> {
    result.map_err(|e| explain(Permission::WorkspaceRead, e))
}

fn writing<T>(result: io::Result<T>) -> io::Result<T> {
    result.map_err(|e| explain(Permission::WorkspaceWrite, e))
}

/// [`std::fs::read`], naming a missing `workspace-read`.
pub fn read(path: impl AsRef<Path>) -> io::Result<Vec<u8>> {
    reading(std::fs::read(path))
}

/// [`std::fs::read_to_string`], naming a missing `workspace-read`.
pub fn read_to_string(path: impl AsRef<Path>) -> io::Result<String> {
    reading(std::fs::read_to_string(path))
}

/// [`File::open`], naming a missing `workspace-read`.
pub fn open(path: impl AsRef<Path>) -> io::Result<File> {
    reading(File::open(path))
}

/// [`std::fs::metadata`], naming a missing `workspace-read`.
pub fn metadata(path: impl AsRef<Path>) -> io::Result<Metadata> {
    reading(std::fs::metadata(path))
}

/// [`std::fs::read_dir`], naming a missing `workspace-read`.
pub fn read_dir(path: impl AsRef<Path>) -> io::Result<ReadDir> {
    reading(std::fs::read_dir(path))
}

/// Writes a whole file, as [`std::fs::write`] does, but never loses it:
/// the host replaces the file in one step (`files.replace-file`), keeping
/// its mode and owner, so a full disk or a crash leaves the old file
/// intact rather than truncated. A symlink in the workspace is written
/// through. Names a missing `workspace-write`; other errors are words
/// naming the path ("no space left on device (writing src/a.rs)").
pub fn write(path: impl AsRef<Path>, contents: impl AsRef<[u8]>) -> io::Result<()> {
    require(Permission::WorkspaceWrite)
        .map_err(|missing| io::Error::new(io::ErrorKind::PermissionDenied, missing))?;
    let path = path.as_ref();
    replace(path, contents.as_ref())
}

#[cfg(target_arch = "wasm32")]
fn replace(path: &Path, contents: &[u8]) -> io::Result<()> {
    let given = path.to_string_lossy();
    let cwd = std::env::current_dir().ok();
    let host = crate::files::from_cwd(cwd.as_deref(), &given);
    crate::bindings::amber::plugin::files::replace_file(&host, contents)
        .map_err(|e| io::Error::other(e.replace(&host, &given)))
}

/// Natively there is no host: the plain write (for a plugin's own tests).
#[cfg(not(target_arch = "wasm32"))]
fn replace(path: &Path, contents: &[u8]) -> io::Result<()> {
    std::fs::write(path, contents)
}

/// An I/O error in words: the OS's message without "(os error N)",
/// whose numbers under WASI are not the ones a person could look up.
pub fn describe(e: &io::Error) -> String {
    let text = e.to_string();
    let text = match text.rfind(" (os error ") {
        Some(at) if text.ends_with(')') => &text[..at],
        _ => &text,
    };
    let mut chars = text.chars();
    match (chars.next(), chars.next()) {
        // A capitalised word is lowered; "I/O error" keeps its capital.
        (Some(first), Some(second)) if first.is_uppercase() && second.is_lowercase() => first
            .to_lowercase()
            .chain(text[first.len_utf8()..].chars())
            .collect(),
        _ => text.to_string(),
    }
}

/// [`std::fs::create_dir_all`], naming a missing `workspace-write`.
pub fn create_dir_all(path: impl AsRef<Path>) -> io::Result<()> {
    writing(std::fs::create_dir_all(path))
}
