//! An MCP server that answers at once, for the start-up row: rmcp's own
//! streamable HTTP server, in this process on a runtime of its own, with
//! a handful of tools, resources and prompts listed from memory.
//!
//! The goal is what three servers *that answer at once* add
//! before the first model request. server-everything does not answer at
//! once (node builds a whole server for each session: about 9 ms an
//! `initialize`, measured with curl), so against it the figure is mostly
//! node's; against this server it is the client's part: amber's hub, or
//! a bare rmcp client doing the same exchanges.

use std::sync::Arc;

use anyhow::{Context, Result};
use axum::serve::ListenerExt;
use rmcp::handler::server::ServerHandler;
use rmcp::model::{
    ListPromptsResult, ListResourcesResult, ListToolsResult, PaginatedRequestParams, Prompt,
    PromptArgument, Resource, ServerCapabilities, ServerConfig, Tool,
};
use rmcp::service::RequestContext;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use rmcp::{ErrorData, RoleServer};
use serde_json::json;

/// Lists what a small real server would: eight tools, three resources,
/// two prompts.
#[derive(Clone)]
struct Listed;

fn tools() -> Vec<Tool> {
    (0..8)
        .map(|i| {
            let schema = json!({
                "type": "object",
                "properties": {"text": {"type": "string", "description": "what to work on"}},
                "required": ["text"],
            });
            let schema = schema.as_object().cloned().unwrap_or_default();
            Tool::new(
                format!("tool_{i}"),
                format!("Tool number {i}: does one small thing with `text`."),
                Arc::new(schema),
            )
        })
        .collect()
}

impl ServerHandler for Listed {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(
            ServerCapabilities::builder()
                .enable_tools()
                .enable_resources()
                .enable_prompts()
                .build(),
        )
    }

    async fn list_tools(
        &self,
        _: Option<PaginatedRequestParams>,
        _: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(tools()))
    }

    async fn list_resources(
        &self,
        _: Option<PaginatedRequestParams>,
        _: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        let resources = (0..3)
            .map(|i| Resource::new(format!("memo://note/{i}"), format!("note {i}")))
            .collect();
        Ok(ListResourcesResult::with_all_items(resources))
    }

    async fn list_prompts(
        &self,
        _: Option<PaginatedRequestParams>,
        _: RequestContext<RoleServer>,
    ) -> Result<ListPromptsResult, ErrorData> {
        let prompts = (0..2)
            .map(|i| {
                Prompt::new(
                    format!("prompt_{i}"),
                    Some("A prompt with one argument."),
                    Some(vec![PromptArgument::new("topic")]),
                )
            })
            .collect();
        Ok(ListPromptsResult::with_all_items(prompts))
    }
}

/// Three of them, each on its own port, served from one thread of their
/// own until dropped.
pub struct QuickServers {
    urls: Vec<String>,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl QuickServers {
    pub fn start(count: usize) -> Result<QuickServers> {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()?;
        let mut listeners = Vec::new();
        let mut urls = Vec::new();
        for _ in 0..count {
            let listener = std::net::TcpListener::bind("127.0.0.1:0")?;
            listener.set_nonblocking(true)?;
            urls.push(format!("http://{}/mcp", listener.local_addr()?));
            listeners.push(listener);
        }
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        let thread = std::thread::Builder::new()
            .name("mcp-quick".into())
            .spawn(move || {
                runtime.block_on(async move {
                    for listener in listeners {
                        let service = StreamableHttpService::new(
                            || Ok(Listed),
                            Arc::new(LocalSessionManager::default()),
                            StreamableHttpServerConfig::default(),
                        );
                        let router = axum::Router::new().nest_service("/mcp", service);
                        let Ok(listener) = tokio::net::TcpListener::from_std(listener) else {
                            return;
                        };
                        // Without it an event written after the headers
                        // waits on the client's delayed ACK: 40 ms an
                        // exchange (node's http server sets it too).
                        let listener = listener.tap_io(|tcp| {
                            let _ = tcp.set_nodelay(true);
                        });
                        tokio::spawn(async move {
                            let _ = axum::serve(listener, router).await;
                        });
                    }
                    let _ = stopped.await;
                });
            })
            .context("starting the quick MCP servers' thread")?;
        Ok(QuickServers {
            urls,
            stop: Some(stop),
            thread: Some(thread),
        })
    }

    pub fn urls(&self) -> &[String] {
        &self.urls
    }
}

impl Drop for QuickServers {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}
