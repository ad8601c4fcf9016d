//! What every instance of one plugin shares: its id, grants, workspace,
//! settings, log, command policy and limits. A file of its own so the
//! sandbox (which builds an instance's WASI context from it) and the
//! instances (which hold it) both depend on it, not on each other.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;

use crate::engine::RuntimeLimits;
use crate::exec_policy::ExecPolicy;
use crate::grants::Grants;
use crate::log::PluginLog;

/// What every instance of one plugin shares.
pub struct PluginContext {
    pub id: String,
    pub grants: Grants,
    /// The hosts its `http` grant reaches (empty unless granted).
    pub http_hosts: Vec<String>,
    /// Its `wasi:http` requests: the grant, the client and the caps.
    pub http: Arc<crate::imports::http::PluginHttp>,
    /// The workspace root on the host; preopened only when granted.
    pub workspace: PathBuf,
    pub settings: BTreeMap<String, String>,
    pub log: Arc<PluginLog>,
    pub exec: ExecPolicy,
    pub limits: RuntimeLimits,
    /// Sees what goes into the component on each call; for audits and for
    /// the test proving API keys never enter a component.
    pub tap: Option<ArgumentTap>,
    /// Asked about every command before `exec` runs it.
    pub gate: Option<Arc<dyn amber_core::ports::CommandGate>>,
}

/// Receives (plugin id, call, the arguments as debug text).
pub type ArgumentTap = Arc<dyn Fn(&str, &str, &str) + Send + Sync>;

impl PluginContext {
    /// Shows `args` of `call` to the tap, if one is set.
    pub fn tap(&self, call: &str, args: &dyn std::fmt::Debug) {
        if let Some(tap) = &self.tap {
            tap(&self.id, call, &format!("{args:?}"));
        }
    }
}
