//! Vendor errors, in a stream or as an HTTP error body, turned into what the
//! host shows and whether it retries.

use amber_sdk::{ErrorClass, SseEvent, StreamChunk, StreamError, Value};

/// How much of a non-JSON body or payload reaches the user.
const MAX_MESSAGE: usize = 500;

pub fn chunk(kind: &str, message: String, retryable: bool) -> StreamChunk {
    StreamChunk::Error(StreamError {
        kind: kind.to_string(),
        message,
        retryable,
    })
}

/// An event whose data is not JSON. Decoding goes on after it.
pub fn malformed(dialect: &str, event: &SseEvent<'_>, error: &serde_json::Error) -> StreamChunk {
    let name = event.event.unwrap_or("message");
    let message = format!(
        "{dialect} stream: event `{name}` is not JSON ({error}): {}",
        cut(event.data, 120)
    );
    chunk("malformed-event", message, false)
}

/// A vendor error object (`{code, type, message}`, as OpenAI, Groq and the
/// Responses `error` event send it) as a stream error. `kind` is the code
/// when there is one, else the type.
pub fn from_vendor(error: &Value) -> StreamChunk {
    let code = text_of(&error["code"]);
    let kind_type = text_of(&error["type"]);
    let kind = code
        .clone()
        .or_else(|| kind_type.clone())
        .unwrap_or_else(|| "error".to_string());
    let status = error["status_code"].as_u64().or(error["status"].as_u64());
    let retryable = retryable_kind(&kind)
        || kind_type.as_deref().is_some_and(retryable_kind)
        || status.is_some_and(|s| s == 429 || s >= 500);
    let message = match error {
        Value::String(s) => s.clone(),
        _ => match error["message"].as_str() {
            Some(m) => m.to_string(),
            None => cut(&error.to_string(), MAX_MESSAGE),
        },
    };
    chunk(&kind, message, retryable)
}

/// The error object of a payload: `{"error": {...}}`, a bare string
/// error, or the payload itself (the Responses `error` event).
pub fn vendor_error(payload: &Value) -> &Value {
    match payload.get("error") {
        Some(e) if e.is_object() || e.is_string() => e,
        _ => payload,
    }
}

/// Rate limits, overload and server faults pass; the rest would fail again.
fn retryable_kind(kind: &str) -> bool {
    if let Ok(status) = kind.parse::<u16>() {
        return status == 429 || status >= 500;
    }
    let kind = kind.to_ascii_lowercase();
    [
        "rate_limit",
        "overloaded",
        "server_error",
        "internal",
        "unavailable",
        "timeout",
    ]
    .iter()
    .any(|k| kind.contains(k))
}

/// An HTTP error response. 429 and 5xx are retryable, except a 429 that
/// says the account is out of quota, which no retry will fix.
pub fn classify(status: u16, body: &str) -> ErrorClass {
    let parsed: Option<Value> = serde_json::from_str(body).ok();
    // Some compatible servers wrap the error in a one-element array.
    let parsed = match parsed {
        Some(Value::Array(mut items)) if !items.is_empty() => Some(items.swap_remove(0)),
        other => other,
    };
    let error = parsed.as_ref().map(vendor_error);
    let vendor_message = error.and_then(|e| match e {
        Value::String(s) => Some(s.clone()),
        _ => e["message"].as_str().map(str::to_string),
    });
    let out_of_quota = error.is_some_and(|e| e["code"] == "insufficient_quota");
    let detail = match vendor_message {
        Some(m) => m,
        None if body.trim().is_empty() => "(empty body)".to_string(),
        None => cut(body.trim(), MAX_MESSAGE),
    };
    ErrorClass {
        retryable: (status == 429 && !out_of_quota) || status >= 500,
        message: format!("HTTP {status}: {detail}"),
    }
}

fn text_of(value: &Value) -> Option<String> {
    match value {
        Value::String(s) if !s.is_empty() => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

fn cut(text: &str, max: usize) -> String {
    text.chars().take(max).collect()
}
