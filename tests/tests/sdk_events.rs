//! The SDK's reader of a packed SSE batch (`sse-batch` in wit/provider.wit):
//! what every provider guest decodes through. The dialect tests drive it
//! end to end through real components; these pin its edges, which the
//! host never sends but a decoder must survive.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "a test fails by panicking, its helpers too"
)]

use amber_sdk::{SseEvent, SseEvents};

/// Packs events as the host does: four numbers an event.
fn pack(events: &[(Option<&str>, &str)]) -> (String, Vec<u32>) {
    let mut text = String::new();
    let mut spans = Vec::new();
    for (name, data) in events {
        for part in [name.unwrap_or(""), data] {
            spans.extend([text.len() as u32, part.len() as u32]);
            text.push_str(part);
        }
    }
    (text, spans)
}

#[test]
fn events_come_back_in_order_with_their_names() {
    let sent = [
        (Some("message_start"), "{\"a\":1}"),
        (None, "[DONE]"),
        (Some("ping"), ""),
    ];
    let (text, spans) = pack(&sent);
    let got: Vec<SseEvent> = SseEvents::new(&text, &spans).collect();
    let want: Vec<SseEvent> = sent
        .iter()
        .map(|(event, data)| SseEvent {
            event: *event,
            data,
        })
        .collect();
    assert_eq!(got, want);
}

#[test]
fn spans_outside_the_text_and_a_short_quad_are_skipped() {
    let (text, mut spans) = pack(&[(None, "one"), (None, "two")]);
    // Data of the first event runs past the end; a length that overflows.
    spans[3] = 1000;
    spans.extend([0, 0, u32::MAX, u32::MAX]);
    // A quad cut short.
    spans.extend([0, 0, 0]);
    let got: Vec<&str> = SseEvents::new(&text, &spans).map(|e| e.data).collect();
    assert_eq!(got, ["two"]);
}

#[test]
fn a_span_inside_a_character_is_skipped_not_a_panic() {
    let text = "é";
    let got: Vec<SseEvent> = SseEvents::new(text, &[0, 0, 1, 1]).collect();
    assert!(got.is_empty());
    let got: Vec<SseEvent> = SseEvents::new(text, &[0, 0, 0, 2]).collect();
    assert_eq!(got[0].data, "é");
}
