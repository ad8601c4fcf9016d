//! A program in a pseudo-terminal of our own, watched for its first
//! usable frame: the time from spawn until each of some marker texts
//! appears in what it draws, and its peak resident set once all have
//! (`VmHWM`). The same watcher
//! times amber's TUI and a peer's, so neither is measured by a hook of
//! its own. Queries a TUI sends its terminal at start (the cursor
//! position, the device attributes) are answered as a terminal would, or
//! a program waiting for them would stall on its time-out.

use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::os::unix::process::CommandExt;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};

const ROWS: u16 = 40;
const COLS: u16 = 120;

/// What the watcher saw.
pub struct FirstFrame {
    /// When each marker first showed, in milliseconds since the spawn.
    pub ms: Vec<f64>,
    pub peak_kib: u64,
}

/// A new pseudo-terminal of ROWS×COLS: (master, slave).
fn open_pty() -> Result<(OwnedFd, OwnedFd)> {
    let (mut master, mut slave) = (0, 0);
    let size = libc::winsize {
        ws_row: ROWS,
        ws_col: COLS,
        ws_xpixel: 0,
        ws_ypixel: 0,
    };
    // SAFETY: openpty writes two descriptors into the ints it is given.
    let rc = unsafe {
        libc::openpty(
            &mut master,
            &mut slave,
            std::ptr::null_mut(),
            std::ptr::null(),
            &size,
        )
    };
    if rc != 0 {
        bail!("openpty failed: {}", std::io::Error::last_os_error());
    }
    // Neither end leaks into the program: it gets the terminal as its
    // standard streams only (dup2 clears the flag on those).
    for fd in [master, slave] {
        // SAFETY: fcntl on a descriptor just opened.
        unsafe { libc::fcntl(fd, libc::F_SETFD, libc::FD_CLOEXEC) };
    }
    // SAFETY: both descriptors were just opened and are owned here only.
    Ok(unsafe { (OwnedFd::from_raw_fd(master), OwnedFd::from_raw_fd(slave)) })
}

/// Runs `cmd` on a new terminal until every one of `markers` has shown
/// in its output (the escape sequences taken out), then kills it.
pub fn first_frame(cmd: &mut Command, markers: &[&str], timeout: Duration) -> Result<FirstFrame> {
    let (master, slave) = open_pty()?;
    let stdio = || -> Result<Stdio> { Ok(Stdio::from(slave.try_clone()?)) };
    cmd.stdin(stdio()?).stdout(stdio()?).stderr(stdio()?);
    // SAFETY: setsid and the ioctl are async-signal-safe; the child, a
    // session leader now, makes its standard input (the terminal, set up
    // before this runs) its controlling terminal, as a login shell does.
    unsafe {
        cmd.pre_exec(|| {
            if libc::setsid() < 0 || libc::ioctl(0, libc::TIOCSCTTY, 0) < 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    let start = Instant::now();
    let spawned = cmd.spawn();
    // Only the child holds the terminal's other end from here: the
    // command's copies go with its standard streams, ours with `slave`,
    // so a program that exits closes the terminal and the watch ends.
    cmd.stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    drop(slave);
    let mut child = spawned.with_context(|| format!("cannot start {:?}", cmd.get_program()))?;
    let seen = watch(&master, markers, start, timeout, &mut child);
    let peak = amber_app::run_report::ProcStatus::read(&child.id().to_string()).field("VmHWM");
    // The whole session, with any helper the program started.
    // SAFETY: kill with the child's process group, which setsid made.
    unsafe { libc::kill(-(child.id() as libc::pid_t), libc::SIGKILL) };
    let _ = child.wait();
    let ms = seen?;
    Ok(FirstFrame { ms, peak_kib: peak })
}

/// Reads the terminal until every one of `markers` has appeared; the
/// milliseconds since `start` at which each first did.
fn watch(
    master: &OwnedFd,
    markers: &[&str],
    start: Instant,
    timeout: Duration,
    child: &mut std::process::Child,
) -> Result<Vec<f64>> {
    let fd = master.as_raw_fd();
    // Everything drawn so far, made plain whole each time: a marker may
    // straddle two reads.
    let mut drawn = Vec::new();
    let mut screen = String::new();
    let mut seen: Vec<Option<f64>> = vec![None; markers.len()];
    let mut buf = [0u8; 65536];
    while start.elapsed() < timeout {
        let mut poll = libc::pollfd {
            fd,
            events: libc::POLLIN,
            revents: 0,
        };
        // SAFETY: one pollfd, the count given.
        let ready = unsafe { libc::poll(&mut poll, 1, 20) };
        if ready <= 0 {
            if let Ok(Some(status)) = child.try_wait() {
                bail!("the program ended ({status}) before showing {markers:?}");
            }
            continue;
        }
        // SAFETY: reads into the buffer, at most its length.
        let n = unsafe { libc::read(fd, buf.as_mut_ptr().cast(), buf.len()) };
        if n <= 0 {
            bail!("the program closed its terminal before showing {markers:?}");
        }
        let bytes = &buf[..n as usize];
        // A query may straddle two reads: look at the new bytes with the
        // end of what came before.
        let from = drawn.len().saturating_sub(16);
        drawn.extend_from_slice(bytes);
        answer_queries(fd, &drawn[from..]);
        screen = plain_text(&drawn);
        let now = start.elapsed().as_secs_f64() * 1e3;
        for (marker, at) in markers.iter().zip(seen.iter_mut()) {
            if at.is_none() && screen.contains(marker) {
                *at = Some(now);
            }
        }
        if seen.iter().all(Option::is_some) {
            return Ok(seen.into_iter().flatten().collect());
        }
    }
    let tail: String = screen
        .chars()
        .rev()
        .take(300)
        .collect::<Vec<_>>()
        .into_iter()
        .rev()
        .collect();
    bail!("{markers:?} did not all show within {timeout:?}; the screen ends: {tail}")
}

/// Answers the queries in `bytes` as a terminal would: the cursor
/// position, the device attributes, the foreground and background
/// colours (OSC 10 and 11, which Codex asks at start).
fn answer_queries(fd: i32, bytes: &[u8]) {
    let contains = |needle: &[u8]| bytes.windows(needle.len()).any(|w| w == needle);
    let mut reply = Vec::new();
    if contains(b"\x1b[6n") {
        reply.extend_from_slice(b"\x1b[1;1R");
    }
    if contains(b"\x1b[c") {
        reply.extend_from_slice(b"\x1b[?62;22c");
    }
    if contains(b"\x1b]10;?") {
        reply.extend_from_slice(b"\x1b]10;rgb:ffff/ffff/ffff\x1b\\");
    }
    if contains(b"\x1b]11;?") {
        reply.extend_from_slice(b"\x1b]11;rgb:0000/0000/0000\x1b\\");
    }
    if !reply.is_empty() {
        // SAFETY: writes the reply's bytes.
        unsafe { libc::write(fd, reply.as_ptr().cast(), reply.len()) };
    }
}

/// `bytes` as text with escape sequences replaced by spaces and runs of
/// blanks collapsed: what a marker is looked for in.
fn plain_text(bytes: &[u8]) -> String {
    let text = String::from_utf8_lossy(bytes);
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '\x1b' {
            out.push(if c.is_control() { ' ' } else { c });
            continue;
        }
        out.push(' ');
        match chars.next() {
            // CSI: parameters, then one final byte in @..~.
            Some('[') => {
                for c in chars.by_ref() {
                    if ('@'..='~').contains(&c) {
                        break;
                    }
                }
            }
            // OSC: up to BEL or ST.
            Some(']') => {
                while let Some(c) = chars.next() {
                    if c == '\x07' || (c == '\x1b' && chars.next_if_eq(&'\\').is_some()) {
                        break;
                    }
                }
            }
            _ => {}
        }
    }
    out.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escape_sequences_are_taken_out_of_the_text() {
        let drawn =
            b"\x1b[?2026h\x1b[1;1H>_ \x1b[1mOpenAI\x1b[22m  Codex\x1b]10;?\x1b\\ \xe2\x80\xba Ask";
        assert_eq!(plain_text(drawn), ">_ OpenAI Codex \u{203a} Ask");
    }
}
