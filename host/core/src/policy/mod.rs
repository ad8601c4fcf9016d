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
mod mode;

use crate::hooks::{HookEvent, HookRunner, Payload};
use crate::ports::{ApprovalRequest, Approver, CommandGate, CommandPermit, Decision, Scope};
use crate::shell::{shell_classify, Classification, ShellClass};
pub use mode::Mode;

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
    rules: Vec<Rule>,
    granted: Mutex<Vec<Scope>>,
    handler: Option<Arc<dyn Approver>>,
    /// One question at a time: parallel calls do not interleave dialogs,
    /// and a grant made while one waited is seen before it asks.
    asking: Mutex<()>,
    /// Permission-request hooks, asked before the user (and notification
    /// hooks, told that the user is being asked).
    hooks: RwLock<Option<Arc<HookRunner>>>,
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
            rules,
            granted: Mutex::new(Vec::new()),
            handler,
            asking: Mutex::new(()),
            hooks: RwLock::new(None),
        }
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
        *self.mode.read().unwrap_or_else(|e| e.into_inner())
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
        self.granted.lock().map(|g| g.clone()).unwrap_or_default()
    }

    /// A folder covers an ask when every place it names is inside it
    /// (lexically, as the file tools confine), and none is unknown.
    fn inside(&self, folder: &str, ask: &Ask) -> bool {
        let Ok(folder) = confine(&self.root, folder) else {
            return false;
        };
        !ask.open_paths && ask.places().iter().all(|p| p.starts_with(&folder))
    }

    fn rule_for(&self, kind: &str, ask: &Ask, decision: RuleDecision) -> Option<&Rule> {
        self.rules.iter().find(|r| {
            r.decision == decision
                && ask.covers(&r.tool, kind, false)
                && r.path.as_deref().is_none_or(|p| self.inside(p, ask))
        })
    }

    /// A deny rule for any of the ask's kinds.
    fn deny_rule(&self, ask: &Ask) -> Option<&Rule> {
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
        if let Ok(mut granted) = self.granted.lock() {
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
    pub fn authorize(&self, ask: &Ask) -> Result<(), String> {
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
    pub fn ask_user(&self, ask: &Ask) -> Result<(), String> {
        self.refuse_by_rule(ask)?;
        self.put_to_user(ask, false)
    }

    fn refuse_by_rule(&self, ask: &Ask) -> Result<(), String> {
        match self.deny_rule(ask) {
            Some(rule) => Err(format!(
                "denied by the stored rule for `{}`{} in config",
                rule.tool,
                rule.path
                    .as_ref()
                    .map(|p| format!(" in `{p}`"))
                    .unwrap_or_default()
            )),
            None => Ok(()),
        }
    }

    /// The permission-request hooks (for `authorize`), then the approval
    /// handler. Only what the mode lets the user approve reaches here, so
    /// a hook can never approve what read mode blocks. The hooks run
    /// before the one-question-at-a-time lock is taken: a hook's own
    /// command is checked here too, and must not wait on itself; and no
    /// hook is asked about a command a hook runs (no recursion).
    fn put_to_user(&self, ask: &Ask, may_grant: bool) -> Result<(), String> {
        let hooks = self.hooks.read().unwrap_or_else(|e| e.into_inner()).clone();
        let hooks = hooks.filter(|_| !crate::hooks::in_hook());
        if let (Some(hooks), true) = (&hooks, may_grant) {
            if let Some(answer) = self.ask_hooks(hooks, ask) {
                return answer;
            }
        }
        let Some(handler) = &self.handler else {
            return Err(format!(
                "denied: `{}` needs approval and no approval handler is installed (fail-safe)",
                ask.kind
            ));
        };
        if let Some(hooks) = hooks.filter(|h| h.handles(HookEvent::Notification)) {
            let message = format!("amber needs your approval: `{}` ({})", ask.kind, ask.class);
            hooks.fire("main", self.mode(), &Payload::Notification { message });
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
        };
        match handler.approve(&request) {
            Decision::ApproveOnce => Ok(()),
            Decision::ApproveForSession(_) if !may_grant => Ok(()),
            Decision::ApproveForSession(scope) => {
                if let Ok(mut granted) = self.granted.lock() {
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
            Decision::Deny => Err(format!(
                "not approved: `{}` ({}) needs approval and was not given it; the user can rerun with --yes, or --mode yolo",
                ask.kind, ask.class
            )),
        }
    }

    /// The permission-request hooks' answer, if one approves or denies.
    fn ask_hooks(&self, hooks: &HookRunner, ask: &Ask) -> Option<Result<(), String>> {
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
            .permission(self.mode(), &payload)
            .map(|answer| answer.map(|_| ()))
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
    ) -> Result<CommandPermit, String> {
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
        match self.mode() {
            Mode::Yolo if !self.sandbox.always => Ok(unsandboxed),
            Mode::Yolo if sandboxed => Ok(escalation(&class)),
            Mode::Yolo => Err(
                "`[sandbox] always` is set, but this machine has no OS sandbox (see `amber doctor`)"
                    .into(),
            ),
            Mode::Read if class.class == ShellClass::ReadOnly => Ok(if sandboxed {
                in_sandbox(false)
            } else {
                CommandPermit {
                    workspace_writable: false,
                    ..unsandboxed
                }
            }),
            Mode::Read => Err(format!(
                "read mode: `{command}` is not read-only ({}: {})",
                class.label(),
                class.reason
            )),
            Mode::Write if class.runs_free() && sandboxed => Ok(in_sandbox(true)),
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
    fn check(&self, requester: &str, command: &str, cwd: &Path) -> Result<CommandPermit, String> {
        self.check_command(requester, command, cwd)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ports::DenyAll;

    /// A small fake of the Approver port: answers from a script and
    /// remembers what it was asked.
    struct Scripted {
        answers: Mutex<Vec<Decision>>,
        asked: Mutex<Vec<ApprovalRequest>>,
    }

    impl Approver for Scripted {
        fn approve(&self, request: &ApprovalRequest) -> Decision {
            self.asked.lock().unwrap().push(request.clone());
            let mut answers = self.answers.lock().unwrap();
            if answers.is_empty() {
                Decision::Deny
            } else {
                answers.remove(0)
            }
        }
    }

    fn sandboxed() -> SandboxStance {
        SandboxStance::fixed(true, false)
    }

    fn scripted(answers: Vec<Decision>) -> Arc<Scripted> {
        Arc::new(Scripted {
            answers: Mutex::new(answers),
            asked: Mutex::new(Vec::new()),
        })
    }

    fn ask(kind: &str, path: &str) -> Ask {
        Ask {
            requester: "model".into(),
            kind: kind.into(),
            detail: "{}".into(),
            cwd: "/ws".into(),
            class: "writes".into(),
            paths: vec![PathBuf::from(path)],
            also: Vec::new(),
            open_paths: false,
            grants: None,
            group: None,
        }
    }

    fn grouped(kind: &str, group: &str) -> Ask {
        Ask {
            group: Some(group.into()),
            paths: Vec::new(),
            ..ask(kind, "/ws")
        }
    }

    #[test]
    fn a_group_is_granted_and_ruled_as_a_whole_and_offered_as_a_scope() {
        let handler = scripted(vec![Decision::ApproveForSession(Scope::Kind(
            "mcp:fs".into(),
        ))]);
        let policy = Policy::new(Mode::Write, "/ws".into(), Vec::new(), Some(handler.clone()));
        assert_eq!(policy.authorize(&grouped("fs__read", "mcp:fs")), Ok(()));
        // The dialog offered the tool, then its group, and no folder.
        let asked = handler.asked.lock().unwrap().clone();
        assert_eq!(
            asked[0].scopes,
            [Scope::Kind("fs__read".into()), Scope::Kind("mcp:fs".into())]
        );
        // The group's grant covers its other tools, not another server's.
        assert_eq!(policy.authorize(&grouped("fs__write", "mcp:fs")), Ok(()));
        assert!(policy.authorize(&grouped("web__get", "mcp:web")).is_err());

        let rules = vec![Rule {
            tool: "mcp:web".into(),
            path: None,
            decision: RuleDecision::Deny,
        }];
        let policy = Policy::new(Mode::Write, "/ws".into(), rules, Some(scripted(vec![])));
        let err = policy
            .authorize(&grouped("web__get", "mcp:web"))
            .unwrap_err();
        assert!(err.contains("stored rule for `mcp:web`"), "{err}");
    }

    #[test]
    fn without_a_handler_the_answer_is_a_fail_safe_deny() {
        let policy = Policy::new(Mode::Write, "/ws".into(), Vec::new(), None);
        let err = policy.authorize(&ask("write_note", "/ws/a")).unwrap_err();
        assert!(
            err.contains("no approval handler is installed (fail-safe)"),
            "{err}"
        );
        let policy = Policy::new(
            Mode::Write,
            "/ws".into(),
            Vec::new(),
            Some(Arc::new(DenyAll)),
        );
        assert!(policy
            .authorize(&ask("write_note", "/ws/a"))
            .unwrap_err()
            .starts_with("not approved"));
    }

    #[test]
    fn stored_rules_decide_before_anyone_is_asked_deny_first() {
        let rules = vec![
            Rule {
                tool: "write_note".into(),
                path: Some("docs".into()),
                decision: RuleDecision::Allow,
            },
            Rule {
                tool: "write_note".into(),
                path: Some("docs/private".into()),
                decision: RuleDecision::Deny,
            },
            Rule {
                tool: "exec:cargo".into(),
                path: None,
                decision: RuleDecision::Allow,
            },
        ];
        let handler = scripted(vec![Decision::Deny]);
        let policy = Policy::new(Mode::Write, "/ws".into(), rules, Some(handler.clone()));
        assert_eq!(
            policy.authorize(&ask("write_note", "/ws/docs/a.md")),
            Ok(())
        );
        assert!(policy
            .authorize(&ask("write_note", "/ws/docs/private/b.md"))
            .unwrap_err()
            .starts_with("denied by the stored rule for `write_note` in `docs/private`"));
        assert_eq!(policy.authorize(&ask("exec:cargo:network", "/ws")), Ok(()));
        assert!(handler.asked.lock().unwrap().is_empty());
        assert!(policy
            .authorize(&ask("write_note", "/ws/src/x.rs"))
            .is_err());
        assert_eq!(handler.asked.lock().unwrap().len(), 1);
        // An allow rule for the first program does not cover the rest.
        let both = Ask {
            also: vec!["exec:rm:destructive".into()],
            ..ask("exec:cargo:network", "/ws")
        };
        assert!(policy.authorize(&both).is_err());
        assert_eq!(handler.asked.lock().unwrap().len(), 2);
    }

    #[test]
    fn a_session_grant_covers_its_scope_and_nothing_else() {
        let folder = Scope::Folder {
            kind: "write_note".into(),
            folder: "/ws/docs".into(),
        };
        let handler = scripted(vec![
            Decision::ApproveForSession(folder),
            Decision::Deny,
            Decision::ApproveForSession(Scope::Kind("exec:git:network".into())),
        ]);
        let policy = Policy::new(Mode::Write, "/ws".into(), Vec::new(), Some(handler.clone()))
            .with_sandbox(sandboxed());
        assert_eq!(
            policy.authorize(&ask("write_note", "/ws/docs/a.md")),
            Ok(())
        );
        // The dialog offered the tool and the narrowest folder.
        let offered = handler.asked.lock().unwrap()[0].scopes.clone();
        assert_eq!(
            offered,
            [
                Scope::Kind("write_note".into()),
                Scope::Folder {
                    kind: "write_note".into(),
                    folder: "/ws/docs".into()
                }
            ]
        );
        assert_eq!(
            policy.authorize(&ask("write_note", "/ws/docs/sub/b.md")),
            Ok(())
        );
        assert!(policy
            .authorize(&ask("write_note", "/ws/src/c.rs"))
            .is_err());
        assert!(policy
            .check_command("shell", "git push origin main", Path::new("/ws"))
            .is_ok());
        assert!(policy
            .check_command("shell", "git fetch", Path::new("/ws"))
            .is_ok());
        // Asked three times: the folder, the write outside it, the first push.
        assert_eq!(handler.asked.lock().unwrap().len(), 3);
        // A grant for network git is not one for destructive git.
        assert!(policy
            .check_command("shell", "git push --force", Path::new("/ws"))
            .is_err());
        assert_eq!(handler.asked.lock().unwrap().len(), 4);
    }

    #[test]
    fn commands_follow_the_mode_and_their_class() {
        let handler = scripted(vec![Decision::Deny]);
        let write = Policy::new(Mode::Write, "/ws".into(), Vec::new(), Some(handler.clone()))
            .with_sandbox(sandboxed());
        let ws = Path::new("/ws");
        assert!(write.check_command("p", "cargo test", ws).is_ok());
        let err = write.check_command("p", "rm -rf build", ws).unwrap_err();
        let asked = handler.asked.lock().unwrap()[0].clone();
        assert_eq!(
            (
                asked.requester.as_str(),
                asked.action.as_str(),
                asked.detail.as_str()
            ),
            ("p", "exec:rm:destructive", "rm -rf build")
        );
        assert_eq!(
            asked.class.as_deref(),
            Some("destructive: `rm` deletes files")
        );
        assert!(err.starts_with("not approved: `exec:rm:destructive`"));
        let read = Policy::new(Mode::Read, "/ws".into(), Vec::new(), None);
        assert!(read.check_command("p", "ls -la", ws).is_ok());
        assert!(read
            .check_command("p", "touch x", ws)
            .unwrap_err()
            .starts_with("read mode"));
        let yolo = Policy::new(Mode::Yolo, "/ws".into(), Vec::new(), None);
        assert!(yolo.check_command("p", "rm -rf build", ws).is_ok());
    }

    #[test]
    fn a_folder_grant_for_a_command_covers_only_commands_whose_paths_are_inside_it() {
        let ws = tempfile::tempdir().unwrap();
        let root = ws.path().to_path_buf();
        std::fs::create_dir_all(root.join("sub2")).unwrap();
        let handler = scripted(vec![
            Decision::ApproveForSession(Scope::Folder {
                kind: "exec:rm:destructive".into(),
                folder: root.clone(),
            }),
            Decision::Deny,
            Decision::Deny,
        ]);
        let policy = Policy::new(Mode::Write, root.clone(), Vec::new(), Some(handler.clone()))
            .with_sandbox(sandboxed());
        assert!(policy.check_command("shell", "rm -rf sub2", &root).is_ok());
        // The grant was for the workspace; /tmp/x is not in it.
        assert!(policy
            .check_command("shell", "rm -rf /tmp/x", &root)
            .is_err());
        assert_eq!(handler.asked.lock().unwrap().len(), 2);
        // A target only known at run time is never inside a folder.
        assert!(policy
            .check_command("shell", "rm -rf $TARGET", &root)
            .is_err());
        assert_eq!(handler.asked.lock().unwrap().len(), 3);
        assert!(policy
            .check_command("shell", "rm -rf sub2/inner", &root)
            .is_ok());
    }

    #[test]
    fn a_rule_with_a_path_allows_only_targets_inside_it() {
        let ws = tempfile::tempdir().unwrap();
        let root = ws.path().to_path_buf();
        let rule = |path: &str| Rule {
            tool: "exec:rm".into(),
            path: Some(path.into()),
            decision: RuleDecision::Allow,
        };
        let policy =
            Policy::new(Mode::Write, root.clone(), vec![rule(".")], None).with_sandbox(sandboxed());
        assert!(policy.check_command("shell", "rm -rf build", &root).is_ok());
        assert!(policy
            .check_command("shell", "rm -rf /etc/x", &root)
            .is_err());
        assert!(policy.check_command("shell", "rm -rf ../x", &root).is_err());
        // Targets that come from xargs's input are inside no folder.
        assert!(policy
            .check_command("shell", "cat list | xargs rm -rf", &root)
            .is_err());
        let policy = Policy::new(Mode::Write, root.clone(), vec![rule("sub")], None)
            .with_sandbox(sandboxed());
        assert!(policy.check_command("shell", "rm -rf sub/x", &root).is_ok());
        assert!(policy
            .check_command("shell", "rm -rf other/x", &root)
            .is_err());
    }

    #[test]
    fn an_approved_command_gets_the_escalation_its_class_names_and_the_dialog_says_so() {
        let ws = tempfile::tempdir().unwrap();
        let root = ws.path().to_path_buf();
        let handler = scripted(vec![Decision::ApproveOnce, Decision::ApproveOnce]);
        let policy = Policy::new(Mode::Write, root.clone(), Vec::new(), Some(handler.clone()))
            .with_sandbox(sandboxed());
        let permit = policy
            .check_command("shell", "curl -o out.html example.org", &root)
            .unwrap();
        assert!(permit.network && !permit.unsandboxed && permit.workspace_writable);
        let outside = tempfile::tempdir().unwrap();
        let target = outside.path().join("new.txt");
        let permit = policy
            .check_command("shell", &format!("echo hi > {}", target.display()), &root)
            .unwrap();
        assert_eq!(permit.write_dirs, [outside.path().to_path_buf()]);
        assert!(!permit.network);
        let asked = handler.asked.lock().unwrap();
        assert_eq!(
            asked[0].grants.as_deref(),
            Some("in the sandbox, with network")
        );
        assert_eq!(
            asked[1].grants,
            Some(format!(
                "in the sandbox, with write access to {}",
                outside.path().display()
            ))
        );
    }

    #[test]
    fn without_a_sandbox_every_command_in_write_mode_is_asked_and_yolo_runs_unsandboxed() {
        let handler = scripted(vec![Decision::Deny]);
        let ws = Path::new("/ws");
        let policy = Policy::new(Mode::Write, "/ws".into(), Vec::new(), Some(handler.clone()));
        let err = policy.check_command("shell", "ls", ws).unwrap_err();
        assert!(err.contains("exec:unsandboxed"), "{err}");
        let yolo =
            Policy::new(Mode::Yolo, "/ws".into(), Vec::new(), None).with_sandbox(sandboxed());
        assert!(yolo.check_command("shell", "ls", ws).unwrap().unsandboxed);
        let always = Policy::new(Mode::Yolo, "/ws".into(), Vec::new(), None)
            .with_sandbox(SandboxStance::fixed(true, true));
        let permit = always.check_command("shell", "curl x.org", ws).unwrap();
        assert!(!permit.unsandboxed && permit.network);
        let read =
            Policy::new(Mode::Read, "/ws".into(), Vec::new(), None).with_sandbox(sandboxed());
        assert!(
            !read
                .check_command("shell", "ls", ws)
                .unwrap()
                .workspace_writable
        );
    }
}
