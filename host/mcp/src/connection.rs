//! One live connection to one server, as the seed's lifecycle draws it:
//! open the transport (spawn the process, or POST), initialize with
//! protocol negotiation, read the capabilities, list tools, resources and
//! prompts (every page), call tools, hear `list_changed`, shut down.

use std::path::{Path, PathBuf};
use std::time::Duration;

use amber_core::ports::Image;
// MCP roots are deprecated by SEP-2577 in rmcp 3.11 (a later protocol
// version drops them), but servers of today read them (server-filesystem
// serves exactly the roots it is given), and amber's own confinement of a
// server's paths does not depend on the protocol's (docs/mcp.md).
#[allow(deprecated)]
use rmcp::model::{
    CallToolRequest, CallToolRequestParams, ClientCapabilities, ClientConfig, ClientRequest,
    GetPromptRequest, GetPromptRequestParams, Implementation, JsonObject, ListRootsResult,
    ProtocolVersion, ReadResourceRequest, ReadResourceRequestParams, Root, ServerResult,
};
use rmcp::service::{
    NotificationContext, PeerRequestOptions, RequestContext, RoleClient, RunningService,
};
use rmcp::transport::streamable_http_client::{
    StreamableHttpClientTransport, StreamableHttpClientTransportConfig,
};
use rmcp::{ClientHandler, ServiceExt};
use serde_json::Value;
use tokio::sync::mpsc::UnboundedSender;

use crate::config::{Endpoint, ServerConfig};
use crate::http::McpHttp;
use crate::McpError;

/// What ends a request before its answer: the run's interrupt.
pub type Cut = futures::future::BoxFuture<'static, ()>;

/// The longest a cut request waits for its `notifications/cancelled` to
/// be written.
const CANCEL_WAIT: Duration = Duration::from_secs(1);

/// Why a request was given up: its time limit or the run's interrupt;
/// the failure, and the reason the server is told.
fn ended_by<A, B>(
    why: futures::future::Either<A, B>,
    limit: Duration,
) -> (CallFailed, &'static str) {
    match why {
        futures::future::Either::Left(_) => (
            CallFailed::TimedOut(limit),
            "amber stopped waiting (call_timeout_ms)",
        ),
        futures::future::Either::Right(_) => {
            (CallFailed::Cancelled, "the user interrupted the run")
        }
    }
}

/// A call that got no answer.
#[derive(Debug)]
pub enum CallFailed {
    /// The connection failed, or the server answered out of turn.
    Service(rmcp::ServiceError),
    /// No answer within the server's `call_timeout_ms`; cancelled.
    TimedOut(Duration),
    /// The run was interrupted; cancelled.
    Cancelled,
}

/// Which of a server's lists changed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Changed {
    Tools,
    Resources,
    Prompts,
}

#[allow(deprecated, reason = "MCP roots: see the note at the imports")]
/// amber's side of the protocol: who it is, the server's roots when it
/// has any, and the `list_changed` notifications passed on to the hub,
/// which lists again.
pub struct Handler {
    changed: UnboundedSender<Changed>,
    /// The server's `roots` as `file://` URIs with their folder names.
    roots: Vec<Root>,
}

#[allow(deprecated, reason = "MCP roots: see the note at the imports")]
impl Handler {
    fn new(changed: UnboundedSender<Changed>, roots: &[std::path::PathBuf]) -> Handler {
        let roots = roots
            .iter()
            .filter_map(|dir| {
                let uri = reqwest::Url::from_file_path(dir).ok()?;
                let name = dir
                    .file_name()
                    .map(|n| n.to_string_lossy().into_owned())
                    .unwrap_or_else(|| dir.display().to_string());
                Some(Root::new(uri.to_string()).with_name(name))
            })
            .collect();
        Handler { changed, roots }
    }
}

#[allow(deprecated, reason = "MCP roots: see the note at the imports")]
impl ClientHandler for Handler {
    fn get_info(&self) -> ClientConfig {
        // Roots are offered only by a server's config naming some: to
        // every other server amber has no roots to list.
        let capabilities = if self.roots.is_empty() {
            ClientCapabilities::default()
        } else {
            ClientCapabilities::builder().enable_roots().build()
        };
        ClientConfig::new(
            capabilities,
            Implementation::new("amber", env!("CARGO_PKG_VERSION")),
        )
    }

    async fn list_roots(
        &self,
        _: RequestContext<RoleClient>,
    ) -> Result<ListRootsResult, rmcp::ErrorData> {
        Ok(ListRootsResult::new(self.roots.clone()))
    }

    async fn on_tool_list_changed(&self, _: NotificationContext<RoleClient>) {
        let _ = self.changed.send(Changed::Tools);
    }

    async fn on_resource_list_changed(&self, _: NotificationContext<RoleClient>) {
        let _ = self.changed.send(Changed::Resources);
    }

    async fn on_prompt_list_changed(&self, _: NotificationContext<RoleClient>) {
        let _ = self.changed.send(Changed::Prompts);
    }
}

/// A tool as the server lists it.
#[derive(Debug, Clone, PartialEq)]
pub struct ServerTool {
    pub name: String,
    pub description: String,
    pub schema: Value,
    /// `annotations.readOnlyHint`; believed only with `trust_annotations`.
    pub read_only_hint: bool,
}

/// A resource or a prompt, as one line of its tool's description.
#[derive(Debug, Clone, PartialEq)]
pub struct Entry {
    /// A resource's URI, or a prompt's name.
    pub key: String,
    /// Its name and description (a prompt: and its arguments).
    pub about: String,
}

/// What a server offers, as last listed.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Catalog {
    pub tools: Vec<ServerTool>,
    pub resources: Vec<Entry>,
    pub prompts: Vec<Entry>,
}

/// A connected server.
pub struct Connection {
    service: RunningService<RoleClient, Handler>,
    /// The process of a stdio server: killed with its group on close or
    /// drop.
    process: std::sync::Mutex<Option<amber_sandbox::Server>>,
    pub protocol: String,
    pub server_info: String,
    has_tools: bool,
    has_resources: bool,
    has_prompts: bool,
}

/// What a sandboxed stdio server must not see, and may: the same as for
/// commands (`[sandbox]` in config).
#[derive(Debug, Clone, Default)]
pub struct ServerWalls {
    /// amber's own folders: config, data, cache.
    pub hidden: Vec<PathBuf>,
    /// The home's readable folders; `None` keeps the default list.
    pub home_readable: Option<Vec<PathBuf>>,
}

/// How a stdio server is started: the spawner's walls, the allowlist.
pub struct Launch<'a> {
    pub spawner: &'a amber_sandbox::Spawner,
    pub workspace: &'a Path,
    /// Every server's stderr goes to `<log_dir>/<name>.log`.
    pub log_dir: &'a Path,
    /// The allowlisted variables of amber's environment.
    pub base_env: Vec<(String, std::ffi::OsString)>,
    /// The pid of each server process started, so the hub can kill it
    /// even while its start is still under way.
    pub started: &'a std::sync::Mutex<Vec<amber_sandbox::ChildHandle>>,
    /// What a sandboxed server must not see.
    pub walls: &'a ServerWalls,
    /// Each server's private state folder is `<state_dir>/<name>`.
    pub state_dir: &'a Path,
}

/// `sh -c` gets one command line: each word quoted.
fn shell_line(command: &str, args: &[String]) -> String {
    std::iter::once(command)
        .chain(args.iter().map(String::as_str))
        .map(|word| {
            if !word.is_empty()
                && word
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || "-_./=:@%+,".contains(c))
            {
                word.to_string()
            } else {
                format!("'{}'", word.replace('\'', r"'\''"))
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

impl Connection {
    /// Opens the transport and initializes, within `timeout`.
    pub async fn open(
        config: &ServerConfig,
        launch: &Launch<'_>,
        changed: UnboundedSender<Changed>,
        timeout: Duration,
    ) -> Result<Connection, McpError> {
        let name = &config.name;
        let handler = Handler::new(changed, &config.root_dirs(launch.workspace));
        let endpoint = config.endpoint().map_err(McpError::Config)?;
        let (service, process) = match endpoint {
            Endpoint::Stdio { command, args } => {
                let mut process = start_process(config, launch, command, args)?;
                let (stdin, stdout) = process.take_pipes().ok_or_else(|| McpError::Start {
                    server: name.clone(),
                    reason: "its pipes were not opened".into(),
                })?;
                let pipes = (
                    tokio::process::ChildStdout::from_std(stdout),
                    tokio::process::ChildStdin::from_std(stdin),
                );
                let (stdout, stdin) = match pipes {
                    (Ok(out), Ok(inp)) => (out, inp),
                    (Err(e), _) | (_, Err(e)) => {
                        return Err(McpError::Start {
                            server: name.clone(),
                            reason: e.to_string(),
                        })
                    }
                };
                let service = tokio::time::timeout(timeout, handler.serve((stdout, stdin))).await;
                (service, Some(process))
            }
            Endpoint::Http { url } => {
                let client = McpHttp::new().map_err(|reason| McpError::Start {
                    server: name.clone(),
                    reason,
                })?;
                let transport = StreamableHttpClientTransport::with_client(
                    client,
                    StreamableHttpClientTransportConfig::with_uri(url),
                );
                let service = tokio::time::timeout(timeout, handler.serve(transport)).await;
                (service, None)
            }
        };
        let service = match service {
            Err(_) => {
                return Err(McpError::InitTimeout {
                    server: name.clone(),
                    ms: timeout.as_millis() as u64,
                })
            }
            Ok(Err(e)) => {
                let mut reason = e.to_string();
                if let Endpoint::Http { url } = endpoint {
                    if crate::legacy::offers_only_sse(url).await {
                        return Err(McpError::LegacySse {
                            server: name.clone(),
                            url: url.to_string(),
                        });
                    }
                }
                let stdio = matches!(endpoint, Endpoint::Stdio { .. });
                if let Some(log) = process_log_tail(launch, name).filter(|_| stdio) {
                    reason.push_str(&format!("; its stderr ends: {log}"));
                }
                return Err(McpError::Initialize {
                    server: name.clone(),
                    reason,
                });
            }
            Ok(Ok(service)) => service,
        };
        let info = service.peer_info().ok_or_else(|| McpError::Initialize {
            server: name.clone(),
            reason: "no initialize result".into(),
        })?;
        // rmcp takes whatever version the server answers; amber speaks
        // only the ones rmcp knows.
        let known = ProtocolVersion::KNOWN_VERSIONS;
        if !known
            .iter()
            .any(|v| v.as_str() == info.protocol_version.as_str())
        {
            service.cancellation_token().cancel();
            return Err(McpError::Protocol {
                server: name.clone(),
                version: info.protocol_version.to_string(),
                known: known
                    .iter()
                    .map(|v| v.as_str())
                    .collect::<Vec<_>>()
                    .join(", "),
            });
        }
        let capabilities = &info.capabilities;
        let server_info = info
            .server_info
            .as_ref()
            .map(|i| format!("{} {}", i.name, i.version))
            .unwrap_or_default();
        Ok(Connection {
            protocol: info.protocol_version.to_string(),
            server_info,
            has_tools: capabilities.tools.is_some(),
            has_resources: capabilities.resources.is_some(),
            has_prompts: capabilities.prompts.is_some(),
            service,
            process: std::sync::Mutex::new(process),
        })
    }

    /// Every page of what the server has capabilities for.
    pub async fn list(&self, server: &str) -> Result<Catalog, McpError> {
        let peer = self.service.peer();
        let failed = |what: &str, e: rmcp::ServiceError| McpError::List {
            server: server.to_string(),
            what: what.to_string(),
            reason: e.to_string(),
        };
        let mut catalog = Catalog::default();
        if self.has_tools {
            for tool in peer
                .list_all_tools()
                .await
                .map_err(|e| failed("tools", e))?
            {
                catalog.tools.push(ServerTool {
                    name: tool.name.to_string(),
                    description: tool.description.as_deref().unwrap_or_default().to_string(),
                    schema: Value::Object(tool.input_schema.as_ref().clone()),
                    read_only_hint: tool
                        .annotations
                        .as_ref()
                        .and_then(|a| a.read_only_hint)
                        .unwrap_or(false),
                });
            }
        }
        if self.has_resources {
            let resources = peer
                .list_all_resources()
                .await
                .map_err(|e| failed("resources", e))?;
            for resource in resources {
                let v = serde_json::to_value(&resource).unwrap_or(Value::Null);
                catalog.resources.push(Entry {
                    key: text(&v, "uri"),
                    about: join_about(&[text(&v, "name"), text(&v, "description")]),
                });
            }
        }
        if self.has_prompts {
            let prompts = peer
                .list_all_prompts()
                .await
                .map_err(|e| failed("prompts", e))?;
            for prompt in prompts {
                let v = serde_json::to_value(&prompt).unwrap_or(Value::Null);
                let arguments: Vec<String> = v
                    .get("arguments")
                    .and_then(Value::as_array)
                    .map(|args| {
                        args.iter()
                            .map(|a| {
                                let required = a.get("required").and_then(Value::as_bool);
                                let mark = if required == Some(true) { "" } else { "?" };
                                format!("{}{mark}", text(a, "name"))
                            })
                            .collect()
                    })
                    .unwrap_or_default();
                let args = if arguments.is_empty() {
                    String::new()
                } else {
                    format!("({})", arguments.join(", "))
                };
                catalog.prompts.push(Entry {
                    key: text(&v, "name"),
                    about: join_about(&[args, text(&v, "description")]),
                });
            }
        }
        Ok(catalog)
    }

    /// Sends `request` and waits for its answer: at most `limit`, and no
    /// longer than `cut` (the run was interrupted). A request cut short
    /// either way is cancelled with `notifications/cancelled`, sent before
    /// this returns, so the server can stop its work.
    async fn request(
        &self,
        request: ClientRequest,
        limit: Duration,
        cut: Cut,
    ) -> Result<ServerResult, CallFailed> {
        use futures::future::{select, Either};
        // Ended by the time limit or the cut, whichever comes first; the
        // same wait covers the send, the answer and the cancellation.
        let mut ended = Box::pin(async { select(Box::pin(tokio::time::sleep(limit)), cut).await });
        let peer = self.service.peer();
        let send = peer.send_cancellable_request(request, PeerRequestOptions::no_options());
        let mut handle = match select(Box::pin(send), &mut ended).await {
            Either::Left((sent, _)) => sent.map_err(CallFailed::Service)?,
            Either::Right((why, _)) => return Err(ended_by(why, limit).0),
        };
        let why = match select(&mut handle.rx, &mut ended).await {
            Either::Left((Ok(Ok(answer)), _)) => return Ok(answer),
            Either::Left((Ok(Err(e)), _)) => return Err(CallFailed::Service(e)),
            Either::Left((Err(_), _)) => {
                return Err(CallFailed::Service(rmcp::ServiceError::TransportClosed))
            }
            Either::Right((why, _)) => why,
        };
        let (failed, reason) = ended_by(why, limit);
        // Told before this returns, but never waited for long: a server
        // whose input is full would hold the call's thread.
        let cancel = Box::pin(handle.cancel(Some(reason.to_string())));
        let _ = select(cancel, Box::pin(tokio::time::sleep(CANCEL_WAIT))).await;
        Err(failed)
    }

    /// `tools/call`, its result as text for the model and the images it
    /// holds. `Ok(Err)` is the tool's own failure (`isError`); `Err` is
    /// the connection's, or the call cut short ([`Connection::request`]).
    pub async fn call_tool(
        &self,
        tool: &str,
        args: &Value,
        limit: Duration,
        cut: Cut,
    ) -> Result<Result<(String, Vec<Image>), String>, CallFailed> {
        let mut params = CallToolRequestParams::new(tool.to_string());
        if let Value::Object(map) = args {
            params = params.with_arguments(map.clone());
        }
        let request = ClientRequest::CallToolRequest(CallToolRequest::new(params));
        let ServerResult::CallToolResult(result) = self.request(request, limit, cut).await? else {
            return Err(CallFailed::Service(rmcp::ServiceError::UnexpectedResponse));
        };
        let value = serde_json::to_value(&result).unwrap_or(Value::Null);
        let text = content_text(&value);
        if value.get("isError").and_then(Value::as_bool) == Some(true) {
            Ok(Err(text))
        } else {
            Ok(Ok((text, content_images(&value))))
        }
    }

    /// `resources/read`: the resource's contents as text.
    pub async fn read_resource(
        &self,
        uri: &str,
        limit: Duration,
        cut: Cut,
    ) -> Result<String, CallFailed> {
        let params = ReadResourceRequestParams::new(uri);
        let request = ClientRequest::ReadResourceRequest(ReadResourceRequest::new(params));
        let ServerResult::ReadResourceResult(result) = self.request(request, limit, cut).await?
        else {
            return Err(CallFailed::Service(rmcp::ServiceError::UnexpectedResponse));
        };
        let value = serde_json::to_value(&result).unwrap_or(Value::Null);
        Ok(contents_text(value.get("contents")))
    }

    /// `prompts/get`: the prompt's description and messages as text.
    pub async fn get_prompt(
        &self,
        name: &str,
        arguments: JsonObject,
        limit: Duration,
        cut: Cut,
    ) -> Result<String, CallFailed> {
        let mut params = GetPromptRequestParams::new(name);
        if !arguments.is_empty() {
            params = params.with_arguments(arguments);
        }
        let request = ClientRequest::GetPromptRequest(GetPromptRequest::new(params));
        let ServerResult::GetPromptResult(result) = self.request(request, limit, cut).await? else {
            return Err(CallFailed::Service(rmcp::ServiceError::UnexpectedResponse));
        };
        let value = serde_json::to_value(&result).unwrap_or(Value::Null);
        let mut out = Vec::new();
        if let Some(d) = value.get("description").and_then(Value::as_str) {
            out.push(d.to_string());
        }
        for message in value
            .get("messages")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            let role = text(message, "role");
            let content = message.get("content").cloned().unwrap_or(Value::Null);
            out.push(format!(
                "[{role}] {}",
                content_text(&serde_json::json!({"content": [content]}))
            ));
        }
        Ok(out.join("\n"))
    }

    /// Whether the connection is gone: the transport closed, or the
    /// process exited.
    pub fn is_closed(&self) -> bool {
        let exited = || {
            let mut process = self.process.lock().unwrap_or_else(|e| e.into_inner());
            process.as_mut().is_some_and(|p| p.exited().is_some())
        };
        self.service.is_closed() || self.service.peer().is_transport_closed() || exited()
    }

    /// Shuts down: the transport closed, then the process group killed.
    /// Calls still running get a closed transport.
    pub fn close(&self) {
        self.begin_close();
        self.finish_close(std::time::Instant::now());
    }

    /// The transport closed: the server reads the end of its input (and
    /// what came before it, a `notifications/cancelled`).
    pub fn begin_close(&self) {
        self.service.cancellation_token().cancel();
    }

    /// After [`Self::begin_close`]: the process is given until `deadline`
    /// to end on its own, then its group is killed.
    pub fn finish_close(&self, deadline: std::time::Instant) {
        let process = self
            .process
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .take();
        if let Some(process) = process {
            while std::time::Instant::now() < deadline && !process.has_ended() {
                std::thread::sleep(Duration::from_millis(10));
            }
            drop(process);
        }
    }

    /// The process id of a stdio server.
    pub fn pid(&self) -> Option<u32> {
        let process = self.process.lock().unwrap_or_else(|e| e.into_inner());
        process.as_ref().map(|p| p.id())
    }
}

fn start_process(
    config: &ServerConfig,
    launch: &Launch<'_>,
    command: &str,
    args: &[String],
) -> Result<amber_sandbox::Server, McpError> {
    let mut env = launch.base_env.clone();
    env.retain(|(k, _)| !config.env.contains_key(k));
    let given: Vec<(String, std::ffi::OsString)> = config
        .env
        .iter()
        .map(|(k, v)| (k.clone(), v.into()))
        .collect();
    let cwd = match &config.cwd {
        Some(dir) if dir.is_absolute() => dir.clone(),
        Some(dir) => launch.workspace.join(dir),
        None => launch.workspace.to_path_buf(),
    };
    let line = shell_line(command, args);
    let confinement = if config.sandbox {
        let (profile, state_env) = sandbox_profile(config, launch, command)?;
        env.extend(state_env);
        amber_sandbox::Confinement::Sandboxed(profile)
    } else {
        amber_sandbox::Confinement::Unsandboxed
    };
    let spec = amber_sandbox::CommandSpec {
        command: &line,
        cwd: &cwd,
        env,
        timeout: Duration::MAX,
        output_cap: 0,
        confinement,
    };
    let server = launch
        .spawner
        .start_server(&spec, &given, &log_path(launch.log_dir, &config.name))
        .map_err(|e| McpError::Start {
            server: config.name.clone(),
            reason: if config.sandbox {
                format!("{e} (it runs in the sandbox; `sandbox = false` for it in config runs it outside)")
            } else {
                e.to_string()
            },
        })?;
    launch
        .started
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .push(server.handle());
    Ok(server)
}

/// The package runners whose cache a sandboxed server may write, so that
/// `npx -y PACKAGE` installs once and starts offline after: each runner's
/// cache folders under the home.
const RUNNER_CACHES: &[(&str, &[&str])] = &[
    ("npx", &[".npm"]),
    ("bunx", &[".bun/install/cache"]),
    ("uvx", &[".cache/uv", ".local/share/uv"]),
    ("pipx", &[".local/share/pipx", ".local/pipx", ".cache/pipx"]),
];

/// A sandboxed server's walls (docs/mcp.md): the workspace read-only;
/// its roots read-write; its own state folder, `<data>/mcp/NAME`, which
/// is its `XDG_DATA_HOME`, `XDG_STATE_HOME` and `XDG_CONFIG_HOME`; its
/// package runner's cache read-write; the rest of the home hidden as for
/// commands, and amber's own folders; the network unless `network =
/// false`. Returns the profile and the variables naming the state folder.
fn sandbox_profile(
    config: &ServerConfig,
    launch: &Launch<'_>,
    command: &str,
) -> Result<(amber_sandbox::Profile, Vec<(String, std::ffi::OsString)>), McpError> {
    let failed = |reason: String| McpError::Start {
        server: config.name.clone(),
        reason,
    };
    let mut profile = amber_sandbox::Profile::new(launch.workspace, false);
    profile.network = config.network;
    profile.hidden = launch.walls.hidden.clone();
    if let Some(readable) = &launch.walls.home_readable {
        profile.home_readable = readable.clone();
    }
    profile.write_dirs = config.root_dirs(launch.workspace);
    let runner = Path::new(command)
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    if let (Some((_, caches)), Some(home)) = (
        RUNNER_CACHES.iter().find(|(name, _)| *name == runner),
        profile.home.clone(),
    ) {
        for cache in *caches {
            let dir = home.join(cache);
            // Made now, or the runner could not make it inside.
            std::fs::create_dir_all(&dir)
                .map_err(|e| failed(format!("cannot make {}: {e}", dir.display())))?;
            profile.write_dirs.push(dir);
        }
    }
    let state = launch.state_dir.join(&config.name);
    let mut env = Vec::new();
    for (key, sub) in [
        ("XDG_DATA_HOME", "data"),
        ("XDG_STATE_HOME", "state"),
        ("XDG_CONFIG_HOME", "config"),
    ] {
        let dir = state.join(sub);
        std::fs::create_dir_all(&dir).map_err(|e| {
            failed(format!(
                "cannot make its state folder {}: {e}",
                dir.display()
            ))
        })?;
        env.push((key.to_string(), dir.into_os_string()));
    }
    profile.private_dirs = vec![state];
    profile.check().map_err(|reason| {
        failed(format!(
            "{reason} (or set `sandbox = false` for it in config to run it outside the sandbox)"
        ))
    })?;
    Ok((profile, env))
}

/// Where a server's stderr goes.
pub fn log_path(log_dir: &Path, server: &str) -> std::path::PathBuf {
    log_dir.join(format!("{server}.log"))
}

fn process_log_tail(launch: &Launch<'_>, server: &str) -> Option<String> {
    let text = std::fs::read_to_string(log_path(launch.log_dir, server)).ok()?;
    let tail: Vec<&str> = text.lines().rev().take(3).collect();
    let tail: Vec<&str> = tail.into_iter().rev().collect();
    (!tail.is_empty()).then(|| tail.join(" | "))
}

fn text(v: &Value, key: &str) -> String {
    v.get(key)
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_string()
}

fn join_about(parts: &[String]) -> String {
    parts
        .iter()
        .filter(|p| !p.is_empty())
        .cloned()
        .collect::<Vec<_>>()
        .join(": ")
}

/// A result's image blocks as images for the model (docs/images.md): the
/// agent checks and shrinks each, or describes it to a model without
/// images. A block whose base64 does not decode, or of a type no dialect
/// sends, stays a line of the text only.
pub fn content_images(result: &Value) -> Vec<Image> {
    use base64::Engine;
    result
        .get("content")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter(|block| block.get("type").and_then(Value::as_str) == Some("image"))
        .filter_map(|block| {
            let media = text(block, "mimeType");
            if !amber_core::ports::image::MEDIA_TYPES.contains(&media.as_str()) {
                return None;
            }
            let bytes = base64::engine::general_purpose::STANDARD
                .decode(text(block, "data"))
                .ok()?;
            Some(Image::new(media, bytes, 0, 0))
        })
        .collect()
}

/// A result's content blocks as text: text as it is, and the rest named
/// (an image by its type and size, a resource by its URI).
pub fn content_text(result: &Value) -> String {
    let mut parts = Vec::new();
    for block in result
        .get("content")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        match block.get("type").and_then(Value::as_str) {
            Some("text") => parts.push(text(block, "text")),
            Some("image") | Some("audio") => parts.push(format!(
                "[{} {}, {} bytes of base64]",
                text(block, "type"),
                text(block, "mimeType"),
                text(block, "data").len()
            )),
            Some("resource") => parts.push(contents_text(
                block
                    .get("resource")
                    .map(|r| Value::Array(vec![r.clone()]))
                    .as_ref(),
            )),
            Some("resource_link") => parts.push(format!(
                "[resource {}: {}]",
                text(block, "uri"),
                text(block, "name")
            )),
            _ => parts.push(block.to_string()),
        }
    }
    if parts.is_empty() {
        if let Some(structured) = result.get("structuredContent") {
            return structured.to_string();
        }
    }
    parts.join("\n")
}

fn contents_text(contents: Option<&Value>) -> String {
    contents
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .map(|c| match c.get("text").and_then(Value::as_str) {
            Some(t) => t.to_string(),
            None => format!(
                "[{} {}, {} bytes of base64]",
                text(c, "uri"),
                text(c, "mimeType"),
                text(c, "blob").len()
            ),
        })
        .collect::<Vec<_>>()
        .join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_command_line_quotes_each_word() {
        assert_eq!(
            shell_line(
                "node",
                &["/a b/x.js".into(), "--flag=1".into(), "it's".into()]
            ),
            r"node '/a b/x.js' --flag=1 'it'\''s'"
        );
    }

    #[test]
    fn content_blocks_become_text() {
        let result = serde_json::json!({"content": [
            {"type": "text", "text": "hello"},
            {"type": "image", "mimeType": "image/png", "data": "AAAA"},
            {"type": "resource", "resource": {"uri": "demo://x", "text": "inside"}},
        ]});
        assert_eq!(
            content_text(&result),
            "hello\n[image image/png, 4 bytes of base64]\ninside"
        );
        let structured = serde_json::json!({"content": [], "structuredContent": {"a": 1}});
        assert_eq!(content_text(&structured), r#"{"a":1}"#);
    }

    #[test]
    fn image_blocks_become_images_and_what_cannot_be_sent_stays_text() {
        let result = serde_json::json!({"content": [
            {"type": "image", "mimeType": "image/png", "data": "iVBORw0KGgo="},
            {"type": "image", "mimeType": "image/tiff", "data": "AAAA"},
            {"type": "image", "mimeType": "image/png", "data": "not base64!"},
            {"type": "text", "text": "hello"},
        ]});
        let images = content_images(&result);
        assert_eq!(images.len(), 1);
        assert_eq!(images[0].media_type, "image/png");
        assert_eq!(images[0].data(), Some(b"\x89PNG\r\n\x1a\n".as_slice()));
    }
}
