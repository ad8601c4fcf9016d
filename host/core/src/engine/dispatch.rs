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
use crate::confine::confine;
use crate::hooks::{HookEvent, HookRunner, PreTool};
pub use crate::policy::Mode;
use crate::policy::{Ask, Policy};
use crate::ports::dialect::ToolCall;
use crate::ports::Tool;

pub use crate::ports::tool::schema_problems;

/// Up to five ways `args` fails `validator`, as the model is told them.
fn schema_mismatch(
    name: &str,
    validator: &jsonschema::Validator,
    args: &Value,
) -> Result<(), String> {
    let problems = schema_problems(validator, args);
    if problems.is_empty() {
        return Ok(());
    }
    Err(format!(
        "the arguments do not match the schema of `{name}`: {}",
        problems.join("; ")
    ))
}

/// The schema check dispatch makes, for a caller outside the loop
/// (`amber tool call`): the same message the model would get. A schema
/// that does not compile checks nothing, as in dispatch.
pub fn check_arguments(name: &str, schema: &Value, args: &Value) -> Result<(), String> {
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
            let slot = match self.check(call, previous, &seen) {
                Ok(allowed) => {
                    seen.push((call.name.as_str(), allowed.args.clone()));
                    if self.hooks.is_some() {
                        self.ran_with
                            .lock()
                            .unwrap_or_else(|e| e.into_inner())
                            .insert(call.id.clone(), allowed.args.clone());
                    }
                    let Allowed { tool, args } = allowed;
                    Slot::Running(tokio::task::spawn_blocking(move || {
                        Envelope::from_tool(tool.call(&args))
                    }))
                }
                Err(denied) => Slot::Done(denied),
            };
            slots.push(slot);
        }
        let mut envelopes = Vec::with_capacity(slots.len());
        for slot in slots {
            let envelope = match slot {
                Slot::Done(envelope) => envelope,
                Slot::Running(mut handle) => {
                    tokio::select! {
                        biased;
                        joined = &mut handle => match joined {
                            // A call that failed because the run was
                            // cancelled (its command killed) was interrupted.
                            Ok(envelope) if cancel.is_cancelled() && envelope.status != Status::Ok => {
                                Envelope::error(format!("{}\n{}", crate::session::INTERRUPTED, envelope.output))
                            }
                            Ok(envelope) => envelope,
                            Err(e) => Envelope::error(format!("the tool call failed inside the host: {e}")),
                        },
                        _ = cancel.cancelled() => Envelope::interrupted(),
                    }
                }
            };
            envelopes.push(envelope);
        }
        envelopes
    }

    /// Every check of the flowchart, in its order.
    fn check(
        &self,
        call: &ToolCall,
        previous: &[ToolCall],
        earlier_in_turn: &[(&str, Value)],
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
            schema_mismatch(&call.name, validator, &args).map_err(Envelope::denied)?;
        }
        let mut hook_asks = None;
        if let Some((hooks, agent)) = &self.hooks {
            if hooks.handles(HookEvent::PreTool) {
                let before = args.clone();
                args = match hooks.pre_tool(agent, self.policy.mode(), &call.name, args) {
                    PreTool::Allow(args) => args,
                    PreTool::Deny(reason) => return Err(Envelope::denied(reason)),
                    PreTool::Ask { reason, args } => {
                        hook_asks = Some(reason);
                        args
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
            confine_only(&args, self.policy.root())
        } else {
            confine_arguments(&mut args, self.policy.root())
        }
        .map_err(Envelope::denied)?;
        match self.policy.mode() {
            Mode::Read if !spec.read_only => {
                return Err(Envelope::denied(format!(
                    "read mode: `{}` can change things, and this run may only read (rerun with --mode write)",
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
                self.policy.authorize(&ask).map_err(Envelope::denied)?;
            }
            Mode::Read | Mode::Write | Mode::Yolo => {}
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
            self.policy.ask_user(&ask).map_err(Envelope::denied)?;
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
    Running(tokio::task::JoinHandle<Envelope>),
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
    let mut copy = args.clone();
    confine_arguments(&mut copy, root)
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
mod tests {
    use super::*;
    use crate::ports::approver::HeadlessApprover;
    use crate::ports::{ToolError, ToolOutput, ToolSpec};
    use serde_json::json;
    use std::sync::Mutex;
    use std::time::Duration;

    /// A small fake of the Tool port. A "meeting" tool waits (up to 5 s)
    /// until another meeting call has started: two can only both succeed
    /// when they run at the same time. A slow one sleeps first.
    struct Fake {
        spec: ToolSpec,
        delay: Duration,
        meeting: Option<Arc<(Mutex<u32>, std::sync::Condvar)>>,
    }

    impl Tool for Fake {
        fn spec(&self) -> &ToolSpec {
            &self.spec
        }
        fn call(&self, args: &Value) -> Result<ToolOutput, ToolError> {
            std::thread::sleep(self.delay);
            if let Some(meeting) = &self.meeting {
                let (count, arrived) = &**meeting;
                let mut n = count.lock().unwrap();
                *n += 1;
                arrived.notify_all();
                let (n, timeout) = arrived
                    .wait_timeout_while(n, Duration::from_secs(5), |n| *n < 2)
                    .unwrap();
                if timeout.timed_out() {
                    return Err(ToolError::Failed(format!("ran alone ({} arrived)", *n)));
                }
            }
            Ok(ToolOutput {
                content: args.to_string(),
                meta: None,
            })
        }
    }

    fn tool(name: &str, read_only: bool, delay_ms: u64) -> Fake {
        Fake {
            spec: ToolSpec {
                name: name.into(),
                description: String::new(),
                input_schema: json!({"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]}),
                read_only,
                gated_by_exec: false,
                approval_group: None,
            },
            delay: Duration::from_millis(delay_ms),
            meeting: None,
        }
    }

    fn fake(name: &str, read_only: bool, delay_ms: u64) -> Arc<dyn Tool> {
        Arc::new(tool(name, read_only, delay_ms))
    }

    fn call(id: &str, name: &str, args: &str) -> ToolCall {
        ToolCall {
            id: id.into(),
            name: name.into(),
            arguments: args.into(),
        }
    }

    fn policy(mode: Mode, yes: bool) -> Arc<Policy> {
        let handler = Arc::new(HeadlessApprover { yes });
        Arc::new(Policy::new(mode, "/ws".into(), Vec::new(), Some(handler)))
    }

    fn dispatcher(mode: Mode, yes: bool) -> Dispatcher {
        let tools = [
            fake("slow", true, 200),
            fake("fast", true, 0),
            fake("write", false, 0),
        ];
        Dispatcher::new(&tools, policy(mode, yes))
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn calls_run_in_parallel_and_results_keep_the_call_order() {
        let meeting = Arc::new((Mutex::new(0), std::sync::Condvar::new()));
        let meet: Arc<dyn Tool> = Arc::new(Fake {
            meeting: Some(meeting),
            ..tool("meet", true, 0)
        });
        let tools = [meet, fake("slow", true, 50)];
        let d = Dispatcher::new(&tools, policy(Mode::Write, false));
        let calls = [
            call("1", "slow", r#"{"n":1}"#),
            call("2", "meet", r#"{"n":2}"#),
            call("3", "meet", r#"{"n":3}"#),
        ];
        let out = d.dispatch(&calls, &[], &CancellationToken::new()).await;
        let outputs: Vec<&str> = out.iter().map(|e| e.output.as_str()).collect();
        assert_eq!(outputs, [r#"{"n":1}"#, r#"{"n":2}"#, r#"{"n":3}"#]);
    }

    #[tokio::test]
    async fn a_schema_that_does_not_compile_is_reported_once_and_the_tool_still_runs() {
        let broken: Arc<dyn Tool> = Arc::new(Fake {
            spec: ToolSpec {
                input_schema: json!({"type": "object", "properties": {"n": {"type": 5}}}),
                ..tool("broken", true, 0).spec
            },
            ..tool("broken", true, 0)
        });
        let d = Dispatcher::new(&[broken], policy(Mode::Write, false));
        assert!(d.take_warnings().is_empty(), "nothing is compiled at start");
        let cancel = CancellationToken::new();
        let out = d
            .dispatch(&[call("1", "broken", r#"{"n":"x"}"#)], &[], &cancel)
            .await;
        assert_eq!(out[0].status, Status::Ok, "{}", out[0].output);
        let warnings = d.take_warnings();
        assert_eq!(warnings.len(), 1, "{warnings:?}");
        assert!(warnings[0].starts_with("tool `broken` has an invalid input schema"));
        d.dispatch(&[call("2", "broken", r#"{"n":2}"#)], &[], &cancel)
            .await;
        assert!(d.take_warnings().is_empty(), "told once");
    }

    #[tokio::test]
    async fn calls_follow_the_ledger_only_to_a_tool_declared_the_same() {
        use crate::ledger::{Ledger, Owner, Service};
        let ledger = Arc::new(Ledger::new());
        let owner = Owner::Plugin("p".into());
        ledger
            .install(&owner, Service::Tool(fake("look", true, 0)))
            .unwrap();
        let declared = [fake("look", true, 0)];
        let d =
            Dispatcher::new(&declared, policy(Mode::Read, false)).following(Some(ledger.clone()));
        let cancel = CancellationToken::new();
        let out = d
            .dispatch(&[call("1", "look", r#"{"n":1}"#)], &[], &cancel)
            .await;
        assert_eq!(out[0].status, Status::Ok, "{}", out[0].output);
        // Reloaded mid-turn into a tool that writes: read mode must not
        // run it on the strength of the old declaration.
        ledger.unwind(&owner);
        ledger
            .install(&owner, Service::Tool(fake("look", false, 0)))
            .unwrap();
        let out = d
            .dispatch(&[call("2", "look", r#"{"n":2}"#)], &[], &cancel)
            .await;
        assert_eq!(out[0].status, Status::Denied);
        assert!(
            out[0].output.contains("changed while this turn ran"),
            "{}",
            out[0].output
        );
    }

    #[tokio::test]
    async fn every_denial_of_the_flowchart_is_an_envelope() {
        let d = dispatcher(Mode::Write, false);
        let previous = [call("p", "fast", r#"{"n": 7}"#)];
        let calls = [
            call("a", "nope", "{}"),
            call("b", "fast", "{not json"),
            call("c", "fast", r#"{"n":"seven"}"#),
            call("d", "fast", r#"{"n":7}"#),
            call("e", "write", r#"{"n":1}"#),
            call("f", "fast", r#"{"n":1}"#),
            call("g", "fast", r#"{"n":1}"#),
        ];
        let out = d
            .dispatch(&calls, &previous, &CancellationToken::new())
            .await;
        let statuses: Vec<Status> = out.iter().map(|e| e.status).collect();
        use Status::*;
        assert_eq!(
            statuses,
            [Denied, Denied, Denied, Denied, Denied, Ok, Denied]
        );
        assert!(out[0]
            .output
            .starts_with("tool not found: `nope` (available: fast, slow, write)"));
        assert!(out[1].output.starts_with("invalid JSON arguments"));
        assert!(
            out[2]
                .output
                .contains("/n: \"seven\" is not of type \"integer\""),
            "{}",
            out[2].output
        );
        assert!(out[3].output.contains("in the last turn"));
        assert!(
            out[4].output.starts_with("not approved: `write` (writes)"),
            "{}",
            out[4].output
        );
        assert!(out[6]
            .output
            .contains("twice with identical arguments in this turn"));
    }

    #[tokio::test]
    async fn modes_gate_tools_that_are_not_read_only() {
        let w = [call("w", "write", r#"{"n":1}"#)];
        let token = CancellationToken::new();
        let read = dispatcher(Mode::Read, true).dispatch(&w, &[], &token).await;
        assert!(read[0].output.starts_with("read mode: `write`"));
        let yes = dispatcher(Mode::Write, true)
            .dispatch(&w, &[], &token)
            .await;
        assert_eq!(yes[0].status, Status::Ok);
        let yolo = dispatcher(Mode::Yolo, false)
            .dispatch(&w, &[], &token)
            .await;
        assert_eq!(yolo[0].status, Status::Ok);
    }

    #[tokio::test]
    async fn path_arguments_never_leave_the_workspace_even_in_yolo_mode() {
        let d = dispatcher(Mode::Yolo, true);
        let token = CancellationToken::new();
        let calls = [
            call("1", "write", r#"{"n":1,"path":"../etc/passwd"}"#),
            call(
                "2",
                "write",
                r#"{"n":2,"nested":{"files":["ok.txt","/etc/shadow"]}}"#,
            ),
            call(
                "3",
                "write",
                r#"{"n":3,"path":"/ws/inside.txt","text":"/etc/not-a-path"}"#,
            ),
        ];
        let out = d.dispatch(&calls, &[], &token).await;
        assert!(
            out[0]
                .output
                .starts_with("path refused: `../etc/passwd` is outside the workspace"),
            "{}",
            out[0].output
        );
        assert!(out[1].output.starts_with("path refused: `/etc/shadow`"));
        assert_eq!(out[2].status, Status::Ok);
        // The tool saw the absolute path made relative to the root.
        assert_eq!(
            out[2].output,
            r#"{"n":3,"path":"inside.txt","text":"/etc/not-a-path"}"#
        );
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_cancel_gives_running_calls_an_interrupted_result() {
        let d = dispatcher(Mode::Write, false);
        let token = CancellationToken::new();
        let cancel = token.clone();
        tokio::spawn(async move {
            tokio::time::sleep(Duration::from_millis(20)).await;
            cancel.cancel();
        });
        let calls = [
            call("1", "fast", r#"{"n":1}"#),
            call("2", "slow", r#"{"n":2}"#),
        ];
        let out = d.dispatch(&calls, &[], &token).await;
        assert_eq!(out[0].status, Status::Ok);
        assert_eq!(out[1].output, crate::session::INTERRUPTED);
    }
}
