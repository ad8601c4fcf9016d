//! The capability ledger. Seed: "Capability ledger".
//!
//! The ledger is the one record of what is installed. Every registry entry
//! exists only together with its ledger record: [`Ledger::install`] puts a
//! service into its registry and records `(owner, Contribution)` under one
//! lock, and [`Ledger::unwind`] removes an owner's contributions in reverse
//! install order. Component plugins and host-native services go through the
//! same two calls.

use std::collections::BTreeMap;
use std::fmt;
use std::sync::{Arc, RwLock, RwLockReadGuard, RwLockWriteGuard};

use serde::{Deserialize, Serialize};

use crate::ports::{CommandTree, Dialect, Parser, PromptBlock, Tool};

/// Who installed a contribution.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase", tag = "kind", content = "id")]
pub enum Owner {
    /// A host-native service, such as the `task` tool.
    Host,
    /// A plugin, by id.
    Plugin(String),
}

impl fmt::Display for Owner {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Owner::Host => f.write_str("host"),
            Owner::Plugin(id) => write!(f, "plugin `{id}`"),
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum CapabilityKind {
    Tool,
    Provider,
    Command,
    Prompt,
    Parser,
}

impl fmt::Display for CapabilityKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            CapabilityKind::Tool => "tool",
            CapabilityKind::Provider => "provider",
            CapabilityKind::Command => "command",
            CapabilityKind::Prompt => "prompt",
            CapabilityKind::Parser => "parser",
        })
    }
}

/// A service to install, one per declared capability.
#[derive(Clone)]
pub enum Service {
    Tool(Arc<dyn Tool>),
    Provider(Arc<dyn Dialect>),
    Command(Arc<dyn CommandTree>),
    Prompt(Arc<dyn PromptBlock>),
    Parser(Arc<dyn Parser>),
}

impl Service {
    pub fn kind(&self) -> CapabilityKind {
        match self {
            Service::Tool(_) => CapabilityKind::Tool,
            Service::Provider(_) => CapabilityKind::Provider,
            Service::Command(_) => CapabilityKind::Command,
            Service::Prompt(_) => CapabilityKind::Prompt,
            Service::Parser(_) => CapabilityKind::Parser,
        }
    }

    /// The registry key: tool name, flavor, command root, block or language.
    pub fn name(&self) -> &str {
        match self {
            Service::Tool(t) => &t.spec().name,
            Service::Provider(d) => &d.flavor().name,
            Service::Command(c) => &c.root().root,
            Service::Prompt(p) => &p.spec().name,
            Service::Parser(p) => &p.language().name,
        }
    }
}

/// The handle a registry returns for one installed service.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Contribution {
    /// Install sequence number, unique for the ledger's lifetime.
    pub seq: u64,
    pub kind: CapabilityKind,
    pub name: String,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LedgerError {
    #[error("{kind} `{name}` is already provided by {owner}")]
    Conflict {
        kind: CapabilityKind,
        name: String,
        owner: Owner,
    },
}

struct Entry<S: ?Sized> {
    seq: u64,
    owner: Owner,
    service: Arc<S>,
}

/// One registry: name → service, remembering who installed it.
struct Registry<S: ?Sized> {
    entries: BTreeMap<String, Entry<S>>,
}

impl<S: ?Sized> Default for Registry<S> {
    fn default() -> Self {
        Self {
            entries: BTreeMap::new(),
        }
    }
}

impl<S: ?Sized> Registry<S> {
    fn check_free(&self, kind: CapabilityKind, name: &str) -> Result<(), LedgerError> {
        match self.entries.get(name) {
            Some(e) => Err(LedgerError::Conflict {
                kind,
                name: name.to_string(),
                owner: e.owner.clone(),
            }),
            None => Ok(()),
        }
    }

    fn insert(&mut self, name: &str, seq: u64, owner: &Owner, service: Arc<S>) {
        let owner = owner.clone();
        self.entries.insert(
            name.to_string(),
            Entry {
                seq,
                owner,
                service,
            },
        );
    }

    fn remove(&mut self, name: &str, seq: u64) {
        if self.entries.get(name).is_some_and(|e| e.seq == seq) {
            self.entries.remove(name);
        }
    }

    fn get(&self, name: &str) -> Option<Arc<S>> {
        self.entries.get(name).map(|e| Arc::clone(&e.service))
    }

    /// Services in install order.
    fn in_install_order(&self) -> Vec<Arc<S>> {
        let mut all: Vec<&Entry<S>> = self.entries.values().collect();
        all.sort_by_key(|e| e.seq);
        all.into_iter().map(|e| Arc::clone(&e.service)).collect()
    }
}

#[derive(Default)]
struct State {
    next_seq: u64,
    records: Vec<(Owner, Contribution)>,
    tools: Registry<dyn Tool>,
    providers: Registry<dyn Dialect>,
    commands: Registry<dyn CommandTree>,
    prompts: Registry<dyn PromptBlock>,
    parsers: Registry<dyn Parser>,
}

impl State {
    fn check_free(&self, service: &Service) -> Result<(), LedgerError> {
        let (kind, name) = (service.kind(), service.name());
        match service {
            Service::Tool(_) => self.tools.check_free(kind, name),
            Service::Provider(_) => self.providers.check_free(kind, name),
            Service::Command(_) => self.commands.check_free(kind, name),
            Service::Prompt(_) => self.prompts.check_free(kind, name),
            Service::Parser(_) => self.parsers.check_free(kind, name),
        }
    }

    fn insert(&mut self, seq: u64, owner: &Owner, service: Service) {
        let name = service.name().to_string();
        match service {
            Service::Tool(s) => self.tools.insert(&name, seq, owner, s),
            Service::Provider(s) => self.providers.insert(&name, seq, owner, s),
            Service::Command(s) => self.commands.insert(&name, seq, owner, s),
            Service::Prompt(s) => self.prompts.insert(&name, seq, owner, s),
            Service::Parser(s) => self.parsers.insert(&name, seq, owner, s),
        }
    }

    fn remove(&mut self, c: &Contribution) {
        match c.kind {
            CapabilityKind::Tool => self.tools.remove(&c.name, c.seq),
            CapabilityKind::Provider => self.providers.remove(&c.name, c.seq),
            CapabilityKind::Command => self.commands.remove(&c.name, c.seq),
            CapabilityKind::Prompt => self.prompts.remove(&c.name, c.seq),
            CapabilityKind::Parser => self.parsers.remove(&c.name, c.seq),
        }
    }
}

/// The capability ledger and the registries it governs.
#[derive(Default)]
pub struct Ledger {
    state: RwLock<State>,
}

impl Ledger {
    pub fn new() -> Self {
        Self::default()
    }

    // A panic while holding the lock cannot leave the state half-changed
    // (every write is a single insert or remove), so a poisoned lock is safe
    // to keep using.
    fn read(&self) -> RwLockReadGuard<'_, State> {
        self.state.read().unwrap_or_else(|e| e.into_inner())
    }

    fn write(&self) -> RwLockWriteGuard<'_, State> {
        self.state.write().unwrap_or_else(|e| e.into_inner())
    }

    /// Installs `service` into its registry and records it for `owner`.
    /// A name already taken by anyone is refused and nothing changes.
    pub fn install(&self, owner: &Owner, service: Service) -> Result<Contribution, LedgerError> {
        let mut state = self.write();
        state.check_free(&service)?;
        let seq = state.next_seq;
        state.next_seq += 1;
        let contribution = Contribution {
            seq,
            kind: service.kind(),
            name: service.name().to_string(),
        };
        state.insert(seq, owner, service);
        state.records.push((owner.clone(), contribution.clone()));
        Ok(contribution)
    }

    /// Removes everything `owner` installed, in reverse install order, and
    /// returns the contributions in the order they were removed.
    pub fn unwind(&self, owner: &Owner) -> Vec<Contribution> {
        let mut state = self.write();
        let mut removed = Vec::new();
        let mut index = state.records.len();
        while index > 0 {
            index -= 1;
            if &state.records[index].0 == owner {
                let (_, contribution) = state.records.remove(index);
                state.remove(&contribution);
                removed.push(contribution);
            }
        }
        removed
    }

    /// What `owner` has installed, in install order.
    pub fn contributions(&self, owner: &Owner) -> Vec<Contribution> {
        let state = self.read();
        let mine = state.records.iter().filter(|(o, _)| o == owner);
        mine.map(|(_, c)| c.clone()).collect()
    }

    /// Every record, in install order.
    pub fn records(&self) -> Vec<(Owner, Contribution)> {
        self.read().records.clone()
    }

    pub fn tool(&self, name: &str) -> Option<Arc<dyn Tool>> {
        self.read().tools.get(name)
    }

    pub fn tools(&self) -> Vec<Arc<dyn Tool>> {
        self.read().tools.in_install_order()
    }

    pub fn provider(&self, flavor: &str) -> Option<Arc<dyn Dialect>> {
        self.read().providers.get(flavor)
    }

    pub fn command(&self, root: &str) -> Option<Arc<dyn CommandTree>> {
        self.read().commands.get(root)
    }

    pub fn commands(&self) -> Vec<Arc<dyn CommandTree>> {
        self.read().commands.in_install_order()
    }

    /// Prompt blocks in install order; assembly sorts them by priority.
    pub fn prompt_blocks(&self) -> Vec<Arc<dyn PromptBlock>> {
        self.read().prompts.in_install_order()
    }

    pub fn parser(&self, language: &str) -> Option<Arc<dyn Parser>> {
        self.read().parsers.get(language)
    }

    /// Parsers in install order.
    pub fn parsers(&self) -> Vec<Arc<dyn Parser>> {
        self.read().parsers.in_install_order()
    }

    /// The parser claiming a file extension (without the dot); the first
    /// installed wins.
    pub fn parser_for_extension(&self, ext: &str) -> Option<Arc<dyn Parser>> {
        let parsers = self.read().parsers.in_install_order();
        parsers
            .into_iter()
            .find(|p| p.language().extensions.iter().any(|e| e == ext))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ports::{ToolError, ToolOutput, ToolSpec};

    struct FakeTool(ToolSpec);

    impl Tool for FakeTool {
        fn spec(&self) -> &ToolSpec {
            &self.0
        }
        fn call(&self, _args: &serde_json::Value) -> Result<ToolOutput, ToolError> {
            Ok(ToolOutput {
                content: self.0.name.clone(),
                meta: None,
            })
        }
    }

    fn tool(name: &str) -> Service {
        Service::Tool(Arc::new(FakeTool(ToolSpec {
            name: name.into(),
            description: String::new(),
            input_schema: serde_json::json!({"type": "object"}),
            read_only: true,
            gated_by_exec: false,
        })))
    }

    fn plugin(id: &str) -> Owner {
        Owner::Plugin(id.into())
    }

    #[test]
    fn install_makes_the_service_reachable_and_records_it() {
        let ledger = Ledger::new();
        let c = ledger.install(&plugin("a"), tool("read")).unwrap();
        assert_eq!(c.name, "read");
        assert!(ledger.tool("read").is_some());
        assert_eq!(ledger.contributions(&plugin("a")), vec![c]);
    }

    #[test]
    fn unwind_removes_in_reverse_install_order_and_only_that_owner() {
        let ledger = Ledger::new();
        ledger.install(&plugin("a"), tool("one")).unwrap();
        ledger.install(&Owner::Host, tool("task")).unwrap();
        ledger.install(&plugin("a"), tool("two")).unwrap();
        ledger.install(&plugin("a"), tool("three")).unwrap();
        let removed: Vec<String> = ledger
            .unwind(&plugin("a"))
            .into_iter()
            .map(|c| c.name)
            .collect();
        assert_eq!(removed, ["three", "two", "one"]);
        assert!(ledger.tool("one").is_none());
        assert!(ledger.tool("task").is_some());
        assert_eq!(ledger.records().len(), 1);
    }

    #[test]
    fn a_taken_name_is_refused_naming_the_owner_and_nothing_changes() {
        let ledger = Ledger::new();
        ledger.install(&plugin("a"), tool("read")).unwrap();
        let err = ledger.install(&plugin("b"), tool("read")).unwrap_err();
        assert_eq!(
            err.to_string(),
            "tool `read` is already provided by plugin `a`"
        );
        assert!(ledger.contributions(&plugin("b")).is_empty());
    }

    #[test]
    fn host_native_and_plugin_services_unwind_the_same_way() {
        let ledger = Ledger::new();
        ledger.install(&Owner::Host, tool("task")).unwrap();
        assert_eq!(ledger.unwind(&Owner::Host).len(), 1);
        assert!(ledger.tools().is_empty());
    }
}
