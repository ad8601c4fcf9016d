//! Tool dispatch. Seed: "Tool dispatch", every arrow: a call is denied when
//! the tool is unknown, its arguments are not JSON or fail the tool's
//! schema, it repeats an identical call of the last assistant turn, the
//! mode blocks it or the approval gate says no; allowed calls run in
//! parallel on blocking threads; results come back in the original order,
//! one envelope per call.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use serde_json::Value;
use tokio_util::sync::CancellationToken;

use super::envelope::{Envelope, Status};
use crate::blocking::{self, Blocked};
use crate::confine::confine;
use crate::hooks::{HookEvent, HookRunner, PreTool};
pub use crate::policy::Mode;
use crate::policy::{Ask, Policy, PolicyError};
use crate::ports::dialect::ToolCall;
use crate::ports::Tool;

pub use crate::ports::tool::schema_problems;

/// Up to five ways `args` fails `validator`, as the model is told them.
fn schema_mismatch(
    name: &str,
    validator: &jsonschema::Validator,
    args: &Value,
) -> Result<(), PolicyError> {
    let problems = schema_problems(validator, args);
    if problems.is_empty() {
        return Ok(());
    }
    Err(PolicyError::BadArguments {
        tool: name.to_string(),
        problems,
    })
}

/// The schema check dispatch makes, for a caller outside the loop
/// (`amber tool call`): the same message the model would get. A schema
/// that does not compile checks nothing, as in dispatch.
pub fn check_arguments(name: &str, schema: &Value, args: &Value) -> Result<(), PolicyError> {
    match jsonschema::validator_for(schema) {
        Ok(validator) => schema_mismatch(name, &validator, args),
        Err(_) => Ok(()),
    }
}

struct Entry {
    tool: Arc<dyn Tool>,
    /// Compiled at the tool's first call: compiling checks the schema
    /// against its draft's meta-schema, whose own validator costs a start
    /// tens of milliseconds, and most sessions call few of their tools.
    /// `None` when the schema does not compile: the tool still runs and
    /// checks its own arguments (a warning says so, once).
    validator: OnceLock<Option<jsonschema::Validator>>,
}

pub struct Dispatcher {
    tools: HashMap<String, Entry>,
    policy: Arc<Policy>,
    /// Where a call's tool is looked up first, by name, when set: a
    /// plugin reloaded mid-turn answers from its new instance (the
    /// tools above are what the turn's request declared).
    ledger: Option<Arc<crate::Ledger>>,
    /// Problems found since last taken (a schema that does not compile).
    warnings: Mutex<Vec<String>>,
    /// The pre-tool hooks, and whose calls these are (`main`, `task-2`).
    hooks: Option<(Arc<HookRunner>, String)>,
    /// The arguments each call of the last dispatch ran with, by call id,
    /// when hooks may have rewritten them: what post-tool hooks are told.
    ran_with: Mutex<HashMap<String, Value>>,
}

/// A call that passed every check, ready to run.
struct Allowed {
    tool: Arc<dyn Tool>,
    args: Value,
}

impl Dispatcher {
    pub fn new(tools: &[Arc<dyn Tool>], policy: Arc<Policy>) -> Self {
        let tools = tools
            .iter()
            .map(|tool| {
                let entry = Entry {
                    tool: tool.clone(),
                    validator: OnceLock::new(),
                };
                (tool.spec().name.clone(), entry)
            })
            .collect();
        Dispatcher {
            tools,
            policy,
            ledger: None,
            warnings: Mutex::new(Vec::new()),
            hooks: None,
            ran_with: Mutex::new(HashMap::new()),
        }
    }

    /// Adds `tools` (ones that arrived mid-run); a name it has is kept.
    pub fn add(&mut self, tools: &[Arc<dyn Tool>]) {
        for tool in tools {
            self.tools
                .entry(tool.spec().name.clone())
                .or_insert_with(|| Entry {
                    tool: tool.clone(),
                    validator: OnceLock::new(),
                });
        }
    }

    /// The arguments call `id` of the last dispatch ran with, when hooks
    /// were there to rewrite them.
    pub fn ran_with(&self, id: &str) -> Option<Value> {
        self.ran_with
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get(id)
            .cloned()
    }

    /// Its calls pass `hooks`' pre-tool hooks, as `agent`'s.
    pub fn hooked(mut self, hooks: Option<(Arc<HookRunner>, String)>) -> Self {
        self.hook(hooks);
        self
    }

    /// [`Self::hooked`], in place.
    pub fn hook(&mut self, hooks: Option<(Arc<HookRunner>, String)>) {
        self.hooks = hooks;
    }

    /// The hooks its calls pass, if any.
    pub fn hooks(&self) -> Option<&(Arc<HookRunner>, String)> {
        self.hooks.as_ref()
    }

    /// Calls go to the ledger's tool of the same name when it has one.
    pub fn following(mut self, ledger: Option<Arc<crate::Ledger>>) -> Self {
        self.follow(ledger);
        self
    }

    /// [`Self::following`], in place.
    pub fn follow(&mut self, ledger: Option<Arc<crate::Ledger>>) {
        self.ledger = ledger;
    }

    /// The ledger calls follow, if any.
    pub fn ledger(&self) -> Option<&Arc<crate::Ledger>> {
        self.ledger.as_ref()
    }

    /// What a call of `name` may change, for checkpoints: whether it may
    /// write at all, and whether through commands (or a sub-agent), whose
    /// files are not known ahead.
    pub fn may_change(&self, name: &str) -> (bool, bool) {
        if name == super::task::TASK_TOOL {
            return (true, true);
        }
        match self.tools.get(name) {
            Some(entry) => {
                let spec = entry.tool.spec();
                (!spec.read_only, !spec.read_only && spec.gated_by_exec)
            }
            None => (false, false),
        }
    }

    /// The policy every call is checked against.
    pub fn policy(&self) -> &Arc<Policy> {
        &self.policy
    }

    /// Problems found since the last call (a tool whose input schema does
    /// not compile, found at its first call), for the run's warnings.
    pub fn take_warnings(&self) -> Vec<String> {
        std::mem::take(&mut *self.warnings.lock().unwrap_or_else(|e| e.into_inner()))
    }

    /// The validator of `entry`'s schema, compiled now if this is its
    /// first call.
    fn validator<'e>(&self, name: &str, entry: &'e Entry) -> Option<&'e jsonschema::Validator> {
        entry
            .validator
            .get_or_init(|| match jsonschema::validator_for(&entry.tool.spec().input_schema) {
                Ok(validator) => Some(validator),
                Err(e) => {
                    self.warnings
                        .lock()
                        .unwrap_or_else(|e| e.into_inner())
                        .push(format!(
                            "tool `{name}` has an invalid input schema ({e}); its arguments are not checked"
                        ));
                    None
                }
            })
            .as_ref()
    }

    /// Runs `calls` and returns one envelope per call, in their order.
    /// `previous` holds the calls of the assistant turn before this one.
    /// When `cancel` fires, calls still running get an "interrupted" error.
    pub async fn dispatch(
        &self,
        calls: &[ToolCall],
        previous: &[ToolCall],
        cancel: &CancellationToken,
    ) -> Vec<Envelope> {
        let mut seen: Vec<(&str, Value)> = Vec::new();
        let mut slots = Vec::with_capacity(calls.len());
        self.ran_with
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clear();
        for call in calls {
            let slot = match self.check(call, previous, &seen, cancel).await {
                Ok(allowed) => {
                    seen.push((call.name.as_str(), allowed.args.clone()));
                    if self.hooks.is_some() {
                        self.ran_with
                            .lock()
                            .unwrap_or_else(|e| e.into_inner())
                            .insert(call.id.clone(), allowed.args.clone());
                    }
                    let Allowed { tool, args } = allowed;
                    let scope = crate::policy::scope::CallScope {
                        call_id: call.id.clone(),
                        agent: self.policy.agent().to_string(),
                        policy: self.policy.clone(),
                        cancel: cancel.clone(),
                    };
                    Slot::Running(Box::pin(blocking::run(cancel, move || {
                        crate::policy::scope::within(Some(scope), || {
                            Envelope::from_tool(tool.call(&args))
                        })
                    })))
                }
                Err(denied) => Slot::Done(denied),
            };
            slots.push(slot);
        }
        let mut envelopes = Vec::with_capacity(slots.len());
        for slot in slots {
            let envelope = match slot {
                Slot::Done(envelope) => envelope,
                Slot::Running(running) => match running.await {
                    // A call that failed because the run was cancelled
                    // (its command killed) was interrupted.
                    Ok(envelope) if cancel.is_cancelled() && envelope.status != Status::Ok => {
                        Envelope::error(format!(
                            "{}\n{}",
                            crate::session::INTERRUPTED,
                            envelope.output
                        ))
                    }
                    Ok(envelope) => envelope,
                    Err(Blocked::Interrupted) => Envelope::interrupted(),
                    Err(e @ Blocked::Panicked(_)) => Envelope::error(format!("the tool call {e}")),
                },
            };
            envelopes.push(envelope);
        }
        envelopes
    }

    /// Every check of the flowchart, in its order.
    /// The hooks and the policy, which may wait on a process or a person,
    /// run through [`blocking::run`], and an interrupt ends their wait.
    async fn check(
        &self,
        call: &ToolCall,
        previous: &[ToolCall],
        earlier_in_turn: &[(&str, Value)],
        cancel: &CancellationToken,
    ) -> Result<Allowed, Envelope> {
        let Some(entry) = self.tools.get(&call.name) else {
            return Err(Envelope::denied(format!(
                "tool not found: `{}` (available: {})",
                call.name,
                self.names()
            )));
        };
        // The tool that will run, and every check below made against it:
        // the ledger's (a plugin reloaded mid-turn answers from its new
        // instance) only when it is the tool the turn declared, spec for
        // spec; a tool that changed under the same name waits for the next
        // turn, whose request declares it as it is now.
        let tool = match self.ledger.as_ref().and_then(|l| l.tool(&call.name)) {
            Some(current) if current.spec() == entry.tool.spec() => current,
            Some(_) => {
                return Err(Envelope::denied(format!(
                    "`{}` changed while this turn ran (a plugin was reloaded); it is offered as it is now from the next turn",
                    call.name
                )))
            }
            None => entry.tool.clone(),
        };
        let mut args = parse_arguments(&call.arguments).map_err(Envelope::denied)?;
        let validator = self.validator(&call.name, entry);
        if let Some(validator) = validator {
            schema_mismatch(&call.name, validator, &args)
                .map_err(|e| Envelope::denied(e.to_string()))?;
        }
        let mut hook_asks = None;
        if let Some((hooks, agent)) = &self.hooks {
            if hooks.handles(HookEvent::PreTool) {
                let before = args.clone();
                let (hooks, agent, mode, name) = (
                    hooks.clone(),
                    agent.clone(),
                    self.policy.mode(),
                    call.name.clone(),
                );
                let asked =
                    blocking::run(cancel, move || hooks.pre_tool(&agent, mode, &name, args));
                args = match asked.await {
                    Ok(PreTool::Allow(args)) => args,
                    Ok(PreTool::Deny(reason)) => return Err(Envelope::denied(reason)),
                    Ok(PreTool::Ask { reason, args }) => {
                        hook_asks = Some(reason);
                        args
                    }
                    Err(Blocked::Interrupted) => return Err(Envelope::interrupted()),
                    Err(e @ Blocked::Panicked(_)) => {
                        return Err(Envelope::denied(format!("the pre-tool hooks: {e}")))
                    }
                };
                // A rewrite is held to the tool's schema like the model's
                // own arguments.
                if args != before {
                    if let Some(validator) = validator {
                        schema_mismatch(&call.name, validator, &args).map_err(|e| {
                            Envelope::denied(format!("a hook rewrote the arguments, and {e}"))
                        })?;
                    }
                }
            }
        }
        let repeated_from_last_turn = previous.iter().any(|p| {
            p.name == call.name && parse_arguments(&p.arguments).ok().as_ref() == Some(&args)
        });
        if repeated_from_last_turn {
            return Err(Envelope::denied(format!(
                "duplicate: `{}` was already called with identical arguments in the last turn; use its result",
                call.name
            )));
        }
        if earlier_in_turn
            .iter()
            .any(|(n, a)| *n == call.name && *a == args)
        {
            return Err(Envelope::denied(format!(
                "duplicate: `{}` is called twice with identical arguments in this turn",
                call.name
            )));
        }
        let spec = tool.spec();
        let paths = if spec.approval_group.is_some() {
            confine_within(&args, self.policy.root(), tool.roots())
        } else {
            confine_arguments(&mut args, self.policy.root())
        }
        .map_err(Envelope::denied)?;
        // `tool_search` only reads declarations, and finds only what the
        // narrowing allows: the way to a narrowed-to tool that waits.
        let searching = call.name == crate::engine::tool_search::TOOL_SEARCH;
        if let Some(narrowing) = self.policy.narrowing().filter(|_| !searching) {
            if !narrowing.allows(&call.name) {
                return Err(Envelope::denied(format!(
                    "skill `{}` allows only {} until this request ends; `{}` is not among them",
                    narrowing.by.join("` and `"),
                    narrowing.tools.join(", "),
                    call.name
                )));
            }
        }
        // Who serves the call, for a tool the user let read mode call.
        let reads_too = || {
            let owner = self.ledger.as_ref().and_then(|ledger| {
                ledger
                    .records()
                    .into_iter()
                    .find(|(_, c)| c.kind == crate::CapabilityKind::Tool && c.name == call.name)
                    .map(|(owner, _)| owner)
            });
            self.policy.reads_too(owner.as_ref(), &call.name)
        };
        match self.policy.mode() {
            Mode::Read if !spec.read_only && !reads_too() => {
                return Err(Envelope::denied(format!(
                    "read mode: `{}` can change things, and this run may only read (rerun with --mode write)",
                    call.name
                )))
            }
            Mode::Plan if !spec.read_only && !reads_too() => {
                return Err(Envelope::denied(format!(
                    "plan mode: `{}` can change things; read what you need, then propose your plan with `exit_plan`",
                    call.name
                )))
            }
            // A tool that writes only through `exec` is asked about there,
            // on each exact command.
            // A hook's ask below puts it to the user; once is enough.
            Mode::Write if !spec.read_only && !spec.gated_by_exec && hook_asks.is_none() => {
                let ask = Ask {
                    requester: "model".into(),
                    kind: call.name.clone(),
                    detail: args.to_string(),
                    cwd: self.policy.root().to_path_buf(),
                    class: "writes".into(),
                    paths: paths.clone(),
                    also: Vec::new(),
                    open_paths: false,
                    grants: None,
                    group: spec.approval_group.clone(),
                };
                let policy = self.policy.clone();
                settle(blocking::run(cancel, move || policy.authorize(&ask)).await)?;
            }
            Mode::Plan | Mode::Read | Mode::Write | Mode::Yolo => {}
        }
        // A hook's `ask` puts the call to the user in every mode, past
        // any "for the session" approval.
        if let Some(reason) = hook_asks {
            let ask = Ask {
                requester: "model".into(),
                kind: call.name.clone(),
                detail: args.to_string(),
                cwd: self.policy.root().to_path_buf(),
                class: reason,
                paths,
                also: Vec::new(),
                open_paths: false,
                grants: None,
                group: spec.approval_group.clone(),
            };
            let policy = self.policy.clone();
            settle(blocking::run(cancel, move || policy.ask_user(&ask)).await)?;
        }
        Ok(Allowed { tool, args })
    }

    fn names(&self) -> String {
        let mut names: Vec<&str> = self.tools.keys().map(String::as_str).collect();
        names.sort_unstable();
        if names.is_empty() {
            "none".into()
        } else {
            names.join(", ")
        }
    }
}

enum Slot {
    Done(Envelope),
    Running(std::pin::Pin<Box<dyn std::future::Future<Output = Result<Envelope, Blocked>> + Send>>),
}

/// Keys whose string values (or lists of strings) name files.
fn is_path_key(key: &str) -> bool {
    matches!(
        key,
        "path"
            | "paths"
            | "file"
            | "files"
            | "dir"
            | "directory"
            | "cwd"
            | "target"
            | "source"
            | "destination"
            | "from"
            | "to"
    ) || key.ends_with("_path")
        || key.ends_with("_file")
        || key.ends_with("_dir")
}

/// Confines the path arguments of a call to the workspace (even yolo mode
/// never lets a path out) and rewrites absolute ones relative to `root`,
/// since tools see the workspace at their own mount. Returns the confined
/// absolute paths, for rules and approval.
pub fn confine_arguments(
    args: &mut Value,
    root: &std::path::Path,
) -> Result<Vec<std::path::PathBuf>, String> {
    let mut confined = Vec::new();
    let mut refused = None;
    visit_paths(args, &mut |path| match confine(root, path) {
        Ok(inside) => {
            confined.push(inside);
            if let Ok(rest) = std::path::Path::new(path.as_str()).strip_prefix(root) {
                let rest = rest.to_string_lossy().into_owned();
                *path = if rest.is_empty() { ".".into() } else { rest };
            }
        }
        Err(e) => {
            refused.get_or_insert_with(|| format!("path refused: {e}"));
        }
    });
    match refused {
        Some(reason) => Err(reason),
        None => Ok(confined),
    }
}

/// Confines the path arguments as [`confine_arguments`] does, but leaves
/// them as given: a tool of an outside server (MCP) does not see the
/// workspace at a mount of its own, so a path means to it what it means
/// to amber.
pub fn confine_only(
    args: &Value,
    root: &std::path::Path,
) -> Result<Vec<std::path::PathBuf>, String> {
    confine_within(args, root, &[])
}

/// [`confine_only`], where an absolute path may also lead inside one of
/// `roots`: the folders the user gave an MCP server (docs/mcp.md). A
/// relative path is the workspace's, as always.
pub fn confine_within(
    args: &Value,
    root: &std::path::Path,
    roots: &[std::path::PathBuf],
) -> Result<Vec<std::path::PathBuf>, String> {
    let mut copy = args.clone();
    let mut confined = Vec::new();
    let mut refused = None;
    visit_paths(&mut copy, &mut |path| {
        let in_a_root = || {
            std::path::Path::new(path.as_str())
                .is_absolute()
                .then(|| roots.iter().find_map(|r| confine(r, path).ok()))
                .flatten()
        };
        match confine(root, path) {
            Ok(inside) => confined.push(inside),
            Err(e) => match in_a_root() {
                Some(inside) => confined.push(inside),
                None if roots.is_empty() => {
                    refused.get_or_insert_with(|| format!("path refused: {e}"));
                }
                None => {
                    let listed: Vec<String> =
                        roots.iter().map(|r| r.display().to_string()).collect();
                    refused.get_or_insert_with(|| {
                        format!(
                            "path refused: `{path}` is outside the workspace `{}` and the server's roots ({})",
                            root.display(),
                            listed.join(", ")
                        )
                    });
                }
            },
        }
    });
    match refused {
        Some(reason) => Err(reason),
        None => Ok(confined),
    }
}

/// Calls `visit` on every path-like argument of a call, at any depth.
fn visit_paths(value: &mut Value, visit: &mut dyn FnMut(&mut String)) {
    match value {
        Value::Object(map) => {
            for (key, v) in map.iter_mut() {
                match v {
                    Value::String(s) if is_path_key(key) => visit(s),
                    Value::Array(items) if is_path_key(key) => {
                        for item in items.iter_mut() {
                            if let Value::String(s) = item {
                                visit(s);
                            }
                        }
                    }
                    _ => visit_paths(v, visit),
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(|v| visit_paths(v, visit)),
        _ => {}
    }
}

/// The arguments as a JSON value; an empty string means no arguments.
/// The policy's answer, from its blocking thread, as the call's result.
fn settle(answer: Result<Result<(), PolicyError>, Blocked>) -> Result<(), Envelope> {
    match answer {
        Ok(Ok(())) => Ok(()),
        Ok(Err(e)) => Err(Envelope::denied(e.to_string())),
        Err(Blocked::Interrupted) => Err(Envelope::interrupted()),
        Err(e @ Blocked::Panicked(_)) => Err(Envelope::denied(format!("the policy: {e}"))),
    }
}

fn parse_arguments(text: &str) -> Result<Value, String> {
    if text.trim().is_empty() {
        return Ok(Value::Object(Default::default()));
    }
    serde_json::from_str(text).map_err(|e| format!("invalid JSON arguments ({e}): {}", clip(text)))
}

fn clip(text: &str) -> String {
    const MAX: usize = 200;
    if text.len() <= MAX {
        return text.to_string();
    }
    let mut end = MAX;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}…", &text[..end])
}

#[cfg(test)]
#[path = "dispatch_tests.rs"]
mod tests;
