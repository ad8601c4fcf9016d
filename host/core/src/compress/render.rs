//! The transcript the compression requests show the model: every segment
//! as text, numbered from 1, so the classification can name segments by
//! id. Reasoning is left out (it is the model's scratch, and some of it is
//! encrypted); a long text, call or result shows its head and tail only,
//! which is enough to judge it and keeps the requests smaller than the
//! context they compress.

use std::fmt::Write;

use super::segment::Segment;
use super::tokens;
use crate::ports::dialect::Part;

/// Bytes of one part shown in full; a longer one keeps its head and tail.
pub const PART_CAP: usize = 4096;
const TAIL: usize = 1024;

/// The segments as one text, each in a `<segment id="N" kind="…">` block.
pub fn transcript(segments: &[Segment]) -> String {
    let mut out = String::with_capacity(
        segments
            .iter()
            .map(|s| (s.tokens() * tokens::BYTES_PER_TOKEN) as usize)
            .sum(),
    );
    for (i, segment) in segments.iter().enumerate() {
        let _ = writeln!(
            out,
            "<segment id=\"{}\" kind=\"{}\">",
            i + 1,
            segment.kind().as_str()
        );
        for message in segment.messages() {
            for part in &message.parts {
                match part {
                    Part::Text { text } => {
                        let _ = writeln!(out, "{}", capped(text));
                    }
                    Part::Reasoning(_) => {}
                    Part::ToolCall(call) => {
                        let _ = writeln!(out, "→ call {} {}", call.name, capped(&call.arguments));
                    }
                    Part::ToolResult(result) => {
                        let status = if result.is_error { " (error)" } else { "" };
                        let _ = writeln!(out, "← result{status}: {}", capped(&result.content));
                    }
                    Part::Image(image) => {
                        let _ = writeln!(out, "[image: {}]", image.describe());
                    }
                }
            }
        }
        out.push_str("</segment>\n");
    }
    out
}

/// `text`, or its head and tail around a note of what was left out.
fn capped(text: &str) -> std::borrow::Cow<'_, str> {
    if text.len() <= PART_CAP {
        return text.into();
    }
    let head = floor_boundary(text, PART_CAP - TAIL);
    let tail = ceil_boundary(text, text.len() - TAIL);
    format!(
        "{}\n[… {} bytes left out …]\n{}",
        &text[..head],
        tail - head,
        &text[tail..]
    )
    .into()
}

fn floor_boundary(text: &str, mut at: usize) -> usize {
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    at
}

fn ceil_boundary(text: &str, mut at: usize) -> usize {
    while !text.is_char_boundary(at) {
        at += 1;
    }
    at
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compress::segment::segment;
    use crate::compress::segment::tests::{assistant, call, result};
    use crate::ports::dialect::{Message, Role};

    #[test]
    fn segments_are_numbered_from_one_with_calls_and_results() {
        let history = vec![
            Message::text(Role::System, "sys"),
            Message::text(Role::User, "fix it"),
            assistant(vec![
                Part::Reasoning(Default::default()),
                Part::Text {
                    text: "looking".into(),
                },
                call("a", "read_file", "{\"path\":\"a\"}"),
            ]),
            result("a", "content"),
        ];
        let text = transcript(&segment(&history).segments);
        assert_eq!(
            text,
            "<segment id=\"1\" kind=\"user\">\nfix it\n</segment>\n\
             <segment id=\"2\" kind=\"assistant\">\nlooking\n→ call read_file {\"path\":\"a\"}\n\
             ← result: content\n</segment>\n"
        );
    }

    #[test]
    fn a_long_part_keeps_its_head_and_tail_on_char_boundaries() {
        let long = "é".repeat(5000);
        let shown = capped(&long);
        assert!(shown.len() < PART_CAP + 64);
        assert!(shown.contains("bytes left out"));
        assert!(shown.starts_with('é') && shown.ends_with('é'));
        assert_eq!(capped("short"), "short");
    }
}
