//! Policy and approval. Seed: the approval flowchart after "MCP session
//! lifecycle": the mode first (read mode blocks everything that is not
//! read-only; yolo approves everything), then for a shell command its
//! classification (read-only and benign in-workspace writes run free),
//! then a stored rule from config, then a grant made earlier this session,
//! then the approval handler (a TTY dialog, or a headless answer), and a
//! fail-safe deny when there is no handler.
//!
//! Tools that write are asked about by dispatch; shell commands are asked
//! about once, by the `exec` import, on the exact command about to run
//! ([`CommandGate`]), so a plugin cannot run another command than the one
//! approved and nobody is asked twice.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, RwLock};

use serde::{Deserialize, Serialize};

use crate::confine::confine;
use crate::hooks::{HookEvent, HookRunner, Payload, PermissionAnswer};
use crate::ports::{ApprovalRequest, Approver, CommandGate, CommandPermit, Decision, Scope};
use crate::shell::{shell_classify, Classification, ShellClass};

mod error;
mod mode;
mod narrowing;
pub mod scope;

pub use error::PolicyError;
pub use mode::Mode;
pub use narrowing::Narrowing;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum RuleDecision {
    Allow,
    Deny,
}

/// A stored rule: a tool name (or `exec`, `exec:<program>`,
/// `exec:<program>:<class>`, or `*`) and optionally a folder, relative to
/// the workspace root.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Rule {
    pub tool: String,
    #[serde(default)]
    pub path: Option<String>,
    pub decision: RuleDecision,
}

/// One question to the policy.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Ask {
    pub requester: String,
    /// A tool name, or `exec:<program>:<class>`.
    pub kind: String,
    /// The arguments, or the exact command line.
    pub detail: String,
    pub cwd: PathBuf,
    /// E.g. `writes` or `destructive: \`rm\` deletes files`.
    pub class: String,
    /// The confined paths the action names; empty means just `cwd`.
    pub paths: Vec<PathBuf>,
    /// Further kinds the same action is (the other risky programs of a
    /// command line): rules and grants must cover these too.
    pub also: Vec<String>,
    /// Some path of the action is only known at run time: no folder scope
    /// covers it, only a scope of the whole kind.
    pub open_paths: bool,
    /// How a command will run if approved, for the dialog.
    pub grants: Option<String>,
    /// The family the kind belongs to (`mcp:<server>`): a rule or a
    /// session grant of the group covers the kind.
    pub group: Option<String>,
}

impl Ask {
    fn kinds(&self) -> impl Iterator<Item = &String> {
        std::iter::once(&self.kind).chain(&self.also)
    }

    /// Whether `pattern` (a rule's tool, or a granted kind with
    /// `exact`) covers `wanted`, one of this ask's kinds: by itself, or
    /// as the main kind's group.
    fn covers(&self, pattern: &str, wanted: &str, exact: bool) -> bool {
        let matches = |kind: &str| {
            if exact {
                pattern == kind
            } else {
                kind_matches(pattern, kind)
            }
        };
        matches(wanted) || (wanted == self.kind && self.group.as_deref().is_some_and(matches))
    }

    fn places(&self) -> Vec<&Path> {
        if self.paths.is_empty() {
            vec![self.cwd.as_path()]
        } else {
            self.paths.iter().map(PathBuf::as_path).collect()
        }
    }
}

/// Whether commands have an OS sandbox to run in, and whether yolo must
/// use it too (`[sandbox] always`). Availability is asked for when the
/// first command is checked, not before: finding the sandbox starts a
/// process, which a run that starts none should not pay.
#[derive(Clone)]
pub struct SandboxStance {
    available: Arc<dyn Fn() -> bool + Send + Sync>,
    pub always: bool,
}

impl SandboxStance {
    /// Availability from `available`, asked on each command check (the
    /// caller caches it).
    pub fn new(always: bool, available: impl Fn() -> bool + Send + Sync + 'static) -> Self {
        SandboxStance {
            available: Arc::new(available),
            always,
        }
    }

    /// A known availability.
    pub fn fixed(available: bool, always: bool) -> Self {
        SandboxStance::new(always, move || available)
    }

    pub fn available(&self) -> bool {
        (self.available)()
    }
}

impl Default for SandboxStance {
    /// Fail-safe: no sandbox, so every command in write mode is asked.
    fn default() -> Self {
        SandboxStance::fixed(false, false)
    }
}

pub struct Policy {
    /// Changed by `/set policy` in a running session; every check reads it
    /// afresh, so the next tool call follows the new mode.
    mode: RwLock<Mode>,
    sandbox: SandboxStance,
    root: PathBuf,
    /// The stored rules; `/permissions allow|deny|forget` changes them in
    /// a running session.
    rules: RwLock<Vec<Rule>>,
    granted: Mutex<Vec<Scope>>,
    handler: Option<Arc<dyn Approver>>,
    /// One question at a time: parallel calls do not interleave dialogs,
    /// and a grant made while one waited is seen before it asks.
    asking: Mutex<()>,
    /// Permission-request hooks, asked before the user (and notification
    /// hooks, told that the user is being asked).
    hooks: RwLock<Option<Arc<HookRunner>>>,
    /// The tools a loaded skill allows, until the user's request ends.
    narrowing: RwLock<Option<Narrowing>>,
    /// Whose view this is: `main`, or a sub-agent's id (`task-1`), which
    /// its approval questions and permission hooks carry.
    agent: String,
    /// A sub-agent's view: the policy it was taken from, whose rules and
    /// grants it uses as they are now, and whose mode tightens it.
    parent: Option<Arc<Policy>>,
    /// Tools read and plan mode allow besides the read-only ones, by the
    /// user's choice, each as (plugin, tool): `[web] fetch_in_read_mode`
    /// puts `web-fetch`'s `web_fetch` here, and no other plugin's tool of
    /// that name.
    reads_too: Vec<(String, String)>,
}

/// `exec`, `exec:git` and `exec:git:network` all match `exec:git:network`.
fn kind_matches(pattern: &str, kind: &str) -> bool {
    pattern == "*" || pattern == kind || kind.starts_with(&format!("{pattern}:"))
}

impl Policy {
    pub fn new(
        mode: Mode,
        root: PathBuf,
        rules: Vec<Rule>,
        handler: Option<Arc<dyn Approver>>,
    ) -> Self {
        Policy {
            mode: RwLock::new(mode),
            // Fail-safe: until the caller says a sandbox exists, every
            // command in write mode is asked about.
            sandbox: SandboxStance::default(),
            root,
            rules: RwLock::new(rules),
            granted: Mutex::new(Vec::new()),
            handler,
            asking: Mutex::new(()),
            hooks: RwLock::new(None),
            narrowing: RwLock::new(None),
            agent: "main".into(),
            parent: None,
            reads_too: Vec::new(),
        }
    }

    /// Lets read and plan mode call `tools` too, each (plugin, tool),
    /// though they are not read-only: the user judged them harmless
    /// enough to read with.
    pub fn with_reads_too(mut self, tools: Vec<(String, String)>) -> Self {
        self.reads_too = tools;
        self
    }

    /// Whether read and plan mode allow `tool`, served by `owner`,
    /// although it is not read-only.
    pub fn reads_too(&self, owner: Option<&crate::ledger::Owner>, tool: &str) -> bool {
        let Some(crate::ledger::Owner::Plugin(plugin)) = owner else {
            return false;
        };
        self.session()
            .reads_too
            .iter()
            .any(|(p, t)| p == plugin && t == tool)
    }

    /// A sub-agent's own view, taken as it starts, asking the same person
    /// and hooks under the sub-agent's id. Its mode is `mode` (the caller
    /// passes the parent's or stricter) and never wider than the parent's
    /// now: a parent switched to yolo does not loosen a running sub-agent,
    /// one switched to plan or read tightens it. The rules and session
    /// grants are the parent's as they stand at each check (a grant taken
    /// back or a deny rule added reaches the sub-agent; an approval "for
    /// the session" it gets is the session's). The skill narrowing in
    /// force is copied, and what the sub-agent's own skills narrow stays
    /// its own.
    pub fn view(self: &Arc<Self>, agent: &str, mode: Mode) -> Policy {
        Policy {
            mode: RwLock::new(mode),
            sandbox: self.sandbox.clone(),
            root: self.root.clone(),
            rules: RwLock::new(Vec::new()),
            granted: Mutex::new(Vec::new()),
            handler: self.handler.clone(),
            asking: Mutex::new(()),
            hooks: RwLock::new(self.hooks.read().unwrap_or_else(|e| e.into_inner()).clone()),
            narrowing: RwLock::new(self.narrowing()),
            agent: agent.to_string(),
            parent: Some(self.clone()),
            reads_too: Vec::new(),
        }
    }

    /// Where rules and grants live: the session's policy, for a view.
    fn session(&self) -> &Policy {
        match &self.parent {
            Some(parent) => parent.session(),
            None => self,
        }
    }

    /// Whose view this is: `main`, or a sub-agent's id.
    pub fn agent(&self) -> &str {
        &self.agent
    }

    /// Narrows the callable tools to `tools`, and the commands to
    /// `commands` when given (within any narrowing in force), for `by` (a
    /// skill, or a custom agent); returns what is now in force.
    pub fn narrow(&self, by: &str, tools: &[String], commands: Option<&[String]>) -> Narrowing {
        let mut slot = self.narrowing.write().unwrap_or_else(|e| e.into_inner());
        let next = match slot.take() {
            Some(now) => now.within(by, tools, commands),
            None => Narrowing {
                by: vec![by.to_string()],
                tools: tools.to_vec(),
                commands: commands.map(<[String]>::to_vec),
            },
        };
        *slot = Some(next.clone());
        next
    }

    /// The narrowing in force, if a skill set one.
    pub fn narrowing(&self) -> Option<Narrowing> {
        self.narrowing
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }

    /// Ends a skill's narrowing: a new user request starts without it.
    pub fn end_narrowing(&self) {
        *self.narrowing.write().unwrap_or_else(|e| e.into_inner()) = None;
    }

    /// Approval questions go to `hooks`' permission-request hooks first.
    pub fn set_hooks(&self, hooks: Option<Arc<HookRunner>>) {
        *self.hooks.write().unwrap_or_else(|e| e.into_inner()) = hooks;
    }

    /// Says whether commands run in an OS sandbox.
    pub fn with_sandbox(mut self, sandbox: SandboxStance) -> Self {
        self.sandbox = sandbox;
        self
    }

    pub fn mode(&self) -> Mode {
        // A poisoned lock still holds a whole Mode (a Copy value).
        let own = *self.mode.read().unwrap_or_else(|e| e.into_inner());
        match &self.parent {
            Some(parent) => own.at_most(parent.mode()),
            None => own,
        }
    }

    /// Switches the mode for every check from now on (`/set policy`).
    pub fn set_mode(&self, mode: Mode) {
        *self.mode.write().unwrap_or_else(|e| e.into_inner()) = mode;
    }

    pub fn sandbox(&self) -> &SandboxStance {
        &self.sandbox
    }

    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The session grants so far.
    pub fn grants(&self) -> Vec<Scope> {
        let session = self.session();
        session.granted.lock().map(|g| g.clone()).unwrap_or_default()
    }

    /// A folder covers an ask when every place it names is inside it
    /// (lexically, as the file tools confine), and none is unknown.
    fn inside(&self, folder: &str, ask: &Ask) -> bool {
        let Ok(folder) = confine(&self.root, folder) else {
            return false;
        };
        !ask.open_paths && ask.places().iter().all(|p| p.starts_with(&folder))
    }

    /// The stored rules in effect.
    pub fn rules(&self) -> Vec<Rule> {
        let session = self.session();
        session.rules.read().map(|r| r.clone()).unwrap_or_default()
    }

    /// Replaces the stored rules (the config file changed them).
    pub fn set_rules(&self, rules: Vec<Rule>) {
        *self.session().rules.write().unwrap_or_else(|e| e.into_inner()) = rules;
    }

    /// Takes back session grant `index` (as `grants` lists them).
    pub fn revoke_grant(&self, index: usize) -> Option<Scope> {
        let mut granted = self.session().granted.lock().ok()?;
        (index < granted.len()).then(|| granted.remove(index))
    }

    fn rule_for(&self, kind: &str, ask: &Ask, decision: RuleDecision) -> Option<Rule> {
        let rules = self.session().rules.read().unwrap_or_else(|e| e.into_inner());
        rules
            .iter()
            .find(|r| {
                r.decision == decision
                    && ask.covers(&r.tool, kind, false)
                    && r.path.as_deref().is_none_or(|p| self.inside(p, ask))
            })
            .cloned()
    }

    /// A deny rule for any of the ask's kinds.
    fn deny_rule(&self, ask: &Ask) -> Option<Rule> {
        ask.kinds()
            .find_map(|k| self.rule_for(k, ask, RuleDecision::Deny))
    }

    /// Allow rules covering every one of the ask's kinds.
    fn allowed_by_rules(&self, ask: &Ask) -> bool {
        ask.kinds()
            .all(|k| self.rule_for(k, ask, RuleDecision::Allow).is_some())
    }

    /// Forgets what was approved for the session (`/clear` starts one).
    pub fn clear_grants(&self) {
        if let Ok(mut granted) = self.session().granted.lock() {
            granted.clear();
        }
    }

    fn is_granted(&self, ask: &Ask) -> bool {
        let granted = self.grants();
        ask.kinds().all(|wanted| {
            granted.iter().any(|scope| match scope {
                Scope::Kind(kind) => ask.covers(kind, wanted, true),
                Scope::Folder { kind, folder } => {
                    ask.covers(kind, wanted, true)
                        && !ask.open_paths
                        && ask.places().iter().all(|p| p.starts_with(folder))
                }
            })
        })
    }

    /// The narrowest folder holding every place of the ask, if inside the
    /// workspace.
    fn folder_scope(&self, ask: &Ask) -> Option<Scope> {
        if ask.open_paths {
            return None;
        }
        let places = ask.places();
        let mut common = places.first()?.to_path_buf();
        if ask.paths.iter().any(|p| p == &common) && !common.is_dir() {
            common.pop();
        }
        for place in &places[1..] {
            while !place.starts_with(&common) {
                if !common.pop() {
                    return None;
                }
            }
        }
        common.starts_with(&self.root).then(|| Scope::Folder {
            kind: ask.kind.clone(),
            folder: common,
        })
    }

    /// Rules, then session grants, then the permission-request hooks,
    /// then the handler; without a handler, denied. `Err` is the reason,
    /// for the model and the user.
    pub fn authorize(&self, ask: &Ask) -> Result<(), PolicyError> {
        self.refuse_by_rule(ask)?;
        if self.allowed_by_rules(ask) || self.is_granted(ask) {
            return Ok(());
        }
        self.put_to_user(ask, true)
    }

    /// Asks the user about `ask` whatever the allow rules and the
    /// session's grants say: a pre-tool hook answered `ask`. A deny rule
    /// still denies, and no permission-request hook answers for the user:
    /// a hook asked for the person.
    pub fn ask_user(&self, ask: &Ask) -> Result<(), PolicyError> {
        self.refuse_by_rule(ask)?;
        self.put_to_user(ask, false)
    }

    fn refuse_by_rule(&self, ask: &Ask) -> Result<(), PolicyError> {
        match self.deny_rule(ask) {
            Some(rule) => Err(PolicyError::DeniedByRule {
                tool: rule.tool.clone(),
                path: rule.path.clone(),
            }),
            None => Ok(()),
        }
    }

    /// The permission-request hooks (for `authorize`), then the approval
    /// handler. Only what the mode lets the user approve reaches here, so
    /// a hook can never approve what read mode blocks. The hooks run
    /// before the one-question-at-a-time lock is taken: a hook's own
    /// command is checked here too, and must not wait on itself; and no
    /// hook is asked about a command a hook runs (no recursion).
    fn put_to_user(&self, ask: &Ask, may_grant: bool) -> Result<(), PolicyError> {
        let hooks = self.hooks.read().unwrap_or_else(|e| e.into_inner()).clone();
        let hooks = hooks.filter(|_| !crate::hooks::in_hook());
        if let (Some(hooks), true) = (&hooks, may_grant) {
            if let Some(answer) = self.ask_hooks(hooks, ask) {
                return answer;
            }
        }
        let Some(handler) = &self.handler else {
            return Err(PolicyError::NoApprover {
                kind: ask.kind.clone(),
            });
        };
        if let Some(hooks) = hooks.filter(|h| h.handles(HookEvent::Notification)) {
            let message = format!("amber needs your approval: `{}` ({})", ask.kind, ask.class);
            hooks.fire(&self.agent, self.mode(), &Payload::Notification { message });
        }
        let _turn = self.asking.lock().unwrap_or_else(|e| e.into_inner());
        // A grant made while this one waited for the lock covers it.
        if may_grant && self.is_granted(ask) {
            return Ok(());
        }
        // A tool of a group (an MCP server's) is granted alone or with
        // its whole group; it has no paths for a folder to cover.
        let mut scopes = vec![Scope::Kind(ask.kind.clone())];
        match &ask.group {
            Some(group) => scopes.push(Scope::Kind(group.clone())),
            None => scopes.extend(self.folder_scope(ask)),
        }
        let request = ApprovalRequest {
            requester: ask.requester.clone(),
            action: ask.kind.clone(),
            detail: ask.detail.clone(),
            cwd: Some(ask.cwd.display().to_string()),
            class: Some(ask.class.clone()),
            scopes,
            grants: ask.grants.clone(),
            agent: self.agent.clone(),
        };
        // The policy runs on a blocking thread (dispatch hands it there;
        // the exec import asks from a guest's), so it may wait here.
        match crate::blocking::wait(handler.request(request)) {
            Decision::ApproveOnce => Ok(()),
            Decision::ApproveForSession(_) if !may_grant => Ok(()),
            Decision::ApproveForSession(scope) => {
                if let Ok(mut granted) = self.session().granted.lock() {
                    // The scope chosen covers every kind of this action.
                    for kind in ask.also.iter() {
                        granted.push(match &scope {
                            Scope::Kind(_) => Scope::Kind(kind.clone()),
                            Scope::Folder { folder, .. } => Scope::Folder {
                                kind: kind.clone(),
                                folder: folder.clone(),
                            },
                        });
                    }
                    granted.push(scope);
                }
                Ok(())
            }
            Decision::Deny => Err(PolicyError::NotApproved {
                kind: ask.kind.clone(),
                class: ask.class.clone(),
            }),
            Decision::Declined { reason } => Err(PolicyError::Declined {
                kind: ask.kind.clone(),
                reason,
            }),
        }
    }

    /// The permission-request hooks' answer, if one approves or denies.
    fn ask_hooks(&self, hooks: &HookRunner, ask: &Ask) -> Option<Result<(), PolicyError>> {
        if !hooks.handles(HookEvent::PermissionRequest) {
            return None;
        }
        let payload = Payload::PermissionRequest {
            requester: ask.requester.clone(),
            action: ask.kind.clone(),
            detail: ask.detail.clone(),
            class: Some(ask.class.clone()),
        };
        hooks
            .permission(&self.agent, self.mode(), &payload)
            .map(|answer| match answer {
                PermissionAnswer::Approved { .. } => Ok(()),
                PermissionAnswer::Denied { reason } => Err(PolicyError::DeniedByHook { reason }),
            })
    }

    /// The `exec` import's question, on the exact command about to run in
    /// `cwd` (already confined): classify it, apply the mode, then ask.
    /// The answer says how it may run: in the sandbox by default, with
    /// the escalations its classification names once approved, and
    /// unsandboxed only in yolo or where no sandbox exists.
    pub fn check_command(
        &self,
        requester: &str,
        command: &str,
        cwd: &Path,
    ) -> Result<CommandPermit, PolicyError> {
        if let Some(narrowing) = self.narrowing() {
            if !narrowing.allows_command(command) {
                return Err(PolicyError::NarrowedCommand {
                    command: command.to_string(),
                    by: narrowing.by.join("` and `"),
                    allowed: narrowing.commands.unwrap_or_default().join(", "),
                });
            }
        }
        let class = shell_classify(command, cwd, &self.root);
        let sandboxed = self.sandbox.available();
        let in_sandbox = |writable: bool| CommandPermit {
            workspace_writable: writable,
            ..CommandPermit::default()
        };
        let unsandboxed = CommandPermit {
            unsandboxed: true,
            workspace_writable: true,
            ..CommandPermit::default()
        };
        // A background process (`process_start`) keeps running after the
        // turn and is most often a server that later commands and the
        // person's browser must reach: it is asked unless read-only, and
        // runs with the network (the host's), which the dialog says.
        let background = requester == "process_start";
        let escalation = |class: &Classification| {
            let mut permit = escalation(class);
            permit.network |= background;
            permit
        };
        match self.mode() {
            Mode::Yolo if !self.sandbox.always => Ok(unsandboxed),
            Mode::Yolo if sandboxed => Ok(escalation(&class)),
            Mode::Yolo => Err(PolicyError::NoSandbox),
            Mode::Read | Mode::Plan if class.class == ShellClass::ReadOnly => Ok(if sandboxed {
                in_sandbox(false)
            } else {
                CommandPermit {
                    workspace_writable: false,
                    ..unsandboxed
                }
            }),
            Mode::Read | Mode::Plan => Err(PolicyError::ReadMode {
                command: command.to_string(),
                label: class.label().to_string(),
                reason: class.reason.clone(),
            }),
            Mode::Write
                if class.runs_free()
                    && sandboxed
                    && !(background && class.class != ShellClass::ReadOnly) =>
            {
                Ok(in_sandbox(true))
            }
            Mode::Write => {
                let permit = if sandboxed {
                    escalation(&class)
                } else {
                    unsandboxed
                };
                // Rules and grants must cover every risky program of the
                // line, not just its first: `git status; rm -rf x` is an rm.
                let mut kinds = class
                    .needing
                    .iter()
                    .map(|(program, label)| format!("exec:{program}:{label}"));
                let (kind, reason) = match kinds.next() {
                    Some(kind) => (kind, format!("{}: {}", class.label(), class.reason)),
                    None if background && sandboxed => (
                        "exec:background".to_string(),
                        "a background process: it runs on after the turn, with the network, so later commands and your browser can reach it".to_string(),
                    ),
                    None => (
                        "exec:unsandboxed".to_string(),
                        "unsandboxed: this machine has no OS sandbox, so every command is asked about in write mode".to_string(),
                    ),
                };
                self.authorize(&Ask {
                    requester: requester.to_string(),
                    kind,
                    detail: command.to_string(),
                    cwd: cwd.to_path_buf(),
                    class: reason,
                    paths: class.paths.iter().map(|p| p.path.clone()).collect(),
                    also: kinds.collect(),
                    open_paths: class.open_paths,
                    grants: Some(permit.describe()),
                    group: None,
                })?;
                Ok(permit)
            }
        }
    }
}

/// The sandbox a command approved in write mode runs in: the workspace
/// writable, plus what its classification says it needs: the network,
/// and the folders outside the workspace that it names (read, or write:
/// the folder itself, or the nearest existing folder above a file).
fn escalation(class: &Classification) -> CommandPermit {
    let mut permit = CommandPermit {
        workspace_writable: true,
        network: class.needing.iter().any(|(_, label)| *label == "network"),
        ..CommandPermit::default()
    };
    for touched in class.paths.iter().filter(|p| !p.inside) {
        if touched.writes {
            let mut dir = touched.path.clone();
            while !dir.is_dir() && dir.pop() {}
            if !permit.write_dirs.contains(&dir) {
                permit.write_dirs.push(dir);
            }
        } else if !permit.read_dirs.contains(&touched.path) {
            permit.read_dirs.push(touched.path.clone());
        }
    }
    permit
}

impl CommandGate for Policy {
    /// A command a tool call runs is checked by the policy of the agent
    /// that made the call ([`scope`]): a sub-agent's own view.
    fn check(
        &self,
        requester: &str,
        command: &str,
        cwd: &Path,
    ) -> Result<CommandPermit, PolicyError> {
        match scope::current() {
            Some(call) if !std::ptr::addr_eq(Arc::as_ptr(&call.policy), self) => {
                call.policy.check_command(requester, command, cwd)
            }
            _ => self.check_command(requester, command, cwd),
        }
    }
}

impl scope::AgentPolicy for Policy {
    fn mode(&self) -> Mode {
        Policy::mode(self)
    }

    fn narrow(&self, by: &str, tools: &[String], commands: Option<&[String]>) -> Narrowing {
        Policy::narrow(self, by, tools, commands)
    }

    fn check_command(
        &self,
        requester: &str,
        command: &str,
        cwd: &Path,
    ) -> Result<CommandPermit, PolicyError> {
        Policy::check_command(self, requester, command, cwd)
    }
}

#[cfg(test)]
#[path = "policy_tests.rs"]
mod tests;
