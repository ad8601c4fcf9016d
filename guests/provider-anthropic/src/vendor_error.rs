//! What Anthropic's errors mean for a retry: an HTTP error before the stream
//! starts (`classify`) and an `error` event inside a stream (`stream_error`).
//! Both carry the same `{"type":"error","error":{"type","message"}}` body.

use amber_sdk::bindings::exports::amber::plugin::provider::StreamError;
use amber_sdk::{ErrorClass, StreamChunk, Value};

/// How much of a body that is not JSON reaches the user.
const BODY_PREVIEW_CHARS: usize = 500;

/// Error types that say "try again later", not "your request is wrong".
fn transient(kind: &str) -> bool {
    matches!(kind, "overloaded_error" | "api_error" | "rate_limit_error")
}

/// The `error.type` and `error.message` of an error body, when it has them.
fn parts(body: &Value) -> (Option<&str>, Option<&str>) {
    let error = &body["error"];
    (error["type"].as_str(), error["message"].as_str())
}

fn preview(text: &str) -> String {
    let cut: String = text.chars().take(BODY_PREVIEW_CHARS).collect();
    if cut.len() < text.len() {
        format!("{cut}…")
    } else {
        cut
    }
}

/// A failed HTTP response. 429, every 5xx (529 is Anthropic's "overloaded")
/// and an `overloaded_error` body are worth retrying.
pub fn classify(status: u16, body: &str) -> ErrorClass {
    let json: Option<Value> = serde_json::from_str(body).ok();
    let (kind, message) = json.as_ref().map(parts).unwrap_or((None, None));
    let retryable = status == 429 || status >= 500 || kind == Some("overloaded_error");
    let message = match (kind, message) {
        (Some(kind), Some(message)) => format!("{status} {kind}: {message}"),
        (None, Some(message)) => format!("{status}: {message}"),
        _ if body.trim().is_empty() => format!("{status} with an empty body"),
        _ => format!("{status}: {}", preview(body.trim())),
    };
    ErrorClass { retryable, message }
}

/// An `error` event in the stream, already parsed.
pub fn stream_error(data: &Value) -> StreamChunk {
    let (kind, message) = parts(data);
    let kind = kind.unwrap_or("error").to_string();
    let message = match message {
        Some(m) => m.to_string(),
        None => preview(&data.to_string()),
    };
    StreamChunk::Error(StreamError {
        retryable: transient(&kind),
        kind,
        message,
    })
}

/// An event whose data is not what its name promises.
pub fn malformed(event: &str, why: &str) -> StreamChunk {
    StreamChunk::Error(StreamError {
        kind: "malformed-event".to_string(),
        message: format!("the `{event}` event {why}"),
        retryable: false,
    })
}
