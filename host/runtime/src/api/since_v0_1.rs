//! The adapter for `amber:plugin@0.1.0`, whose WIT is frozen in
//! `wit/since_v0.1.0/`.
//!
//! A 0.1 component imports `amber:plugin/host@0.1.0` and the rest, and
//! exports `amber:plugin/tool@0.1.0` and the rest. This module links the
//! 0.1 imports onto the host's own implementations and implements the
//! export traits of [`super::exports`] on the 0.1 `Guest`s, converting
//! every value that crosses. 0.2 changed no shape, so its body is 0.2's
//! ([`super::shapes_0_2`]): field for field where 0.3 kept a type, by hand
//! where it changed one.

use wasmtime::component::{Resource, ResourceAny};

use super::adapt::{adapt_cases, adapt_record, Adapt};
use super::shapes_0_2::{adapter_of_0_2_shapes, images_left_out};
use super::exports::{
    export_loader, Call, CommandExport, HookExport, ParserExport, PluginExport, PromptExport,
    ProviderExport, St, ToolExport,
};
use super::version::ApiVersion;
use crate::bindings as now;
use crate::host_state::HostState;

/// The version this module adapts.
pub const VERSION: ApiVersion = ApiVersion::new(0, 1, 0);

wasmtime::component::bindgen!({
    world: "full-plugin",
    path: "../../wit/since_v0.1.0",
});

use amber::plugin::{exec as old_exec, files as old_files, host as old_host, types as old};
use exports::amber::plugin::{
    command as old_command, hook as old_hook, parser as old_parser, plugin as old_plugin,
    prompt as old_prompt, provider as old_provider, tool as old_tool,
};

adapter_of_0_2_shapes!();
