//! amber as an MCP server (`amber mcp serve`): core tools listed and
//! called over stdio, as Claude Code and Codex start a server, or over
//! streamable HTTP. rmcp speaks the protocol; this adapter turns a
//! [`ToolSpec`](amber_core::ports::ToolSpec) into an MCP tool and a
//! tool's output or error into a `tools/call` result. Which tools, and
//! how each is confined, is the host's (amber-app's `served`).

use std::collections::BTreeMap;
use std::sync::Arc;

use amber_core::ports::{Tool, ToolError};
use rmcp::handler::server::ServerHandler;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, Implementation,
    ListToolsResult, PaginatedRequestParams, ServerCapabilities, ServerConfig, ToolAnnotations,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServiceExt};
use serde_json::Value;

use crate::McpError;

/// What the server tells a client about itself as it connects.
const INSTRUCTIONS: &str = "amber's view of this workspace: read code by symbol (`outline` a file, then `show` a symbol by the id it lists; `callers`, and `grep` whose hits name their symbols), what amber sessions have read (`coverage_report`, `coverage_digest`), and this repository's governed memory (`recall`, `compile`, and `store` when the server writes).";

/// The tools of one workspace, served. Cloned per HTTP session; the
/// tools themselves are shared.
#[derive(Clone)]
pub struct ToolServer {
    tools: Arc<BTreeMap<String, Arc<dyn Tool>>>,
    listed: Arc<Vec<rmcp::model::Tool>>,
}

impl ToolServer {
    pub fn new(tools: Vec<Arc<dyn Tool>>) -> ToolServer {
        let listed = tools.iter().map(|tool| listing(tool.as_ref())).collect();
        let tools = tools
            .into_iter()
            .map(|tool| (tool.spec().name.clone(), tool))
            .collect();
        ToolServer {
            tools: Arc::new(tools),
            listed: Arc::new(listed),
        }
    }

    /// The served tools' names, in the order they are listed.
    pub fn names(&self) -> Vec<String> {
        self.listed.iter().map(|t| t.name.to_string()).collect()
    }

    /// Serves one client over this process's stdin and stdout until it
    /// closes them.
    pub async fn serve_stdio(self) -> Result<(), McpError> {
        let running = self
            .serve(rmcp::transport::stdio())
            .await
            .map_err(|e| McpError::Serve(e.to_string()))?;
        running
            .waiting()
            .await
            .map_err(|e| McpError::Serve(e.to_string()))?;
        Ok(())
    }

    /// Serves streamable HTTP at `/mcp` on `listener` until `stop` is
    /// cancelled. Only loopback `Host` headers are accepted (rmcp's
    /// default): a web page cannot reach it by DNS rebinding.
    pub async fn serve_http(
        self,
        listener: tokio::net::TcpListener,
        stop: tokio_util::sync::CancellationToken,
    ) -> Result<(), McpError> {
        use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
        use rmcp::transport::streamable_http_server::{
            StreamableHttpServerConfig, StreamableHttpService,
        };
        let config =
            StreamableHttpServerConfig::default().with_cancellation_token(stop.child_token());
        let service = StreamableHttpService::new(
            move || Ok(self.clone()),
            Arc::new(LocalSessionManager::default()),
            config,
        );
        let router = axum::Router::new().nest_service("/mcp", service);
        // Without it an answer written after the headers waits on the
        // client's delayed ACK: 40 ms an exchange.
        use axum::serve::ListenerExt;
        let listener = listener.tap_io(|tcp| {
            let _ = tcp.set_nodelay(true);
        });
        axum::serve(listener, router)
            .with_graceful_shutdown(async move { stop.cancelled().await })
            .await
            .map_err(|e| McpError::Serve(e.to_string()))
    }
}

/// A tool as MCP lists it, read-only ones annotated so.
fn listing(tool: &dyn Tool) -> rmcp::model::Tool {
    let spec = tool.spec();
    let schema = match &spec.input_schema {
        Value::Object(map) => map.clone(),
        _ => serde_json::Map::new(),
    };
    rmcp::model::Tool::new(
        spec.name.clone(),
        spec.description.clone(),
        Arc::new(schema),
    )
    .with_annotations(ToolAnnotations::new().read_only(spec.read_only))
}

/// A tool's failure as the calling model reads it: a result marked as an
/// error, so it can ask again differently.
fn failure(e: &ToolError) -> CallToolResult {
    CallToolResult::error(vec![ContentBlock::text(e.to_string())])
}

impl ServerHandler for ToolServer {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new("amber", env!("CARGO_PKG_VERSION")))
            .with_instructions(INSTRUCTIONS)
    }

    async fn list_tools(
        &self,
        _: Option<PaginatedRequestParams>,
        _: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(self.listed.to_vec()))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        _: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let Some(tool) = self.tools.get(request.name.as_ref()).cloned() else {
            return Err(ErrorData::invalid_params(
                format!(
                    "no tool `{}` here; the tools are: {}",
                    request.name,
                    self.names().join(", ")
                ),
                None,
            ));
        };
        let args = Value::Object(request.arguments.unwrap_or_default());
        // The tools read files, parse and query SQLite: off the runtime's
        // threads, which keep serving the transport meanwhile.
        let outcome = tokio::task::spawn_blocking(move || tool.call(&args))
            .await
            .map_err(|e| ErrorData::internal_error(format!("the tool panicked: {e}"), None))?;
        let result = match outcome {
            Ok(output) => CallToolResult::success(vec![ContentBlock::text(output.content)]),
            Err(e) => failure(&e),
        };
        Ok(result.into())
    }
}
