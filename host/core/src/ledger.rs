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

use crate::hooks::{Hook, HookEvent};
use crate::ports::{CommandTree, Dialect, Parser, PromptBlock, Tool};

/// Who installed a contribution.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase", tag = "kind", content = "id")]
pub enum Owner {
    /// A host-native service, such as the `task` tool.
    Host,
    /// A plugin, by id.
    Plugin(String),
    /// An MCP server, by its configured name: its tools, resources and
    /// prompts adapted onto the Tool port (amber-mcp).
    Mcp(String),
}

impl fmt::Display for Owner {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Owner::Host => f.write_str("host"),
            Owner::Plugin(id) => write!(f, "plugin `{id}`"),
            Owner::Mcp(name) => write!(f, "MCP server `{name}`"),
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
    Hook,
}

impl fmt::Display for CapabilityKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            CapabilityKind::Tool => "tool",
            CapabilityKind::Provider => "provider",
            CapabilityKind::Command => "command",
            CapabilityKind::Prompt => "prompt",
            CapabilityKind::Parser => "parser",
            CapabilityKind::Hook => "hook",
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
    Hook(Arc<dyn Hook>),
}

impl Service {
    pub fn kind(&self) -> CapabilityKind {
        match self {
            Service::Tool(_) => CapabilityKind::Tool,
            Service::Provider(_) => CapabilityKind::Provider,
            Service::Command(_) => CapabilityKind::Command,
            Service::Prompt(_) => CapabilityKind::Prompt,
            Service::Parser(_) => CapabilityKind::Parser,
            Service::Hook(_) => CapabilityKind::Hook,
        }
    }

    /// The registry key: tool name, flavor, command root, block, language,
    /// or `<event>:<hook>`.
    pub fn name(&self) -> &str {
        match self {
            Service::Tool(t) => &t.spec().name,
            Service::Provider(d) => &d.flavor().name,
            Service::Command(c) => &c.root().root,
            Service::Prompt(p) => &p.spec().name,
            Service::Parser(p) => &p.language().name,
            Service::Hook(h) => h.spec().key(),
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

/// Why an install was refused. Each names the capability, the newcomer
/// and, for a conflict, who keeps the name.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LedgerError {
    /// The name is taken; the first to install it keeps it.
    #[error("{} of {newcomer} is refused: {owner} already provides it", subject(*kind, name))]
    Conflict {
        kind: CapabilityKind,
        name: String,
        /// Who holds the name.
        owner: Owner,
        /// Who asked for it.
        newcomer: Owner,
    },
    /// A command root that amber's built-in commands own (`/help`, `/set`, …).
    #[error("command `/{root}` of {newcomer} is refused: `/{root}` is a built-in command")]
    ReservedCommand { root: String, newcomer: Owner },
    /// A command root that a typed line could never reach.
    #[error("command `/{root}` of {newcomer} is refused: {reason}")]
    InvalidCommand {
        root: String,
        newcomer: Owner,
        reason: String,
    },
}

/// How a refusal names a capability: commands as typed (`/git`).
fn subject(kind: CapabilityKind, name: &str) -> String {
    match kind {
        CapabilityKind::Command => format!("command `/{name}`"),
        _ => format!("{kind} `{name}`"),
    }
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
    fn check_free(
        &self,
        kind: CapabilityKind,
        name: &str,
        newcomer: &Owner,
    ) -> Result<(), LedgerError> {
        match self.entries.get(name) {
            Some(e) => Err(LedgerError::Conflict {
                kind,
                name: name.to_string(),
                owner: e.owner.clone(),
                newcomer: newcomer.clone(),
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

    /// The service of `name` and who installed it.
    fn owned(&self, name: &str) -> Option<(Owner, Arc<S>)> {
        self.entries
            .get(name)
            .map(|e| (e.owner.clone(), Arc::clone(&e.service)))
    }

    /// The entries in install order.
    fn sorted(&self) -> Vec<&Entry<S>> {
        let mut all: Vec<&Entry<S>> = self.entries.values().collect();
        all.sort_by_key(|e| e.seq);
        all
    }

    /// Services in install order.
    fn in_install_order(&self) -> Vec<Arc<S>> {
        let sorted = self.sorted();
        sorted.into_iter().map(|e| Arc::clone(&e.service)).collect()
    }

    /// Services and their owners in install order.
    fn owned_in_install_order(&self) -> Vec<(Owner, Arc<S>)> {
        let sorted = self.sorted();
        sorted
            .into_iter()
            .map(|e| (e.owner.clone(), Arc::clone(&e.service)))
            .collect()
    }
}

#[derive(Default)]
struct State {
    next_seq: u64,
    /// Bumped by every command install and removal (see
    /// [`Ledger::command_generation`]).
    command_generation: u64,
    /// Bumped by every tool and prompt block installed or removed (see
    /// [`Ledger::agent_generation`]).
    agent_generation: u64,
    records: Vec<(Owner, Contribution)>,
    tools: Registry<dyn Tool>,
    providers: Registry<dyn Dialect>,
    commands: Registry<dyn CommandTree>,
    prompts: Registry<dyn PromptBlock>,
    parsers: Registry<dyn Parser>,
    hooks: Registry<dyn Hook>,
}

impl State {
    fn check_free(&self, service: &Service, newcomer: &Owner) -> Result<(), LedgerError> {
        let (kind, name) = (service.kind(), service.name());
        match service {
            Service::Tool(_) => self.tools.check_free(kind, name, newcomer),
            Service::Provider(_) => self.providers.check_free(kind, name, newcomer),
            Service::Command(_) => {
                check_command_root(name, newcomer)?;
                self.commands.check_free(kind, name, newcomer)
            }
            Service::Prompt(_) => self.prompts.check_free(kind, name, newcomer),
            Service::Parser(_) => self.parsers.check_free(kind, name, newcomer),
            Service::Hook(_) => self.hooks.check_free(kind, name, newcomer),
        }
    }

    fn insert(&mut self, seq: u64, owner: &Owner, service: Service) {
        let name = service.name().to_string();
        match service {
            Service::Tool(s) => {
                self.agent_generation += 1;
                self.tools.insert(&name, seq, owner, s)
            }
            Service::Provider(s) => self.providers.insert(&name, seq, owner, s),
            Service::Command(s) => {
                self.command_generation += 1;
                self.commands.insert(&name, seq, owner, s)
            }
            Service::Prompt(s) => {
                self.agent_generation += 1;
                self.prompts.insert(&name, seq, owner, s)
            }
            Service::Parser(s) => self.parsers.insert(&name, seq, owner, s),
            Service::Hook(s) => self.hooks.insert(&name, seq, owner, s),
        }
    }

    fn remove(&mut self, c: &Contribution) {
        match c.kind {
            CapabilityKind::Tool => {
                self.agent_generation += 1;
                self.tools.remove(&c.name, c.seq)
            }
            CapabilityKind::Provider => self.providers.remove(&c.name, c.seq),
            CapabilityKind::Command => {
                self.command_generation += 1;
                self.commands.remove(&c.name, c.seq)
            }
            CapabilityKind::Prompt => {
                self.agent_generation += 1;
                self.prompts.remove(&c.name, c.seq)
            }
            CapabilityKind::Parser => self.parsers.remove(&c.name, c.seq),
            CapabilityKind::Hook => self.hooks.remove(&c.name, c.seq),
        }
    }
}

/// A command root must be reachable by a typed line and must not be one of
/// amber's built-in commands, whoever asks.
fn check_command_root(root: &str, newcomer: &Owner) -> Result<(), LedgerError> {
    crate::ports::command::check_root(root).map_err(|reason| LedgerError::InvalidCommand {
        root: root.to_string(),
        newcomer: newcomer.clone(),
        reason: reason.to_string(),
    })?;
    if crate::commands::is_builtin_root(root) {
        return Err(LedgerError::ReservedCommand {
            root: root.to_string(),
            newcomer: newcomer.clone(),
        });
    }
    Ok(())
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
    /// A name already taken by anyone is refused, and so is a command root
    /// that is built in or could not be typed; then nothing changes.
    pub fn install(&self, owner: &Owner, service: Service) -> Result<Contribution, LedgerError> {
        let mut state = self.write();
        state.check_free(&service, owner)?;
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

    /// The flavors the installed dialects serve, in install order.
    pub fn flavors(&self) -> Vec<String> {
        self.read()
            .providers
            .in_install_order()
            .iter()
            .map(|d| d.flavor().name.clone())
            .collect()
    }

    pub fn command(&self, root: &str) -> Option<Arc<dyn CommandTree>> {
        self.read().commands.get(root)
    }

    /// Command root `root` and who provides it, under one lock: the host
    /// checks at dispatch time that a plugin command's root still belongs
    /// to the plugin its action (`plugin.<id>.<path>`) names.
    pub fn owned_command(&self, root: &str) -> Option<(Owner, Arc<dyn CommandTree>)> {
        self.read().commands.owned(root)
    }

    /// Every command root with its owner, in install order: what the host
    /// merges into its command tree.
    pub fn owned_commands(&self) -> Vec<(Owner, Arc<dyn CommandTree>)> {
        self.read().commands.owned_in_install_order()
    }

    /// A number that changes whenever a command root is installed or
    /// removed, including the unwind of a plugin that failed on its own
    /// (three traps in a row). The host rebuilds its merged tree when it
    /// differs from the one it built from.
    pub fn command_generation(&self) -> u64 {
        self.read().command_generation
    }

    /// A number that changes whenever a tool or a prompt block is
    /// installed or removed: a long-lived session compares it before a
    /// turn and, when it moved, takes the ledger's tools and blocks
    /// afresh, so the next request shows a plugin enabled or disabled
    /// meanwhile.
    pub fn agent_generation(&self) -> u64 {
        self.read().agent_generation
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

    /// The hooks of `event`, in install order.
    pub fn hooks(&self, event: HookEvent) -> Vec<Arc<dyn Hook>> {
        let state = self.read();
        let sorted = state.hooks.sorted();
        sorted
            .into_iter()
            .filter(|e| e.service.spec().event == event)
            .map(|e| Arc::clone(&e.service))
            .collect()
    }

    /// Every hook with who installed it, in install order.
    pub fn owned_hooks(&self) -> Vec<(Owner, Arc<dyn Hook>)> {
        self.read().hooks.owned_in_install_order()
    }

    /// Whether any hook handles `event`.
    pub fn has_hooks(&self, event: HookEvent) -> bool {
        let state = self.read();
        let found = state
            .hooks
            .entries
            .values()
            .any(|e| e.service.spec().event == event);
        found
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
    use crate::ports::{CommandNode, CommandRoot, PortError, ToolError, ToolOutput, ToolSpec};

    struct FakeTool(ToolSpec);

    impl Tool for FakeTool {
        fn spec(&self) -> &ToolSpec {
            &self.0
        }
        fn call(&self, _args: &serde_json::Value) -> Result<ToolOutput, ToolError> {
            Ok(ToolOutput {
                content: self.0.name.clone(),
                meta: None,
                images: Vec::new(),
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
            approval_group: None,
        })))
    }

    fn plugin(id: &str) -> Owner {
        Owner::Plugin(id.into())
    }

    struct FakeCommand(CommandRoot);

    impl CommandTree for FakeCommand {
        fn root(&self) -> &CommandRoot {
            &self.0
        }
        fn spec(&self) -> Result<Vec<CommandNode>, PortError> {
            Ok(Vec::new())
        }
        fn run(&self, _path: &[String], _arg: &str) -> Result<String, PortError> {
            Ok(self.0.help.clone())
        }
    }

    /// A command root whose `run` answers `who`.
    fn command(root: &str, who: &str) -> Service {
        Service::Command(Arc::new(FakeCommand(CommandRoot {
            root: root.into(),
            help: who.into(),
        })))
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
    fn a_taken_name_is_refused_naming_both_and_nothing_changes() {
        let ledger = Ledger::new();
        ledger.install(&plugin("a"), tool("read")).unwrap();
        let err = ledger.install(&plugin("b"), tool("read")).unwrap_err();
        assert_eq!(
            err.to_string(),
            "tool `read` of plugin `b` is refused: plugin `a` already provides it"
        );
        assert!(ledger.contributions(&plugin("b")).is_empty());
    }

    #[test]
    fn a_contested_command_root_is_refused_naming_both_and_the_first_keeps_it() {
        let ledger = Ledger::new();
        ledger.install(&plugin("a"), command("git", "a")).unwrap();
        let err = ledger
            .install(&plugin("b"), command("git", "b"))
            .unwrap_err();
        assert_eq!(
            err.to_string(),
            "command `/git` of plugin `b` is refused: plugin `a` already provides it"
        );
        assert_eq!(
            ledger.owned_command("git").map(|(o, _)| o),
            Some(plugin("a"))
        );
        let kept = ledger.command("git").unwrap();
        assert_eq!(kept.run(&["git".into()], "").unwrap(), "a");
        assert!(ledger.contributions(&plugin("b")).is_empty());
    }

    #[test]
    fn a_built_in_command_root_is_refused_for_anyone() {
        let ledger = Ledger::new();
        for root in [
            "help", "set", "get", "plugins", "sessions", "status", "clear", "quit",
        ] {
            for owner in [plugin("a"), Owner::Host] {
                let err = ledger.install(&owner, command(root, "a")).unwrap_err();
                assert_eq!(
                    err.to_string(),
                    format!(
                        "command `/{root}` of {owner} is refused: `/{root}` is a built-in command"
                    )
                );
            }
        }
        assert!(ledger.records().is_empty());
        assert_eq!(ledger.command_generation(), 0);
    }

    #[test]
    fn a_command_root_no_line_could_reach_is_refused() {
        let ledger = Ledger::new();
        let err = ledger
            .install(&plugin("a"), command("two words", "a"))
            .unwrap_err();
        assert!(
            err.to_string()
                .starts_with("command `/two words` of plugin `a` is refused: `two words` contains"),
            "{err}"
        );
        assert!(ledger.install(&plugin("a"), command("a.b", "a")).is_err());
        assert!(ledger.records().is_empty());
    }

    #[test]
    fn owned_command_and_owned_commands_follow_installs_and_unwinds() {
        let ledger = Ledger::new();
        assert_eq!(ledger.owned_command("git").map(|(o, _)| o), None);
        ledger.install(&plugin("g"), command("git", "g")).unwrap();
        ledger.install(&Owner::Host, tool("task")).unwrap();
        ledger.install(&plugin("e"), command("evil", "e")).unwrap();
        assert_eq!(
            ledger.owned_command("git").map(|(o, _)| o),
            Some(plugin("g"))
        );
        let owned: Vec<(Owner, String)> = ledger
            .owned_commands()
            .into_iter()
            .map(|(owner, tree)| (owner, tree.root().root.clone()))
            .collect();
        assert_eq!(
            owned,
            [(plugin("g"), "git".into()), (plugin("e"), "evil".into())]
        );
        ledger.unwind(&plugin("g"));
        assert_eq!(ledger.owned_command("git").map(|(o, _)| o), None);
        assert!(ledger.command("git").is_none());
        assert_eq!(ledger.owned_commands().len(), 1);
    }

    #[test]
    fn the_agent_generation_moves_with_tools_and_prompt_blocks_only() {
        let ledger = Ledger::new();
        let start = ledger.agent_generation();
        ledger.install(&plugin("a"), command("git", "a")).unwrap();
        assert_eq!(
            ledger.agent_generation(),
            start,
            "a command is not the agent's"
        );
        ledger.install(&plugin("a"), tool("read")).unwrap();
        let with_tool = ledger.agent_generation();
        assert_ne!(with_tool, start);
        assert!(ledger.install(&plugin("b"), tool("read")).is_err());
        assert_eq!(
            ledger.agent_generation(),
            with_tool,
            "a refusal changes nothing"
        );
        ledger.unwind(&plugin("a"));
        assert_ne!(ledger.agent_generation(), with_tool);
    }

    #[test]
    fn the_command_generation_moves_only_with_command_roots() {
        let ledger = Ledger::new();
        let start = ledger.command_generation();
        ledger.install(&plugin("a"), tool("read")).unwrap();
        assert_eq!(ledger.command_generation(), start);
        ledger.install(&plugin("a"), command("git", "a")).unwrap();
        let installed = ledger.command_generation();
        assert_ne!(installed, start);
        assert!(ledger.install(&plugin("b"), command("git", "b")).is_err());
        assert_eq!(
            ledger.command_generation(),
            installed,
            "a refusal changes nothing"
        );
        ledger.unwind(&plugin("a"));
        assert_ne!(ledger.command_generation(), installed);
    }

    #[test]
    fn host_native_and_plugin_services_unwind_the_same_way() {
        let ledger = Ledger::new();
        ledger.install(&Owner::Host, tool("task")).unwrap();
        assert_eq!(ledger.unwind(&Owner::Host).len(), 1);
        assert!(ledger.tools().is_empty());
    }
}
