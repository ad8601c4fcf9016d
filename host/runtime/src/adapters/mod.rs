//! Components adapted to the core's ports. Each adapter holds its plugin's
//! instance pool and turns a port call into one component call under the
//! runtime's limits; a trap, deadline or limit becomes a port error naming
//! the plugin and the cause.

mod command;
mod hook;
mod parser;
mod prompt;
mod provider;
mod tool;

use std::sync::Arc;

use amber_core::ports::{BlockPosition, BlockSpec, CommandRoot, LanguageSpec, PortError, ToolSpec};
use amber_core::Service;

use crate::bindings::types;
use crate::error::CallError;
use crate::pool_cell::PoolCell;

pub use command::ComponentCommand;
pub use hook::ComponentHook;
pub use parser::ComponentParser;
pub use prompt::ComponentPromptBlock;
pub use provider::ComponentDialect;
pub use tool::ComponentTool;

fn port_error(e: CallError) -> PortError {
    PortError(e.to_string())
}

/// The service that serves one declared capability.
pub fn service_for(
    pool: &Arc<PoolCell>,
    capability: &types::Capability,
) -> Result<Service, String> {
    let pool = Arc::clone(pool);
    Ok(match capability {
        types::Capability::Tool(spec) => {
            let input_schema = serde_json::from_str(&spec.input_schema).map_err(|e| {
                format!(
                    "tool `{}` declares an input schema that is not JSON: {e}",
                    spec.name
                )
            })?;
            let spec = ToolSpec {
                name: spec.name.clone(),
                description: spec.description.clone(),
                input_schema,
                read_only: spec.read_only,
                gated_by_exec: pool.context().grants.has(crate::grants::Permission::Exec)
                    && !pool
                        .context()
                        .grants
                        .has(crate::grants::Permission::WorkspaceWrite),
                approval_group: None,
            };
            Service::Tool(Arc::new(ComponentTool::new(pool, spec)))
        }
        types::Capability::Provider(flavor) => {
            Service::Provider(Arc::new(ComponentDialect::new(pool, flavor)))
        }
        types::Capability::Command(root) => {
            let root = CommandRoot {
                root: root.root.clone(),
                help: root.help.clone(),
            };
            Service::Command(Arc::new(ComponentCommand::new(pool, root)))
        }
        types::Capability::Prompt(block) => {
            let position = match block.position {
                types::BlockPosition::Head => BlockPosition::Head,
                types::BlockPosition::Tail => BlockPosition::Tail,
            };
            let spec = BlockSpec {
                name: block.name.clone(),
                position,
                priority: block.priority,
            };
            Service::Prompt(Arc::new(ComponentPromptBlock::new(pool, spec)))
        }
        types::Capability::Parser(language) => {
            let spec = LanguageSpec {
                name: language.name.clone(),
                extensions: language.extensions.clone(),
            };
            Service::Parser(Arc::new(ComponentParser::new(pool, spec)))
        }
        types::Capability::Hook(hook) => {
            let event = hook_event(hook.event);
            let matcher = amber_core::hooks::Matcher::parse(hook.matcher.as_deref())
                .map_err(|e| format!("hook `{event}`: {e}"))?;
            let id = pool.context().id.clone();
            let spec = amber_core::hooks::HookSpec::new(id, event, matcher);
            Service::Hook(Arc::new(ComponentHook::new(pool, spec)))
        }
    })
}

/// The capability kind and name a declaration claims.
pub fn describe(capability: &types::Capability) -> (amber_core::CapabilityKind, &str) {
    use amber_core::CapabilityKind as K;
    match capability {
        types::Capability::Tool(s) => (K::Tool, &s.name),
        types::Capability::Provider(f) => (K::Provider, &f.name),
        types::Capability::Command(c) => (K::Command, &c.root),
        types::Capability::Prompt(b) => (K::Prompt, &b.name),
        types::Capability::Parser(l) => (K::Parser, &l.name),
        types::Capability::Hook(h) => (K::Hook, hook_event(h.event).as_str()),
    }
}

/// The core's name of a WIT hook event.
pub fn hook_event(event: types::HookEvent) -> amber_core::hooks::HookEvent {
    use amber_core::hooks::HookEvent as E;
    match event {
        types::HookEvent::SessionStart => E::SessionStart,
        types::HookEvent::UserPromptSubmit => E::UserPromptSubmit,
        types::HookEvent::PreTool => E::PreTool,
        types::HookEvent::PostTool => E::PostTool,
        types::HookEvent::PermissionRequest => E::PermissionRequest,
        types::HookEvent::PreCompact => E::PreCompact,
        types::HookEvent::PostCompact => E::PostCompact,
        types::HookEvent::Stop => E::Stop,
        types::HookEvent::SubagentStop => E::SubagentStop,
        types::HookEvent::SessionEnd => E::SessionEnd,
        types::HookEvent::Notification => E::Notification,
    }
}

/// The error for an export a capability needs but the instance lacks. The
/// lifecycle refuses such plugins at enable, so this is a last line.
fn missing(kind: &str) -> wasmtime::Error {
    wasmtime::Error::msg(format!("the component does not export amber:plugin/{kind}"))
}
