//! Segments: the unit the compression pipeline labels, keeps and drops
//! (seed: "Compression pipeline"). A segment is one user message, or one
//! assistant message together with all its tool results, so nothing that
//! works on whole segments can separate a tool call from its result. The
//! history's leading system message is kept aside and always kept.
//!
//! Segmenting never changes, drops or reorders a message: the system
//! message followed by every segment's messages is the history again.

use std::collections::HashMap;

use super::tokens;
use crate::ports::dialect::{Message, Part, Role};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SegmentKind {
    User,
    Assistant,
    /// A message of no usual segment: a tool result with no assistant
    /// message before it, or a system message after the first.
    Other,
}

impl SegmentKind {
    pub fn as_str(self) -> &'static str {
        match self {
            SegmentKind::User => "user",
            SegmentKind::Assistant => "assistant",
            SegmentKind::Other => "other",
        }
    }
}

/// Consecutive messages that stay together, with their estimated tokens.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Segment {
    kind: SegmentKind,
    messages: Vec<Message>,
    tokens: u64,
}

impl Segment {
    /// A segment starting with `first`.
    pub fn new(first: Message) -> Self {
        let kind = match first.role {
            Role::User => SegmentKind::User,
            Role::Assistant => SegmentKind::Assistant,
            Role::Tool | Role::System => SegmentKind::Other,
        };
        let tokens = tokens::estimate(&first);
        Segment {
            kind,
            messages: vec![first],
            tokens,
        }
    }

    pub fn kind(&self) -> SegmentKind {
        self.kind
    }

    pub fn messages(&self) -> &[Message] {
        &self.messages
    }

    pub fn into_messages(self) -> Vec<Message> {
        self.messages
    }

    pub fn tokens(&self) -> u64 {
        self.tokens
    }

    /// The segment with its first message changed by `change`.
    pub fn with_first(mut self, change: impl FnOnce(&mut Message)) -> Segment {
        let first = &mut self.messages[0];
        let before = tokens::estimate(first);
        change(first);
        self.tokens = self.tokens - before + tokens::estimate(first);
        self
    }

    fn push(&mut self, message: Message) {
        self.tokens += tokens::estimate(&message);
        self.messages.push(message);
    }

    fn absorb(&mut self, other: Segment) {
        self.tokens += other.tokens;
        self.messages.extend(other.messages);
    }
}

/// A history split for compression.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Segmented {
    /// The leading system message, kept aside and always kept.
    pub system: Option<Message>,
    pub segments: Vec<Segment>,
}

impl Segmented {
    /// Estimated tokens of the system message and every segment.
    pub fn tokens(&self) -> u64 {
        self.system.as_ref().map_or(0, tokens::estimate)
            + self.segments.iter().map(Segment::tokens).sum::<u64>()
    }

    /// The history again: the system message, then every segment's
    /// messages in order.
    pub fn into_messages(self) -> Vec<Message> {
        self.system
            .into_iter()
            .chain(self.segments.into_iter().flat_map(Segment::into_messages))
            .collect()
    }
}

/// Splits a history into segments. A user, assistant or (later) system
/// message starts a segment; a tool message joins the segment holding its
/// call. Should anything come between a call and its result, the segments
/// from the call's through the current one merge into one, so a call and
/// its result always share a segment.
pub fn segment(messages: &[Message]) -> Segmented {
    let mut out = Segmented::default();
    let rest = match messages.first() {
        Some(first) if first.role == Role::System => {
            out.system = Some(first.clone());
            &messages[1..]
        }
        _ => messages,
    };
    // Call id → the segment holding the call.
    let mut calls: HashMap<&str, usize> = HashMap::new();
    for message in rest {
        if message.role == Role::Tool && !out.segments.is_empty() {
            let home = message
                .parts
                .iter()
                .filter_map(|p| match p {
                    Part::ToolResult(r) => calls.get(r.call_id.as_str()).copied(),
                    _ => None,
                })
                .min();
            let last = out.segments.len() - 1;
            if let Some(home) = home.filter(|home| *home < last) {
                // Fold everything after the call's segment into it.
                for merged in out.segments.drain(home + 1..).collect::<Vec<_>>() {
                    out.segments[home].absorb(merged);
                }
                for index in calls.values_mut() {
                    *index = (*index).min(home);
                }
            }
            if let Some(current) = out.segments.last_mut() {
                current.push(message.clone());
            }
            continue;
        }
        out.segments.push(Segment::new(message.clone()));
        let index = out.segments.len() - 1;
        for part in &message.parts {
            if let Part::ToolCall(call) = part {
                calls.insert(call.id.as_str(), index);
            }
        }
    }
    out
}

/// The first call id out of place in `messages`: a result with no call
/// before it, or a call with no result. `None` when every call has its
/// result after it, which a context must keep whatever was dropped.
pub fn unpaired_call(messages: &[Message]) -> Option<String> {
    let mut open: Vec<&str> = Vec::new();
    let mut seen: std::collections::HashSet<&str> = Default::default();
    for message in messages {
        for part in &message.parts {
            match part {
                Part::ToolCall(call) => {
                    open.push(call.id.as_str());
                    seen.insert(call.id.as_str());
                }
                Part::ToolResult(result) => {
                    if !seen.contains(result.call_id.as_str()) {
                        return Some(result.call_id.clone());
                    }
                    open.retain(|id| *id != result.call_id);
                }
                _ => {}
            }
        }
    }
    open.first().map(|id| id.to_string())
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::ports::dialect::{ToolCall, ToolResult};
    use proptest::prelude::*;

    pub fn call(id: &str, name: &str, args: &str) -> Part {
        Part::ToolCall(ToolCall {
            id: id.into(),
            name: name.into(),
            arguments: args.into(),
        })
    }

    pub fn result(id: &str, content: &str) -> Message {
        Message {
            role: Role::Tool,
            parts: vec![Part::ToolResult(ToolResult {
                call_id: id.into(),
                content: content.into(),
                is_error: false,
            })],
        }
    }

    pub fn assistant(parts: Vec<Part>) -> Message {
        Message {
            role: Role::Assistant,
            parts,
        }
    }

    fn sizes(segmented: &Segmented) -> Vec<(SegmentKind, usize)> {
        segmented
            .segments
            .iter()
            .map(|s| (s.kind(), s.messages().len()))
            .collect()
    }

    #[test]
    fn a_segment_is_a_user_message_or_an_assistant_message_with_its_results() {
        let history = vec![
            Message::text(Role::System, "sys"),
            Message::text(Role::User, "fix it"),
            assistant(vec![call("a", "read_file", "{}"), call("b", "grep", "{}")]),
            result("a", "1"),
            result("b", "2"),
            Message::text(Role::User, "[amber] steer"),
            assistant(vec![Part::Text {
                text: "done".into(),
            }]),
        ];
        let segmented = segment(&history);
        assert_eq!(segmented.system, Some(history[0].clone()));
        assert_eq!(
            sizes(&segmented),
            [
                (SegmentKind::User, 1),
                (SegmentKind::Assistant, 3),
                (SegmentKind::User, 1),
                (SegmentKind::Assistant, 1)
            ]
        );
        assert_eq!(segmented.into_messages(), history);
    }

    #[test]
    fn a_result_after_an_interjection_pulls_the_segments_between_into_its_calls() {
        let history = vec![
            Message::text(Role::User, "go"),
            assistant(vec![call("a", "shell", "{}")]),
            Message::text(Role::User, "while that runs…"),
            result("a", "ok"),
            Message::text(Role::User, "next"),
        ];
        let segmented = segment(&history);
        // No leading system message: nothing is set aside.
        assert_eq!(segmented.system, None);
        assert_eq!(
            sizes(&segmented),
            [
                (SegmentKind::User, 1),
                (SegmentKind::Assistant, 3),
                (SegmentKind::User, 1)
            ]
        );
        assert_eq!(segmented.into_messages(), history);
    }

    #[test]
    fn an_orphan_result_is_a_segment_of_its_own_only_at_the_start() {
        let history = vec![
            Message::text(Role::System, "sys"),
            result("x", "lost"),
            Message::text(Role::User, "hi"),
            result("y", "also lost"),
        ];
        let segmented = segment(&history);
        assert_eq!(
            sizes(&segmented),
            [(SegmentKind::Other, 1), (SegmentKind::User, 2)]
        );
    }

    #[test]
    fn tokens_are_the_sum_of_the_messages_estimates() {
        let history = vec![
            Message::text(Role::System, "sys"),
            Message::text(Role::User, "hello there"),
        ];
        let segmented = segment(&history);
        assert_eq!(segmented.tokens(), tokens::estimate_all(&history));
    }

    #[test]
    fn unpaired_calls_and_results_are_named() {
        let good = vec![assistant(vec![call("a", "t", "{}")]), result("a", "r")];
        assert_eq!(unpaired_call(&good), None);
        assert_eq!(unpaired_call(&good[..1]), Some("a".into()));
        assert_eq!(unpaired_call(&good[1..]), Some("a".into()));
    }

    /// One generated message: a user text, an assistant turn with `n`
    /// calls, `k` of whose results follow at once (the rest later, after
    /// an interjection), or a stray system message.
    #[derive(Debug, Clone)]
    pub enum Step {
        User(String),
        Assistant { text: String, calls: usize },
        System,
    }

    pub fn steps() -> impl Strategy<Value = Vec<Step>> {
        prop::collection::vec(
            prop_oneof![
                "[a-z ]{0,12}".prop_map(Step::User),
                ("[a-z ]{0,12}", 0usize..4)
                    .prop_map(|(text, calls)| Step::Assistant { text, calls }),
                Just(Step::System),
            ],
            0..40,
        )
    }

    /// A history in the agent's shape: every call answered, results right
    /// after their assistant message.
    pub fn history(steps: &[Step], system: bool) -> Vec<Message> {
        let mut out = Vec::new();
        if system {
            out.push(Message::text(Role::System, "sys"));
        }
        for (i, step) in steps.iter().enumerate() {
            match step {
                Step::User(text) => out.push(Message::text(Role::User, text.clone())),
                Step::System => out.push(Message::text(Role::System, "late")),
                Step::Assistant { text, calls } => {
                    let mut parts = vec![Part::Text { text: text.clone() }];
                    let ids: Vec<String> = (0..*calls).map(|c| format!("c{i}-{c}")).collect();
                    parts.extend(
                        ids.iter()
                            .map(|id| call(id, "read_file", "{\"path\":\"a\"}")),
                    );
                    out.push(assistant(parts));
                    out.extend(ids.iter().map(|id| result(id, "r")));
                }
            }
        }
        out
    }

    proptest! {
        #[test]
        fn segments_reassemble_to_the_same_messages(steps in steps(), system: bool, late in 0usize..3) {
            let mut messages = history(&steps, system);
            // Move a few results behind the next message: segmenting must
            // still keep each with its call.
            for _ in 0..late {
                if let Some(i) = messages.iter().position(|m| m.role == Role::Tool) {
                    if i + 1 < messages.len() {
                        messages.swap(i, i + 1);
                    }
                }
            }
            let segmented = segment(&messages);
            let leading = messages.first().is_some_and(|m| m.role == Role::System);
            prop_assert_eq!(segmented.system.is_some(), leading);
            for segment in &segmented.segments {
                prop_assert!(!segment.messages().is_empty());
            }
            prop_assert_eq!(segmented.clone().into_messages(), messages.clone());
            // Every call's result is in the call's segment.
            for segment in &segmented.segments {
                let ids: Vec<&str> = segment.messages().iter().flat_map(|m| &m.parts).filter_map(|p| match p {
                    Part::ToolCall(c) => Some(c.id.as_str()),
                    _ => None,
                }).collect();
                for other in &segmented.segments {
                    if std::ptr::eq(other, segment) { continue; }
                    for part in other.messages().iter().flat_map(|m| &m.parts) {
                        if let Part::ToolResult(r) = part {
                            prop_assert!(!ids.contains(&r.call_id.as_str()), "result {} left its call", r.call_id);
                        }
                    }
                }
            }
        }
    }
}
