//! The latest version, `wit/` ([`crate::bindings`]): every export trait
//! calls straight through to the generated `Guest`.

use wasmtime::component::ResourceAny;

use super::exports::{
    export_loader, Call, CommandExport, HookExport, ParserExport, PluginExport, PromptExport,
    ProviderExport, St, ToolExport,
};
use crate::bindings::{command, hook, parser, plugin, prompt, provider, tool, types};

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
