//! `amber:plugin/exec`: runs a shell command for a plugin granted `exec`.
//!
//! Before running, the policy's `CommandGate` classifies the exact command
//! and approves or denies it, and says how it may run: in the OS sandbox
//! (the default), with an approved escalation, or unsandboxed (yolo). The
//! command is then started by the one spawner (amber-sandbox): its own
//! process group, stdin from /dev/null, an allowlisted environment (never
//! a key), cwd confined to the workspace, a timeout that kills the whole
//! group, and output capped with a note saying what was cut. The time
//! spent here does not count toward the plugin's guest deadline.

use std::path::Path;
use std::time::{Duration, Instant};

use amber_core::ports::CommandPermit;
use amber_sandbox::CommandSpec;

use crate::bindings::amber::plugin::exec::{ExecOutput, Host};
use crate::grants::Permission;
use crate::instance::HostState;

pub use crate::exec_policy::ExecPolicy;

/// Runs `command` in `cwd` as `permit` allows, under `policy`.
pub fn run_command(
    command: &str,
    cwd: &Path,
    workspace: &Path,
    timeout: Duration,
    policy: &ExecPolicy,
    permit: &CommandPermit,
) -> Result<ExecOutput, String> {
    let out = policy
        .spawner
        .run(&CommandSpec {
            command,
            cwd,
            env: policy.environment(),
            timeout,
            output_cap: policy.output_cap,
            confinement: policy.confinement(workspace, permit),
        })
        .map_err(|e| e.to_string())?;
    Ok(ExecOutput {
        exit_code: out.exit_code,
        stdout: out.stdout,
        stderr: out.stderr,
        timed_out: out.timed_out,
        truncated: out.truncated,
    })
}

/// Kills every command still running (Ctrl-C, SIGTERM, SIGHUP).
pub fn kill_running() -> usize {
    amber_sandbox::kill_running()
}

impl Host for HostState {
    fn run(
        &mut self,
        command: String,
        cwd: Option<String>,
        timeout_ms: Option<u32>,
    ) -> Result<ExecOutput, String> {
        let plugin = &self.plugin;
        if !plugin.grants.has(Permission::Exec) {
            return Err(format!(
                "not granted: exec (plugin `{}`; grant it with `amber plugin grant {} exec`)",
                plugin.id, plugin.id
            ));
        }
        let cwd = amber_core::confine(&plugin.workspace, cwd.as_deref().unwrap_or("."))
            .map_err(|e| format!("cwd refused: {e}"))?;
        let timeout = timeout_ms
            .map(|ms| Duration::from_millis(ms.into()))
            .unwrap_or(plugin.exec.default_timeout);
        // Waiting for the user to approve is import time too.
        let started = Instant::now();
        let permit = match &plugin.gate {
            // The plugin reads the policy's words, as the model does.
            Some(gate) => gate
                .check(&plugin.id, &command, &cwd)
                .map_err(|e| e.to_string()),
            // No policy (a runtime embedded without one): the sandbox's
            // default for write mode, or as before where there is none.
            None => Ok(CommandPermit {
                unsandboxed: !plugin.exec.spawner.backend().is_available(),
                workspace_writable: true,
                ..CommandPermit::default()
            }),
        };
        let result = permit.and_then(|permit| {
            run_command(
                &command,
                &cwd,
                &plugin.workspace,
                timeout,
                &plugin.exec,
                &permit,
            )
        });
        self.clock.add_import_time(started.elapsed());
        result
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(command: &str, timeout_ms: u64, cap: usize) -> ExecOutput {
        let policy = ExecPolicy {
            output_cap: cap,
            ..ExecPolicy::default()
        };
        let dir = std::env::temp_dir();
        let permit = CommandPermit {
            unsandboxed: true,
            ..CommandPermit::default()
        };
        run_command(
            command,
            &dir,
            &dir,
            Duration::from_millis(timeout_ms),
            &policy,
            &permit,
        )
        .unwrap()
    }

    #[test]
    fn returns_exit_code_and_both_streams() {
        let out = run("echo out; echo err >&2; exit 3", 10_000, 1024);
        assert_eq!(
            (out.exit_code, out.stdout.as_str(), out.stderr.as_str()),
            (Some(3), "out\n", "err\n")
        );
        assert!(!out.timed_out && !out.truncated);
    }

    #[test]
    fn the_environment_is_an_allowlist_without_keys() {
        std::env::set_var("AMBER_TEST_SECRET_KEY", "sk-should-not-leak");
        std::env::set_var("AMBER_TEST_PLAIN", "plain-value");
        let policy = ExecPolicy {
            env_allowlist: vec![
                "PATH".into(),
                "AMBER_TEST_SECRET_KEY".into(),
                "AMBER_TEST_PLAIN".into(),
            ],
            ..ExecPolicy::default()
        };
        let dir = std::env::temp_dir();
        let permit = CommandPermit {
            unsandboxed: true,
            ..CommandPermit::default()
        };
        let out =
            run_command("env", &dir, &dir, Duration::from_secs(10), &policy, &permit).unwrap();
        assert!(!out.stdout.contains("sk-should-not-leak"));
        assert!(out.stdout.contains("PATH="));
        assert!(out.stdout.contains("AMBER_TEST_PLAIN=plain-value"));
    }

    #[test]
    fn stdin_is_empty() {
        let out = run("cat; echo done", 10_000, 1024);
        assert_eq!(out.stdout, "done\n");
    }

    #[test]
    fn a_timeout_kills_the_whole_group() {
        let started = Instant::now();
        let out = run("sleep 30 & sleep 30; echo never", 200, 1024);
        assert!(out.timed_out);
        assert_eq!(out.exit_code, None);
        assert!(started.elapsed() < Duration::from_secs(10));
        assert!(out.stderr.contains("timeout"));
    }

    #[test]
    fn output_is_capped_keeping_head_and_tail_with_a_note() {
        let out = run("seq 1 100000", 10_000, 1000);
        assert!(out.truncated);
        assert!(out.stdout.starts_with("1\n2\n"));
        assert!(out.stdout.ends_with("100000\n"));
        assert!(out.stdout.contains("bytes cut by amber's output cap"));
    }
}
