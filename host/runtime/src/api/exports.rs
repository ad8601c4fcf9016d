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

use crate::bindings::{command, hook, parser, plugin, prompt, provider, tool, types};
use crate::instance::HostState;

type Call<T> = wasmtime::Result<T>;
type St<'a> = &'a mut Store<HostState>;

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
                pre: &wasmtime::component::InstancePre<$crate::instance::HostState>,
            ) -> wasmtime::Result<Self> {
                Ok(Indices {
                    plugin: $($exports)::+::plugin::GuestIndices::new(pre)?,
                    tool: $($exports)::+::tool::GuestIndices::new(pre).ok(),
                    provider: $($exports)::+::provider::GuestIndices::new(pre).ok(),
                    command: $($exports)::+::command::GuestIndices::new(pre).ok(),
                    prompt: $($exports)::+::prompt::GuestIndices::new(pre).ok(),
                    parser: $($exports)::+::parser::GuestIndices::new(pre).ok(),
                    hook: $($exports)::+::hook::GuestIndices::new(pre).ok(),
                })
            }
        }

        impl $crate::api::exports::ExportLoader for Indices {
            fn load(
                &self,
                store: &mut wasmtime::Store<$crate::instance::HostState>,
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

/// The export loader for a component of `version`, found from its
/// `InstancePre`.
pub fn loader(
    pre: &InstancePre<HostState>,
    version: super::ApiVersion,
) -> wasmtime::Result<Box<dyn ExportLoader>> {
    match version.route() {
        Some(super::Route::Native) => Ok(Box::new(latest::Indices::resolve(pre)?)),
        Some(super::Route::Adapter) if version == super::since_v0_1::VERSION => {
            Ok(Box::new(super::since_v0_1::Indices::resolve(pre)?))
        }
        _ => Err(wasmtime::format_err!(
            "amber:plugin@{version} has no adapter in this host"
        )),
    }
}

/// The latest version: every trait calls straight through.
mod latest {
    use super::*;

    export_loader!(crate::bindings::exports::amber::plugin);

    impl PluginExport for plugin::Guest {
        fn manifest(&self, store: St<'_>) -> Call<types::PluginManifest> {
            self.call_manifest(store)
        }
        fn initialize(&self, store: St<'_>, ctx: &types::InitContext) -> Call<Result<(), String>> {
            self.call_initialize(store, ctx)
        }
        fn capabilities(&self, store: St<'_>) -> Call<Vec<types::Capability>> {
            self.call_capabilities(store)
        }
        fn shutdown(&self, store: St<'_>) -> Call<()> {
            self.call_shutdown(store)
        }
    }

    impl ToolExport for tool::Guest {
        fn call(
            &self,
            store: St<'_>,
            name: &str,
            args: &str,
        ) -> Call<Result<tool::ToolOutput, tool::ToolError>> {
            self.call_call(store, name, args)
        }
    }

    impl ProviderExport for provider::Guest {
        fn build_request(
            &self,
            store: St<'_>,
            req: &provider::ChatRequest,
        ) -> Call<Result<provider::HttpRequest, String>> {
            self.call_build_request(store, req)
        }
        fn new_decoder(&self, store: St<'_>, flavor: &str) -> Call<ResourceAny> {
            self.decoder().call_constructor(store, flavor)
        }
        fn decode(
            &self,
            store: St<'_>,
            decoder: ResourceAny,
            batch: &provider::SseBatch,
        ) -> Call<Vec<provider::StreamChunk>> {
            self.decoder().call_decode(store, decoder, batch)
        }
        fn finish(&self, store: St<'_>, decoder: ResourceAny) -> Call<Vec<provider::StreamChunk>> {
            self.decoder().call_finish(store, decoder)
        }
        fn classify_error(
            &self,
            store: St<'_>,
            flavor: &str,
            status: u16,
            body: &str,
        ) -> Call<provider::ErrorClass> {
            self.call_classify_error(store, flavor, status, body)
        }
    }

    impl CommandExport for command::Guest {
        fn spec(&self, store: St<'_>, root: &str) -> Call<Vec<command::CommandNode>> {
            self.call_spec(store, root)
        }
        fn run(&self, store: St<'_>, path: &[String], arg: &str) -> Call<Result<String, String>> {
            self.call_run(store, path, arg)
        }
    }

    impl PromptExport for prompt::Guest {
        fn render(
            &self,
            store: St<'_>,
            block: &str,
            ctx: &prompt::RenderContext,
        ) -> Call<Result<String, String>> {
            self.call_render(store, block, ctx)
        }
    }

    impl ParserExport for parser::Guest {
        fn outline(
            &self,
            store: St<'_>,
            language: &str,
            source: &str,
        ) -> Call<Result<Vec<parser::Symbol>, String>> {
            self.call_outline(store, language, source)
        }
        fn references(
            &self,
            store: St<'_>,
            language: &str,
            source: &str,
            name: &str,
        ) -> Call<Result<parser::Calls, String>> {
            self.call_references(store, language, source, name)
        }
    }

    impl HookExport for hook::Guest {
        fn session_start(
            &self,
            store: St<'_>,
            ctx: &hook::HookContext,
            source: hook::StartSource,
        ) -> Call<Result<Option<String>, String>> {
            self.call_session_start(store, ctx, source)
        }
        fn user_prompt_submit(
            &self,
            store: St<'_>,
            ctx: &hook::HookContext,
            prompt: &str,
        ) -> Call<Result<hook::PromptDecision, String>> {
            self.call_user_prompt_submit(store, ctx, prompt)
        }
        fn pre_tool(
            &self,
            store: St<'_>,
            ctx: &hook::HookContext,
            call: &hook::ToolCall,
        ) -> Call<Result<hook::PreToolDecision, String>> {
            self.call_pre_tool(store, ctx, call)
        }
        fn post_tool(
            &self,
            store: St<'_>,
            ctx: &hook::HookContext,
            result: &hook::ToolResult,
        ) -> Call<Result<hook::PostToolDecision, String>> {
            self.call_post_tool(store, ctx, result)
        }
        fn permission_request(
            &self,
            store: St<'_>,
            ctx: &hook::HookContext,
            ask: &hook::PermissionAsk,
        ) -> Call<Result<hook::PermissionDecision, String>> {
            self.call_permission_request(store, ctx, ask)
        }
        fn pre_compact(
            &self,
            store: St<'_>,
            ctx: &hook::HookContext,
            request: &hook::CompactRequest,
        ) -> Call<Result<hook::PreCompactDecision, String>> {
            self.call_pre_compact(store, ctx, request)
        }
        fn post_compact(
            &self,
            store: St<'_>,
            ctx: &hook::HookContext,
            done: hook::CompactDone,
        ) -> Call<Result<Option<String>, String>> {
            self.call_post_compact(store, ctx, done)
        }
        fn stop(
            &self,
            store: St<'_>,
            ctx: &hook::HookContext,
            request: &hook::StopRequest,
        ) -> Call<Result<hook::StopDecision, String>> {
            self.call_stop(store, ctx, request)
        }
        fn subagent_stop(
            &self,
            store: St<'_>,
            ctx: &hook::HookContext,
            request: &hook::StopRequest,
        ) -> Call<Result<(), String>> {
            self.call_subagent_stop(store, ctx, request)
        }
        fn session_end(
            &self,
            store: St<'_>,
            ctx: &hook::HookContext,
            reason: &str,
        ) -> Call<Result<(), String>> {
            self.call_session_end(store, ctx, reason)
        }
        fn notification(
            &self,
            store: St<'_>,
            ctx: &hook::HookContext,
            message: &str,
        ) -> Call<Result<(), String>> {
            self.call_notification(store, ctx, message)
        }
    }
}
