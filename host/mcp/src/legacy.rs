//! The HTTP+SSE transport of protocol 2024-11-05, which streamable HTTP
//! replaced and rmcp has no client for. A server that offers only it is
//! refused by name rather than with a bare HTTP error: such a server
//! answers a GET with an event stream whose first event is `endpoint`.

use std::time::Duration;

use futures::StreamExt;

/// Whether `url` speaks only the legacy transport.
pub async fn offers_only_sse(url: &str) -> bool {
    let probe = async {
        let response = reqwest::Client::new()
            .get(url)
            .header(reqwest::header::ACCEPT, "text/event-stream")
            .send()
            .await
            .ok()?;
        let is_stream = response
            .headers()
            .get(reqwest::header::CONTENT_TYPE)
            .is_some_and(|v| v.as_bytes().starts_with(b"text/event-stream"));
        if !is_stream {
            return Some(false);
        }
        let mut events = sse_stream::SseStream::from_bytes_stream(response.bytes_stream());
        let first = events.next().await?.ok()?;
        Some(first.event.as_deref() == Some("endpoint"))
    };
    matches!(
        tokio::time::timeout(Duration::from_secs(3), probe).await,
        Ok(Some(true))
    )
}
