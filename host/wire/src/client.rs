//! The streamed model call: the core's `ModelClient` over HTTP.
//! Seed: "Provider wire path" — the dialect is resolved once per client
//! (`make_dialect`), requests are built by the component, the host adds the
//! base URL and the key, and the stream is framed here and decoded by the
//! component in batches.

use std::sync::Arc;
use std::time::Duration;

use amber_core::ports::dialect::{
    AuthScheme, BoxFuture, ChatRequest, HttpRequest, ModelReply, SseEvent, StreamChunk,
};
use amber_core::ports::{Dialect, ModelClient, ModelError, PortError};
use amber_core::Ledger;
use eventsource_stream::Eventsource;
use futures_util::StreamExt;
use tokio::sync::watch;

use crate::assemble::ReplyAssembler;
use crate::error::with_causes;
use crate::error::ApiError;
use crate::presets::Preset;
use crate::retry::{parse_retry_after, parse_retry_after_ms, RetryPolicy};

/// Flavors amber ships dialects for.
pub const KNOWN_FLAVORS: [&str; 3] = ["openai-chat", "openai-responses", "anthropic-messages"];

/// Events handed to the dialect per component call, at most.
const BATCH: usize = 64;

/// Resolves the dialect for `preset`'s flavor once. A flavor no installed
/// dialect serves is an error naming the preset's `flavor` key: a typo
/// once fell back to openai-chat, which sent the request in the wrong wire
/// format to whatever API the preset names, and failed there instead.
pub fn make_dialect(ledger: &Ledger, preset: &Preset) -> Result<Arc<dyn Dialect>, ApiError> {
    let flavor = preset.flavor.as_str();
    if let Some(dialect) = ledger.provider(flavor) {
        return Ok(dialect);
    }
    if KNOWN_FLAVORS.contains(&flavor) {
        return Err(ApiError::NoDialect {
            flavor: flavor.to_string(),
        });
    }
    Err(ApiError::UnknownFlavor {
        preset: preset.name.clone(),
        flavor: flavor.to_string(),
        served: ledger.flavors().join(", "),
    })
}

/// Cancels a running call: Ctrl-C, or a caller's token.
#[derive(Clone)]
pub struct Cancel {
    tx: Arc<watch::Sender<bool>>,
}

impl Default for Cancel {
    fn default() -> Self {
        Cancel {
            tx: Arc::new(watch::channel(false).0),
        }
    }
}

impl Cancel {
    pub fn cancel(&self) {
        self.tx.send_replace(true);
    }

    /// Makes the token usable again, e.g. for the next turn.
    pub fn reset(&self) {
        self.tx.send_replace(false);
    }

    pub fn is_cancelled(&self) -> bool {
        *self.tx.borrow()
    }

    async fn cancelled(&self) {
        let mut rx = self.tx.subscribe();
        let _ = rx.wait_for(|c| *c).await;
    }
}

#[derive(Debug, Clone, Copy)]
pub struct WireOptions {
    pub connect_timeout: Duration,
    /// From sending the request to the first event of the stream.
    pub first_byte_timeout: Duration,
    /// Between two events once the stream runs.
    pub read_timeout: Duration,
    pub retry: RetryPolicy,
    /// Bytes of stream one reply may take: a server that never stops
    /// cannot fill amber's (or the dialect's) memory.
    pub max_reply_bytes: u64,
}

impl Default for WireOptions {
    fn default() -> Self {
        WireOptions {
            connect_timeout: Duration::from_secs(10),
            first_byte_timeout: Duration::from_secs(120),
            read_timeout: Duration::from_secs(120),
            retry: RetryPolicy::default(),
            max_reply_bytes: 64 << 20,
        }
    }
}

pub struct WireClient {
    http: reqwest::Client,
    dialect: Arc<dyn Dialect>,
    preset: Preset,
    key: Option<String>,
    options: WireOptions,
    cancel: Cancel,
}

/// How one attempt ended, when it did not succeed.
enum Failure {
    /// Try again after this long, if attempts remain.
    Retry(ApiError, Option<Duration>),
    Fatal(ApiError),
}

impl WireClient {
    /// A client for `preset` with `dialect`. The key comes from the
    /// preset's `key_env` (pass it in; see [`WireClient::key_from_env`]).
    pub fn new(
        preset: Preset,
        dialect: Arc<dyn Dialect>,
        key: Option<String>,
        options: WireOptions,
    ) -> Result<Self, ApiError> {
        let http = reqwest::Client::builder()
            .connect_timeout(options.connect_timeout)
            .build()
            .map_err(|e| ApiError::Connect {
                provider: preset.name.clone(),
                url: preset.base_url.clone(),
                reason: with_causes(&e),
                retryable: false,
            })?;
        Ok(WireClient {
            http,
            dialect,
            preset,
            key,
            options,
            cancel: Cancel::default(),
        })
    }

    /// Reads the key named by the preset, if it names one.
    pub fn key_from_env(preset: &Preset) -> Result<Option<String>, ApiError> {
        let Some(key_env) = &preset.key_env else {
            return Ok(None);
        };
        match crate::secrets::get(key_env) {
            Some(key) if !key.trim().is_empty() => Ok(Some(key)),
            _ => Err(ApiError::MissingKey {
                provider: preset.name.clone(),
                key_env: key_env.clone(),
            }),
        }
    }

    pub fn with_cancel(mut self, cancel: Cancel) -> Self {
        self.cancel = cancel;
        self
    }

    pub fn preset(&self) -> &Preset {
        &self.preset
    }

    fn provider(&self) -> String {
        self.preset.name.clone()
    }

    fn dialect_error(&self, e: PortError) -> ApiError {
        ApiError::Dialect {
            flavor: self.dialect.flavor().name.clone(),
            message: e.0,
        }
    }

    fn url(&self, path: &str) -> String {
        format!(
            "{}/{}",
            self.preset.base_url.trim_end_matches('/'),
            path.trim_start_matches('/')
        )
    }

    fn http_request(&self, req: &HttpRequest) -> reqwest::RequestBuilder {
        let method =
            reqwest::Method::from_bytes(req.method.as_bytes()).unwrap_or(reqwest::Method::POST);
        let mut builder = self.http.request(method, self.url(&req.path));
        for (name, value) in &req.headers {
            builder = builder.header(name.as_str(), value.as_str());
        }
        // The key is added here, never inside the component.
        if let Some(key) = &self.key {
            builder = match self.dialect.flavor().auth {
                AuthScheme::Bearer => builder.bearer_auth(key),
                AuthScheme::XApiKey => builder.header("x-api-key", key.as_str()),
                AuthScheme::None => builder,
            };
        }
        builder.body(req.body.clone())
    }

    /// Runs the whole call with retries; see [`ModelClient::stream`].
    ///
    /// A stream that breaks off, stalls or ends early is retried even
    /// after its first tokens, as Codex does: the partial reply is thrown
    /// away (it never reaches the caller's reply, so never the history or
    /// the session), and `on_chunk` gets one [`StreamChunk::Restart`] so a
    /// front end can retract what it showed. Tool calls run only once a
    /// reply is whole, so a cut inside a call's arguments is retried the
    /// same way.
    pub async fn call(
        &self,
        request: ChatRequest,
        on_chunk: &mut (dyn FnMut(&StreamChunk) + Send),
    ) -> Result<ModelReply, ApiError> {
        let http_request = self
            .dialect
            .build_request(&request)
            .map_err(|e| self.dialect_error(e))?;
        let mut attempt = 1;
        loop {
            if self.cancel.is_cancelled() {
                return Err(ApiError::Cancelled);
            }
            // Whether this attempt handed anything on: then a retry must
            // say that it starts over.
            let mut delivered = false;
            let outcome = {
                let mut counting = |chunk: &StreamChunk| {
                    delivered = true;
                    on_chunk(chunk);
                };
                tokio::select! {
                    outcome = self.attempt(&http_request, attempt, &mut counting) => outcome,
                    _ = self.cancel.cancelled() => Err(Failure::Fatal(ApiError::Cancelled)),
                }
            };
            match outcome {
                Ok(reply) => return Ok(reply),
                Err(Failure::Fatal(e)) => return Err(e),
                Err(Failure::Retry(e, _)) if attempt >= self.options.retry.max_attempts => {
                    return Err(e)
                }
                Err(Failure::Retry(e, Some(after))) if after > self.options.retry.max_delay => {
                    return Err(e.asked_to_wait(after, self.options.retry.max_delay))
                }
                Err(Failure::Retry(e, after)) => {
                    let wait = self.options.retry.delay(attempt, after);
                    tokio::select! {
                        _ = tokio::time::sleep(wait) => {}
                        _ = self.cancel.cancelled() => return Err(ApiError::Cancelled),
                    }
                    attempt += 1;
                    if delivered {
                        on_chunk(&StreamChunk::Restart {
                            attempt,
                            reason: e.to_string(),
                        });
                    }
                }
            }
        }
    }

    async fn attempt(
        &self,
        http_request: &HttpRequest,
        attempt: u32,
        on_chunk: &mut (dyn FnMut(&StreamChunk) + Send),
    ) -> Result<ModelReply, Failure> {
        let provider = self.provider();
        let timeout = |phase: &str, d: Duration| ApiError::Timeout {
            provider: provider.clone(),
            phase: phase.to_string(),
            ms: d.as_millis(),
        };
        // One budget from sending to the first event, headers included.
        let first = self.options.first_byte_timeout;
        let started = std::time::Instant::now();
        let sent = tokio::time::timeout(first, self.http_request(http_request).send()).await;
        let response = match sent {
            Err(_) => {
                return Err(Failure::Retry(
                    timeout("waiting for the response", first),
                    None,
                ))
            }
            Ok(Err(e)) => {
                let error = ApiError::Connect {
                    provider: provider.clone(),
                    url: self.preset.base_url.clone(),
                    reason: with_causes(&e),
                    retryable: !e.is_builder(),
                };
                return Err(if error.is_retryable() {
                    Failure::Retry(error, None)
                } else {
                    Failure::Fatal(error)
                });
            }
            Ok(Ok(response)) => response,
        };
        let status = response.status();
        if !status.is_success() {
            return Err(self.http_failure(response, attempt).await);
        }
        let mut decoder = self
            .dialect
            .decoder()
            .map_err(|e| Failure::Fatal(self.dialect_error(e)))?;
        let mut assembler = ReplyAssembler::default();
        // Counted on the raw bytes, before framing: one endless event must
        // not grow the framer's buffer either.
        let received = std::sync::Arc::new(std::sync::atomic::AtomicU64::new(0));
        let cap = self.options.max_reply_bytes;
        let counted = {
            let received = received.clone();
            response.bytes_stream().take_while(move |chunk| {
                let size = chunk.as_ref().map_or(0, |c| c.len() as u64);
                let total = received.fetch_add(size, std::sync::atomic::Ordering::Relaxed) + size;
                std::future::ready(total <= cap)
            })
        };
        let too_large = || {
            Failure::Fatal(ApiError::ReplyTooLarge {
                provider: provider.clone(),
                limit_mib: cap >> 20,
            })
        };
        let over = || received.load(std::sync::atomic::Ordering::Relaxed) > cap;
        let mut events = counted.eventsource().ready_chunks(BATCH);
        let mut wait = first.saturating_sub(started.elapsed());
        let mut any_event = false;
        loop {
            let phase = if any_event {
                "between events"
            } else {
                "before the first event"
            };
            let next = tokio::time::timeout(wait, events.next())
                .await
                .map_err(|_| {
                    let waited = if any_event { wait } else { first };
                    Failure::Retry(timeout(phase, waited), None)
                });
            let next = next?;
            wait = self.options.read_timeout;
            let Some(batch) = next else { break };
            if over() {
                return Err(too_large());
            }
            any_event = true;
            let mut sse = Vec::with_capacity(batch.len());
            let mut broken = None;
            for item in batch {
                match item {
                    Ok(event) => {
                        let name = (event.event != "message" && !event.event.is_empty())
                            .then_some(event.event);
                        sse.push(SseEvent {
                            event: name,
                            data: event.data,
                        });
                    }
                    Err(e) => broken = Some(with_causes(&e)),
                }
            }
            let chunks = decoder
                .decode(&sse)
                .map_err(|e| Failure::Fatal(self.dialect_error(e)))?;
            self.deliver(chunks, &mut assembler, on_chunk)?;
            if let Some(reason) = broken {
                let error = ApiError::Stream {
                    provider: provider.clone(),
                    reason,
                };
                return Err(Failure::Retry(error, None));
            }
        }
        if over() {
            return Err(too_large());
        }
        let chunks = decoder
            .finish()
            .map_err(|e| Failure::Fatal(self.dialect_error(e)))?;
        self.deliver(chunks, &mut assembler, on_chunk)?;
        if !assembler.is_complete() {
            let error = ApiError::Stream {
                provider,
                reason: "it ended before the reply was complete".into(),
            };
            return Err(Failure::Retry(error, None));
        }
        Ok(assembler.finish())
    }

    /// Hands chunks on; an error chunk ends the attempt, retried when the
    /// provider says it is worth it (an overload mid-reply, say).
    fn deliver(
        &self,
        chunks: Vec<StreamChunk>,
        assembler: &mut ReplyAssembler,
        on_chunk: &mut (dyn FnMut(&StreamChunk) + Send),
    ) -> Result<(), Failure> {
        for chunk in chunks {
            if let StreamChunk::Error {
                kind,
                message,
                retryable,
            } = &chunk
            {
                let error = ApiError::Provider {
                    provider: self.provider(),
                    kind: kind.clone(),
                    message: message.clone(),
                    retryable: *retryable,
                };
                return Err(if *retryable {
                    Failure::Retry(error, None)
                } else {
                    Failure::Fatal(error)
                });
            }
            assembler.push(&chunk);
            on_chunk(&chunk);
        }
        Ok(())
    }

    async fn http_failure(&self, response: reqwest::Response, attempt: u32) -> Failure {
        let status = response.status().as_u16();
        let retry_after = response
            .headers()
            .get("retry-after-ms")
            .and_then(|v| v.to_str().ok())
            .and_then(parse_retry_after_ms)
            .or_else(|| {
                response
                    .headers()
                    .get("retry-after")
                    .and_then(|v| v.to_str().ok())
                    .and_then(|v| parse_retry_after(v, std::time::SystemTime::now()))
            });
        let body = response.text().await.unwrap_or_default();
        let class = match self.dialect.classify_error(status, &body) {
            Ok(class) => class,
            Err(e) => return Failure::Fatal(self.dialect_error(e)),
        };
        if status == 401 || status == 403 {
            let key_env = self
                .preset
                .key_env
                .clone()
                .unwrap_or_else(|| "the server's credentials".into());
            return Failure::Fatal(ApiError::Auth {
                provider: self.provider(),
                status,
                message: class.message,
                key_env,
            });
        }
        let error = ApiError::Http {
            provider: self.provider(),
            status,
            message: class.message,
            retryable: class.retryable,
            attempts: attempt,
            retry_after_ms: retry_after.map(|d| d.as_millis().min(u128::from(u64::MAX)) as u64),
        };
        if class.retryable {
            Failure::Retry(error, retry_after)
        } else {
            Failure::Fatal(error)
        }
    }
}

impl ModelClient for WireClient {
    fn stream<'a>(
        &'a self,
        request: ChatRequest,
        on_chunk: &'a mut (dyn FnMut(&StreamChunk) + Send),
    ) -> BoxFuture<'a, Result<ModelReply, ModelError>> {
        Box::pin(async move { self.call(request, on_chunk).await.map_err(ModelError::from) })
    }
}
