//! Hooks on the agent's events (`amber:plugin/hook`, docs/hooks.md).
//!
//! Unlike the other kinds, a hook plugin handles a few events out of
//! eleven, so every event method has a default that changes nothing: a
//! plugin overrides the ones it declared in [`HookPlugin::hooks`] and
//! nothing else. The host calls only the events a plugin declared, so the
//! defaults are what an undeclared event would have answered anyway.

use crate::{
    CompactDone, CompactRequest, HookContext, HookSpec, HookToolCall, HookToolResult,
    PermissionAsk, PermissionDecision, PostToolDecision, PreCompactDecision, PreToolDecision,
    PromptDecision, StartSource, StopDecision, StopRequest,
};

/// Handles agent events. An `Err`, like a trap or a deadline, is the hook
/// failing: the action is denied on `pre_tool`, `permission_request` and
/// `user_prompt_submit`, and goes ahead with a warning on the rest.
pub trait HookPlugin {
    /// The events handled, each with an optional tool-name matcher; see
    /// [`HookSpec::on`].
    fn hooks(&self) -> Vec<HookSpec>;

    /// A session starts, resumes or restarts after a compaction; `Some`
    /// is context added for the model.
    fn session_start(
        &mut self,
        _ctx: &HookContext,
        _source: StartSource,
    ) -> Result<Option<String>, String> {
        Ok(None)
    }

    /// The user sent a prompt; it may gain context, or be blocked before
    /// the model sees it.
    fn user_prompt_submit(
        &mut self,
        _ctx: &HookContext,
        _prompt: &str,
    ) -> Result<PromptDecision, String> {
        Ok(PromptDecision::Allow(None))
    }

    /// A tool call is about to run.
    fn pre_tool(
        &mut self,
        _ctx: &HookContext,
        _call: HookToolCall,
    ) -> Result<PreToolDecision, String> {
        Ok(PreToolDecision::Allow)
    }

    /// A tool call ran (or was denied); its result may gain context or a
    /// flag.
    fn post_tool(
        &mut self,
        _ctx: &HookContext,
        _result: HookToolResult,
    ) -> Result<PostToolDecision, String> {
        Ok(PostToolDecision {
            context: None,
            flag: None,
        })
    }

    /// An action is about to be put to the user; the default leaves it to
    /// them.
    fn permission_request(
        &mut self,
        _ctx: &HookContext,
        _ask: PermissionAsk,
    ) -> Result<PermissionDecision, String> {
        Ok(PermissionDecision::Abstain)
    }

    /// A compaction is about to run; the default adds no focus words.
    fn pre_compact(
        &mut self,
        _ctx: &HookContext,
        _request: CompactRequest,
    ) -> Result<PreCompactDecision, String> {
        Ok(PreCompactDecision::Proceed(String::new()))
    }

    /// A compaction finished; `Some` is context added for the model.
    fn post_compact(
        &mut self,
        _ctx: &HookContext,
        _done: CompactDone,
    ) -> Result<Option<String>, String> {
        Ok(None)
    }

    /// The run is about to end with a reply; the default lets it.
    fn stop(&mut self, _ctx: &HookContext, _request: StopRequest) -> Result<StopDecision, String> {
        Ok(StopDecision::Stop)
    }

    /// A sub-agent finished (observed only).
    fn subagent_stop(&mut self, _ctx: &HookContext, _request: StopRequest) -> Result<(), String> {
        Ok(())
    }

    /// The session ends: `exit`, `clear` or `interrupted` (observed only).
    fn session_end(&mut self, _ctx: &HookContext, _reason: &str) -> Result<(), String> {
        Ok(())
    }

    /// amber tells the user something (observed only).
    fn notification(&mut self, _ctx: &HookContext, _message: &str) -> Result<(), String> {
        Ok(())
    }
}

impl HookSpec {
    /// Handles `event` for every tool (no matcher).
    pub fn on(event: crate::HookEvent) -> Self {
        HookSpec {
            event,
            matcher: None,
        }
    }

    /// Narrows `pre-tool`, `post-tool` and `permission-request` to the
    /// tools whose whole name matches the regular expression `pattern`
    /// (`shell`, `edit_file|write_file`).
    pub fn matching(mut self, pattern: &str) -> Self {
        self.matcher = Some(pattern.to_string());
        self
    }
}
