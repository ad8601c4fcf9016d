//! `fetch {url, header?}`: a GET through `wasi:http/outgoing-handler`,
//! answering with the status, the size and the start of the body, or the
//! error the host gave. It asks for `http` to any port of 127.0.0.1 (the
//! tests' fixture servers) and to `*.example.test` (names the tests map
//! with `AMBER_HTTP_RESOLVE`). It also says what headers it sent, so a
//! test can show a secret the host adds never passes through it.
//! Test-only, never bundled.
use amber_sdk::prelude::*;
use wasip2::http::outgoing_handler;
use wasip2::http::types::{Fields, Method, OutgoingRequest, Scheme};

#[derive(Default)]
struct Probe;

impl Plugin for Probe {
    fn manifest() -> Manifest {
        Manifest::new("http-probe", "0.1.0", "Fetches a URL, for tests.").http(
            &["http://127.0.0.1:*", "*.example.test"],
            "to fetch the pages the tests serve",
        )
    }
}

/// The parts of `url` a request takes.
fn parts(url: &str) -> Result<(Scheme, String, String), String> {
    let (scheme, rest) = url
        .split_once("://")
        .ok_or_else(|| format!("`{url}` has no scheme"))?;
    let scheme = match scheme {
        "http" => Scheme::Http,
        "https" => Scheme::Https,
        other => Scheme::Other(other.to_string()),
    };
    let (authority, path) = match rest.find('/') {
        Some(at) => (&rest[..at], &rest[at..]),
        None => (rest, "/"),
    };
    Ok((scheme, authority.to_string(), path.to_string()))
}

fn fetch(url: &str, header: Option<(&str, &str)>) -> Result<String, String> {
    let (scheme, authority, path) = parts(url)?;
    let headers = Fields::new();
    let mut sent = Vec::new();
    if let Some((name, value)) = header {
        headers
            .append(name, value.as_bytes())
            .map_err(|e| format!("the header {name} was refused: {e:?}"))?;
        sent.push(format!("{name}: {value}"));
    }
    let request = OutgoingRequest::new(headers);
    let refused = |what: &str| format!("the request's {what} was refused");
    request
        .set_method(&Method::Get)
        .map_err(|()| refused("method"))?;
    request
        .set_scheme(Some(&scheme))
        .map_err(|()| refused("scheme"))?;
    request
        .set_authority(Some(&authority))
        .map_err(|()| refused("authority"))?;
    request
        .set_path_with_query(Some(&path))
        .map_err(|()| refused("path"))?;
    let pending = outgoing_handler::handle(request, None).map_err(|e| format!("refused: {e:?}"))?;
    pending.subscribe().block();
    let response = match pending.get() {
        Some(Ok(Ok(response))) => response,
        Some(Ok(Err(e))) => return Err(format!("failed: {e:?}")),
        _ => return Err("no response".into()),
    };
    let status = response.status();
    let body = response.consume().map_err(|()| "no body".to_string())?;
    let stream = body.stream().map_err(|()| "no body stream".to_string())?;
    let mut bytes = Vec::new();
    let mut failed = None;
    loop {
        match stream.blocking_read(64 * 1024) {
            Ok(chunk) => bytes.extend_from_slice(&chunk),
            Err(wasip2::io::streams::StreamError::Closed) => break,
            Err(wasip2::io::streams::StreamError::LastOperationFailed(e)) => {
                failed = Some(e.to_debug_string());
                break;
            }
        }
    }
    drop(stream);
    let start: String = String::from_utf8_lossy(&bytes).chars().take(200).collect();
    Ok(format!(
        "status {status}, {} bytes{}; sent headers: [{}]; body: {start}",
        bytes.len(),
        failed.map(|e| format!(" (then: {e})")).unwrap_or_default(),
        sent.join(", ")
    ))
}

impl ToolPlugin for Probe {
    fn tools(&self) -> Vec<ToolSpec> {
        vec![
            ToolSpec::new("fetch", "GET a URL and say what came back.")
                .schema(json!({"type": "object", "properties": {
                "url": {"type": "string"},
                "header": {"type": "string", "description": "`Name: value`, sent with the request"}
            }, "required": ["url"], "additionalProperties": false}))
                .read_only(),
            // The same call without the request: what the bench takes
            // out of `fetch` to time the request alone.
            ToolSpec::new("echo", "Say `text` back.")
                .schema(json!({"type": "object", "properties": {
                    "text": {"type": "string"}
                }, "required": ["text"], "additionalProperties": false}))
                .read_only(),
        ]
    }

    fn call(&mut self, tool: &str, args: Value) -> Result<ToolOutput, ToolError> {
        if tool == "echo" {
            return Ok(ToolOutput::text(args["text"].as_str().unwrap_or_default()));
        }
        let url = args["url"]
            .as_str()
            .ok_or_else(|| ToolError::InvalidArgs("`url` must be a string".into()))?;
        let header = args["header"]
            .as_str()
            .and_then(|h| h.split_once(':'))
            .map(|(n, v)| (n.trim(), v.trim()));
        fetch(url, header)
            .map(ToolOutput::text)
            .map_err(ToolError::Failed)
    }
}

amber_sdk::export!(Probe: tool);
