//! Piped stdin as context: `git diff | amber -p "review this"` and
//! `cat build.log | amber exec "why did it fail"` send what came down the
//! pipe ahead of the prompt, as a person would paste it above a question.
//! Reading is the front end's call (`read_piped_stdin`); shaping the prompt
//! (`with_piped`) is pure, so it is tested without a pipe.

use std::io::{ErrorKind, IsTerminal, Read};

/// Piped text sent to the model at most: a long log would otherwise crowd
/// out the conversation it is meant to inform.
pub const MAX_PIPED: usize = 256 * 1024;

/// Bytes kept in memory while reading: enough to cut at a line break past
/// `MAX_PIPED`, small enough that a pipe of any size costs little memory.
const MAX_KEPT: usize = MAX_PIPED * 4;

/// What came down the pipe.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Piped {
    /// The first `MAX_PIPED * 4` bytes, decoded as UTF-8 with invalid
    /// bytes replaced.
    pub text: String,
    /// Every byte read, kept or not, so a note can say how much there was.
    pub total_bytes: u64,
}

/// Reads stdin when it is piped or redirected, or none when it is a
/// terminal (nobody is piping) or the pipe was empty.
///
/// Reads to end of file, as `cat | tool` expects, keeping only the first
/// `MAX_PIPED * 4` bytes in memory and counting the rest. So a pipe that
/// never closes (`yes | amber exec …`, or a parent process that leaves
/// stdin open) keeps amber waiting here; run such a command with
/// `</dev/null`.
pub fn read_piped_stdin() -> std::io::Result<Option<Piped>> {
    let stdin = std::io::stdin();
    if stdin.is_terminal() {
        return Ok(None);
    }
    read_piped(stdin.lock())
}

/// `read_piped_stdin` past the terminal check, for any reader.
fn read_piped(mut reader: impl Read) -> std::io::Result<Option<Piped>> {
    let mut kept = Vec::new();
    let mut total: u64 = 0;
    let mut buf = vec![0u8; 64 * 1024];
    loop {
        let n = match reader.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        total += n as u64;
        let room = MAX_KEPT.saturating_sub(kept.len());
        kept.extend_from_slice(buf.get(..n.min(room)).unwrap_or_default());
    }
    if total == 0 {
        return Ok(None);
    }
    Ok(Some(Piped {
        text: String::from_utf8_lossy(&kept).into_owned(),
        total_bytes: total,
    }))
}

/// The prompt to send with `piped` ahead of it in a `<stdin>` block, and a
/// note for the person when the piped text was cut to `MAX_PIPED` bytes
/// (at the last line break before the cap when there is one in its second
/// half, else mid-line on a character boundary). Blank piped text leaves
/// the prompt as it is.
pub fn with_piped(piped: &Piped, prompt: &str) -> (String, Option<String>) {
    let text = piped.text.as_str();
    if text.trim().is_empty() {
        return (prompt.to_string(), None);
    }
    let mut sent = String::from("<stdin>\n");
    let mut note = None;
    if text.len() <= MAX_PIPED {
        sent.push_str(text);
        end_line(&mut sent);
    } else {
        let (end, at_line_break) = cut_point(text);
        // `cut_point` returns a char boundary, so this cannot split one.
        sent.push_str(&text[..end]);
        end_line(&mut sent);
        let total = human_bytes(piped.total_bytes.max(text.len() as u64));
        let shown = human_bytes(end as u64);
        sent.push_str(&format!(
            "[cut: stdin was {total}; the first {shown} are shown]\n"
        ));
        let how = if at_line_break {
            "cut at a line break"
        } else {
            "cut mid-line"
        };
        note = Some(format!("stdin: sent the first {shown} of {total} ({how})"));
    }
    sent.push_str("</stdin>\n\n");
    sent.push_str(prompt);
    (sent, note)
}

/// Ends `text` with a line break unless it already does.
fn end_line(text: &mut String) {
    if !text.ends_with('\n') {
        text.push('\n');
    }
}

/// Where to cut `text` (longer than `MAX_PIPED`) and whether that is at a
/// line break: after the last one before the cap if it falls in the cap's
/// second half (a cut line confuses less than half the text missing), else
/// at the last character boundary before the cap.
fn cut_point(text: &str) -> (usize, bool) {
    let mut end = MAX_PIPED.min(text.len());
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    match text[..end].rfind('\n') {
        Some(i) if i + 1 >= end / 2 => (i + 1, true),
        _ => (end, false),
    }
}

/// Bytes as a person reads them: `512 bytes`, `256 KiB`, `1.2 MiB`.
fn human_bytes(bytes: u64) -> String {
    const KIB: u64 = 1024;
    const MIB: u64 = KIB * 1024;
    const GIB: u64 = MIB * 1024;
    let (unit, name) = match bytes {
        b if b >= GIB => (GIB, "GiB"),
        b if b >= MIB => (MIB, "MiB"),
        b if b >= KIB => (KIB, "KiB"),
        b => return format!("{b} bytes"),
    };
    let value = format!("{:.1}", bytes as f64 / unit as f64);
    let value = value.strip_suffix(".0").unwrap_or(&value);
    format!("{value} {name}")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn piped(text: &str) -> Piped {
        Piped {
            text: text.to_string(),
            total_bytes: text.len() as u64,
        }
    }

    #[test]
    fn small_piped_text_goes_before_the_prompt_whole() {
        let (sent, note) = with_piped(&piped("diff --git a/x b/x\n+y\n"), "review this");
        assert_eq!(
            sent,
            "<stdin>\ndiff --git a/x b/x\n+y\n</stdin>\n\nreview this"
        );
        assert_eq!(note, None);
        let (sent, _) = with_piped(&piped("no newline"), "why");
        assert_eq!(sent, "<stdin>\nno newline\n</stdin>\n\nwhy");
    }

    #[test]
    fn long_piped_text_is_cut_at_a_line_break_with_a_note() {
        let line = format!("{}\n", "x".repeat(99));
        let (sent, note) = with_piped(&piped(&line.repeat(3000)), "why did it fail");
        assert_eq!(
            note.as_deref(),
            Some("stdin: sent the first 256 KiB of 293 KiB (cut at a line break)")
        );
        let body = sent
            .strip_prefix("<stdin>\n")
            .and_then(|s| {
                s.strip_suffix(
                    "[cut: stdin was 293 KiB; the first 256 KiB are shown]\n\
                     </stdin>\n\nwhy did it fail",
                )
            })
            .unwrap();
        assert!(body.len() <= MAX_PIPED);
        assert_eq!(body.len() % 100, 0, "whole lines only");
    }

    #[test]
    fn one_long_line_is_cut_mid_line_on_a_char_boundary() {
        // Two bytes each after one: the cap falls inside an `é`.
        let text = format!("a{}", "é".repeat(MAX_PIPED));
        let (sent, note) = with_piped(&piped(&text), "what");
        assert!(note.unwrap().ends_with("(cut mid-line)"));
        let body = sent.strip_prefix("<stdin>\n").unwrap();
        let kept = format!("a{}", "é".repeat(MAX_PIPED / 2 - 1));
        assert!(body.starts_with(&format!("{kept}\n[cut: ")));
        assert!(body.contains("\n[cut: stdin was 512 KiB; the first 256 KiB are shown]\n"));
    }

    #[test]
    fn blank_piped_text_leaves_the_prompt_alone() {
        assert_eq!(with_piped(&piped(""), "hi"), ("hi".to_string(), None));
        assert_eq!(
            with_piped(&piped(" \n\t\n"), "hi"),
            ("hi".to_string(), None)
        );
    }

    #[test]
    fn reading_keeps_a_bounded_head_and_counts_every_byte() {
        assert_eq!(read_piped(std::io::empty()).unwrap(), None);
        let small = read_piped(&b"log line\n"[..]).unwrap().unwrap();
        assert_eq!(small, piped("log line\n"));
        let big = vec![b'a'; MAX_KEPT + 10];
        let read = read_piped(&big[..]).unwrap().unwrap();
        assert_eq!(read.text.len(), MAX_KEPT);
        assert_eq!(read.total_bytes, (MAX_KEPT + 10) as u64);
    }

    #[test]
    fn sizes_read_as_a_person_reads_them() {
        assert_eq!(human_bytes(512), "512 bytes");
        assert_eq!(human_bytes(256 * 1024), "256 KiB");
        assert_eq!(human_bytes(1_258_291), "1.2 MiB");
    }
}
