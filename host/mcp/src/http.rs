//! Streamable HTTP through the reqwest amber already has. rmcp's own
//! client is written for another major version of reqwest; taking it
//! would put two HTTP stacks in the binary (docs/mcp.md, "Why our own
//! HTTP client"). rmcp's transport does the protocol (sessions, SSE
//! resumption, re-initialising); this is only the three HTTP exchanges.

use std::borrow::Cow;
use std::collections::HashMap;
use std::sync::Arc;

use futures::stream::BoxStream;
use futures::StreamExt;
use http::{HeaderName, HeaderValue};
use rmcp::model::{ClientJsonRpcMessage, ServerJsonRpcMessage};
use rmcp::transport::streamable_http_client::{
    SseError, StreamableHttpClient, StreamableHttpError, StreamableHttpPostResponse,
};
use sse_stream::{Sse, SseStream};

const SESSION_ID: &str = "Mcp-Session-Id";
const LAST_EVENT_ID: &str = "Last-Event-Id";
const EVENT_STREAM: &str = "text/event-stream";
const JSON: &str = "application/json";

/// The error of one HTTP exchange.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct HttpError(#[from] reqwest::Error);

type Error = StreamableHttpError<HttpError>;

/// A reqwest client speaking MCP's streamable HTTP.
#[derive(Clone)]
pub struct McpHttp {
    client: reqwest::Client,
}

impl McpHttp {
    /// Redirects are not followed: a session's headers are never
    /// replayed to another host.
    pub fn new() -> Result<McpHttp, String> {
        let client = reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .map_err(|e| e.to_string())?;
        Ok(McpHttp { client })
    }
}

fn client_error(e: reqwest::Error) -> Error {
    StreamableHttpError::Client(HttpError(e))
}

fn with_headers(
    mut request: reqwest::RequestBuilder,
    session_id: Option<&str>,
    auth: Option<String>,
    custom: HashMap<HeaderName, HeaderValue>,
) -> reqwest::RequestBuilder {
    if let Some(id) = session_id {
        request = request.header(SESSION_ID, id);
    }
    if let Some(token) = auth {
        request = request.bearer_auth(token);
    }
    for (name, value) in custom {
        request = request.header(name.as_str(), value.as_bytes());
    }
    request
}

fn content_type(response: &reqwest::Response) -> Option<String> {
    let value = response.headers().get(reqwest::header::CONTENT_TYPE)?;
    Some(String::from_utf8_lossy(value.as_bytes()).into_owned())
}

/// The response's events, each at most `max` bytes: a server cannot make
/// one endless event and fill amber's memory.
fn events(response: reqwest::Response, max: usize) -> BoxStream<'static, Result<Sse, SseError>> {
    let mut since_blank = 0usize;
    let bounded = response.bytes_stream().map(move |chunk| {
        let chunk = chunk.map_err(std::io::Error::other)?;
        match chunk.windows(2).rposition(|w| w == b"\n\n") {
            Some(at) => since_blank = chunk.len() - at - 2,
            None => since_blank += chunk.len(),
        }
        if since_blank > max {
            return Err(std::io::Error::other(format!(
                "an event of the server's stream is over {max} bytes"
            )));
        }
        Ok(chunk)
    });
    SseStream::from_bytes_stream(bounded).boxed()
}

/// rmcp's own bound on one event when the transport gives none.
const MAX_EVENT: usize = 16 << 20;

impl StreamableHttpClient for McpHttp {
    type Error = HttpError;

    async fn post_message(
        &self,
        uri: Arc<str>,
        message: ClientJsonRpcMessage,
        session_id: Option<Arc<str>>,
        auth: Option<String>,
        custom: HashMap<HeaderName, HeaderValue>,
    ) -> Result<StreamableHttpPostResponse, Error> {
        self.post_message_with_max_sse_event_size(uri, message, session_id, auth, custom, MAX_EVENT)
            .await
    }

    async fn post_message_with_max_sse_event_size(
        &self,
        uri: Arc<str>,
        message: ClientJsonRpcMessage,
        session_id: Option<Arc<str>>,
        auth: Option<String>,
        custom: HashMap<HeaderName, HeaderValue>,
        max_event: usize,
    ) -> Result<StreamableHttpPostResponse, Error> {
        let request = self
            .client
            .post(uri.as_ref())
            .header(reqwest::header::ACCEPT, format!("{EVENT_STREAM}, {JSON}"))
            .json(&message);
        let had_session = session_id.is_some();
        let request = with_headers(request, session_id.as_deref(), auth, custom);
        let response = request.send().await.map_err(client_error)?;
        let status = response.status();
        if status == reqwest::StatusCode::ACCEPTED || status == reqwest::StatusCode::NO_CONTENT {
            return Ok(StreamableHttpPostResponse::Accepted);
        }
        if status == reqwest::StatusCode::NOT_FOUND && had_session {
            return Err(StreamableHttpError::SessionExpired);
        }
        let kind = content_type(&response);
        let session = response
            .headers()
            .get(SESSION_ID)
            .and_then(|v| v.to_str().ok())
            .map(str::to_string);
        if !status.is_success() {
            let body = response.text().await.unwrap_or_default();
            // A JSON-RPC error in the body is the server's answer.
            if let Ok(error @ ServerJsonRpcMessage::Error(_)) = serde_json::from_str(&body) {
                return Ok(StreamableHttpPostResponse::Json(error, session));
            }
            return Err(StreamableHttpError::UnexpectedServerResponse(Cow::Owned(
                format!(
                    "HTTP {status}: {}",
                    body.chars().take(500).collect::<String>()
                ),
            )));
        }
        match kind.as_deref() {
            Some(k) if k.starts_with(EVENT_STREAM) => Ok(StreamableHttpPostResponse::Sse(
                events(response, max_event),
                session,
            )),
            Some(k) if k.starts_with(JSON) => {
                let body = response.bytes().await.map_err(client_error)?;
                if body.iter().all(u8::is_ascii_whitespace) {
                    return Ok(StreamableHttpPostResponse::Accepted);
                }
                match serde_json::from_slice(&body) {
                    Ok(reply) => Ok(StreamableHttpPostResponse::Json(reply, session)),
                    // A body that is no message, to a message that needs
                    // no answer, is an acceptance.
                    Err(_)
                        if matches!(
                            message,
                            ClientJsonRpcMessage::Notification(_)
                                | ClientJsonRpcMessage::Response(_)
                        ) =>
                    {
                        Ok(StreamableHttpPostResponse::Accepted)
                    }
                    Err(e) => Err(e.into()),
                }
            }
            // An empty 200 to a notification is how some servers accept.
            _ if matches!(
                message,
                ClientJsonRpcMessage::Notification(_) | ClientJsonRpcMessage::Response(_)
            ) =>
            {
                Ok(StreamableHttpPostResponse::Accepted)
            }
            other => Err(StreamableHttpError::UnexpectedContentType(
                other.map(str::to_string),
            )),
        }
    }

    async fn delete_session(
        &self,
        uri: Arc<str>,
        session_id: Arc<str>,
        auth: Option<String>,
        custom: HashMap<HeaderName, HeaderValue>,
    ) -> Result<(), Error> {
        let request = with_headers(
            self.client.delete(uri.as_ref()),
            Some(&session_id),
            auth,
            custom,
        );
        let response = request.send().await.map_err(client_error)?;
        if response.status() == reqwest::StatusCode::METHOD_NOT_ALLOWED {
            return Ok(());
        }
        response.error_for_status().map_err(client_error)?;
        Ok(())
    }

    async fn get_stream(
        &self,
        uri: Arc<str>,
        session_id: Option<Arc<str>>,
        last_event_id: Option<String>,
        auth: Option<String>,
        custom: HashMap<HeaderName, HeaderValue>,
    ) -> Result<BoxStream<'static, Result<Sse, SseError>>, Error> {
        self.get_stream_with_max_sse_event_size(
            uri,
            session_id,
            last_event_id,
            auth,
            custom,
            MAX_EVENT,
        )
        .await
    }

    async fn get_stream_with_max_sse_event_size(
        &self,
        uri: Arc<str>,
        session_id: Option<Arc<str>>,
        last_event_id: Option<String>,
        auth: Option<String>,
        custom: HashMap<HeaderName, HeaderValue>,
        max_event: usize,
    ) -> Result<BoxStream<'static, Result<Sse, SseError>>, Error> {
        let mut request = self
            .client
            .get(uri.as_ref())
            .header(reqwest::header::ACCEPT, format!("{EVENT_STREAM}, {JSON}"));
        if let Some(id) = last_event_id {
            request = request.header(LAST_EVENT_ID, id);
        }
        let request = with_headers(request, session_id.as_deref(), auth, custom);
        let response = request.send().await.map_err(client_error)?;
        if response.status() == reqwest::StatusCode::METHOD_NOT_ALLOWED {
            return Err(StreamableHttpError::ServerDoesNotSupportSse);
        }
        let response = response.error_for_status().map_err(client_error)?;
        match content_type(&response) {
            Some(k) if k.starts_with(EVENT_STREAM) || k.starts_with(JSON) => {
                Ok(events(response, max_event))
            }
            other => Err(StreamableHttpError::UnexpectedContentType(other)),
        }
    }
}
