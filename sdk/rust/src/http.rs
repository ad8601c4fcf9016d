//! HTTP for a plugin granted `http` (docs/permissions.md), behind the
//! `http` feature: a small blocking client over the standard
//! `wasi:http/outgoing-handler`, so a plugin needs no HTTP crate of its
//! own. The host does the rest: it checks every request and redirect
//! against the grant, follows redirects (five at most), adds the secret
//! headers config binds to a host, caps the time and the size, and logs
//! each request in the plugin's log.
//!
//! ```ignore
//! let page = amber_sdk::http::get("https://api.example.com/v1/items")?;
//! let items = page.json()?;
//! ```

use wasip2::http::outgoing_handler;
use wasip2::http::types::{ErrorCode, Fields, Method, OutgoingBody, OutgoingRequest, Scheme};
use wasip2::io::streams::StreamError;

/// What a request did not get, in words a model or a person can act on.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum HttpError {
    /// The URL is not an `http://` or `https://` URL.
    #[error("`{0}` is not an http(s) URL")]
    BadUrl(String),
    /// The host refused the request before sending it: not granted, a
    /// private address, plain http (the plugin's log says which).
    #[error("the request to {url} was refused by amber: {code} (the plugin's log says why; `amber plugin info` shows the grant)")]
    Refused { url: String, code: String },
    /// It was sent and failed: DNS, a connection, a timeout, a cap.
    #[error("the request to {url} failed: {code}")]
    Failed { url: String, code: String },
    /// A response body that is not what was asked for.
    #[error("the response from {url} is not {what}: {why}")]
    Body {
        url: String,
        what: &'static str,
        why: String,
    },
}

/// A response, its body read whole (up to the request's cap).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Response {
    pub url: String,
    pub status: u16,
    /// Names in lowercase, in the order received.
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
    /// The body went on past the cap and was cut there.
    pub truncated: bool,
}

impl Response {
    /// The first header named `name` (any case).
    pub fn header(&self, name: &str) -> Option<&str> {
        let name = name.to_ascii_lowercase();
        self.headers
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, v)| v.as_str())
    }

    /// The body as text (bytes that are not UTF-8 shown lossily).
    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }

    /// The body as JSON.
    pub fn json(&self) -> Result<serde_json::Value, HttpError> {
        serde_json::from_slice(&self.body).map_err(|e| HttpError::Body {
            url: self.url.clone(),
            what: "JSON",
            why: e.to_string(),
        })
    }

    /// Whether the status is 2xx.
    pub fn ok(&self) -> bool {
        (200..300).contains(&self.status)
    }
}

/// One request to send.
#[derive(Debug, Clone)]
pub struct Request {
    method: Method,
    url: String,
    headers: Vec<(String, String)>,
    body: Option<Vec<u8>>,
    max_bytes: usize,
}

/// The body read at most, unless [`Request::max_bytes`] says otherwise
/// (the host caps it too, at `[limits] http_response_mib`).
pub const DEFAULT_MAX_BYTES: usize = 8 * 1024 * 1024;

impl Request {
    pub fn get(url: &str) -> Request {
        Request::new(Method::Get, url)
    }

    pub fn post(url: &str, body: Vec<u8>) -> Request {
        let mut r = Request::new(Method::Post, url);
        r.body = Some(body);
        r
    }

    fn new(method: Method, url: &str) -> Request {
        Request {
            method,
            url: url.to_string(),
            headers: Vec::new(),
            body: None,
            max_bytes: DEFAULT_MAX_BYTES,
        }
    }

    pub fn header(mut self, name: &str, value: &str) -> Request {
        self.headers.push((name.to_string(), value.to_string()));
        self
    }

    /// Reads the body up to `max` bytes; more is cut (`truncated`).
    pub fn max_bytes(mut self, max: usize) -> Request {
        self.max_bytes = max;
        self
    }

    /// Sends it and reads the response.
    pub fn send(self) -> Result<Response, HttpError> {
        send(self)
    }
}

/// `GET url`.
pub fn get(url: &str) -> Result<Response, HttpError> {
    Request::get(url).send()
}

/// `POST url` with a JSON body.
pub fn post_json(url: &str, body: &serde_json::Value) -> Result<Response, HttpError> {
    Request::post(url, body.to_string().into_bytes())
        .header("content-type", "application/json")
        .send()
}

/// A URL's scheme, authority and path with query.
fn split(url: &str) -> Option<(Scheme, &str, &str)> {
    let (scheme, rest) = url.split_once("://")?;
    let scheme = match scheme.to_ascii_lowercase().as_str() {
        "http" => Scheme::Http,
        "https" => Scheme::Https,
        _ => return None,
    };
    let rest = rest.split('#').next().unwrap_or(rest);
    let at = rest.find(['/', '?']).unwrap_or(rest.len());
    let (authority, path) = rest.split_at(at);
    if authority.is_empty() || authority.contains('@') {
        return None;
    }
    Some((scheme, authority, if path.is_empty() { "/" } else { path }))
}

fn send(request: Request) -> Result<Response, HttpError> {
    let url = request.url.clone();
    let bad = || HttpError::BadUrl(url.clone());
    let (scheme, authority, path) = split(&url).ok_or_else(bad)?;
    let headers = Fields::new();
    for (name, value) in &request.headers {
        headers
            .append(name, value.as_bytes())
            .map_err(|e| HttpError::Refused {
                url: url.clone(),
                code: format!("the header `{name}` ({e:?})"),
            })?;
    }
    let outgoing = OutgoingRequest::new(headers);
    outgoing.set_method(&request.method).map_err(|()| bad())?;
    outgoing.set_scheme(Some(&scheme)).map_err(|()| bad())?;
    outgoing.set_authority(Some(authority)).map_err(|()| bad())?;
    outgoing.set_path_with_query(Some(path)).map_err(|()| bad())?;
    let body = outgoing.body().map_err(|()| bad())?;
    let refused = |code: ErrorCode| HttpError::Refused {
        url: url.clone(),
        code: describe(&code),
    };
    let failed = |code: String| HttpError::Failed {
        url: url.clone(),
        code,
    };
    let pending = outgoing_handler::handle(outgoing, None).map_err(refused)?;
    write_body(body, request.body.as_deref()).map_err(failed)?;
    pending.subscribe().block();
    let response = match pending.get() {
        Some(Ok(Ok(response))) => response,
        Some(Ok(Err(code))) => return Err(failed(describe(&code))),
        _ => return Err(failed("no response".into())),
    };
    let status = response.status();
    let headers = response
        .headers()
        .entries()
        .into_iter()
        .map(|(n, v)| (n.to_ascii_lowercase(), String::from_utf8_lossy(&v).into_owned()))
        .collect();
    let incoming = response.consume().map_err(|()| failed("no body".into()))?;
    let stream = incoming
        .stream()
        .map_err(|()| failed("no body stream".into()))?;
    let mut bytes = Vec::new();
    let mut truncated = false;
    loop {
        match stream.blocking_read(64 * 1024) {
            Ok(chunk) => {
                bytes.extend_from_slice(&chunk);
                if bytes.len() > request.max_bytes {
                    bytes.truncate(request.max_bytes);
                    truncated = true;
                    break;
                }
            }
            Err(StreamError::Closed) => break,
            Err(StreamError::LastOperationFailed(e)) => {
                return Err(failed(e.to_debug_string()));
            }
        }
    }
    drop(stream);
    Ok(Response {
        url,
        status,
        headers,
        body: bytes,
        truncated,
    })
}

/// Writes `bytes` (if any) and finishes the request's body.
fn write_body(body: OutgoingBody, bytes: Option<&[u8]>) -> Result<(), String> {
    if let Some(bytes) = bytes {
        let stream = body.write().map_err(|()| "no request body stream".to_string())?;
        for chunk in bytes.chunks(4096) {
            stream
                .blocking_write_and_flush(chunk)
                .map_err(|e| format!("the request body could not be sent: {e:?}"))?;
        }
        drop(stream);
    }
    OutgoingBody::finish(body, None).map_err(|e| describe(&e))
}

/// An error code as the words it means.
fn describe(code: &ErrorCode) -> String {
    match code {
        ErrorCode::HttpRequestDenied => "the request was denied".into(),
        ErrorCode::DnsError(e) => format!(
            "the name did not resolve ({})",
            e.rcode.clone().unwrap_or_default()
        ),
        ErrorCode::ConnectionRefused => "the connection was refused".into(),
        ErrorCode::ConnectionTimeout | ErrorCode::ConnectionReadTimeout => "it timed out".into(),
        ErrorCode::HttpResponseBodySize(_) => "the response was over the size cap".into(),
        ErrorCode::InternalError(Some(why)) => why.clone(),
        other => format!("{other:?}"),
    }
}
