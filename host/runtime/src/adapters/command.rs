//! A component's command subtree behind the core's CommandTree port.
//! Seed: "Command binding": the plugin declares, the host merges and runs.
//! A path outside this root never reaches the guest.

use std::sync::Arc;

use amber_core::ports::{CommandNode, CommandRoot, CommandTree, PortError};

use super::{missing, port_error};
use crate::pool_cell::PoolCell;

pub struct ComponentCommand {
    pool: Arc<PoolCell>,
    root: CommandRoot,
    label: String,
}

impl ComponentCommand {
    pub fn new(pool: Arc<PoolCell>, root: CommandRoot) -> Self {
        let label = format!("command `/{}`", root.root);
        ComponentCommand { pool, root, label }
    }
}

impl CommandTree for ComponentCommand {
    fn root(&self) -> &CommandRoot {
        &self.root
    }

    fn spec(&self) -> Result<Vec<CommandNode>, PortError> {
        let nodes = self
            .pool
            .call(&self.label, |inst| match &inst.exports.command {
                Some(c) => c.spec(&mut inst.store, &self.root.root),
                None => Err(missing("command")),
            })
            .map_err(port_error)?;
        let size: usize = nodes
            .iter()
            .map(|n| n.name.len() + n.help.len() + n.man.as_ref().map_or(0, String::len))
            .sum();
        self.pool
            .check_output(&self.label, size)
            .map_err(port_error)?;
        Ok(nodes
            .into_iter()
            .map(|n| CommandNode {
                name: n.name,
                help: n.help,
                man: n.man,
                parent: n.parent,
                handler: n.handler,
            })
            .collect())
    }

    fn run(&self, path: &[String], arg: &str) -> Result<String, PortError> {
        let label = format!("command `/{}`", path.join(" "));
        if path.first() != Some(&self.root.root) {
            return Err(PortError(format!(
                "{label} is not under `/{}`, the root this plugin serves",
                self.root.root
            )));
        }
        self.pool.context().tap(&label, &(path, arg));
        let out = self
            .pool
            .call(&label, |inst| match &inst.exports.command {
                Some(c) => c.run(&mut inst.store, path, arg),
                None => Err(missing("command")),
            })
            .map_err(port_error)?
            .map_err(|e| PortError(format!("{label} failed: {e}")))?;
        self.pool
            .check_output(&label, out.len())
            .map_err(port_error)?;
        Ok(out)
    }
}
