//! Firing an event: every matching hook at once, each on its own thread
//! (and so its own instance), then one combined answer. Deny beats ask,
//! ask beats allow; rewrites apply one after another in priority order,
//! each hook seeing what the one before left; context is joined in the
//! same order. A failing hook denies on the events that fail closed and is
//! a warning on the rest. Every hook's outcome is kept for the run's
//! events and the session record ([`HookRunner::take_outcomes`]).

use std::sync::{Arc, Mutex};
use std::time::Instant;

use serde_json::Value;

use crate::policy::Mode;
use crate::ports::hook::{
    Decision, Hook, HookContext, HookEvent, HookOutcome, HookSpec, OnError, Payload,
};
use crate::Ledger;

/// A stop hook may continue a run at most this many times in a row.
pub const MAX_STOP_CONTINUES: u32 = 3;

/// What the `permission-request` hooks answered for the user.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PermissionAnswer {
    /// The hook `hook` approved.
    Approved { hook: String },
    /// A hook denied; `reason` names it (`hook \`guard\`: why`).
    Denied { reason: String },
}

/// The combined answer to a `pre-tool` event.
#[derive(Debug, Clone, PartialEq)]
pub enum PreTool {
    /// Run, with these arguments (rewritten or not).
    Allow(Value),
    /// Do not run; the reason is the tool's result.
    Deny(String),
    /// Ask the user, in every mode, with the reason; then run with these
    /// arguments.
    Ask { reason: String, args: Value },
}

/// One hook's answer, after its failure policy.
struct Answer {
    id: String,
    /// None for a hook that failed closed and was unloaded since
    /// ([`HookRunner`]'s tombstones): it has no instance to ask again.
    hook: Option<Arc<dyn Hook>>,
    decision: Decision,
}

/// The answers of one firing, in priority order.
pub struct Fired {
    answers: Vec<Answer>,
}

impl Fired {
    /// Every `Context` joined, in priority order, each under its hook.
    pub fn context(&self) -> Option<String> {
        let parts: Vec<String> = self
            .answers
            .iter()
            .filter_map(|a| match &a.decision {
                Decision::Context(text) if !text.trim().is_empty() => {
                    Some(format!("[hook `{}`] {}", a.id, text.trim_end()))
                }
                _ => None,
            })
            .collect();
        (!parts.is_empty()).then(|| parts.join("\n"))
    }

    /// The first deny, naming its hook.
    pub fn denied(&self) -> Option<String> {
        self.answers.iter().find_map(|a| match &a.decision {
            Decision::Deny(reason) => Some(format!("hook `{}`: {reason}", a.id)),
            _ => None,
        })
    }

    fn find(&self, pick: impl Fn(&Decision) -> Option<String>) -> Option<(String, String)> {
        self.answers
            .iter()
            .find_map(|a| pick(&a.decision).map(|s| (a.id.clone(), s)))
    }
}

/// Per hook id (a plugin's): the priority and failure rule the user's
/// config gives it, over the hook's own.
pub type Overrides = std::collections::HashMap<String, (i32, Option<OnError>)>;

pub struct HookRunner {
    ledger: Arc<Ledger>,
    session_id: Mutex<String>,
    workspace: Option<String>,
    outcomes: Mutex<Vec<HookOutcome>>,
    overrides: Overrides,
    /// Hooks whose last call failed where a failure denies: if the
    /// runtime then unloads their plugin (three failures in a row), the
    /// action they guarded stays denied for this session instead of
    /// running unguarded. By hook id and event, with the cause.
    tombstones: Mutex<std::collections::HashMap<(String, HookEvent), String>>,
}

thread_local! {
    /// How many hooks this thread is inside: a hook's own command is not
    /// put to the permission-request hooks again (policy.rs). Per thread,
    /// not per App or process, because it is a fact of the call stack: the
    /// hook's command is checked on the thread that runs the hook (its
    /// `exec` import, or the command hook's spawner), and no other thread
    /// is inside that hook, whichever App fired it.
    static IN_HOOK: std::cell::Cell<u32> = const { std::cell::Cell::new(0) };
}

/// Whether this thread is running a hook.
pub fn in_hook() -> bool {
    IN_HOOK.with(|depth| depth.get() > 0)
}

impl HookRunner {
    /// Fires the hooks `ledger` holds at the moment of each event, so a
    /// plugin enabled or disabled mid-session counts from its next event.
    pub fn new(ledger: Arc<Ledger>, session_id: String, workspace: Option<String>) -> Self {
        HookRunner {
            ledger,
            session_id: Mutex::new(session_id),
            workspace,
            outcomes: Mutex::new(Vec::new()),
            overrides: Overrides::new(),
            tombstones: Mutex::new(std::collections::HashMap::new()),
        }
    }

    /// The user's priorities and failure rules, by hook id.
    pub fn with_overrides(mut self, overrides: Overrides) -> Self {
        self.overrides = overrides;
        self
    }

    fn priority(&self, spec: &HookSpec) -> i32 {
        self.overrides
            .get(&spec.id)
            .map_or(spec.priority, |(priority, _)| *priority)
    }

    fn fails_closed(&self, spec: &HookSpec) -> bool {
        match self.overrides.get(&spec.id) {
            Some((_, Some(OnError::Deny))) => true,
            Some((_, Some(OnError::Allow))) => false,
            _ => spec.fails_closed(),
        }
    }

    /// Another session (`/clear`).
    pub fn set_session(&self, session_id: String) {
        *self.session_id.lock().unwrap_or_else(|e| e.into_inner()) = session_id;
    }

    /// Whether any hook handles `event`: the caller skips building a
    /// payload when none does.
    pub fn handles(&self, event: HookEvent) -> bool {
        self.ledger.has_hooks(event)
    }

    /// The outcomes since last taken, in the order they happened.
    pub fn take_outcomes(&self) -> Vec<HookOutcome> {
        std::mem::take(&mut *self.outcomes.lock().unwrap_or_else(|e| e.into_inner()))
    }

    fn context(&self, agent: &str, mode: Mode) -> HookContext {
        HookContext {
            session_id: self
                .session_id
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .clone(),
            agent: agent.to_string(),
            mode,
            workspace: self.workspace.clone(),
        }
    }

    /// Runs every hook of the payload's event that matches it, in
    /// parallel, and returns their answers in priority order.
    pub fn fire(&self, agent: &str, mode: Mode, payload: &Payload) -> Fired {
        let event = payload.event();
        let mut hooks: Vec<Arc<dyn Hook>> = self
            .ledger
            .hooks(event)
            .into_iter()
            .filter(|h| match payload.tool() {
                Some(tool) => h.spec().matcher.matches(tool),
                None => true,
            })
            .collect();
        // Stable: ties keep install order.
        hooks.sort_by_key(|h| self.priority(h.spec()));
        let mut answers = self.tombstoned(&hooks, payload);
        if hooks.is_empty() {
            return Fired { answers };
        }
        let ctx = self.context(agent, mode);
        let asked = if hooks.len() == 1 {
            let hook = &hooks[0];
            let answer = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                self.ask(hook, &ctx, payload)
            }));
            vec![answer.unwrap_or_else(|_| {
                self.failed(hook, payload, "the hook panicked inside the host", 0)
            })]
        } else {
            std::thread::scope(|scope| {
                let running: Vec<_> = hooks
                    .iter()
                    .map(|hook| {
                        let ctx = &ctx;
                        scope.spawn(move || self.ask(hook, ctx, payload))
                    })
                    .collect();
                hooks
                    .iter()
                    .zip(running)
                    .map(|(hook, handle)| {
                        handle.join().unwrap_or_else(|_| {
                            self.failed(hook, payload, "the hook panicked inside the host", 0)
                        })
                    })
                    .collect()
            })
        };
        answers.extend(asked);
        Fired { answers }
    }

    /// A deny for each hook of this event that failed closed and is gone
    /// from the ledger since (its plugin unloaded after failing).
    fn tombstoned(&self, live: &[Arc<dyn Hook>], payload: &Payload) -> Vec<Answer> {
        let event = payload.event();
        let tombstones = self.tombstones.lock().unwrap_or_else(|e| e.into_inner());
        let mut dead: Vec<(&String, &String)> = tombstones
            .iter()
            .filter(|((id, e), _)| *e == event && !live.iter().any(|h| &h.spec().id == id))
            .map(|((id, _), why)| (id, why))
            .collect();
        dead.sort();
        dead.into_iter()
            .map(|(id, why)| Answer {
                id: id.clone(),
                hook: None,
                decision: Decision::Deny(format!(
                    "the hook failed ({why}) and its plugin was unloaded, so what it guarded stays denied for this session; enable the plugin again (`amber plugin enable {id}`), or start a new session"
                )),
            })
            .collect()
    }

    /// One hook's answer, its failure turned into a deny or a pass by its
    /// failure policy, and its outcome kept.
    fn ask(&self, hook: &Arc<dyn Hook>, ctx: &HookContext, payload: &Payload) -> Answer {
        let started = Instant::now();
        IN_HOOK.with(|depth| depth.set(depth.get() + 1));
        let result = hook.handle(ctx, payload);
        IN_HOOK.with(|depth| depth.set(depth.get().saturating_sub(1)));
        let micros = started.elapsed().as_micros() as u64;
        let event = payload.event();
        match result {
            Ok(decision) if decision.fits(event) => {
                self.tombstones
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .remove(&(hook.spec().id.clone(), event));
                self.keep(HookOutcome {
                    event,
                    hook: hook.spec().id.clone(),
                    tool: payload.tool().map(str::to_string),
                    outcome: decision.label().to_string(),
                    detail: detail(&decision),
                    denied: false,
                    micros,
                });
                Answer {
                    id: hook.spec().id.clone(),
                    hook: Some(hook.clone()),
                    decision,
                }
            }
            Ok(decision) => self.failed(
                hook,
                payload,
                &format!(
                    "it answered `{}`, which {event} does not take",
                    decision.label()
                ),
                micros,
            ),
            Err(e) => self.failed(hook, payload, &e.0, micros),
        }
    }

    fn failed(&self, hook: &Arc<dyn Hook>, payload: &Payload, why: &str, micros: u64) -> Answer {
        let spec = hook.spec();
        let closed = self.fails_closed(spec);
        self.keep(HookOutcome {
            event: payload.event(),
            hook: spec.id.clone(),
            tool: payload.tool().map(str::to_string),
            outcome: "failed".into(),
            detail: Some(why.to_string()),
            denied: closed,
            micros,
        });
        let decision = if closed {
            self.tombstones
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .insert((spec.id.clone(), payload.event()), why.to_string());
            Decision::Deny(format!("the hook failed ({why}), so the action is denied"))
        } else {
            Decision::Pass
        };
        Answer {
            id: spec.id.clone(),
            hook: Some(hook.clone()),
            decision,
        }
    }

    fn keep(&self, outcome: HookOutcome) {
        self.outcomes
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(outcome);
    }

    /// `pre-tool`: deny beats ask beats allow; rewrites then apply in
    /// priority order, each later rewriter asked again with the arguments
    /// the one before left. Arguments that were rewritten are put to every
    /// hook once more, so a guard that passed the model's arguments also
    /// judges the ones that will run (a second rewrite there is not taken).
    pub fn pre_tool(&self, agent: &str, mode: Mode, tool: &str, args: Value) -> PreTool {
        let original = args.clone();
        let payload = Payload::PreTool {
            tool: tool.to_string(),
            args,
        };
        let fired = self.fire(agent, mode, &payload);
        if let Some(reason) = fired.denied() {
            return PreTool::Deny(format!("denied by {reason}"));
        }
        let mut ask = fired.find(|d| match d {
            Decision::Ask(reason) => Some(reason.clone()),
            _ => None,
        });
        let mut args = original.clone();
        let mut first = true;
        for answer in &fired.answers {
            let (Decision::Rewrite(rewritten), Some(hook)) = (&answer.decision, &answer.hook)
            else {
                continue;
            };
            if first {
                args = rewritten.clone();
                first = false;
                continue;
            }
            let again = Payload::PreTool {
                tool: tool.to_string(),
                args: args.clone(),
            };
            let answer = self.ask(hook, &self.context(agent, mode), &again);
            match answer.decision {
                Decision::Rewrite(rewritten) => args = rewritten,
                Decision::Deny(reason) => {
                    return PreTool::Deny(format!("denied by hook `{}`: {reason}", answer.id))
                }
                Decision::Ask(reason) => {
                    ask.get_or_insert((answer.id, reason));
                }
                _ => {}
            }
        }
        if args != original {
            let last = Payload::PreTool {
                tool: tool.to_string(),
                args: args.clone(),
            };
            let check = self.fire(agent, mode, &last);
            if let Some(reason) = check.denied() {
                return PreTool::Deny(format!("denied by {reason} (on the rewritten arguments)"));
            }
            if ask.is_none() {
                ask = check.find(|d| match d {
                    Decision::Ask(reason) => Some(reason.clone()),
                    _ => None,
                });
            }
        }
        match ask {
            Some((hook, reason)) => PreTool::Ask {
                reason: format!("hook `{hook}` asks: {reason}"),
                args,
            },
            None => PreTool::Allow(args),
        }
    }

    /// `user-prompt-submit`: `Err` is a block, naming the hook; `Ok` may
    /// carry context for the model.
    pub fn user_prompt(
        &self,
        agent: &str,
        mode: Mode,
        prompt: &str,
    ) -> Result<Option<String>, String> {
        let fired = self.fire(
            agent,
            mode,
            &Payload::UserPromptSubmit {
                prompt: prompt.to_string(),
            },
        );
        match fired.denied() {
            Some(reason) => Err(format!("the prompt was blocked by {reason}")),
            None => Ok(fired.context()),
        }
    }

    /// `post-tool`: what to add after the result: each hook's context and
    /// flags, named.
    pub fn post_tool(&self, agent: &str, mode: Mode, payload: &Payload) -> Option<String> {
        let fired = self.fire(agent, mode, payload);
        let mut lines: Vec<String> = fired
            .answers
            .iter()
            .filter_map(|a| match &a.decision {
                Decision::Flag(flag) => Some(format!("[flagged by hook `{}`] {flag}", a.id)),
                _ => None,
            })
            .collect();
        lines.extend(fired.context());
        (!lines.is_empty()).then(|| lines.join("\n"))
    }

    /// `permission-request`: what the hooks answered, or `None` to leave
    /// it to the user. A deny beats an approve.
    pub fn permission(
        &self,
        agent: &str,
        mode: Mode,
        payload: &Payload,
    ) -> Option<PermissionAnswer> {
        let fired = self.fire(agent, mode, payload);
        if let Some(reason) = fired.denied() {
            return Some(PermissionAnswer::Denied { reason });
        }
        fired
            .find(|d| (*d == Decision::Approve).then(String::new))
            .map(|(hook, _)| PermissionAnswer::Approved { hook })
    }

    /// `pre-compact`: `Err` skips (an automatic compaction only: the
    /// caller decides), `Ok` carries the focus words to add.
    pub fn pre_compact(
        &self,
        agent: &str,
        mode: Mode,
        payload: &Payload,
    ) -> Result<String, String> {
        let fired = self.fire(agent, mode, payload);
        if let Some((hook, reason)) = fired.find(|d| match d {
            Decision::Skip(reason) => Some(reason.clone()),
            _ => None,
        }) {
            return Err(format!("hook `{hook}`: {reason}"));
        }
        let words: Vec<&str> = fired
            .answers
            .iter()
            .filter_map(|a| match &a.decision {
                Decision::Focus(words) if !words.trim().is_empty() => Some(words.trim()),
                _ => None,
            })
            .collect();
        Ok(words.join(" "))
    }

    /// `stop`: the reason to continue, naming the hook, if one asks to.
    pub fn stop(&self, agent: &str, mode: Mode, reply: &str, continued: u32) -> Option<String> {
        let payload = Payload::Stop {
            reply: reply.to_string(),
            continued,
        };
        let fired = self.fire(agent, mode, &payload);
        fired
            .find(|d| match d {
                Decision::Continue(reason) => Some(reason.clone()),
                _ => None,
            })
            .map(|(hook, reason)| format!("[hook `{hook}` asks to continue] {reason}"))
    }
}

/// What an outcome shows of a decision.
fn detail(decision: &Decision) -> Option<String> {
    match decision {
        Decision::Pass | Decision::Approve => None,
        Decision::Rewrite(args) => Some(args.to_string()),
        Decision::Context(s)
        | Decision::Deny(s)
        | Decision::Ask(s)
        | Decision::Flag(s)
        | Decision::Focus(s)
        | Decision::Skip(s)
        | Decision::Continue(s) => Some(s.clone()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hooks::{Matcher, OnError};
    use crate::ports::PortError;
    use crate::{Owner, Service};
    use serde_json::json;

    type Respond = Box<dyn Fn(&Payload) -> Result<Decision, PortError> + Send + Sync>;

    /// A hook that answers with `answer`, given the arguments it sees.
    struct Scripted {
        spec: HookSpec,
        answer: Respond,
    }

    impl Hook for Scripted {
        fn spec(&self) -> &HookSpec {
            &self.spec
        }
        fn handle(&self, _ctx: &HookContext, payload: &Payload) -> Result<Decision, PortError> {
            (self.answer)(payload)
        }
    }

    fn install(
        ledger: &Ledger,
        id: &str,
        event: HookEvent,
        priority: i32,
        answer: impl Fn(&Payload) -> Result<Decision, PortError> + Send + Sync + 'static,
    ) {
        let spec = HookSpec::new(id, event, Matcher::any()).with_priority(priority);
        let hook = Scripted {
            spec,
            answer: Box::new(answer),
        };
        ledger
            .install(&Owner::Plugin(id.into()), Service::Hook(Arc::new(hook)))
            .unwrap();
    }

    fn runner(ledger: Arc<Ledger>) -> HookRunner {
        HookRunner::new(ledger, "s".into(), None)
    }

    #[test]
    fn deny_beats_ask_beats_allow_and_the_deny_names_its_hook() {
        let ledger = Arc::new(Ledger::new());
        install(&ledger, "a", HookEvent::PreTool, 0, |_| {
            Ok(Decision::Ask("sure?".into()))
        });
        install(&ledger, "b", HookEvent::PreTool, 0, |_| {
            Ok(Decision::Deny("no".into()))
        });
        install(&ledger, "c", HookEvent::PreTool, 0, |_| Ok(Decision::Pass));
        let got = runner(ledger.clone()).pre_tool("main", Mode::Write, "shell", json!({}));
        assert_eq!(got, PreTool::Deny("denied by hook `b`: no".into()));
        ledger.unwind(&Owner::Plugin("b".into()));
        let got = runner(ledger).pre_tool("main", Mode::Write, "shell", json!({}));
        assert!(
            matches!(got, PreTool::Ask { reason, .. } if reason.contains("hook `a` asks: sure?"))
        );
    }

    #[test]
    fn rewrites_apply_in_priority_order_each_seeing_the_last() {
        let ledger = Arc::new(Ledger::new());
        // Installed first, but a higher priority: it rewrites second.
        install(&ledger, "second", HookEvent::PreTool, 5, |p| {
            let Payload::PreTool { args, .. } = p else {
                unreachable!()
            };
            let n = args["n"].as_i64().unwrap_or(0);
            Ok(Decision::Rewrite(json!({"n": n * 10})))
        });
        install(&ledger, "first", HookEvent::PreTool, -1, |p| {
            let Payload::PreTool { args, .. } = p else {
                unreachable!()
            };
            let n = args["n"].as_i64().unwrap_or(0);
            Ok(Decision::Rewrite(json!({"n": n + 1})))
        });
        let got = runner(ledger).pre_tool("main", Mode::Yolo, "t", json!({"n": 1}));
        assert_eq!(got, PreTool::Allow(json!({"n": 20})));
    }

    #[test]
    fn a_failure_closes_pre_tool_opens_post_tool_and_on_error_overrides() {
        let ledger = Arc::new(Ledger::new());
        install(&ledger, "boom", HookEvent::PreTool, 0, |_| {
            Err(PortError("trapped".into()))
        });
        install(&ledger, "boom", HookEvent::PostTool, 0, |_| {
            Err(PortError("trapped".into()))
        });
        let hooks = runner(ledger.clone());
        let got = hooks.pre_tool("main", Mode::Yolo, "t", json!({}));
        assert!(
            matches!(&got, PreTool::Deny(r) if r.contains("hook `boom`") && r.contains("trapped")),
            "{got:?}"
        );
        let post = Payload::PostTool {
            tool: "t".into(),
            args: json!({}),
            ok: true,
            output: String::new(),
        };
        assert_eq!(hooks.post_tool("main", Mode::Yolo, &post), None);
        let outcomes = hooks.take_outcomes();
        assert_eq!(outcomes.len(), 2);
        assert!(outcomes[0].denied && !outcomes[1].denied, "{outcomes:?}");
        let lenient =
            runner(ledger).with_overrides([("boom".to_string(), (0, Some(OnError::Allow)))].into());
        let got = lenient.pre_tool("main", Mode::Yolo, "t", json!({"x": 1}));
        assert_eq!(got, PreTool::Allow(json!({"x": 1})));
    }

    #[test]
    fn a_decision_the_event_does_not_take_is_a_failure() {
        let ledger = Arc::new(Ledger::new());
        install(&ledger, "odd", HookEvent::Stop, 0, |_| {
            Ok(Decision::Rewrite(json!({})))
        });
        let hooks = runner(ledger);
        assert_eq!(hooks.stop("main", Mode::Write, "done", 0), None);
        let outcome = &hooks.take_outcomes()[0];
        assert_eq!(outcome.outcome, "failed");
        assert!(outcome.detail.as_deref().unwrap().contains("`rewrite`"));
    }

    #[test]
    fn matching_hooks_run_at_once_and_context_joins_in_priority_order() {
        let ledger = Arc::new(Ledger::new());
        let barrier = Arc::new(std::sync::Barrier::new(2));
        for (id, priority) in [("late", 2), ("early", 1)] {
            let barrier = barrier.clone();
            install(&ledger, id, HookEvent::SessionStart, priority, move |_| {
                // Both must be running for either to go on.
                barrier.wait();
                Ok(Decision::Context(id.to_string()))
            });
        }
        let fired = runner(ledger).fire(
            "main",
            Mode::Write,
            &Payload::SessionStart {
                source: crate::hooks::StartSource::Startup,
            },
        );
        assert_eq!(
            fired.context().unwrap(),
            "[hook `early`] early\n[hook `late`] late"
        );
    }

    #[test]
    fn a_guard_unloaded_after_failing_still_denies_until_it_is_back() {
        let ledger = Arc::new(Ledger::new());
        install(&ledger, "guard", HookEvent::PreTool, 0, |_| {
            Err(PortError("deadline".into()))
        });
        let hooks = runner(ledger.clone());
        assert!(matches!(
            hooks.pre_tool("main", Mode::Yolo, "shell", json!({})),
            PreTool::Deny(_)
        ));
        // The runtime unloads a plugin that failed three times in a row.
        ledger.unwind(&Owner::Plugin("guard".into()));
        let got = hooks.pre_tool("main", Mode::Yolo, "shell", json!({}));
        assert!(
            matches!(&got, PreTool::Deny(r) if r.contains("was unloaded") && r.contains("amber plugin enable guard")),
            "{got:?}"
        );
        // Enabled again and answering, it guards as before.
        install(&ledger, "guard", HookEvent::PreTool, 0, |_| {
            Ok(Decision::Pass)
        });
        let got = hooks.pre_tool("main", Mode::Yolo, "shell", json!({}));
        assert_eq!(got, PreTool::Allow(json!({})));
        ledger.unwind(&Owner::Plugin("guard".into()));
        let got = hooks.pre_tool("main", Mode::Yolo, "shell", json!({}));
        assert_eq!(
            got,
            PreTool::Allow(json!({})),
            "its tombstone went with its success"
        );
    }
}
