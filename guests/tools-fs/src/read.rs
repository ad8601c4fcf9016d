//! `read_file`: a range of lines, numbered, read as a stream so a huge file
//! costs only what precedes the range; binary files are refused, bytes that
//! are not UTF-8 are shown lossily with a note, and a cap reports what was
//! cut. An image (PNG, JPEG, GIF or WebP, known by its first bytes) is
//! returned whole as an image for the model to look at; the host shrinks
//! it, or tells a model without images its size instead.

use std::io::{BufRead, BufReader, Read};

use amber_sdk::prelude::*;

use crate::{io_error, path_arg, refuse_special};

/// Lines returned when no limit is given.
const DEFAULT_LIMIT: u64 = 2000;
/// Bytes of text returned at most, whatever the limit.
const MAX_BYTES: usize = 256 * 1024;
/// A line longer than this is cut.
const MAX_LINE: usize = 2000;
/// How much is sniffed for NUL bytes.
const SNIFF: usize = 8192;

/// Bytes read per refill while scanning to the asked range.
const READ_BUFFER: usize = 1 << 20;
/// The largest image returned: a vendor takes 20 MB at most.
const MAX_IMAGE_BYTES: u64 = 20 * 1000 * 1000;

/// The media type of an image by its first bytes.
fn image_type(head: &[u8]) -> Option<&'static str> {
    if head.starts_with(b"\x89PNG\r\n\x1a\n") {
        Some("image/png")
    } else if head.starts_with(&[0xFF, 0xD8, 0xFF]) {
        Some("image/jpeg")
    } else if head.starts_with(b"GIF87a") || head.starts_with(b"GIF89a") {
        Some("image/gif")
    } else if head.len() >= 12 && head.starts_with(b"RIFF") && &head[8..12] == b"WEBP" {
        Some("image/webp")
    } else {
        None
    }
}

/// The image file at `path` whole, its first bytes `head` read already.
fn read_image(
    path: &str,
    media_type: &str,
    size: u64,
    mut head: Vec<u8>,
    mut file: impl Read,
) -> Result<ToolOutput, ToolError> {
    if size > MAX_IMAGE_BYTES {
        return Err(ToolError::Failed(format!(
            "{path} is an image of {} MB; images are read up to {} MB",
            size / 1_000_000,
            MAX_IMAGE_BYTES / 1_000_000
        )));
    }
    file.read_to_end(&mut head)
        .map_err(|e| io_error(path, &e))?;
    let bytes = head.len();
    Ok(ToolOutput::text(format!("{path} is an image ({media_type}, {bytes} bytes)."))
        .with_meta(json!({"path": path, "image": media_type, "bytes": bytes}))
        .with_image(media_type, head))
}

pub fn read_file(args: &Value) -> Result<ToolOutput, ToolError> {
    let path = path_arg(args)?;
    let offset = args["offset"].as_u64().unwrap_or(1).max(1);
    let limit = args["limit"].as_u64().unwrap_or(DEFAULT_LIMIT).max(1);
    let meta = refuse_special(path)?;
    if meta.is_dir() {
        return Err(ToolError::Failed(format!(
            "{path} is a directory; use list_dir to see inside it"
        )));
    }
    let mut file = amber_sdk::fs::open(path).map_err(|e| io_error(path, &e))?;
    let mut head = vec![0u8; SNIFF];
    let sniffed = read_up_to(&mut file, &mut head).map_err(|e| io_error(path, &e))?;
    head.truncate(sniffed);
    if let Some(media_type) = image_type(&head) {
        return read_image(path, media_type, meta.len(), head, file);
    }
    if head.contains(&0) {
        return Err(ToolError::Failed(format!(
            "{path} is a binary file ({} bytes); it is not shown",
            meta.len()
        )));
    }
    // A large buffer: each refill is a WASI read, a host call and a copy.
    let reader = BufReader::with_capacity(READ_BUFFER, std::io::Cursor::new(head).chain(file));
    let mut out = String::new();
    let mut line_no = 0u64;
    let mut lossy = false;
    let mut cut_bytes = false;
    let mut long_lines = 0;
    let mut last = 0;
    let mut more = false;
    let mut raw = Vec::new();
    let mut reader = reader;
    loop {
        raw.clear();
        let n = reader
            .read_until(b'\n', &mut raw)
            .map_err(|e| io_error(path, &e))?;
        if n == 0 {
            break;
        }
        line_no += 1;
        if line_no < offset {
            continue;
        }
        if line_no >= offset + limit || out.len() >= MAX_BYTES {
            more = true;
            cut_bytes |= out.len() >= MAX_BYTES;
            break;
        }
        while raw.last().is_some_and(|b| *b == b'\n' || *b == b'\r') {
            raw.pop();
        }
        let text = match std::str::from_utf8(&raw) {
            Ok(t) => std::borrow::Cow::Borrowed(t),
            Err(_) => {
                lossy = true;
                String::from_utf8_lossy(&raw)
            }
        };
        let shown: String = if text.chars().count() > MAX_LINE {
            long_lines += 1;
            text.chars().take(MAX_LINE).collect::<String>() + "…"
        } else {
            text.into_owned()
        };
        out.push_str(&format!("{line_no:>6}\t{shown}\n"));
        last = line_no;
    }
    if line_no < offset && line_no > 0 {
        return Err(ToolError::Failed(format!(
            "{path} has {line_no} lines; offset {offset} is past its end"
        )));
    }
    let mut notes = Vec::new();
    if lossy {
        notes.push("some bytes are not UTF-8 and are shown as �".to_string());
    }
    if long_lines > 0 {
        let (lines, verb) = (
            amber_sdk::count(long_lines, "line"),
            if long_lines == 1 { "was" } else { "were" },
        );
        notes.push(format!(
            "{lines} longer than {MAX_LINE} characters {verb} cut"
        ));
    }
    if more {
        let why = if cut_bytes {
            format!("the {} KiB cap", MAX_BYTES / 1024)
        } else {
            "the limit".into()
        };
        notes.push(format!(
            "truncated at {why}: more lines follow line {last}; read on with offset {}",
            last + 1
        ));
    }
    if line_no == 0 {
        out.push_str("(empty file)\n");
    }
    for note in &notes {
        out.push_str(&format!("[{note}]\n"));
    }
    Ok(ToolOutput::text(out).with_meta(json!({
        "path": path,
        "from": offset,
        "to": last,
        "truncated": more,
        "lossy": lossy,
        "bytes": meta.len(),
    })))
}

fn read_up_to(file: &mut std::fs::File, buf: &mut [u8]) -> std::io::Result<usize> {
    let mut filled = 0;
    while filled < buf.len() {
        match file.read(&mut buf[filled..])? {
            0 => break,
            n => filled += n,
        }
    }
    Ok(filled)
}
