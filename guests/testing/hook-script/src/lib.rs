//! A hook on all eleven events whose answers its settings script, for the
//! end-to-end tests of hooks. Test-only, never bundled.
//!
//! The setting named after an event (`pre-tool`, `stop`, …) picks its
//! answer; unset, the event answers the SDK's default:
//!
//! | event | values |
//! |---|---|
//! | `pre-tool` | `allow`, `deny:<reason>`, `ask:<reason>`, `rewrite:<json>`, `garbage` (a rewrite that is not JSON) |
//! | `user-prompt-submit` | `allow`, `context:<text>`, `block:<reason>` |
//! | `post-tool` | `context:<text>`, `flag:<text>` |
//! | `permission-request` | `approve`, `deny:<reason>`, `abstain` |
//! | `pre-compact` | `proceed:<words>`, `skip:<reason>` |
//! | `session-start`, `post-compact` | `context:<text>` |
//! | `stop` | `continue:<reason>`, `stop` |
//! | any | `trap` (panics), `spin` (loops past the deadline), `err:<message>` |
//!
//! `matcher` sets the tool matcher of `pre-tool`, `post-tool` and
//! `permission-request`; `pre-tool-only-for` applies the `pre-tool` answer
//! to that one tool name and allows the rest. Every call is logged as
//! `<event>: <detail>`, so a test can see the observe-only events fire.
use amber_sdk::prelude::*;
use amber_sdk::{
    log, setting, CompactDone, CompactRequest, HookToolResult, LogLevel, PermissionAsk,
    PermissionDecision, PostToolDecision, PreCompactDecision, PromptDecision, StartSource,
    StopDecision, StopRequest,
};

#[derive(Default)]
struct Script;

impl Plugin for Script {
    fn manifest() -> Manifest {
        amber_sdk::manifest!()
    }
}

const EVENTS: [HookEvent; 11] = [
    HookEvent::SessionStart,
    HookEvent::UserPromptSubmit,
    HookEvent::PreTool,
    HookEvent::PostTool,
    HookEvent::PermissionRequest,
    HookEvent::PreCompact,
    HookEvent::PostCompact,
    HookEvent::Stop,
    HookEvent::SubagentStop,
    HookEvent::SessionEnd,
    HookEvent::Notification,
];

/// The scripted answer for `event`, logged with `detail`: None for the
/// SDK's default, else the verb and its text (`deny:why` is `("deny",
/// "why")`). `trap`, `spin` and `err:` are served here for every event.
fn scripted(event: &str, detail: &str) -> Result<Option<(String, String)>, String> {
    log(LogLevel::Info, &format!("{event}: {detail}"));
    let Some(value) = setting(event) else {
        return Ok(None);
    };
    let (verb, text) = value.split_once(':').unwrap_or((&value, ""));
    match verb {
        "trap" => panic!("hook-script: `{event}` is scripted to trap"),
        "spin" => {
            let mut n = 0u64;
            loop {
                n = std::hint::black_box(n.wrapping_add(1));
            }
        }
        "err" => Err(text.to_string()),
        _ => Ok(Some((verb.to_string(), text.to_string()))),
    }
}

fn unknown<T>(event: &str, verb: &str) -> Result<T, String> {
    Err(format!(
        "hook-script: `{verb}` is not an answer of `{event}` (see its doc)"
    ))
}

/// `context:<text>` for the events that can only add context.
fn context(event: &str, detail: &str) -> Result<Option<String>, String> {
    match scripted(event, detail)? {
        None => Ok(None),
        Some((verb, text)) if verb == "context" => Ok(Some(text)),
        Some((verb, _)) => unknown(event, &verb),
    }
}

/// The observe-only events: nothing to answer but the generic scripts.
fn observe(event: &str, detail: &str) -> Result<(), String> {
    match scripted(event, detail)? {
        None => Ok(()),
        Some((verb, _)) => unknown(event, &verb),
    }
}

impl HookPlugin for Script {
    fn hooks(&self) -> Vec<HookSpec> {
        let matcher = setting("matcher");
        EVENTS
            .into_iter()
            .map(|event| {
                let on_tools = matches!(
                    event,
                    HookEvent::PreTool | HookEvent::PostTool | HookEvent::PermissionRequest
                );
                HookSpec {
                    event,
                    matcher: matcher.clone().filter(|_| on_tools),
                }
            })
            .collect()
    }

    fn session_start(
        &mut self,
        _ctx: &HookContext,
        source: StartSource,
    ) -> Result<Option<String>, String> {
        context("session-start", &format!("{source:?}"))
    }

    fn user_prompt_submit(
        &mut self,
        _ctx: &HookContext,
        prompt: &str,
    ) -> Result<PromptDecision, String> {
        Ok(match scripted("user-prompt-submit", prompt)? {
            None => PromptDecision::Allow(None),
            Some((verb, text)) => match verb.as_str() {
                "allow" => PromptDecision::Allow(None),
                "context" => PromptDecision::Allow(Some(text)),
                "block" => PromptDecision::Block(text),
                _ => return unknown("user-prompt-submit", &verb),
            },
        })
    }

    fn pre_tool(
        &mut self,
        _ctx: &HookContext,
        call: HookToolCall,
    ) -> Result<PreToolDecision, String> {
        let detail = format!("{} {}", call.name, call.args_json);
        if setting("pre-tool-only-for").is_some_and(|only| only != call.name) {
            log(
                LogLevel::Info,
                &format!("pre-tool: {detail} (not scripted)"),
            );
            return Ok(PreToolDecision::Allow);
        }
        Ok(match scripted("pre-tool", &detail)? {
            None => PreToolDecision::Allow,
            Some((verb, text)) => match verb.as_str() {
                "allow" => PreToolDecision::Allow,
                "deny" => PreToolDecision::Deny(text),
                "ask" => PreToolDecision::Ask(text),
                "rewrite" => PreToolDecision::Rewrite(text),
                "garbage" => PreToolDecision::Rewrite("{not json".to_string()),
                _ => return unknown("pre-tool", &verb),
            },
        })
    }

    fn post_tool(
        &mut self,
        _ctx: &HookContext,
        result: HookToolResult,
    ) -> Result<PostToolDecision, String> {
        let detail = format!("{} ok={}", result.call.name, result.ok);
        let mut decision = PostToolDecision {
            context: None,
            flag: None,
        };
        match scripted("post-tool", &detail)? {
            None => {}
            Some((verb, text)) if verb == "context" => decision.context = Some(text),
            Some((verb, text)) if verb == "flag" => decision.flag = Some(text),
            Some((verb, _)) => return unknown("post-tool", &verb),
        }
        Ok(decision)
    }

    fn permission_request(
        &mut self,
        _ctx: &HookContext,
        ask: PermissionAsk,
    ) -> Result<PermissionDecision, String> {
        let detail = format!("{} {} {}", ask.requester, ask.action, ask.detail);
        Ok(match scripted("permission-request", &detail)? {
            None => PermissionDecision::Abstain,
            Some((verb, text)) => match verb.as_str() {
                "abstain" => PermissionDecision::Abstain,
                "approve" => PermissionDecision::Approve,
                "deny" => PermissionDecision::Deny(text),
                _ => return unknown("permission-request", &verb),
            },
        })
    }

    fn pre_compact(
        &mut self,
        _ctx: &HookContext,
        request: CompactRequest,
    ) -> Result<PreCompactDecision, String> {
        let detail = format!("{:?} {}", request.trigger, request.focus);
        Ok(match scripted("pre-compact", &detail)? {
            None => PreCompactDecision::Proceed(String::new()),
            Some((verb, text)) => match verb.as_str() {
                "proceed" => PreCompactDecision::Proceed(text),
                "skip" => PreCompactDecision::Skip(text),
                _ => return unknown("pre-compact", &verb),
            },
        })
    }

    fn post_compact(
        &mut self,
        _ctx: &HookContext,
        done: CompactDone,
    ) -> Result<Option<String>, String> {
        let detail = format!("{} -> {}", done.tokens_before, done.tokens_after);
        context("post-compact", &detail)
    }

    fn stop(&mut self, _ctx: &HookContext, request: StopRequest) -> Result<StopDecision, String> {
        let detail = format!("continued={}", request.continued);
        Ok(match scripted("stop", &detail)? {
            None => StopDecision::Stop,
            Some((verb, text)) => match verb.as_str() {
                "stop" => StopDecision::Stop,
                "continue" => StopDecision::ContinueWith(text),
                _ => return unknown("stop", &verb),
            },
        })
    }

    fn subagent_stop(&mut self, ctx: &HookContext, request: StopRequest) -> Result<(), String> {
        let detail = format!("{} continued={}", ctx.agent, request.continued);
        observe("subagent-stop", &detail)
    }

    fn session_end(&mut self, _ctx: &HookContext, reason: &str) -> Result<(), String> {
        observe("session-end", reason)
    }

    fn notification(&mut self, _ctx: &HookContext, message: &str) -> Result<(), String> {
        observe("notification", message)
    }
}

amber_sdk::export!(Script: hook);
