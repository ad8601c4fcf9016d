//! amber-sdk: write an amber plugin in Rust.
//!
//! A plugin is a type implementing [`Plugin`] plus one trait per capability
//! kind it offers ([`ToolPlugin`], [`ProviderPlugin`], [`PromptPlugin`],
//! [`ParserPlugin`], [`CommandPlugin`], [`HookPlugin`]). Every method that
//! can have a default has one. One line exports it:
//!
//! ```ignore
//! amber_sdk::export!(Hello: tool);
//! ```
//!
//! The component always exports the whole `full-plugin` world, so kinds you
//! did not list answer "not provided". The host installs only the
//! capabilities your plugin declares, which the SDK derives from the kinds
//! listed in `export!`.

// The generated code names the SDK by its crate name, also from inside it.
extern crate self as amber_sdk;

#[doc(hidden)]
pub mod bindings {
    wit_bindgen::generate!({
        world: "full-plugin",
        // `wit` is a symlink to the repository's `wit/`: a path or git
        // dependency resolves it in the checkout, and a packaged or
        // vendored copy of this crate carries the files themselves.
        path: "wit",
        pub_export_macro: true,
        export_macro_name: "__export_full_plugin",
        default_bindings_module: "amber_sdk::bindings",
        runtime_path: "amber_sdk::bindings::__rt",
        generate_all,
    });
    #[doc(hidden)]
    pub use wit_bindgen::rt as __rt;
}

mod args;
mod capability;
mod command;
pub mod files;
pub mod fs;
#[doc(hidden)]
pub mod glue;
mod hook;
#[cfg(feature = "http")]
pub mod http;
mod image;
mod manifest;

pub use args::parse_args;
#[cfg(feature = "schemars")]
pub use args::schema_for;

pub use command::CommandSpec;

pub use capability::{
    push_text, CommandPlugin, Decoder, ParserPlugin, PromptPlugin, ProviderPlugin, SseEvent,
    SseEvents, ToolPlugin,
};
pub use hook::HookPlugin;
pub use image::base64;
#[doc(hidden)]
pub use manifest::__check_manifest;
pub use manifest::API_VERSION;

/// `n` and the noun, singular for one ("1 line", "3 lines"), for the
/// text a tool shows the model and the user. The plural adds an `s`.
pub fn count(n: usize, noun: &str) -> String {
    if n == 1 {
        format!("1 {noun}")
    } else {
        format!("{n} {noun}s")
    }
}

pub use bindings::amber::plugin::exec::{self, ExecOutput};
pub use bindings::amber::plugin::host::{log, setting};
pub use bindings::amber::plugin::types::{
    AuthScheme, BlockPosition, BlockSpec, CommandRoot, FlavorSpec, HookEvent, HookSpec,
    Image, InitContext, LanguageSpec, LogLevel, Permission, PermissionRequest,
    PluginManifest as Manifest, ToolSpec,
};
pub use bindings::exports::amber::plugin::command::CommandNode;
// `tool-call` and `tool-result` are also the provider's names, for the
// conversation's messages, so the hook's carry the `Hook` prefix.
pub use bindings::exports::amber::plugin::hook::{
    CompactDone, CompactRequest, CompactTrigger, HookContext, PermissionAsk, PermissionDecision,
    PostToolDecision, PreCompactDecision, PreToolDecision, PromptDecision, StartSource,
    StopDecision, StopRequest, ToolCall as HookToolCall, ToolResult as HookToolResult,
};
pub use bindings::exports::amber::plugin::parser::{Calls, Span, Symbol};
pub use bindings::exports::amber::plugin::prompt::RenderContext;
pub use bindings::exports::amber::plugin::provider::{
    ChatRequest, ErrorClass, HttpRequest, StreamChunk,
};
pub use bindings::exports::amber::plugin::provider::{
    Message, Part, Reasoning, Role, StopReason, StreamError, ToolCall, ToolCallDelta,
    ToolCallStart, ToolDecl, ToolResult, Usage,
};
pub use bindings::exports::amber::plugin::tool::{ToolError, ToolOutput};
pub use serde_json::{self, json, Value};

/// Identity and lifecycle, which every plugin has.
///
/// The host creates the plugin with `Default` and then calls
/// [`Plugin::initialize`] once per instance.
pub trait Plugin: Default + 'static {
    /// Who the plugin is and what it asks for. See [`Manifest::new`].
    fn manifest() -> Manifest;

    /// Called once per instance before any capability is used. An error
    /// marks the plugin Failed with your message as the reason.
    fn initialize(&mut self, _ctx: &InitContext) -> Result<(), String> {
        Ok(())
    }

    /// Called when the user disables the plugin.
    fn shutdown(&mut self) {}
}

/// Everything a plugin author usually needs, in one import.
pub mod prelude {
    pub use crate::{
        json, parse_args, CommandNode, CommandPlugin, CommandRoot, CommandSpec, HookContext,
        HookEvent, HookPlugin, HookSpec, HookToolCall, InitContext, Manifest, ParserPlugin,
        Permission, Plugin, PreToolDecision, PromptPlugin, ProviderPlugin, ToolError, ToolOutput,
        ToolPlugin, ToolSpec, Value,
    };
}

/// Exports a plugin type, listing the capability kinds it implements:
/// `tool`, `provider`, `command`, `prompt`, `parser`, `hook`.
///
/// ```ignore
/// amber_sdk::export!(MyPlugin: tool, prompt);
/// ```
///
/// The kinds are required: the SDK declares only the kinds listed, so a
/// plugin exported without any would load and offer nothing. Leaving them
/// out is a compile error that says so.
#[macro_export]
macro_rules! export {
    ($plugin:ty : $($kind:ident),+ $(,)?) => {
        const _: () = {
            #[doc(hidden)]
            struct __AmberWiring;
            impl $crate::glue::Wiring for __AmberWiring {
                type Plugin = $plugin;
                $($crate::__amber_wire!($kind);)+
            }
            #[doc(hidden)]
            type __AmberExports = $crate::glue::Exports<__AmberWiring>;
            $crate::bindings::__export_full_plugin!(__AmberExports with_types_in $crate::bindings);
        };
    };
    ($plugin:ty $(:)?) => {
        compile_error!(concat!(
            "amber_sdk::export!(",
            stringify!($plugin),
            ") lists no capability kinds, so the plugin would offer nothing: write `amber_sdk::export!(",
            stringify!($plugin),
            ": tool)`, listing each of tool, provider, command, prompt, parser and hook that it implements"
        ));
    };
}

#[doc(hidden)]
#[macro_export]
macro_rules! __amber_wire {
    (tool) => {
        fn tool(p: &mut Self::Plugin) -> Option<&mut dyn $crate::ToolPlugin> {
            Some(p)
        }
    };
    (provider) => {
        fn provider(p: &mut Self::Plugin) -> Option<&mut dyn $crate::ProviderPlugin> {
            Some(p)
        }
    };
    (command) => {
        fn command(p: &mut Self::Plugin) -> Option<&mut dyn $crate::CommandPlugin> {
            Some(p)
        }
    };
    (prompt) => {
        fn prompt(p: &mut Self::Plugin) -> Option<&mut dyn $crate::PromptPlugin> {
            Some(p)
        }
    };
    (parser) => {
        fn parser(p: &mut Self::Plugin) -> Option<&mut dyn $crate::ParserPlugin> {
            Some(p)
        }
    };
    (hook) => {
        fn hook(p: &mut Self::Plugin) -> Option<&mut dyn $crate::HookPlugin> {
            Some(p)
        }
    };
    ($other:ident) => {
        compile_error!(concat!(
            "unknown capability kind `",
            stringify!($other),
            "`: use tool, provider, command, prompt, parser or hook"
        ));
    };
}
