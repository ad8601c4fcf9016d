//! A command hook behind the core's Hook port: the event's JSON in
//! Claude Code's shape on stdin, its answer read by Claude Code's contract
//! (claude.rs). It runs through the host's one spawner: its own process
//! group, nothing but the payload on stdin, the environment allowlist, a
//! deadline, an output cap, and the OS sandbox where there is one (the
//! workspace writable but in read mode). It is never classified or put to
//! the user: being trusted replaces approval.

use std::path::PathBuf;

use amber_core::hooks::{Decision, Hook, HookContext, HookSpec, Payload};
use amber_core::ports::{CommandPermit, PortError};
use amber_runtime::imports::exec::ExecPolicy;
use amber_sandbox::CommandSpec;

use super::claude;
use super::sources::HookDef;

pub struct CommandHook {
    spec: HookSpec,
    command: String,
    timeout: std::time::Duration,
    workspace: PathBuf,
    exec: ExecPolicy,
}

impl CommandHook {
    pub fn new(def: &HookDef, workspace: PathBuf, exec: ExecPolicy) -> Self {
        let spec = HookSpec::new(def.id.clone(), def.event, def.matcher.clone())
            .with_priority(def.priority)
            .with_on_error(def.on_error);
        CommandHook {
            spec,
            command: def.command.clone(),
            timeout: def.timeout,
            workspace,
            exec,
        }
    }
}

impl Hook for CommandHook {
    fn spec(&self) -> &HookSpec {
        &self.spec
    }

    fn handle(&self, ctx: &HookContext, payload: &Payload) -> Result<Decision, PortError> {
        let input = claude::stdin_json(ctx, payload, None).to_string();
        let permit = CommandPermit {
            unsandboxed: !self.exec.spawner.backend().is_available(),
            workspace_writable: !ctx.mode.read_only(),
            ..CommandPermit::default()
        };
        let mut env = self.exec.environment();
        // What Claude Code's hooks find their project by.
        for key in ["CLAUDE_PROJECT_DIR", "AMBER_PROJECT_DIR"] {
            env.push((key.into(), self.workspace.clone().into_os_string()));
        }
        let out = self
            .exec
            .spawner
            .run_with_input(
                &CommandSpec {
                    command: &self.command,
                    cwd: &self.workspace,
                    env,
                    timeout: self.timeout,
                    output_cap: self.exec.output_cap,
                    confinement: self.exec.confinement(&self.workspace, &permit),
                },
                input.as_bytes(),
            )
            .map_err(|e| PortError(e.to_string()))?;
        if out.timed_out {
            return Err(PortError(format!(
                "it ran past its deadline of {} ms",
                self.timeout.as_millis()
            )));
        }
        let decision = claude::decide(payload.event(), out.exit_code, &out.stdout, &out.stderr)
            .map_err(PortError)?;
        Ok(match (decision, payload.tool()) {
            (Decision::Rewrite(input), Some(tool)) => {
                Decision::Rewrite(amber_core::hooks::names::amber_args(tool, &input))
            }
            (decision, _) => decision,
        })
    }
}
