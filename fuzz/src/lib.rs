//! What the fuzz targets share: turning fuzzer bytes into SSE events, the
//! dialects' decoders (the guests' own sources, compiled natively), and
//! the invariants every decoded stream must keep.

#![allow(dead_code)]

#[path = "../../guests/provider-anthropic/src/decode.rs"]
pub mod anthropic_decode;
#[path = "../../guests/provider-openai/src/chat_stream.rs"]
pub mod chat_stream;
#[path = "../../guests/provider-openai/src/errors.rs"]
mod errors;
#[path = "../../guests/provider-openai/src/responses_stream.rs"]
pub mod responses_stream;
#[path = "../../guests/provider-openai/src/tool_calls.rs"]
mod tool_calls;
#[path = "../../guests/provider-anthropic/src/vendor_error.rs"]
mod vendor_error;

use std::collections::BTreeSet;

use amber_sdk::{Decoder, SseEvent, StreamChunk};

/// Events from fuzzer bytes: one event a line, `name\tdata` or just data.
/// Lossy UTF-8, as the host's framing hands the guest only text.
pub fn events(data: &[u8]) -> Vec<(Option<String>, String)> {
    String::from_utf8_lossy(data)
        .lines()
        .map(|line| match line.split_once('\t') {
            Some((name, data)) => (Some(name.to_string()), data.to_string()),
            None => (None, line.to_string()),
        })
        .collect()
}

/// Runs `decoder` over `events` in batches of three, then finishes it.
pub fn decode(mut decoder: impl Decoder, events: &[(Option<String>, String)]) -> Vec<StreamChunk> {
    let borrowed: Vec<SseEvent<'_>> = events
        .iter()
        .map(|(event, data)| SseEvent {
            event: event.as_deref(),
            data,
        })
        .collect();
    let mut out = Vec::new();
    for batch in borrowed.chunks(3) {
        for event in batch {
            decoder.event(event, &mut out);
        }
    }
    out.extend(decoder.finish());
    out
}

/// What the host's assembler relies on, whatever the stream: a tool call's
/// deltas and end come after its start, an index starts once, and after
/// `finish` every started call has ended.
pub fn check_tool_calls(chunks: &[StreamChunk]) {
    let mut open = BTreeSet::new();
    let mut started = BTreeSet::new();
    for chunk in chunks {
        match chunk {
            StreamChunk::ToolCallStart(start) => {
                assert!(
                    started.insert(start.index),
                    "tool call {} started twice",
                    start.index
                );
                open.insert(start.index);
            }
            StreamChunk::ToolCallDelta(delta) => assert!(
                open.contains(&delta.index),
                "a delta for tool call {} that is not open",
                delta.index
            ),
            StreamChunk::ToolCallEnd(index) => assert!(
                open.remove(index),
                "tool call {index} ended but was not open"
            ),
            _ => {}
        }
    }
    assert!(open.is_empty(), "tool calls {open:?} never ended");
}
