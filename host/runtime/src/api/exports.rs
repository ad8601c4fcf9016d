//! What the host calls on a component, in the latest version's types,
//! whichever version the component was built for.
//!
//! One trait per exported interface. The latest version's generated
//! `Guest` implements each by calling through; an adapter module
//! implements them on its own version's `Guest`, converting arguments
//! down and results up. The adapters in `crate::adapters` hold trait
//! objects and never learn which version answered.

use wasmtime::component::{InstancePre, ResourceAny};
use wasmtime::Store;

use super::version::{ApiVersion, PACKAGE};
use crate::bindings::{command, hook, parser, prompt, provider, tool, types};
use crate::host_state::HostState;

/// What a guest call returns: a trap or limit as the error.
pub type Call<T> = wasmtime::Result<T>;
/// The store every call runs on.
pub type St<'a> = &'a mut Store<HostState>;

/// `plugin`: identity and lifecycle; every component exports it.
pub trait PluginExport: Send + Sync {
    fn manifest(&self, store: St<'_>) -> Call<types::PluginManifest>;
    fn initialize(&self, store: St<'_>, ctx: &types::InitContext) -> Call<Result<(), String>>;
    fn capabilities(&self, store: St<'_>) -> Call<Vec<types::Capability>>;
    fn shutdown(&self, store: St<'_>) -> Call<()>;
}

/// `tool`.
pub trait ToolExport: Send + Sync {
    fn call(
        &self,
        store: St<'_>,
        name: &str,
        args: &str,
    ) -> Call<Result<tool::ToolOutput, tool::ToolError>>;
}

/// `provider`, its `decoder` resource included.
pub trait ProviderExport: Send + Sync {
    fn build_request(
        &self,
        store: St<'_>,
        req: &provider::ChatRequest,
    ) -> Call<Result<provider::HttpRequest, String>>;
    fn new_decoder(&self, store: St<'_>, flavor: &str) -> Call<ResourceAny>;
    fn decode(
        &self,
        store: St<'_>,
        decoder: ResourceAny,
        batch: &provider::SseBatch,
    ) -> Call<Vec<provider::StreamChunk>>;
    fn finish(&self, store: St<'_>, decoder: ResourceAny) -> Call<Vec<provider::StreamChunk>>;
    fn classify_error(
        &self,
        store: St<'_>,
        flavor: &str,
        status: u16,
        body: &str,
    ) -> Call<provider::ErrorClass>;
}

/// `command`.
pub trait CommandExport: Send + Sync {
    fn spec(&self, store: St<'_>, root: &str) -> Call<Vec<command::CommandNode>>;
    fn run(&self, store: St<'_>, path: &[String], arg: &str) -> Call<Result<String, String>>;
}

/// `prompt`.
pub trait PromptExport: Send + Sync {
    fn render(
        &self,
        store: St<'_>,
        block: &str,
        ctx: &prompt::RenderContext,
    ) -> Call<Result<String, String>>;
}

/// `parser`.
pub trait ParserExport: Send + Sync {
    fn outline(
        &self,
        store: St<'_>,
        language: &str,
        source: &str,
    ) -> Call<Result<Vec<parser::Symbol>, String>>;
    fn references(
        &self,
        store: St<'_>,
        language: &str,
        source: &str,
        name: &str,
    ) -> Call<Result<parser::Calls, String>>;
}

/// `hook`: one function per agent event.
pub trait HookExport: Send + Sync {
    fn session_start(
        &self,
        store: St<'_>,
        ctx: &hook::HookContext,
        source: hook::StartSource,
    ) -> Call<Result<Option<String>, String>>;
    fn user_prompt_submit(
        &self,
        store: St<'_>,
        ctx: &hook::HookContext,
        prompt: &str,
    ) -> Call<Result<hook::PromptDecision, String>>;
    fn pre_tool(
        &self,
        store: St<'_>,
        ctx: &hook::HookContext,
        call: &hook::ToolCall,
    ) -> Call<Result<hook::PreToolDecision, String>>;
    fn post_tool(
        &self,
        store: St<'_>,
        ctx: &hook::HookContext,
        result: &hook::ToolResult,
    ) -> Call<Result<hook::PostToolDecision, String>>;
    fn permission_request(
        &self,
        store: St<'_>,
        ctx: &hook::HookContext,
        ask: &hook::PermissionAsk,
    ) -> Call<Result<hook::PermissionDecision, String>>;
    fn pre_compact(
        &self,
        store: St<'_>,
        ctx: &hook::HookContext,
        request: &hook::CompactRequest,
    ) -> Call<Result<hook::PreCompactDecision, String>>;
    fn post_compact(
        &self,
        store: St<'_>,
        ctx: &hook::HookContext,
        done: hook::CompactDone,
    ) -> Call<Result<Option<String>, String>>;
    fn stop(
        &self,
        store: St<'_>,
        ctx: &hook::HookContext,
        request: &hook::StopRequest,
    ) -> Call<Result<hook::StopDecision, String>>;
    fn subagent_stop(
        &self,
        store: St<'_>,
        ctx: &hook::HookContext,
        request: &hook::StopRequest,
    ) -> Call<Result<(), String>>;
    fn session_end(
        &self,
        store: St<'_>,
        ctx: &hook::HookContext,
        reason: &str,
    ) -> Call<Result<(), String>>;
    fn notification(
        &self,
        store: St<'_>,
        ctx: &hook::HookContext,
        message: &str,
    ) -> Call<Result<(), String>>;
}

/// The exports of one live instance; only `plugin` is required.
pub struct Exports {
    pub plugin: Box<dyn PluginExport>,
    pub tool: Option<Box<dyn ToolExport>>,
    pub provider: Option<Box<dyn ProviderExport>>,
    pub command: Option<Box<dyn CommandExport>>,
    pub prompt: Option<Box<dyn PromptExport>>,
    pub parser: Option<Box<dyn ParserExport>>,
    pub hook: Option<Box<dyn HookExport>>,
}

/// Finds a component's exports once per plugin, from its `InstancePre`,
/// and loads them from each new instance.
pub trait ExportLoader: Send + Sync {
    fn load(
        &self,
        store: St<'_>,
        instance: &wasmtime::component::Instance,
    ) -> wasmtime::Result<Exports>;
}

/// An optional export's handles: absent when the component does not
/// export the interface at all, an error when it does but the interface
/// lacks a function or has the wrong types. Before, any failure read as
/// absent, and a plugin that declared a tool it half-exported was
/// installed, then failed on every call.
pub fn optional<T>(
    pre: &InstancePre<HostState>,
    interface: &str,
    api: ApiVersion,
    found: wasmtime::Result<T>,
) -> wasmtime::Result<Option<T>> {
    let name = format!("{PACKAGE}{interface}@{api}");
    match found {
        Ok(indices) => Ok(Some(indices)),
        Err(_) if pre.component().get_export_index(None, &name).is_none() => Ok(None),
        Err(e) => Err(e.context(format!("{name} is exported but not as the WIT says"))),
    }
}

/// Writes, inside one version's module, the [`ExportLoader`] over that
/// version's generated `GuestIndices`: absent interfaces are `None`, and
/// only `plugin` is required. Each version's `Guest`s must implement the
/// traits above.
macro_rules! export_loader {
    ($($exports:ident)::+) => {
        /// The export handles of one component of this version.
        pub struct Indices {
            plugin: $($exports)::+::plugin::GuestIndices,
            tool: Option<$($exports)::+::tool::GuestIndices>,
            provider: Option<$($exports)::+::provider::GuestIndices>,
            command: Option<$($exports)::+::command::GuestIndices>,
            prompt: Option<$($exports)::+::prompt::GuestIndices>,
            parser: Option<$($exports)::+::parser::GuestIndices>,
            hook: Option<$($exports)::+::hook::GuestIndices>,
        }

        impl Indices {
            pub fn resolve(
                pre: &wasmtime::component::InstancePre<$crate::host_state::HostState>,
                api: $crate::api::ApiVersion,
            ) -> wasmtime::Result<Self> {
                use $crate::api::exports::optional;
                Ok(Indices {
                    plugin: $($exports)::+::plugin::GuestIndices::new(pre)?,
                    tool: optional(pre, "tool", api, $($exports)::+::tool::GuestIndices::new(pre))?,
                    provider: optional(pre, "provider", api, $($exports)::+::provider::GuestIndices::new(pre))?,
                    command: optional(pre, "command", api, $($exports)::+::command::GuestIndices::new(pre))?,
                    prompt: optional(pre, "prompt", api, $($exports)::+::prompt::GuestIndices::new(pre))?,
                    parser: optional(pre, "parser", api, $($exports)::+::parser::GuestIndices::new(pre))?,
                    hook: optional(pre, "hook", api, $($exports)::+::hook::GuestIndices::new(pre))?,
                })
            }
        }

        impl $crate::api::exports::ExportLoader for Indices {
            fn load(
                &self,
                store: &mut wasmtime::Store<$crate::host_state::HostState>,
                instance: &wasmtime::component::Instance,
            ) -> wasmtime::Result<$crate::api::exports::Exports> {
                use $crate::api::exports as x;
                let plugin = self.plugin.load(&mut *store, instance)?;
                Ok(x::Exports {
                    plugin: Box::new(plugin),
                    tool: match &self.tool {
                        Some(i) => Some(Box::new(i.load(&mut *store, instance)?) as Box<dyn x::ToolExport>),
                        None => None,
                    },
                    provider: match &self.provider {
                        Some(i) => Some(Box::new(i.load(&mut *store, instance)?) as Box<dyn x::ProviderExport>),
                        None => None,
                    },
                    command: match &self.command {
                        Some(i) => Some(Box::new(i.load(&mut *store, instance)?) as Box<dyn x::CommandExport>),
                        None => None,
                    },
                    prompt: match &self.prompt {
                        Some(i) => Some(Box::new(i.load(&mut *store, instance)?) as Box<dyn x::PromptExport>),
                        None => None,
                    },
                    parser: match &self.parser {
                        Some(i) => Some(Box::new(i.load(&mut *store, instance)?) as Box<dyn x::ParserExport>),
                        None => None,
                    },
                    hook: match &self.hook {
                        Some(i) => Some(Box::new(i.load(&mut *store, instance)?) as Box<dyn x::HookExport>),
                        None => None,
                    },
                })
            }
        }
    };
}

pub(crate) use export_loader;
