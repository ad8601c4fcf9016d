//! The HTTP side: axum on 127.0.0.1, one handler per endpoint, a shared
//! cursor through the transcript, and a record of every request.

use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::body::{Body, Bytes};
use axum::extract::State;
use axum::http::{HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use futures_util::stream::{self, StreamExt};
use serde::Serialize;
use serde_json::{json, Value};

use super::checks;
use super::script::{Fault, Transcript};
use super::sse::{self, Format};

/// The largest recorded reply replayed (tests replay replies of 70 MB).
const RECORDING_MAX: u64 = 1 << 30;

/// A request the server received, for tests to inspect.
#[derive(Debug, Clone, Serialize)]
pub struct Received {
    pub path: String,
    pub authorization: Option<String>,
    pub x_api_key: Option<String>,
    pub anthropic_version: Option<String>,
    pub body: Value,
    /// What did not match the script; the request got a 400.
    pub problems: Vec<String>,
}

#[derive(Default)]
struct Cursor {
    turn: usize,
    fault: usize,
    /// The tool-call ids of the last reply served whole: the next turn's
    /// request must answer them.
    sent_calls: Vec<String>,
}

struct Shared {
    transcript: Transcript,
    cursor: Mutex<Cursor>,
    received: Mutex<Vec<Received>>,
}

/// A running fake server; stops when dropped.
pub struct FakeLlm {
    pub addr: SocketAddr,
    shared: Arc<Shared>,
    shutdown: Option<tokio::sync::oneshot::Sender<()>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

fn header(headers: &HeaderMap, name: &str) -> Option<String> {
    headers
        .get(name)
        .and_then(|v| v.to_str().ok())
        .map(String::from)
}

fn error_body(format: Format, status: u16, message: &str) -> String {
    let kind = match status {
        401 => "authentication_error",
        429 => "rate_limit_error",
        529 => "overloaded_error",
        s if s >= 500 => "api_error",
        _ => "invalid_request_error",
    };
    match format {
        Format::Messages => {
            json!({"type": "error", "error": {"type": kind, "message": message}}).to_string()
        }
        _ => json!({"error": {"message": message, "type": kind, "code": kind}}).to_string(),
    }
}

async fn serve(
    shared: Arc<Shared>,
    format: Format,
    path: &str,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let record = |body: Value, problems: Vec<String>| {
        shared
            .received
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(Received {
                path: path.to_string(),
                authorization: header(&headers, "authorization"),
                x_api_key: header(&headers, "x-api-key"),
                anthropic_version: header(&headers, "anthropic-version"),
                body,
                problems,
            });
    };
    let body: Value = match serde_json::from_slice(&body) {
        Ok(body) => body,
        Err(e) => {
            // Refused before the cursor moves: the turn is still to serve.
            let problem = format!("the request body is not JSON: {e}");
            let message = format!("fake-llm: {problem}");
            record(Value::Null, vec![problem]);
            return (StatusCode::BAD_REQUEST, error_body(format, 400, &message)).into_response();
        }
    };
    let (turn, fault, sent) = {
        let mut cursor = shared.cursor.lock().unwrap_or_else(|e| e.into_inner());
        let Some(turn) = shared.transcript.turns.get(cursor.turn).cloned() else {
            drop(cursor);
            return (
                StatusCode::BAD_REQUEST,
                error_body(format, 400, "fake-llm: the script has no more turns"),
            )
                .into_response();
        };
        let fault = turn.faults.get(cursor.fault).cloned();
        let sent = cursor.sent_calls.clone();
        match fault {
            Some(_) if turn.only_faults && cursor.fault + 1 == turn.faults.len() => {
                cursor.turn += 1;
                cursor.fault = 0;
            }
            Some(_) => cursor.fault += 1,
            None => {
                cursor.turn += 1;
                cursor.fault = 0;
            }
        }
        (turn, fault, sent)
    };
    let problems = checks::problems(format, &body, &turn, &sent);
    record(body, problems.clone());
    if !problems.is_empty() {
        let message = format!(
            "fake-llm: the request does not match the script: {}",
            problems.join("; ")
        );
        return (StatusCode::BAD_REQUEST, error_body(format, 400, &message)).into_response();
    }
    let mut events = match &turn.reply.recorded {
        Some(path) => match amber_core::bounded::read_text(path, RECORDING_MAX)
            .map_err(|e| e.to_string())
            .and_then(|text| {
                text.ok_or_else(|| {
                    format!("cannot read {}: no such file or directory", path.display())
                })
            }) {
            Ok(body) => sse::recorded_events(&body),
            Err(e) => {
                let message = format!("fake-llm: {e}");
                return (
                    StatusCode::INTERNAL_SERVER_ERROR,
                    error_body(format, 500, &message),
                )
                    .into_response();
            }
        },
        None => sse::encode(&sse::render(format, &turn.reply)),
    };
    if fault.is_none() {
        let ids = match &turn.reply.recorded {
            Some(_) => checks::call_ids_in(format, &events),
            None => turn.reply.tool_calls.iter().map(|c| c.id.clone()).collect(),
        };
        shared
            .cursor
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .sent_calls = ids;
    }
    let mut cut_after = None;
    // (before which event, how long) the server waits.
    let mut first_delay = None;
    match fault {
        Some(Fault::Status {
            status,
            retry_after_s,
            retry_after,
            retry_after_ms,
            body,
        }) => {
            let code = StatusCode::from_u16(status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
            let text = body.unwrap_or_else(|| {
                error_body(format, status, &format!("fake-llm: scripted {status}"))
            });
            let mut response = (code, text).into_response();
            let headers = [
                (
                    "retry-after",
                    retry_after_s.map(|s| s.to_string()).or(retry_after),
                ),
                ("retry-after-ms", retry_after_ms.map(|ms| ms.to_string())),
            ];
            for (name, value) in headers {
                if let Some(value) = value.and_then(|v| HeaderValue::from_str(&v).ok()) {
                    response.headers_mut().insert(name, value);
                }
            }
            return response;
        }
        Some(Fault::Cut { after_events }) => cut_after = Some(after_events),
        Some(Fault::Malformed { after_events }) => {
            let at = after_events.min(events.len());
            events.insert(at, "data: {\"choices\": [ this is not json\n\n".to_string());
        }
        Some(Fault::SlowFirstByte { delay_ms }) => {
            first_delay = Some((0, Duration::from_millis(delay_ms)))
        }
        Some(Fault::Stall {
            after_events,
            delay_ms,
        }) => first_delay = Some((after_events, Duration::from_millis(delay_ms))),
        None => {}
    }
    let pieces: Vec<Vec<u8>> = match turn.reply.split_bytes {
        Some(size) => sse::split_bytes(events, size),
        None => events.into_iter().map(String::into_bytes).collect(),
    };
    let cut = cut_after.unwrap_or(usize::MAX);
    let total = pieces.len();
    let chunks = stream::iter(pieces.into_iter().enumerate()).then(move |(i, piece)| async move {
        if let Some((at, delay)) = first_delay {
            if i == at {
                tokio::time::sleep(delay).await;
            }
        }
        if i >= cut {
            // Let what was sent reach the client, then break the connection.
            tokio::time::sleep(Duration::from_millis(50)).await;
            return Err(std::io::Error::other("fake-llm: scripted cut"));
        }
        Ok::<Bytes, std::io::Error>(Bytes::from(piece))
    });
    let chunks = chunks.take(total.min(cut.saturating_add(1)));
    let mut response = Response::new(Body::from_stream(chunks));
    response.headers_mut().insert(
        "content-type",
        HeaderValue::from_static("text/event-stream"),
    );
    response
}

async fn received(State(shared): State<Arc<Shared>>) -> Result<Json<Vec<Received>>, Infallible> {
    Ok(Json(
        shared
            .received
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone(),
    ))
}

fn router(shared: Arc<Shared>) -> Router {
    Router::new()
        .route(
            "/v1/chat/completions",
            post(|State(s): State<Arc<Shared>>, h: HeaderMap, b: Bytes| {
                serve(s, Format::Chat, "/v1/chat/completions", h, b)
            }),
        )
        .route(
            "/v1/responses",
            post(|State(s): State<Arc<Shared>>, h: HeaderMap, b: Bytes| {
                serve(s, Format::Responses, "/v1/responses", h, b)
            }),
        )
        .route(
            "/v1/messages",
            post(|State(s): State<Arc<Shared>>, h: HeaderMap, b: Bytes| {
                serve(s, Format::Messages, "/v1/messages", h, b)
            }),
        )
        .route("/_fake/received", get(received))
        .with_state(shared)
}

impl FakeLlm {
    /// Starts serving `transcript` on 127.0.0.1:`port` (0 picks one) on a
    /// background thread with its own runtime.
    pub fn start(transcript: Transcript, port: u16) -> std::io::Result<FakeLlm> {
        let shared = Arc::new(Shared {
            transcript,
            cursor: Mutex::default(),
            received: Mutex::default(),
        });
        let listener = std::net::TcpListener::bind(("127.0.0.1", port))?;
        listener.set_nonblocking(true)?;
        let addr = listener.local_addr()?;
        let (tx, rx) = tokio::sync::oneshot::channel::<()>();
        let app = router(Arc::clone(&shared));
        let thread = std::thread::Builder::new()
            .name("fake-llm".into())
            .spawn(move || {
                let Ok(runtime) = tokio::runtime::Builder::new_multi_thread()
                    .worker_threads(2)
                    .enable_all()
                    .build()
                else {
                    return;
                };
                runtime.block_on(async move {
                    let Ok(listener) = tokio::net::TcpListener::from_std(listener) else {
                        return;
                    };
                    let _ = axum::serve(listener, app)
                        .with_graceful_shutdown(async {
                            let _ = rx.await;
                        })
                        .await;
                });
            })?;
        Ok(FakeLlm {
            addr,
            shared,
            shutdown: Some(tx),
            thread: Some(thread),
        })
    }

    /// `http://127.0.0.1:PORT/v1`, the OpenAI-style base URL.
    pub fn openai_base(&self) -> String {
        format!("http://{}/v1", self.addr)
    }

    /// `http://127.0.0.1:PORT`, the Anthropic-style base URL.
    pub fn anthropic_base(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// Every request received so far.
    pub fn received(&self) -> Vec<Received> {
        self.shared
            .received
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }

    /// Blocks until the process is killed; for the binary.
    pub fn wait(mut self) {
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

impl Drop for FakeLlm {
    fn drop(&mut self) {
        if let Some(tx) = self.shutdown.take() {
            let _ = tx.send(());
        }
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}
