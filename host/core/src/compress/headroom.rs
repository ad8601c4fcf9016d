//! Applying the classification and enforcing headroom (seed: "Compression
//! pipeline": "apply classification, enforce headroom"). Segments labelled
//! prune are dropped; then, while the set is over its target, the oldest
//! segments labelled context; a core segment never is. A set still over the
//! target is a failure, and the live context stays as it was.
//!
//! Two segments are kept whatever the model said, because the agent is in
//! the middle of them: the newest (the last step and its results) and the
//! newest user message (the request being worked on).

use std::collections::HashMap;

use super::segment::{Segment, SegmentKind};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Label {
    /// Kept whatever it costs.
    Core,
    /// Kept while there is room; the oldest goes first.
    Context,
    /// Dropped.
    Prune,
}

/// The label of every segment: the model's (by 1-based id), `Context` for
/// one it did not name, and `Core` for the two that are always kept.
pub fn resolve(segments: &[Segment], labels: &HashMap<u64, Label>) -> Vec<Label> {
    let mut out: Vec<Label> = (1..=segments.len() as u64)
        .map(|id| labels.get(&id).copied().unwrap_or(Label::Context))
        .collect();
    if let Some(last) = out.last_mut() {
        *last = Label::Core;
    }
    if let Some(user) = segments.iter().rposition(|s| s.kind() == SegmentKind::User) {
        out[user] = Label::Core;
    }
    out
}

/// Which segments stay, and what the set costs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Plan {
    /// One flag per segment, in order.
    pub keep: Vec<bool>,
    /// Segments dropped.
    pub pruned: usize,
    /// Estimated tokens of the set: the fixed part, the kept segments, and
    /// the note when anything was dropped.
    pub tokens: u64,
}

/// Still over the target once everything that may go has gone.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OverTarget {
    pub tokens: u64,
    pub target: u64,
}

/// Plans the compressed set. `fixed` is what is always kept besides the
/// segments (the system message); `note` what the note about dropped
/// segments costs, paid once anything is dropped; `target` the most the set
/// may cost. `labels` holds one label per segment.
pub fn enforce(
    segments: &[Segment],
    labels: &[Label],
    fixed: u64,
    note: u64,
    target: u64,
) -> Result<Plan, OverTarget> {
    let mut keep = vec![true; segments.len()];
    let mut kept: u64 = segments.iter().map(Segment::tokens).sum();
    let mut pruned = 0;
    let cost = |kept: u64, pruned: usize| fixed + kept + if pruned > 0 { note } else { 0 };
    for (i, segment) in segments.iter().enumerate() {
        if labels.get(i) == Some(&Label::Prune) {
            keep[i] = false;
            kept -= segment.tokens();
            pruned += 1;
        }
    }
    for (i, segment) in segments.iter().enumerate() {
        if cost(kept, pruned) <= target {
            break;
        }
        if labels.get(i) == Some(&Label::Context) {
            keep[i] = false;
            kept -= segment.tokens();
            pruned += 1;
        }
    }
    let tokens = cost(kept, pruned);
    if tokens > target {
        return Err(OverTarget { tokens, target });
    }
    Ok(Plan {
        keep,
        pruned,
        tokens,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compress::segment::segment;
    use crate::compress::segment::tests::{history, steps};
    use crate::ports::dialect::{Message, Part, Role};
    use proptest::prelude::*;

    fn segments_of(tokens: &[usize]) -> Vec<Segment> {
        // A text of 4n - 30ish bytes is about n tokens; exact sizes come
        // from the segments themselves.
        let history: Vec<Message> = tokens
            .iter()
            .map(|n| Message::text(Role::User, "x".repeat(n * 4)))
            .collect();
        segment(&history).segments
    }

    #[test]
    fn prune_goes_first_then_the_oldest_context_until_under_the_target() {
        let segments = segments_of(&[100, 100, 100, 100, 100]);
        let t: Vec<u64> = segments.iter().map(Segment::tokens).collect();
        let labels = [
            Label::Context,
            Label::Core,
            Label::Context,
            Label::Prune,
            Label::Context,
        ];
        // Room for everything but the pruned one and the oldest context.
        let target = 10 + t[1] + t[2] + t[4] + 5;
        let plan = enforce(&segments, &labels, 10, 5, target).unwrap();
        assert_eq!(plan.keep, [false, true, true, false, true]);
        assert_eq!(plan.pruned, 2);
        assert_eq!(plan.tokens, target);
    }

    #[test]
    fn prune_is_dropped_even_with_room_and_nothing_else_is() {
        let segments = segments_of(&[50, 50, 50]);
        let labels = [Label::Context, Label::Prune, Label::Context];
        let plan = enforce(&segments, &labels, 0, 7, u64::MAX).unwrap();
        assert_eq!(plan.keep, [true, false, true]);
        let total: u64 = segments.iter().map(Segment::tokens).sum();
        assert_eq!(plan.tokens, total - segments[1].tokens() + 7);
    }

    #[test]
    fn the_note_is_paid_only_when_something_is_dropped() {
        let segments = segments_of(&[50, 50]);
        let total: u64 = segments.iter().map(Segment::tokens).sum();
        let plan = enforce(&segments, &[Label::Context; 2], 3, 1000, total + 3).unwrap();
        assert_eq!(plan.pruned, 0);
        assert_eq!(plan.tokens, total + 3);
    }

    #[test]
    fn core_over_the_target_fails_with_the_count() {
        let segments = segments_of(&[100, 100]);
        let labels = [Label::Core, Label::Context];
        let err = enforce(&segments, &labels, 0, 0, 50).unwrap_err();
        assert_eq!(
            err,
            OverTarget {
                tokens: segments[0].tokens(),
                target: 50
            }
        );
    }

    #[test]
    fn the_newest_segment_and_newest_user_message_are_always_core() {
        let history = vec![
            Message::text(Role::User, "old"),
            Message::text(Role::User, "task"),
            Message {
                role: Role::Assistant,
                parts: vec![Part::Text { text: "a".into() }],
            },
            Message {
                role: Role::Assistant,
                parts: vec![Part::Text { text: "b".into() }],
            },
        ];
        let segments = segment(&history).segments;
        let labels: HashMap<u64, Label> = (1..=4).map(|id| (id, Label::Prune)).collect();
        assert_eq!(
            resolve(&segments, &labels),
            [Label::Prune, Label::Core, Label::Prune, Label::Core]
        );
        // Unnamed ids are context; ids past the end are ignored.
        let labels = HashMap::from([(9, Label::Prune)]);
        assert_eq!(
            resolve(&segments, &labels),
            [Label::Context, Label::Core, Label::Context, Label::Core]
        );
    }

    fn label() -> impl Strategy<Value = Label> {
        prop_oneof![Just(Label::Core), Just(Label::Context), Just(Label::Prune)]
    }

    proptest! {
        #[test]
        fn headroom_never_drops_core_and_never_separates_a_call_from_its_result(
            steps in steps(),
            raw in prop::collection::vec(label(), 40),
            share in 0.0f64..1.2,
        ) {
            let messages = history(&steps, true);
            let segmented = segment(&messages);
            let segments = &segmented.segments;
            let named: HashMap<u64, Label> = raw.iter().enumerate().map(|(i, l)| (i as u64 + 1, *l)).collect();
            let labels = resolve(segments, &named);
            let total = segmented.tokens();
            let target = (total as f64 * share) as u64;
            match enforce(segments, &labels, 0, 0, target) {
                Ok(plan) => {
                    prop_assert!(plan.tokens <= target);
                    let mut kept = Vec::new();
                    for (i, segment) in segments.iter().enumerate() {
                        if labels[i] == Label::Core {
                            prop_assert!(plan.keep[i], "core segment {} dropped", i + 1);
                        }
                        if labels[i] == Label::Prune {
                            prop_assert!(!plan.keep[i]);
                        }
                        if plan.keep[i] {
                            kept.extend(segment.messages().iter().cloned());
                        }
                    }
                    prop_assert_eq!(crate::compress::segment::unpaired_call(&kept), None);
                }
                Err(over) => {
                    // Only when the core segments alone do not fit.
                    let core: u64 = segments.iter().zip(&labels).filter(|(_, l)| **l == Label::Core).map(|(s, _)| s.tokens()).sum();
                    prop_assert!(core > target, "failed with core {} under target {}", core, target);
                    prop_assert!(over.tokens > over.target);
                }
            }
        }
    }
}
