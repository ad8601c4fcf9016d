//! A component's tool behind the core's Tool port.

use std::sync::Arc;

use amber_core::ports::{Image, Tool, ToolError, ToolOutput, ToolSpec};

use super::missing;
use crate::bindings::tool as wit;
use crate::pool_cell::PoolCell;

pub struct ComponentTool {
    pool: Arc<PoolCell>,
    spec: ToolSpec,
    label: String,
}

impl ComponentTool {
    pub fn new(pool: Arc<PoolCell>, spec: ToolSpec) -> Self {
        let label = format!("tool `{}`", spec.name);
        ComponentTool { pool, spec, label }
    }
}

impl Tool for ComponentTool {
    fn spec(&self) -> &ToolSpec {
        &self.spec
    }

    fn call(&self, args: &serde_json::Value) -> Result<ToolOutput, ToolError> {
        let args = args.to_string();
        self.pool.context().tap(&self.label, &args);
        let crashed = |e: crate::CallError| ToolError::Crashed(e.to_string());
        let result = self
            .pool
            .call(&self.label, |inst| match &inst.exports.tool {
                Some(tool) => tool.call(&mut inst.store, &self.spec.name, &args),
                None => Err(missing("tool")),
            })
            .map_err(crashed)?;
        match result {
            Ok(out) => {
                let size = out.content.len() + out.meta.as_ref().map_or(0, String::len);
                self.pool.check_output(&self.label, size).map_err(crashed)?;
                let meta = out
                    .meta
                    .map(|m| serde_json::from_str(&m).unwrap_or(serde_json::Value::String(m)));
                // Images are not counted in the output cap: the agent
                // checks and shrinks each before the model sees it.
                let images = out
                    .images
                    .into_iter()
                    .map(|i| Image::new(i.media_type, i.data, 0, 0))
                    .collect();
                Ok(ToolOutput {
                    content: out.content,
                    meta,
                    images,
                })
            }
            Err(wit::ToolError::InvalidArgs(m)) => Err(ToolError::InvalidArgs(m)),
            Err(wit::ToolError::Failed(m)) => Err(ToolError::Failed(m)),
        }
    }
}
