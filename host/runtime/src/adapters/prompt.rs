//! A component's prompt block behind the core's PromptBlock port.

use std::sync::Arc;

use amber_core::ports::{BlockSpec, PortError, PromptBlock, RenderContext};

use super::{missing, port_error};
use crate::bindings::prompt as wit;
use crate::pool_cell::PoolCell;

pub struct ComponentPromptBlock {
    pool: Arc<PoolCell>,
    spec: BlockSpec,
    label: String,
}

impl ComponentPromptBlock {
    pub fn new(pool: Arc<PoolCell>, spec: BlockSpec) -> Self {
        let label = format!("prompt block `{}`", spec.name);
        ComponentPromptBlock { pool, spec, label }
    }
}

impl PromptBlock for ComponentPromptBlock {
    fn spec(&self) -> &BlockSpec {
        &self.spec
    }

    fn render(&self, ctx: &RenderContext) -> Result<String, PortError> {
        // The component sees the workspace at its sandbox mount, when granted.
        let granted = self.pool.context().grants.can_read_workspace();
        let ctx = wit::RenderContext {
            workspace: granted.then(|| crate::sandbox::WORKSPACE_MOUNT.to_string()),
            request: ctx.request.clone(),
            model: ctx.model.clone(),
        };
        let text = self
            .pool
            .call(&self.label, |inst| match &inst.exports.prompt {
                Some(p) => p.render(&mut inst.store, &self.spec.name, &ctx),
                None => Err(missing("prompt")),
            })
            .map_err(port_error)?
            .map_err(|e| PortError(format!("{} failed: {e}", self.label)))?;
        self.pool
            .check_output(&self.label, text.len())
            .map_err(port_error)?;
        Ok(text)
    }
}
