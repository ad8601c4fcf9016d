//! A plugin's own log: its `host.log` calls and everything it writes to
//! stderr. Lines go to a file under the plugin's data dir (read by
//! `amber plugin logs <id>`) and the newest few stay in memory, so an error
//! report can quote what the plugin said just before it trapped.

use std::collections::VecDeque;
use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::pin::Pin;
use std::sync::{Arc, Mutex, MutexGuard};
use std::task::{Context, Poll};

use bytes::Bytes;
use wasmtime_wasi::cli::{IsTerminal, StdoutStream};
use wasmtime_wasi::p2::{OutputStream, Pollable, StreamError};

/// How many recent lines are kept in memory.
const RECENT_LINES: usize = 64;
/// A single stderr line longer than this is cut, so a plugin cannot grow
/// the host's memory by never writing a newline.
const MAX_LINE: usize = 8 * 1024;

#[derive(Default)]
struct Inner {
    file: Option<File>,
    partial: Vec<u8>,
    recent: VecDeque<String>,
    /// Lines written so far, to ask for "what was said since".
    written: u64,
}

/// The log of one plugin, shared by all its instances.
pub struct PluginLog {
    path: Option<PathBuf>,
    inner: Mutex<Inner>,
}

impl PluginLog {
    /// A log kept in memory only.
    pub fn in_memory() -> Arc<Self> {
        Arc::new(PluginLog {
            path: None,
            inner: Mutex::default(),
        })
    }

    /// A log appended to `path`; the directory is created if missing. When
    /// the file cannot be opened, the log is kept in memory only.
    pub fn at(path: &Path) -> Arc<Self> {
        let file = path
            .parent()
            .map(std::fs::create_dir_all)
            .and_then(|r| r.ok())
            .and_then(|_| OpenOptions::new().create(true).append(true).open(path).ok());
        let inner = Inner {
            file,
            ..Inner::default()
        };
        Arc::new(PluginLog {
            path: Some(path.to_path_buf()),
            inner: Mutex::new(inner),
        })
    }

    pub fn path(&self) -> Option<&Path> {
        self.path.as_deref()
    }

    fn lock(&self) -> MutexGuard<'_, Inner> {
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Records one line with a level tag, e.g. `[warn] low on cache`.
    pub fn line(&self, level: &str, message: &str) {
        let mut inner = self.lock();
        for text in message.lines() {
            push_line(&mut inner, format!("[{level}] {text}"));
        }
    }

    /// Records raw stderr bytes; complete lines are logged as `[stderr]`.
    pub fn stderr(&self, bytes: &[u8]) {
        let mut inner = self.lock();
        inner.partial.extend_from_slice(bytes);
        while let Some(pos) = inner.partial.iter().position(|b| *b == b'\n') {
            let line: Vec<u8> = inner.partial.drain(..=pos).collect();
            let text = String::from_utf8_lossy(&line[..line.len() - 1]).into_owned();
            push_line(&mut inner, format!("[stderr] {text}"));
        }
        if inner.partial.len() > MAX_LINE {
            let line: Vec<u8> = std::mem::take(&mut inner.partial);
            let text = String::from_utf8_lossy(&line[..MAX_LINE]).into_owned();
            push_line(
                &mut inner,
                format!("[stderr] {text} [line cut at {MAX_LINE} bytes]"),
            );
        }
    }

    /// A mark to pass to [`PluginLog::since`].
    pub fn mark(&self) -> u64 {
        self.lock().written
    }

    /// The lines written after `mark` that are still in memory.
    pub fn since(&self, mark: u64) -> Vec<String> {
        let inner = self.lock();
        let new = inner.written.saturating_sub(mark) as usize;
        let skip = inner.recent.len().saturating_sub(new);
        inner.recent.iter().skip(skip).cloned().collect()
    }

    /// The newest `n` lines, oldest first.
    pub fn recent(&self, n: usize) -> Vec<String> {
        let inner = self.lock();
        let skip = inner.recent.len().saturating_sub(n);
        inner.recent.iter().skip(skip).cloned().collect()
    }

    /// A sink for the plugin's WASI stderr.
    pub fn stderr_pipe(self: &Arc<Self>) -> LogPipe {
        LogPipe(Arc::clone(self))
    }
}

fn push_line(inner: &mut Inner, line: String) {
    if let Some(file) = inner.file.as_mut() {
        // A full disk must not take the plugin down; the in-memory tail
        // still has the line.
        let _ = writeln!(file, "{line}");
    }
    if inner.recent.len() == RECENT_LINES {
        inner.recent.pop_front();
    }
    inner.recent.push_back(line);
    inner.written += 1;
}

/// The WASI stderr stream of an instance, writing into its plugin's log.
#[derive(Clone)]
pub struct LogPipe(Arc<PluginLog>);

impl IsTerminal for LogPipe {
    fn is_terminal(&self) -> bool {
        false
    }
}

impl StdoutStream for LogPipe {
    fn p2_stream(&self) -> Box<dyn OutputStream> {
        Box::new(self.clone())
    }

    fn async_stream(&self) -> Box<dyn tokio::io::AsyncWrite + Send + Sync> {
        Box::new(self.clone())
    }
}

impl OutputStream for LogPipe {
    fn write(&mut self, bytes: Bytes) -> Result<(), StreamError> {
        self.0.stderr(&bytes);
        Ok(())
    }

    fn flush(&mut self) -> Result<(), StreamError> {
        Ok(())
    }

    fn check_write(&mut self) -> Result<usize, StreamError> {
        Ok(64 * 1024)
    }
}

#[wasmtime_wasi::async_trait]
impl Pollable for LogPipe {
    async fn ready(&mut self) {}
}

impl tokio::io::AsyncWrite for LogPipe {
    fn poll_write(
        self: Pin<&mut Self>,
        _cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<std::io::Result<usize>> {
        self.0.stderr(buf);
        Poll::Ready(Ok(buf.len()))
    }

    fn poll_flush(self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Poll::Ready(Ok(()))
    }

    fn poll_shutdown(self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Poll::Ready(Ok(()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stderr_is_split_into_lines_and_partial_lines_wait() {
        let log = PluginLog::in_memory();
        log.stderr(b"one\ntw");
        assert_eq!(log.recent(10), ["[stderr] one"]);
        log.stderr(b"o\n");
        assert_eq!(log.recent(1), ["[stderr] two"]);
    }

    #[test]
    fn an_endless_line_is_cut_instead_of_growing_forever() {
        let log = PluginLog::in_memory();
        log.stderr(&vec![b'x'; MAX_LINE + 10]);
        assert!(log.recent(1)[0].ends_with("[line cut at 8192 bytes]"));
    }

    #[test]
    fn lines_are_appended_to_the_log_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("p/log");
        let log = PluginLog::at(&path);
        log.line("info", "hello");
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "[info] hello\n");
    }
}
