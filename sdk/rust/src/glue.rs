//! The glue between wit-bindgen's exports and the SDK traits. Plugin
//! authors never touch this; `export!` instantiates it for their type.

use std::any::Any;
use std::cell::RefCell;
use std::marker::PhantomData;

use crate::bindings::amber::plugin::types::{Capability, InitContext, PluginManifest as Manifest};
use crate::bindings::exports::amber::plugin::{
    command, hook, parser, plugin, prompt, provider, tool,
};
use crate::capability::{
    CommandPlugin, Decoder, ParserPlugin, PromptPlugin, ProviderPlugin, SseEvents, ToolPlugin,
};
use crate::{HookPlugin, Plugin};

/// Which capability traits a plugin type implements. `export!` overrides
/// the methods for the kinds it lists; the rest answer `None`.
pub trait Wiring: 'static {
    type Plugin: Plugin;

    fn tool(_p: &mut Self::Plugin) -> Option<&mut dyn ToolPlugin> {
        None
    }
    fn provider(_p: &mut Self::Plugin) -> Option<&mut dyn ProviderPlugin> {
        None
    }
    fn command(_p: &mut Self::Plugin) -> Option<&mut dyn CommandPlugin> {
        None
    }
    fn prompt(_p: &mut Self::Plugin) -> Option<&mut dyn PromptPlugin> {
        None
    }
    fn parser(_p: &mut Self::Plugin) -> Option<&mut dyn ParserPlugin> {
        None
    }
    fn hook(_p: &mut Self::Plugin) -> Option<&mut dyn HookPlugin> {
        None
    }
}

thread_local! {
    // One plugin value per instance. The host serves one call at a time per
    // instance and never calls back into the guest from an import, so the
    // borrow is never re-entered.
    static INSTANCE: RefCell<Option<Box<dyn Any>>> = const { RefCell::new(None) };
}

fn with_plugin<W: Wiring, R>(f: impl FnOnce(&mut W::Plugin) -> R) -> R {
    INSTANCE.with(|cell| {
        let mut slot = cell.borrow_mut();
        let boxed = slot.get_or_insert_with(|| Box::new(W::Plugin::default()));
        match boxed.downcast_mut::<W::Plugin>() {
            Some(p) => f(p),
            None => unreachable!("amber-sdk: one plugin type per component"),
        }
    })
}

fn not_provided(kind: &str) -> String {
    format!("this plugin provides no {kind} capability")
}

/// The type wit-bindgen's export macro is instantiated with.
pub struct Exports<W>(PhantomData<W>);

impl<W: Wiring> plugin::Guest for Exports<W> {
    fn manifest() -> Manifest {
        W::Plugin::manifest()
    }

    fn initialize(ctx: InitContext) -> Result<(), String> {
        // Relative paths then resolve inside the workspace, as a plugin
        // author expects.
        if let Some(workspace) = &ctx.workspace {
            let _ = std::env::set_current_dir(workspace);
        }
        // So a file call the grants explain says which one is missing
        // (crate::fs), not WASI's "No such file or directory".
        crate::fs::remember(W::Plugin::manifest().id, &ctx.granted);
        with_plugin::<W, _>(|p| p.initialize(&ctx))
    }

    fn capabilities() -> Vec<Capability> {
        with_plugin::<W, _>(|p| {
            let mut caps = Vec::new();
            if let Some(t) = W::tool(p) {
                caps.extend(t.tools().into_iter().map(Capability::Tool));
            }
            if let Some(d) = W::provider(p) {
                caps.extend(d.flavors().into_iter().map(Capability::Provider));
            }
            if let Some(c) = W::command(p) {
                caps.extend(c.roots().into_iter().map(Capability::Command));
            }
            if let Some(b) = W::prompt(p) {
                caps.extend(b.blocks().into_iter().map(Capability::Prompt));
            }
            if let Some(l) = W::parser(p) {
                caps.extend(l.languages().into_iter().map(Capability::Parser));
            }
            if let Some(h) = W::hook(p) {
                caps.extend(h.hooks().into_iter().map(Capability::Hook));
            }
            caps
        })
    }

    fn shutdown() {
        with_plugin::<W, _>(|p| p.shutdown())
    }
}

impl<W: Wiring> tool::Guest for Exports<W> {
    fn call(name: String, args_json: String) -> Result<tool::ToolOutput, tool::ToolError> {
        let args: serde_json::Value = serde_json::from_str(&args_json)
            .map_err(|e| tool::ToolError::InvalidArgs(format!("arguments are not JSON: {e}")))?;
        with_plugin::<W, _>(|p| match W::tool(p) {
            Some(t) => t.call(&name, args),
            None => Err(tool::ToolError::Failed(not_provided("tool"))),
        })
    }
}

/// A decoder resource; the host holds one per stream.
pub struct DecoderHandle<W> {
    inner: RefCell<Option<Box<dyn Decoder>>>,
    _wiring: PhantomData<W>,
}

impl<W: Wiring> provider::GuestDecoder for DecoderHandle<W> {
    fn new(flavor: String) -> Self {
        let inner = with_plugin::<W, _>(|p| W::provider(p).map(|d| d.new_decoder(&flavor)));
        DecoderHandle {
            inner: RefCell::new(inner),
            _wiring: PhantomData,
        }
    }

    fn decode(&self, batch: provider::SseBatch) -> Vec<provider::StreamChunk> {
        match self.inner.borrow_mut().as_mut() {
            Some(d) => decode_packed(d.as_mut(), &batch),
            None => vec![no_provider_chunk()],
        }
    }

    fn finish(&self) -> Vec<provider::StreamChunk> {
        match self.inner.borrow_mut().as_mut() {
            Some(d) => d.finish(),
            None => vec![no_provider_chunk()],
        }
    }
}

/// Decodes a packed batch through the decoder's `events`, each event
/// borrowed from the batch's text, so an event costs neither an allocation
/// nor a copy, and one dynamic call serves the whole batch.
fn decode_packed(
    decoder: &mut dyn Decoder,
    batch: &provider::SseBatch,
) -> Vec<provider::StreamChunk> {
    let mut out = Vec::new();
    decoder.events(SseEvents::new(&batch.text, &batch.spans), &mut out);
    coalesce(out)
}

/// Joins adjacent text deltas, and adjacent argument deltas of one tool
/// call, before the chunks cross the boundary: a batch of 64 events of a
/// word each then lifts as one string, not 64. They arrived together, so
/// nobody could have seen them apart. Decoders that push text with
/// [`crate::push_text`] have joined theirs already.
fn coalesce(chunks: Vec<provider::StreamChunk>) -> Vec<provider::StreamChunk> {
    use provider::StreamChunk as C;
    let mut out: Vec<C> = Vec::with_capacity(chunks.len());
    for chunk in chunks {
        match (out.last_mut(), chunk) {
            (Some(C::TextDelta(text)), C::TextDelta(more)) => text.push_str(&more),
            (Some(C::ToolCallDelta(call)), C::ToolCallDelta(more)) if call.index == more.index => {
                call.arguments.push_str(&more.arguments)
            }
            (_, chunk) => out.push(chunk),
        }
    }
    out
}

fn no_provider_chunk() -> provider::StreamChunk {
    provider::StreamChunk::Error(provider::StreamError {
        kind: "not-provided".to_string(),
        message: not_provided("provider"),
        retryable: false,
    })
}

impl<W: Wiring> provider::Guest for Exports<W> {
    type Decoder = DecoderHandle<W>;

    fn build_request(req: provider::ChatRequest) -> Result<provider::HttpRequest, String> {
        with_plugin::<W, _>(|p| match W::provider(p) {
            Some(d) => d.build_request(req),
            None => Err(not_provided("provider")),
        })
    }

    fn classify_error(flavor: String, status: u16, body: String) -> provider::ErrorClass {
        with_plugin::<W, _>(|p| match W::provider(p) {
            Some(d) => d.classify_error(&flavor, status, &body),
            None => provider::ErrorClass {
                retryable: false,
                message: not_provided("provider"),
            },
        })
    }
}

impl<W: Wiring> command::Guest for Exports<W> {
    fn spec(root: String) -> Vec<command::CommandNode> {
        with_plugin::<W, _>(|p| W::command(p).map(|c| c.spec(&root)).unwrap_or_default())
    }

    fn run(path: Vec<String>, arg: String) -> Result<String, String> {
        with_plugin::<W, _>(|p| match W::command(p) {
            Some(c) => c.run(path, &arg),
            None => Err(not_provided("command")),
        })
    }
}

impl<W: Wiring> prompt::Guest for Exports<W> {
    fn render(block: String, ctx: prompt::RenderContext) -> Result<String, String> {
        with_plugin::<W, _>(|p| match W::prompt(p) {
            Some(b) => b.render(&block, ctx),
            None => Err(not_provided("prompt")),
        })
    }
}

impl<W: Wiring> parser::Guest for Exports<W> {
    fn outline(language: String, source: String) -> Result<Vec<parser::Symbol>, String> {
        with_plugin::<W, _>(|p| match W::parser(p) {
            Some(l) => l.outline(&language, &source),
            None => Err(not_provided("parser")),
        })
    }

    fn references(language: String, source: String, name: String) -> Result<parser::Calls, String> {
        with_plugin::<W, _>(|p| match W::parser(p) {
            Some(l) => l.references(&language, &source, &name),
            None => Err(not_provided("parser")),
        })
    }
}

/// Runs `f` on the plugin's hooks, or answers that it has none. The host
/// calls only declared events, so the error reaches nobody unless a
/// component's declarations and exports disagree.
fn with_hooks<W: Wiring, R>(
    f: impl FnOnce(&mut dyn HookPlugin) -> Result<R, String>,
) -> Result<R, String> {
    with_plugin::<W, _>(|p| match W::hook(p) {
        Some(h) => f(h),
        None => Err(not_provided("hook")),
    })
}

impl<W: Wiring> hook::Guest for Exports<W> {
    fn session_start(
        ctx: hook::HookContext,
        source: hook::StartSource,
    ) -> Result<Option<String>, String> {
        with_hooks::<W, _>(|h| h.session_start(&ctx, source))
    }

    fn user_prompt_submit(
        ctx: hook::HookContext,
        prompt: String,
    ) -> Result<hook::PromptDecision, String> {
        with_hooks::<W, _>(|h| h.user_prompt_submit(&ctx, &prompt))
    }

    fn pre_tool(
        ctx: hook::HookContext,
        call: hook::ToolCall,
    ) -> Result<hook::PreToolDecision, String> {
        with_hooks::<W, _>(|h| h.pre_tool(&ctx, call))
    }

    fn post_tool(
        ctx: hook::HookContext,
        result: hook::ToolResult,
    ) -> Result<hook::PostToolDecision, String> {
        with_hooks::<W, _>(|h| h.post_tool(&ctx, result))
    }

    fn permission_request(
        ctx: hook::HookContext,
        ask: hook::PermissionAsk,
    ) -> Result<hook::PermissionDecision, String> {
        with_hooks::<W, _>(|h| h.permission_request(&ctx, ask))
    }

    fn pre_compact(
        ctx: hook::HookContext,
        request: hook::CompactRequest,
    ) -> Result<hook::PreCompactDecision, String> {
        with_hooks::<W, _>(|h| h.pre_compact(&ctx, request))
    }

    fn post_compact(
        ctx: hook::HookContext,
        done: hook::CompactDone,
    ) -> Result<Option<String>, String> {
        with_hooks::<W, _>(|h| h.post_compact(&ctx, done))
    }

    fn stop(
        ctx: hook::HookContext,
        request: hook::StopRequest,
    ) -> Result<hook::StopDecision, String> {
        with_hooks::<W, _>(|h| h.stop(&ctx, request))
    }

    fn subagent_stop(ctx: hook::HookContext, request: hook::StopRequest) -> Result<(), String> {
        with_hooks::<W, _>(|h| h.subagent_stop(&ctx, request))
    }

    fn session_end(ctx: hook::HookContext, reason: String) -> Result<(), String> {
        with_hooks::<W, _>(|h| h.session_end(&ctx, &reason))
    }

    fn notification(ctx: hook::HookContext, message: String) -> Result<(), String> {
        with_hooks::<W, _>(|h| h.notification(&ctx, &message))
    }
}
