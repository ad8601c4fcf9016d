//! The files of a project: walked with ripgrep's `ignore` walker, so
//! `.gitignore`, `.ignore` and hidden files are treated as git and rg treat
//! them ("collect paths: walk is ~free"), and read with a size cap.

use std::path::{Path, PathBuf};

/// Files larger than this are skipped with a reason: generated or vendored
/// blobs, not code a person reads by symbol.
pub const MAX_FILE_BYTES: u64 = 4 << 20;

/// A file found by the walk.
#[derive(Debug, Clone)]
pub struct SourceFile {
    pub abs: PathBuf,
    /// Relative to the root, with `/` separators: the path part of ids.
    pub rel: String,
    /// Lowercase, without the dot; empty for `Makefile` and the like,
    /// which grep searches but no parser serves.
    pub ext: String,
}

/// Every file under `root` the walk keeps, sorted by relative path so ids,
/// reports and caches come out the same every run.
pub fn walk(root: &Path) -> Vec<SourceFile> {
    let mut files: Vec<SourceFile> = ignore::WalkBuilder::new(root)
        .require_git(false)
        .build()
        .flatten()
        .filter(|e| e.file_type().is_some_and(|t| t.is_file()))
        .filter_map(|e| source_file(root, e.into_path()))
        .collect();
    files.sort_by(|a, b| a.rel.cmp(&b.rel));
    files
}

/// The one file at `path` (relative to `root`, or absolute inside it);
/// none for a path leading out of the root, by `..` or by a symlink.
pub fn single(root: &Path, path: &Path) -> Option<SourceFile> {
    let abs = amber_core::confine(root, &path.to_string_lossy()).ok()?;
    if let (Ok(real), Ok(real_root)) = (abs.canonicalize(), root.canonicalize()) {
        if !real.starts_with(real_root) {
            return None;
        }
    }
    source_file(root, abs)
}

/// Whether the bytes look binary (a NUL in the first 8 KiB), as ripgrep
/// decides: grep skips such files.
pub fn is_binary(bytes: &[u8]) -> bool {
    bytes[..bytes.len().min(8 << 10)].contains(&0)
}

fn source_file(root: &Path, abs: PathBuf) -> Option<SourceFile> {
    let rel = abs.strip_prefix(root).ok()?;
    let rel = rel
        .components()
        .map(|c| c.as_os_str().to_string_lossy())
        .collect::<Vec<_>>()
        .join("/");
    let ext = abs
        .extension()
        .map(|e| e.to_string_lossy().to_ascii_lowercase())
        .unwrap_or_default();
    Some(SourceFile { abs, rel, ext })
}

/// The file's bytes, or why they cannot be had.
pub fn read(file: &SourceFile) -> Result<Vec<u8>, String> {
    read_up_to(file, MAX_FILE_BYTES)
}

/// The file's bytes if it holds at most `limit`, or why they cannot be had.
pub fn read_up_to(file: &SourceFile, limit: u64) -> Result<Vec<u8>, String> {
    let meta = std::fs::metadata(&file.abs).map_err(|e| e.to_string())?;
    if meta.len() > limit {
        return Err(format!(
            "{} bytes, over the {} MiB limit",
            meta.len(),
            limit >> 20
        ));
    }
    std::fs::read(&file.abs).map_err(|e| e.to_string())
}
