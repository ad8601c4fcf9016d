//! Collapsing tool-call loops, the pipeline's first step after reading the
//! snapshot (seed: "Compression pipeline": "collapse consecutive tool-call
//! loops"). Consecutive segments that each call the same tool on the same
//! target become one: the last of them, whose result is the newest, with a
//! note in its assistant message saying how many calls it stands for.
//!
//! The target of a call is its arguments without the keys that only
//! choose a view of the same thing (`offset`, `limit`, …), compared as
//! canonical JSON: twenty reads of one file at different ranges are one
//! target, and so are identical calls; two edits of one file with
//! different strings, or two searches for different patterns, are not.

use serde_json::Value;

use super::segment::{Segment, SegmentKind};
use crate::ports::dialect::{Message, Part, Role, ToolCall};

/// Argument keys that choose a view of a target rather than the target.
const VIEW_KEYS: &[&str] = &[
    "offset",
    "limit",
    "line",
    "lines",
    "start_line",
    "end_line",
    "context",
    "max_results",
    "timeout_ms",
    "no_body",
];

/// What collapsing did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Collapsed {
    pub segments: Vec<Segment>,
    /// Segments folded into a later one.
    pub collapsed: usize,
}

/// The tool and target a loop iteration repeats.
#[derive(Debug, Clone, PartialEq, Eq)]
struct LoopKey {
    tool: String,
    target: String,
    /// How the note names the target.
    shown: String,
}

/// Collapses every run of two or more consecutive segments with the same
/// loop key into its last segment.
pub fn collapse(segments: Vec<Segment>) -> Collapsed {
    let keys: Vec<Option<LoopKey>> = segments.iter().map(loop_key).collect();
    let mut out = Vec::with_capacity(segments.len());
    let mut collapsed = 0;
    let mut run = 0usize;
    for (i, segment) in segments.into_iter().enumerate() {
        let same_as_next = matches!(
            (&keys[i], keys.get(i + 1)),
            (Some(key), Some(Some(next))) if key == next
        );
        if same_as_next {
            run += 1;
            continue;
        }
        match (&keys[i], run) {
            (Some(key), earlier) if earlier > 0 => {
                collapsed += earlier;
                out.push(annotate(segment, key, earlier));
            }
            _ => out.push(segment),
        }
        run = 0;
    }
    Collapsed {
        segments: out,
        collapsed,
    }
}

/// The loop key of an assistant segment whose calls all share one tool and
/// target and whose other messages are all their results.
fn loop_key(segment: &Segment) -> Option<LoopKey> {
    if segment.kind() != SegmentKind::Assistant {
        return None;
    }
    let (first, rest) = segment.messages().split_first()?;
    if rest.iter().any(|m| m.role != Role::Tool) {
        return None;
    }
    let mut keys = first.parts.iter().filter_map(|p| match p {
        Part::ToolCall(call) => Some(key_of(call)),
        _ => None,
    });
    let key = keys.next()?;
    keys.all(|k| k == key).then_some(key)
}

fn key_of(call: &ToolCall) -> LoopKey {
    let (target, shown) = match serde_json::from_str::<Value>(&call.arguments) {
        Ok(Value::Object(mut args)) => {
            for key in VIEW_KEYS {
                args.remove(*key);
            }
            let shown = match args.get("path").and_then(Value::as_str) {
                Some(path) => format!("`{path}`"),
                None => "the same arguments".to_string(),
            };
            (canonical(Value::Object(args)), shown)
        }
        Ok(other) => (canonical(other), "the same arguments".to_string()),
        // Arguments that are not JSON repeat only when identical.
        Err(_) => (call.arguments.clone(), "the same arguments".to_string()),
    };
    LoopKey {
        tool: call.name.clone(),
        target,
        shown,
    }
}

/// JSON with object keys sorted, whatever order the map keeps.
fn canonical(mut value: Value) -> String {
    value.sort_all_objects();
    value.to_string()
}

/// The note that tells the model what a collapsed segment stands for.
fn note(key: &LoopKey, earlier: usize) -> String {
    let calls = if earlier == 1 { "call" } else { "calls" };
    format!(
        "[amber] {earlier} earlier `{}` {calls} on {} came right before this one; \
         they were collapsed into it, and this result is the newest.",
        key.tool, key.shown
    )
}

/// The last segment of a loop with the note in its assistant message:
/// before its text, or before its first call when it has none (reasoning
/// stays first, as vendors that sign it require).
fn annotate(segment: Segment, key: &LoopKey, earlier: usize) -> Segment {
    let note = note(key, earlier);
    segment.with_first(|first| add_note(first, note))
}

fn add_note(message: &mut Message, note: String) {
    if let Some(Part::Text { text }) = message
        .parts
        .iter_mut()
        .find(|p| matches!(p, Part::Text { .. }))
    {
        *text = format!("{note}\n\n{text}");
        return;
    }
    let at = message
        .parts
        .iter()
        .position(|p| matches!(p, Part::ToolCall(_)))
        .unwrap_or(message.parts.len());
    message.parts.insert(at, Part::Text { text: note });
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compress::segment::segment;
    use crate::compress::segment::tests::{assistant, call, result};

    fn read_loop(n: usize, start: usize) -> Vec<Message> {
        (start..start + n)
            .flat_map(|i| {
                let id = format!("r{i}");
                let args = format!("{{\"path\":\"src/lib.rs\",\"offset\":{}}}", i * 10);
                vec![
                    assistant(vec![call(&id, "read_file", &args)]),
                    result(&id, &format!("lines {}..", i * 10)),
                ]
            })
            .collect()
    }

    fn texts(message: &Message) -> Vec<&str> {
        message.texts().collect()
    }

    #[test]
    fn a_twenty_call_read_loop_becomes_its_last_call_with_a_note() {
        let mut history = vec![
            Message::text(Role::System, "sys"),
            Message::text(Role::User, "find the bug"),
        ];
        history.extend(read_loop(20, 0));
        history.push(Message::text(Role::User, "and?"));
        let segmented = segment(&history);
        assert_eq!(segmented.segments.len(), 22);
        let out = collapse(segmented.segments);
        assert_eq!(out.collapsed, 19);
        assert_eq!(out.segments.len(), 3);
        let kept = out.segments[1].messages();
        // The last call and its result, whole.
        assert_eq!(kept[1], history[history.len() - 2]);
        match &kept[0].parts[..] {
            [Part::Text { text }, Part::ToolCall(c)] => {
                assert_eq!(c.id, "r19");
                assert_eq!(
                    text,
                    "[amber] 19 earlier `read_file` calls on `src/lib.rs` came right before \
                     this one; they were collapsed into it, and this result is the newest."
                );
            }
            other => panic!("unexpected parts {other:?}"),
        }
        // The collapsed segment's tokens are its own messages' again.
        assert_eq!(
            out.segments[1].tokens(),
            crate::compress::tokens::estimate_all(kept)
        );
    }

    #[test]
    fn a_different_target_or_tool_or_a_message_between_breaks_the_loop() {
        let mut history = read_loop(3, 0);
        history.push(assistant(vec![call(
            "x",
            "read_file",
            "{\"path\":\"other.rs\"}",
        )]));
        history.push(result("x", "other"));
        history.extend(read_loop(2, 3));
        history.push(assistant(vec![call(
            "g",
            "grep",
            "{\"path\":\"src/lib.rs\"}",
        )]));
        history.push(result("g", "hits"));
        history.push(Message::text(Role::User, "hm"));
        history.extend(read_loop(1, 5));
        let out = collapse(segment(&history).segments);
        // 3 reads → 1, other.rs, 2 reads → 1, grep, user, 1 read.
        assert_eq!(out.collapsed, 3);
        assert_eq!(out.segments.len(), 6);
    }

    #[test]
    fn edits_with_different_strings_are_not_one_target_but_identical_calls_are() {
        let edit = |id: &str, old: &str| {
            vec![
                assistant(vec![call(
                    id,
                    "edit_file",
                    &format!("{{\"path\":\"a.rs\",\"old_string\":\"{old}\",\"new_string\":\"y\"}}"),
                )]),
                result(id, "diff"),
            ]
        };
        let mut history = edit("e1", "x");
        history.extend(edit("e2", "z"));
        assert_eq!(collapse(segment(&history).segments).collapsed, 0);
        let mut same = edit("e1", "x");
        same.extend(edit("e2", "x"));
        // Key order does not matter either.
        same.push(assistant(vec![call(
            "e3",
            "edit_file",
            "{\"new_string\":\"y\",\"old_string\":\"x\",\"path\":\"a.rs\"}",
        )]));
        same.push(result("e3", "diff"));
        let out = collapse(segment(&same).segments);
        assert_eq!(out.collapsed, 2);
        assert_eq!(
            texts(&out.segments[0].messages()[0]),
            [
                "[amber] 2 earlier `edit_file` calls on `a.rs` came right before this one; \
              they were collapsed into it, and this result is the newest."
            ]
        );
    }

    #[test]
    fn the_note_goes_before_the_text_and_after_reasoning() {
        let reasoning = Part::Reasoning(Default::default());
        let mut history = read_loop(1, 0);
        history.push(assistant(vec![
            reasoning.clone(),
            Part::Text {
                text: "again".into(),
            },
            call("r9", "read_file", "{\"path\":\"src/lib.rs\",\"limit\":5}"),
        ]));
        history.push(result("r9", "x"));
        let out = collapse(segment(&history).segments);
        let first = &out.segments[0].messages()[0];
        assert_eq!(first.parts[0], reasoning);
        assert!(texts(first)[0].ends_with("this result is the newest.\n\nagain"));
    }

    #[test]
    fn segments_with_mixed_calls_or_no_calls_never_collapse() {
        let history = vec![
            assistant(vec![
                call("a", "read_file", "{\"path\":\"a\"}"),
                call("b", "read_file", "{\"path\":\"b\"}"),
            ]),
            result("a", "1"),
            result("b", "2"),
            assistant(vec![
                call("c", "read_file", "{\"path\":\"a\"}"),
                call("d", "read_file", "{\"path\":\"b\"}"),
            ]),
            result("c", "1"),
            result("d", "2"),
            assistant(vec![Part::Text { text: "x".into() }]),
            assistant(vec![Part::Text { text: "x".into() }]),
        ];
        let out = collapse(segment(&history).segments);
        assert_eq!(out.collapsed, 0);
        assert_eq!(out.segments.len(), 4);
    }
}
