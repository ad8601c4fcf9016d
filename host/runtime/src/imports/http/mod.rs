//! `wasi:http/outgoing-handler` for plugins (docs/permissions.md). Every
//! plugin is linked against it; a request answers only for one granted
//! `http`, and only to the hosts its grant names. The requests are sent by
//! amber's own client, never the component's, which checks on every one:
//!
//! - https, or plain HTTP only where the grant marks a host `http://`;
//! - the host and port against the grant, again on every redirect (at
//!   most [`MAX_REDIRECTS`]);
//! - each address a name resolves to, before connecting: a private,
//!   loopback or link-local one only for a host the grant names exactly,
//!   so DNS rebinding reaches nothing inside;
//! - a timeout per request, a cap on the response body, a cap on the
//!   requests in flight per plugin;
//! - no ambient credentials: no cookies, no proxy, nothing from the
//!   environment; a secret the user bound to a host in config is added as
//!   a header by the host, and the plugin never holds it.
//!
//! Each request is one line of the plugin's log: method, host, status,
//! bytes.

pub mod allow;
pub mod fixtures;
mod resolve;

use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use http_body_util::{BodyExt, StreamBody};
use wasmtime_wasi_http::{Error as HttpError, WasiBody, WasiHttpHooks};

use allow::{Allowlist, Refusal};
pub use resolve::Resolver;

/// Redirects a request may follow, each checked as the first hop.
pub const MAX_REDIRECTS: usize = 5;

/// What bounds a plugin's requests.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HttpLimits {
    pub timeout: Duration,
    pub max_response_bytes: u64,
    pub max_request_bytes: usize,
    pub max_in_flight: usize,
}

impl Default for HttpLimits {
    fn default() -> Self {
        HttpLimits {
            timeout: Duration::from_secs(30),
            max_response_bytes: 10 << 20,
            max_request_bytes: 4 << 20,
            max_in_flight: 4,
        }
    }
}

/// A header the host adds to requests for one host: a secret the user
/// bound to it in config.
#[derive(Clone)]
pub struct BoundSecret {
    pub host: allow::HostPattern,
    pub header: String,
    pub value: String,
}

impl std::fmt::Debug for BoundSecret {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // The value is never printed, not even in a debug log.
        f.debug_struct("BoundSecret")
            .field("host", &self.host)
            .field("header", &self.header)
            .finish_non_exhaustive()
    }
}

/// What config says of one plugin's `http` grant.
#[derive(Debug, Clone, Default)]
pub struct HttpGrantConfig {
    /// The grant narrowed to these hosts (each inside one the plugin
    /// asked for); none: all it asked for.
    pub hosts: Option<Vec<String>>,
    pub headers: Vec<HeaderSecret>,
}

/// A header the host adds to requests for the hosts `host` names, its
/// value read from a named secret (or why it could not be).
#[derive(Clone)]
pub struct HeaderSecret {
    pub host: String,
    pub header: String,
    pub value: Result<String, String>,
}

impl std::fmt::Debug for HeaderSecret {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HeaderSecret")
            .field("host", &self.host)
            .field("header", &self.header)
            .finish_non_exhaustive()
    }
}

/// One plugin's HTTP: its grant, its client and its caps. Shared by its
/// instances.
pub struct PluginHttp {
    plugin: String,
    /// `None`: not granted.
    allow: Option<Arc<Allowlist>>,
    secrets: Vec<BoundSecret>,
    limits: HttpLimits,
    client: Option<reqwest::Client>,
    in_flight: Arc<tokio::sync::Semaphore>,
    log: Arc<dyn Fn(&str) + Send + Sync>,
    /// `amber plugin test`: answer from these, never the network.
    fixtures: Option<Arc<fixtures::HttpFixtures>>,
}

impl PluginHttp {
    /// For plugin `plugin`: granted to `allow` (none: not granted).
    pub fn new(
        plugin: &str,
        allow: Option<Allowlist>,
        secrets: Vec<BoundSecret>,
        limits: HttpLimits,
        resolver: Resolver,
        log: Arc<dyn Fn(&str) + Send + Sync>,
    ) -> PluginHttp {
        let allow = allow.map(Arc::new);
        let client = allow.as_ref().and_then(|allow| {
            client(plugin, allow.clone(), resolver, limits, !secrets.is_empty()).ok()
        });
        PluginHttp {
            plugin: plugin.to_string(),
            allow,
            secrets,
            limits,
            client,
            in_flight: Arc::new(tokio::sync::Semaphore::new(limits.max_in_flight)),
            log,
            fixtures: None,
        }
    }

    /// Answers every request from `fixtures` (after the grant's checks)
    /// instead of sending it: `amber plugin test`.
    pub fn with_fixtures(mut self, fixtures: Option<Arc<fixtures::HttpFixtures>>) -> Self {
        self.fixtures = fixtures;
        self
    }

    /// Not granted: every request is refused.
    pub fn none(plugin: &str) -> PluginHttp {
        PluginHttp::new(
            plugin,
            None,
            Vec::new(),
            HttpLimits::default(),
            Resolver::system(),
            Arc::new(|_| {}),
        )
    }

    fn refused(&self, why: String) -> HttpError {
        (self.log)(&format!("http refused: {why}"));
        HttpError::InternalError(Some(why))
    }

    /// Sends `request` as the grant allows.
    async fn send(
        self: Arc<Self>,
        request: http::Request<WasiBody>,
    ) -> Result<http::Response<WasiBody>, HttpError> {
        let Some(allow) = self.allow.clone() else {
            return Err(self.refused(format!(
                "not granted: http (plugin `{}` has no http grant)",
                self.plugin
            )));
        };
        let Some(client) = self.client.clone() else {
            return Err(self.refused("the HTTP client could not be built".into()));
        };
        let Ok(_permit) = self.in_flight.clone().try_acquire_owned() else {
            return Err(self.refused(format!(
                "{} requests are in flight already (at most {})",
                self.limits.max_in_flight, self.limits.max_in_flight
            )));
        };
        let (parts, body) = request.into_parts();
        let url = reqwest::Url::parse(&parts.uri.to_string())
            .map_err(|e| self.refused(format!("`{}` is not a URL: {e}", parts.uri)))?;
        check_hop(&allow, &url).map_err(|r| self.refused(r.to_string()))?;
        let body = collect_capped(body, self.limits.max_request_bytes)
            .await
            .map_err(|why| self.refused(why))?;
        let host = url.host_str().unwrap_or_default().to_string();
        let mut headers = parts.headers;
        headers.remove(http::header::HOST);
        headers.remove(http::header::COOKIE);
        headers.remove(http::header::PROXY_AUTHORIZATION);
        for secret in self.secrets.iter().filter(|s| covers(&s.host, &url)) {
            if let (Ok(name), Ok(value)) = (
                http::HeaderName::from_bytes(secret.header.as_bytes()),
                http::HeaderValue::from_str(&secret.value),
            ) {
                headers.insert(name, value);
            }
        }
        let method = parts.method.clone();
        if let Some(fixtures) = &self.fixtures {
            let Some(fixture) = fixtures.answer(method.as_str(), &url) else {
                return Err(self.refused(format!(
                    "no [[http]] fixture in tests.toml answers {method} {url} (amber plugin test sends no request)"
                )));
            };
            (self.log)(&format!(
                "http {method} {host} {} {} bytes (fixture)",
                fixture.status,
                fixture.body.len()
            ));
            return fixture_response(fixture);
        }
        let sent = client
            .request(method.clone(), url)
            .headers(headers)
            .body(body)
            .send()
            .await;
        let response = match sent {
            Ok(response) => response,
            Err(e) => {
                let why = error_chain(&e);
                (self.log)(&format!("http {method} {host}: failed: {why}"));
                return Err(if e.is_timeout() {
                    HttpError::HttpResponseTimeout
                } else {
                    HttpError::InternalError(Some(why))
                });
            }
        };
        let status = response.status();
        let mut builder = http::Response::builder().status(status);
        for (name, value) in response.headers() {
            builder = builder.header(name, value);
        }
        let log = self.log.clone();
        let cap = self.limits.max_response_bytes;
        let line = format!("http {method} {host} {}", status.as_u16());
        let stream = capped_stream(response, cap, move |bytes, cut| {
            log(&format!(
                "{line} {bytes} bytes{}",
                if cut { " (cut at the cap)" } else { "" }
            ))
        });
        let body = StreamBody::new(stream).boxed_unsync();
        builder
            .body(body)
            .map_err(|e| HttpError::InternalError(Some(e.to_string())))
    }
}

/// A fixture as the response the plugin reads.
fn fixture_response(
    fixture: &fixtures::HttpFixture,
) -> Result<http::Response<WasiBody>, HttpError> {
    let mut builder = http::Response::builder().status(fixture.status);
    for (name, value) in &fixture.headers {
        builder = builder.header(name.as_str(), value.as_str());
    }
    let body = http_body_util::Full::new(Bytes::from(fixture.body.clone()))
        .map_err(|never| match never {})
        .boxed_unsync();
    builder
        .body(body)
        .map_err(|e| HttpError::InternalError(Some(format!("a fixture's response: {e}"))))
}

/// Whether `url` names a private or loopback address, or `localhost`.
fn is_inside(url: &reqwest::Url) -> bool {
    match url.host() {
        Some(url::Host::Ipv4(ip)) => !allow::is_public(ip.into()),
        Some(url::Host::Ipv6(ip)) => !allow::is_public(ip.into()),
        Some(url::Host::Domain(name)) => {
            let name = name.trim_end_matches('.').to_ascii_lowercase();
            name == "localhost" || name.ends_with(".localhost")
        }
        None => false,
    }
}

/// Whether the pattern covers the URL's host and port.
fn covers(pattern: &allow::HostPattern, url: &reqwest::Url) -> bool {
    let list = Allowlist {
        patterns: vec![pattern.clone()],
    };
    check_hop(&list, url).is_ok()
}

/// One hop: its scheme, host and port against the grant, and its address
/// when the host is one (a name's addresses are checked as it resolves).
fn check_hop(allow: &Allowlist, url: &reqwest::Url) -> Result<(), Refusal> {
    let https = url.scheme() == "https";
    let host = url.host_str().unwrap_or_default();
    let port = url.port_or_known_default().unwrap_or(0);
    if !matches!(url.scheme(), "https" | "http") {
        return Err(Refusal::Host(url.to_string(), "http and https only".into()));
    }
    allow.check(https, host, port)?;
    if let Some(url::Host::Ipv4(ip)) = url.host() {
        allow.check_address(host, ip.into())?;
    }
    if let Some(url::Host::Ipv6(ip)) = url.host() {
        allow.check_address(host, ip.into())?;
    }
    Ok(())
}

/// The client of one plugin: the checking resolver, the checked redirects,
/// its timeouts, no proxy and no cookie store.
///
/// With secrets bound, a redirect to another host or port is not
/// followed: its response goes back to the plugin, whose own request
/// there gets that host's secrets only. (reqwest forwards a custom header
/// such as `x-api-key` across hosts; a secret goes to its host alone.)
fn client(
    plugin: &str,
    allow: Arc<Allowlist>,
    resolver: Resolver,
    limits: HttpLimits,
    secrets: bool,
) -> reqwest::Result<reqwest::Client> {
    let for_redirects = allow.clone();
    reqwest::Client::builder()
        .user_agent(format!("amber-plugin/{plugin}"))
        .no_proxy()
        .timeout(limits.timeout)
        .connect_timeout(limits.timeout.min(Duration::from_secs(10)))
        .redirect(reqwest::redirect::Policy::custom(move |attempt| {
            if attempt.previous().len() > MAX_REDIRECTS {
                let refused = format!("more than {MAX_REDIRECTS} redirects");
                return attempt.error(refused);
            }
            let elsewhere = attempt.previous().first().is_some_and(|first| {
                first.host_str() != attempt.url().host_str()
                    || first.port_or_known_default() != attempt.url().port_or_known_default()
            });
            if secrets && elsewhere {
                return attempt.stop();
            }
            // A page elsewhere may not send the plugin inside: a grant of
            // `localhost:*` is for the plugin's own requests, not for any
            // public page's redirect (a 302 to 127.0.0.1:6379).
            if elsewhere && is_inside(attempt.url()) {
                let host = attempt.url().host_str().unwrap_or_default().to_string();
                return attempt.error(format!(
                    "a redirect was refused: it leads from another host to {host}, a private or loopback address, which only a request made to it directly may reach"
                ));
            }
            match check_hop(&for_redirects, attempt.url()) {
                Ok(()) => attempt.follow(),
                Err(refusal) => {
                    let refused = format!("a redirect was refused: {refusal}");
                    attempt.error(refused)
                }
            }
        }))
        .dns_resolver(Arc::new(resolve::Checking::new(resolver, allow)))
        .build()
}

/// The request body, whole, within `cap` bytes.
async fn collect_capped(body: WasiBody, cap: usize) -> Result<Bytes, String> {
    let mut body = body;
    let mut out = bytes::BytesMut::new();
    while let Some(frame) = body.frame().await {
        let frame = frame.map_err(|e| format!("the request body failed: {e}"))?;
        if let Ok(data) = frame.into_data() {
            if out.len() + data.len() > cap {
                return Err(format!("the request body is over {cap} bytes"));
            }
            out.extend_from_slice(&data);
        }
    }
    Ok(out.freeze())
}

type Frames = std::pin::Pin<
    Box<dyn futures_util::Stream<Item = Result<http_body::Frame<Bytes>, HttpError>> + Send>,
>;

/// The response body as frames, ended with an error past `cap` bytes;
/// `done` hears the count (and whether it was cut) once, at the end.
fn capped_stream(
    response: reqwest::Response,
    cap: u64,
    done: impl FnOnce(u64, bool) + Send + 'static,
) -> Frames {
    use futures_util::StreamExt;
    struct State<S, F> {
        stream: S,
        seen: u64,
        done: Option<F>,
    }
    impl<S, F: FnOnce(u64, bool)> State<S, F> {
        fn end(&mut self, cut: bool) {
            if let Some(done) = self.done.take() {
                done(self.seen, cut);
            }
        }
    }
    let state = State {
        stream: response.bytes_stream(),
        seen: 0,
        done: Some(done),
    };
    futures_util::stream::unfold(state, move |mut state| async move {
        // Ended (by the cap, an error or the end): nothing more.
        state.done.as_ref()?;
        match state.stream.next().await {
            Some(Ok(chunk)) => {
                state.seen += chunk.len() as u64;
                if state.seen > cap {
                    state.end(true);
                    return Some((Err(HttpError::HttpResponseBodySize(Some(cap))), state));
                }
                Some((Ok(http_body::Frame::data(chunk)), state))
            }
            Some(Err(e)) => {
                state.end(false);
                Some((Err(HttpError::InternalError(Some(error_chain(&e)))), state))
            }
            None => {
                state.end(false);
                None
            }
        }
    })
    .boxed()
}

/// An error with its causes, one line.
fn error_chain(error: &dyn std::error::Error) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        text.push_str(": ");
        text.push_str(&cause.to_string());
        source = cause.source();
    }
    text
}

/// The hooks a plugin's store gives `wasi:http`: its [`PluginHttp`].
pub struct HttpHooks(pub Arc<PluginHttp>);

impl WasiHttpHooks for HttpHooks {
    fn forbidden_header_filter(&mut self) -> wasmtime_wasi_http::ForbiddenHeaderFilter {
        Arc::new(|name| {
            wasmtime_wasi_http::DEFAULT_FORBIDDEN_HEADERS.contains(name)
                || name == http::header::COOKIE
                || name == http::header::PROXY_AUTHORIZATION
        })
    }

    fn send_request(
        &mut self,
        request: http::Request<WasiBody>,
        _options: Option<wasmtime_wasi_http::RequestOptions>,
        _fut: Box<dyn std::future::Future<Output = Result<(), HttpError>> + Send>,
    ) -> Box<
        dyn std::future::Future<
                Output = Result<
                    (
                        http::Response<WasiBody>,
                        Box<dyn std::future::Future<Output = Result<(), HttpError>> + Send>,
                    ),
                    HttpError,
                >,
            > + Send,
    > {
        let http = self.0.clone();
        Box::new(async move {
            let response = http.send(request).await?;
            let io: Box<dyn std::future::Future<Output = Result<(), HttpError>> + Send> =
                Box::new(async { Ok(()) });
            Ok((response, io))
        })
    }
}
