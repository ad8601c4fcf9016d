//! The adapter body shared by every version whose shapes are 0.2's
//! (0.1 and 0.2: 0.2 changed no shape): the conversions between its
//! generated types and the latest, its imports onto the host's own, and
//! the export traits on its `Guest`s. Each such version's module runs its
//! own `bindgen!` over its frozen WIT, names its generated modules as
//! below (`old`, `old_tool`, …) and invokes [`adapter_of_0_2_shapes`].
//! Where the latest version changed a type (0.3: images, the `http`
//! permission), the conversion is written by hand here: what the older
//! plugin lacks defaulted, what it cannot express mapped down and said.

/// What an older dialect is told in place of images it cannot send.
pub(crate) fn images_left_out(n: usize) -> String {
    format!(
        "\n[{n} image(s) left out: this plugin speaks an amber:plugin version from before images]"
    )
}

macro_rules! adapter_of_0_2_shapes {
    () => {
        export_loader!(self::exports::amber::plugin);

        // ---- `types` ----

        adapt_cases! { old::LogLevel, now::types::LogLevel { Trace, Debug, Info, Warn, Error } }
        adapt_cases! { @one old::Permission => now::types::Permission { WorkspaceRead, WorkspaceWrite, Exec } }
        // 0.3 added the hosts an `http` request names: an older plugin asks for
        // none (it cannot ask for `http`).
        impl Adapt<now::types::PermissionRequest> for old::PermissionRequest {
            fn adapt(self) -> now::types::PermissionRequest {
                now::types::PermissionRequest {
                    permission: self.permission.adapt(),
                    reason: self.reason,
                    hosts: Vec::new(),
                }
            }
        }
        adapt_record! { @one old::PluginManifest => now::types::PluginManifest {
            id, name, version, description, api_version, permissions
        } }
        // An older plugin is told what it could have asked for: never `http`.
        impl Adapt<old::InitContext> for now::types::InitContext {
            fn adapt(self) -> old::InitContext {
                use now::types::Permission as P;
                old::InitContext {
                    host_version: self.host_version,
                    api_version: self.api_version,
                    workspace: self.workspace,
                    granted: self
                        .granted
                        .into_iter()
                        .filter_map(|p| match p {
                            P::WorkspaceRead => Some(old::Permission::WorkspaceRead),
                            P::WorkspaceWrite => Some(old::Permission::WorkspaceWrite),
                            P::Exec => Some(old::Permission::Exec),
                            P::Http => None,
                        })
                        .collect(),
                }
            }
        }
        adapt_record! { old::ToolSpec, now::types::ToolSpec { name, description, input_schema, read_only } }
        adapt_cases! { old::AuthScheme, now::types::AuthScheme { Bearer, XApiKey, None } }
        adapt_record! { old::FlavorSpec, now::types::FlavorSpec { name, auth } }
        adapt_cases! { old::BlockPosition, now::types::BlockPosition { Head, Tail } }
        adapt_record! { old::BlockSpec, now::types::BlockSpec { name, position, priority } }
        adapt_record! { old::CommandRoot, now::types::CommandRoot { root, help } }
        adapt_record! { old::LanguageSpec, now::types::LanguageSpec { name, extensions } }
        adapt_cases! { old::HookEvent, now::types::HookEvent {
            SessionStart, UserPromptSubmit, PreTool, PostTool, PermissionRequest, PreCompact,
            PostCompact, Stop, SubagentStop, SessionEnd, Notification
        } }
        adapt_record! { old::HookSpec, now::types::HookSpec { event, matcher } }
        adapt_cases! { old::Capability, now::types::Capability {
            Tool(v), Provider(v), Command(v), Prompt(v), Parser(v), Hook(v)
        } }

        // ---- `tool` ----

        // 0.3 added images to a tool's output: an older tool returns none.
        impl Adapt<now::tool::ToolOutput> for old_tool::ToolOutput {
            fn adapt(self) -> now::tool::ToolOutput {
                now::tool::ToolOutput {
                    content: self.content,
                    meta: self.meta,
                    images: Vec::new(),
                }
            }
        }
        adapt_cases! { old_tool::ToolError, now::tool::ToolError { InvalidArgs(v), Failed(v) } }

        // ---- `provider` ----

        adapt_cases! { old_provider::Role, now::provider::Role { System, User, Assistant, Tool } }
        adapt_record! { old_provider::ToolCall, now::provider::ToolCall { id, name, arguments } }
        // 0.3 added images to a tool result and a message: an older dialect
        // cannot send them, so it is told, in the text, what it leaves out.
        impl Adapt<old_provider::ToolResult> for now::provider::ToolResult {
            fn adapt(self) -> old_provider::ToolResult {
                let mut content = self.content;
                if !self.images.is_empty() {
                    content.push_str(&images_left_out(self.images.len()));
                }
                old_provider::ToolResult {
                    call_id: self.call_id,
                    content,
                    is_error: self.is_error,
                }
            }
        }
        impl Adapt<now::provider::ToolResult> for old_provider::ToolResult {
            fn adapt(self) -> now::provider::ToolResult {
                now::provider::ToolResult {
                    call_id: self.call_id,
                    content: self.content,
                    is_error: self.is_error,
                    images: Vec::new(),
                }
            }
        }
        adapt_record! { old_provider::Reasoning, now::provider::Reasoning { id, text, signature, encrypted } }
        adapt_cases! { @one old_provider::Part => now::provider::Part {
            Text(v), Reasoning(v), ToolCall(v), ToolResult(v)
        } }
        impl Adapt<old_provider::Part> for now::provider::Part {
            fn adapt(self) -> old_provider::Part {
                use now::provider::Part as P;
                match self {
                    P::Text(v) => old_provider::Part::Text(v),
                    P::Reasoning(v) => old_provider::Part::Reasoning(v.adapt()),
                    P::ToolCall(v) => old_provider::Part::ToolCall(v.adapt()),
                    P::ToolResult(v) => old_provider::Part::ToolResult(v.adapt()),
                    P::Image(_) => old_provider::Part::Text(images_left_out(1).trim().to_string()),
                }
            }
        }
        adapt_record! { old_provider::Message, now::provider::Message { role, parts } }
        adapt_record! { old_provider::ToolDecl, now::provider::ToolDecl { name, description, input_schema } }
        adapt_record! { old_provider::ChatRequest, now::provider::ChatRequest {
            flavor, model, messages, tools, max_tokens, temperature, cache_breakpoint
        } }
        adapt_record! { old_provider::HttpRequest, now::provider::HttpRequest { method, path, headers, body } }
        adapt_record! { old_provider::SseBatch, now::provider::SseBatch { text, spans } }
        adapt_record! { old_provider::Usage, now::provider::Usage {
            input_tokens, output_tokens, cached_input_tokens, cache_write_tokens, reasoning_tokens
        } }
        adapt_cases! { old_provider::StopReason, now::provider::StopReason {
            EndTurn, ToolUse, MaxTokens, ContentFilter, Refusal, Other
        } }
        adapt_record! { old_provider::ToolCallStart, now::provider::ToolCallStart { index, id, name } }
        adapt_record! { old_provider::ToolCallDelta, now::provider::ToolCallDelta { index, arguments } }
        adapt_record! { old_provider::StreamError, now::provider::StreamError { kind, message, retryable } }
        adapt_cases! { old_provider::StreamChunk, now::provider::StreamChunk {
            TextDelta(v), ReasoningDelta(v), ToolCallStart(v), ToolCallDelta(v), ToolCallEnd(v),
            Usage(v), Stop(v), Error(v)
        } }
        adapt_record! { old_provider::ErrorClass, now::provider::ErrorClass { retryable, message } }

        // ---- `command`, `prompt`, `parser` ----

        adapt_record! { old_command::CommandNode, now::command::CommandNode {
            name, help, man, parent, handler
        } }
        adapt_record! { old_prompt::RenderContext, now::prompt::RenderContext { workspace, request, model } }
        adapt_record! { old_parser::Symbol, now::parser::Symbol {
            kind, name, parent, byte_start, byte_end, line_start, line_end, signature_end
        } }
        adapt_record! { old_parser::Span, now::parser::Span { byte_start, byte_end, line } }
        adapt_record! { old_parser::Calls, now::parser::Calls { spans, incomplete } }

        // ---- `hook` ----

        adapt_record! { old_hook::HookContext, now::hook::HookContext { session_id, agent, mode, workspace } }
        adapt_cases! { old_hook::StartSource, now::hook::StartSource { Startup, Resume, Compact } }
        adapt_cases! { old_hook::PromptDecision, now::hook::PromptDecision { Allow(v), Block(v) } }
        adapt_record! { old_hook::ToolCall, now::hook::ToolCall { name, args_json } }
        adapt_cases! { old_hook::PreToolDecision, now::hook::PreToolDecision {
            Allow, Deny(v), Ask(v), Rewrite(v)
        } }
        adapt_record! { old_hook::ToolResult, now::hook::ToolResult { call, ok, output } }
        adapt_record! { old_hook::PostToolDecision, now::hook::PostToolDecision { context, flag } }
        adapt_record! { old_hook::PermissionAsk, now::hook::PermissionAsk {
            requester, action, detail, class
        } }
        adapt_cases! { old_hook::PermissionDecision, now::hook::PermissionDecision {
            Abstain, Approve, Deny(v)
        } }
        adapt_cases! { old_hook::CompactTrigger, now::hook::CompactTrigger { Automatic, Manual } }
        adapt_record! { old_hook::CompactRequest, now::hook::CompactRequest { trigger, focus } }
        adapt_cases! { old_hook::PreCompactDecision, now::hook::PreCompactDecision { Proceed(v), Skip(v) } }
        adapt_record! { old_hook::CompactDone, now::hook::CompactDone {
            trigger, tokens_before, tokens_after
        } }
        adapt_record! { old_hook::StopRequest, now::hook::StopRequest { reply, continued } }
        adapt_cases! { old_hook::StopDecision, now::hook::StopDecision { Stop, ContinueWith(v) } }

        // ---- the imports, onto the host's own ----

        adapt_record! { old_exec::ExecOutput, now::amber::plugin::exec::ExecOutput {
            exit_code, stdout, stderr, timed_out, truncated
        } }
        adapt_cases! { old_files::ReadError, now::amber::plugin::files::ReadError { TooLarge(v), Failed(v) } }
        adapt_cases! { old_files::EntryKind, now::amber::plugin::files::EntryKind {
            File, Folder, Symlink, Other
        } }
        adapt_record! { old_files::WalkEntry, now::amber::plugin::files::WalkEntry { path, kind } }

        impl old::Host for HostState {}

        impl old_host::Host for HostState {
            fn log(&mut self, level: old::LogLevel, message: String) {
                now::amber::plugin::host::Host::log(self, level.adapt(), message)
            }

            fn setting(&mut self, key: String) -> Option<String> {
                now::amber::plugin::host::Host::setting(self, key)
            }
        }

        impl old_exec::Host for HostState {
            fn run(
                &mut self,
                command: String,
                cwd: Option<String>,
                timeout_ms: Option<u32>,
            ) -> Result<old_exec::ExecOutput, String> {
                now::amber::plugin::exec::Host::run(self, command, cwd, timeout_ms).adapt()
            }
        }

        impl old_files::Host for HostState {
            fn read_many(
                &mut self,
                paths: Vec<String>,
                max_bytes: u64,
            ) -> Result<Vec<Result<Vec<u8>, old_files::ReadError>>, String> {
                let read = now::amber::plugin::files::Host::read_many(self, paths, max_bytes)?;
                Ok(read
                    .into_iter()
                    .map(|file| file.map_err(Adapt::adapt))
                    .collect())
            }

            fn replace_file(&mut self, path: String, contents: Vec<u8>) -> Result<(), String> {
                now::amber::plugin::files::Host::replace_file(self, path, contents)
            }
        }

        /// A walk handle is an index into the store's table, the same in both
        /// versions: only its Rust type differs.
        use crate::imports::files::retype;

        impl old_files::HostWalk for HostState {
            fn start(&mut self, root: String) -> Result<Resource<old_files::Walk>, String> {
                let walk = now::amber::plugin::files::HostWalk::start(self, root)?;
                Ok(retype(&walk))
            }

            fn next(&mut self, walk: Resource<old_files::Walk>, max: u32) -> Vec<old_files::WalkEntry> {
                now::amber::plugin::files::HostWalk::next(self, retype(&walk), max).adapt()
            }

            fn drop(&mut self, walk: Resource<old_files::Walk>) -> wasmtime::Result<()> {
                now::amber::plugin::files::HostWalk::drop(self, retype(&walk))
            }
        }

        // ---- the exports, in the latest types ----

        impl PluginExport for old_plugin::Guest {
            fn manifest(&self, store: St<'_>) -> Call<now::types::PluginManifest> {
                Ok(self.call_manifest(store)?.adapt())
            }
            fn initialize(&self, store: St<'_>, ctx: &now::types::InitContext) -> Call<Result<(), String>> {
                self.call_initialize(store, &ctx.clone().adapt())
            }
            fn capabilities(&self, store: St<'_>) -> Call<Vec<now::types::Capability>> {
                Ok(self.call_capabilities(store)?.adapt())
            }
            fn shutdown(&self, store: St<'_>) -> Call<()> {
                self.call_shutdown(store)
            }
        }

        impl ToolExport for old_tool::Guest {
            fn call(
                &self,
                store: St<'_>,
                name: &str,
                args: &str,
            ) -> Call<Result<now::tool::ToolOutput, now::tool::ToolError>> {
                Ok(self.call_call(store, name, args)?.adapt())
            }
        }

        impl ProviderExport for old_provider::Guest {
            fn build_request(
                &self,
                store: St<'_>,
                req: &now::provider::ChatRequest,
            ) -> Call<Result<now::provider::HttpRequest, String>> {
                Ok(self
                    .call_build_request(store, &req.clone().adapt())?
                    .adapt())
            }
            fn new_decoder(&self, store: St<'_>, flavor: &str) -> Call<ResourceAny> {
                self.decoder().call_constructor(store, flavor)
            }
            fn decode(
                &self,
                store: St<'_>,
                decoder: ResourceAny,
                batch: &now::provider::SseBatch,
            ) -> Call<Vec<now::provider::StreamChunk>> {
                let batch: old_provider::SseBatch = batch.clone().adapt();
                Ok(self.decoder().call_decode(store, decoder, &batch)?.adapt())
            }
            fn finish(&self, store: St<'_>, decoder: ResourceAny) -> Call<Vec<now::provider::StreamChunk>> {
                Ok(self.decoder().call_finish(store, decoder)?.adapt())
            }
            fn classify_error(
                &self,
                store: St<'_>,
                flavor: &str,
                status: u16,
                body: &str,
            ) -> Call<now::provider::ErrorClass> {
                Ok(self
                    .call_classify_error(store, flavor, status, body)?
                    .adapt())
            }
        }

        impl CommandExport for old_command::Guest {
            fn spec(&self, store: St<'_>, root: &str) -> Call<Vec<now::command::CommandNode>> {
                Ok(self.call_spec(store, root)?.adapt())
            }
            fn run(&self, store: St<'_>, path: &[String], arg: &str) -> Call<Result<String, String>> {
                self.call_run(store, path, arg)
            }
        }

        impl PromptExport for old_prompt::Guest {
            fn render(
                &self,
                store: St<'_>,
                block: &str,
                ctx: &now::prompt::RenderContext,
            ) -> Call<Result<String, String>> {
                self.call_render(store, block, &ctx.clone().adapt())
            }
        }

        impl ParserExport for old_parser::Guest {
            fn outline(
                &self,
                store: St<'_>,
                language: &str,
                source: &str,
            ) -> Call<Result<Vec<now::parser::Symbol>, String>> {
                Ok(self.call_outline(store, language, source)?.adapt())
            }
            fn references(
                &self,
                store: St<'_>,
                language: &str,
                source: &str,
                name: &str,
            ) -> Call<Result<now::parser::Calls, String>> {
                Ok(self.call_references(store, language, source, name)?.adapt())
            }
        }

        /// The hook context, converted once per call.
        fn context(ctx: &now::hook::HookContext) -> old_hook::HookContext {
            ctx.clone().adapt()
        }

        impl HookExport for old_hook::Guest {
            fn session_start(
                &self,
                store: St<'_>,
                ctx: &now::hook::HookContext,
                source: now::hook::StartSource,
            ) -> Call<Result<Option<String>, String>> {
                self.call_session_start(store, &context(ctx), source.adapt())
            }
            fn user_prompt_submit(
                &self,
                store: St<'_>,
                ctx: &now::hook::HookContext,
                prompt: &str,
            ) -> Call<Result<now::hook::PromptDecision, String>> {
                Ok(self
                    .call_user_prompt_submit(store, &context(ctx), prompt)?
                    .adapt())
            }
            fn pre_tool(
                &self,
                store: St<'_>,
                ctx: &now::hook::HookContext,
                call: &now::hook::ToolCall,
            ) -> Call<Result<now::hook::PreToolDecision, String>> {
                let call: old_hook::ToolCall = call.clone().adapt();
                Ok(self.call_pre_tool(store, &context(ctx), &call)?.adapt())
            }
            fn post_tool(
                &self,
                store: St<'_>,
                ctx: &now::hook::HookContext,
                result: &now::hook::ToolResult,
            ) -> Call<Result<now::hook::PostToolDecision, String>> {
                let result: old_hook::ToolResult = result.clone().adapt();
                Ok(self.call_post_tool(store, &context(ctx), &result)?.adapt())
            }
            fn permission_request(
                &self,
                store: St<'_>,
                ctx: &now::hook::HookContext,
                ask: &now::hook::PermissionAsk,
            ) -> Call<Result<now::hook::PermissionDecision, String>> {
                let ask: old_hook::PermissionAsk = ask.clone().adapt();
                Ok(self
                    .call_permission_request(store, &context(ctx), &ask)?
                    .adapt())
            }
            fn pre_compact(
                &self,
                store: St<'_>,
                ctx: &now::hook::HookContext,
                request: &now::hook::CompactRequest,
            ) -> Call<Result<now::hook::PreCompactDecision, String>> {
                let request: old_hook::CompactRequest = request.clone().adapt();
                Ok(self
                    .call_pre_compact(store, &context(ctx), &request)?
                    .adapt())
            }
            fn post_compact(
                &self,
                store: St<'_>,
                ctx: &now::hook::HookContext,
                done: now::hook::CompactDone,
            ) -> Call<Result<Option<String>, String>> {
                self.call_post_compact(store, &context(ctx), done.adapt())
            }
            fn stop(
                &self,
                store: St<'_>,
                ctx: &now::hook::HookContext,
                request: &now::hook::StopRequest,
            ) -> Call<Result<now::hook::StopDecision, String>> {
                let request: old_hook::StopRequest = request.clone().adapt();
                Ok(self.call_stop(store, &context(ctx), &request)?.adapt())
            }
            fn subagent_stop(
                &self,
                store: St<'_>,
                ctx: &now::hook::HookContext,
                request: &now::hook::StopRequest,
            ) -> Call<Result<(), String>> {
                let request: old_hook::StopRequest = request.clone().adapt();
                self.call_subagent_stop(store, &context(ctx), &request)
            }
            fn session_end(
                &self,
                store: St<'_>,
                ctx: &now::hook::HookContext,
                reason: &str,
            ) -> Call<Result<(), String>> {
                self.call_session_end(store, &context(ctx), reason)
            }
            fn notification(
                &self,
                store: St<'_>,
                ctx: &now::hook::HookContext,
                message: &str,
            ) -> Call<Result<(), String>> {
                self.call_notification(store, &context(ctx), message)
            }
        }
    };
}

pub(crate) use adapter_of_0_2_shapes;
