//! Reads recorded `text/event-stream` bodies into events, for the dialect
//! tests. Deliberately small and strict: it is test tooling, not the host's
//! SSE framing (which the wire takes from a kept crate).

use std::path::PathBuf;

use amber_core::ports::dialect::SseEvent;

/// A recorded stream: `fixtures/sse/<name>` (copied from the shared
/// fixtures, sources in its README), else `../shared/fixtures/sse/<name>`.
pub fn shared_fixture(name: &str) -> PathBuf {
    let candidates = [
        crate::repo_root().join("fixtures/sse").join(name),
        crate::repo_root().join("../shared/fixtures/sse").join(name),
    ];
    let found = candidates.iter().find(|p| p.exists()).cloned();
    found.unwrap_or_else(|| {
        panic!("fixture {name} not found in fixtures/sse or ../shared/fixtures/sse")
    })
}

/// Parses an SSE body: events are separated by blank lines; `event:` names
/// the event, `data:` lines are joined with newlines, `:` lines are
/// comments.
pub fn parse(body: &str) -> Vec<SseEvent> {
    let mut events = Vec::new();
    let (mut event, mut data): (Option<String>, Vec<String>) = (None, Vec::new());
    for line in body.lines().chain(std::iter::once("")) {
        if line.is_empty() {
            if !data.is_empty() {
                events.push(SseEvent {
                    event: event.take(),
                    data: data.join("\n"),
                });
            }
            event = None;
            data.clear();
        } else if line.starts_with(':') {
            continue;
        } else if let Some(rest) = line.strip_prefix("event:") {
            event = Some(rest.trim_start().to_string());
        } else if let Some(rest) = line.strip_prefix("data:") {
            data.push(rest.strip_prefix(' ').unwrap_or(rest).to_string());
        }
    }
    events
}

/// The events of a shared fixture.
pub fn read_fixture(name: &str) -> Vec<SseEvent> {
    let path = shared_fixture(name);
    let body = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    parse(&body)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn events_data_lines_and_comments() {
        let events = parse(
            ": comment\nevent: a\ndata: {\"x\":1}\n\ndata: one\ndata: two\n\ndata: [DONE]\n\n",
        );
        assert_eq!(events.len(), 3);
        assert_eq!(events[0].event.as_deref(), Some("a"));
        assert_eq!(events[1].data, "one\ntwo");
        assert_eq!(
            events[2],
            SseEvent {
                event: None,
                data: "[DONE]".into()
            }
        );
    }
}
