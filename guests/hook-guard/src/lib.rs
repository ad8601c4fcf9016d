//! hook-guard: a `pre-tool` hook on every tool that denies the calls the
//! `amber-hook-guard-rules` crate describes (recursive deletes outside the
//! workspace, writes into `.git`, reads of `.env` files), plus the paths
//! and commands the user lists in its settings:
//!
//! ```toml
//! [plugins.hook-guard.settings]
//! deny_paths = "*.pem, config/prod/**"
//! deny_commands = "git push --force, curl"
//! ```
//!
//! It decides from the call's text alone, so it asks for no permission.
//! The checks live in their own crate so that the host's benchmark runs
//! the very same ones natively.
use std::borrow::Cow;

use amber_hook_guard_rules::{check_call, Rules};
use amber_sdk::prelude::*;
use amber_sdk::{log, setting, LogLevel};

#[derive(Default)]
struct Guard {
    rules: Rules,
}

impl Plugin for Guard {
    fn manifest() -> Manifest {
        amber_sdk::manifest!()
    }

    fn initialize(&mut self, _ctx: &InitContext) -> Result<(), String> {
        // Settings come from the config file, fixed for the instance's life.
        self.rules = Rules::from_settings(
            setting("deny_paths").as_deref(),
            setting("deny_commands").as_deref(),
        );
        Ok(())
    }
}

impl HookPlugin for Guard {
    fn hooks(&self) -> Vec<HookSpec> {
        vec![HookSpec::on(HookEvent::PreTool)]
    }

    fn pre_tool(
        &mut self,
        ctx: &HookContext,
        call: HookToolCall,
    ) -> Result<PreToolDecision, String> {
        // Arguments that are not JSON never reach the tool (the host checks
        // them against its schema), so there is nothing to guard.
        let Ok(args) = amber_sdk::serde_json::from_str::<Value>(&call.args_json) else {
            return Ok(PreToolDecision::Allow);
        };
        let rules = match &ctx.workspace {
            Some(root) if *root != self.rules.workspace => Cow::Owned(Rules {
                workspace: root.clone(),
                ..self.rules.clone()
            }),
            _ => Cow::Borrowed(&self.rules),
        };
        Ok(match check_call(&call.name, &args, &rules) {
            Some(reason) => {
                log(LogLevel::Info, &format!("denied `{}`: {reason}", call.name));
                PreToolDecision::Deny(reason)
            }
            None => PreToolDecision::Allow,
        })
    }
}

amber_sdk::export!(Guard: hook);
