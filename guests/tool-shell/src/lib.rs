//! `shell`: runs a command through the host's `exec` import, where the
//! host classifies and approves the exact command, runs it in its own
//! process group with stdin from /dev/null and an allowlisted environment,
//! and kills it on timeout or Ctrl-C. This plugin holds `exec` and nothing
//! else, so the host asks about each command, never about the tool. The
//! result is compact: the exit code, the tail of the output, and notes for
//! a timeout or a cut.
use amber_sdk::prelude::*;

/// Lines of output kept (the tail: errors and summaries come last).
const TAIL_LINES: usize = 200;
/// Bytes of output kept.
const TAIL_BYTES: usize = 16 * 1024;

#[derive(Default)]
struct Shell;

impl Plugin for Shell {
    fn manifest() -> Manifest {
        Manifest::new("shell", "0.1.0", "Runs shell commands in the workspace.").permission(
            Permission::Exec,
            "to run the commands the agent asks for, each approved by you",
        )
    }
}

/// The last lines of `text`, within the caps, and how many were dropped.
fn tail(text: &str) -> (String, usize) {
    let lines: Vec<&str> = text.lines().collect();
    let mut kept = Vec::new();
    let mut bytes = 0;
    for line in lines.iter().rev() {
        if kept.len() == TAIL_LINES || bytes + line.len() + 1 > TAIL_BYTES {
            break;
        }
        bytes += line.len() + 1;
        kept.push(*line);
    }
    kept.reverse();
    (kept.join("\n"), lines.len() - kept.len())
}

impl ToolPlugin for Shell {
    fn tools(&self) -> Vec<ToolSpec> {
        vec![ToolSpec::new(
            "shell",
            "Run a shell command (sh -c) in the workspace root and get its exit code and output tail. \
             Read-only commands and builds run at once; others may need the user's approval.",
        )
        .schema(json!({
            "type": "object",
            "properties": {
                "command": {"type": "string"},
                "timeout_ms": {"type": "integer", "minimum": 1, "maximum": 3600000}
            },
            "required": ["command"],
            "additionalProperties": false
        }))]
    }

    fn call(&mut self, _tool: &str, args: Value) -> Result<ToolOutput, ToolError> {
        let command = args["command"]
            .as_str()
            .filter(|c| !c.trim().is_empty())
            .ok_or_else(|| ToolError::InvalidArgs("`command` must be a non-empty string".into()))?;
        let timeout = args["timeout_ms"]
            .as_u64()
            .map(|ms| ms.min(u64::from(u32::MAX)) as u32);
        // A refusal (not approved, read mode, outside the workspace) comes
        // back as the error, with its reason.
        let out = amber_sdk::exec::run(command, None, timeout).map_err(ToolError::Failed)?;
        let (stdout, cut_out) = tail(&out.stdout);
        let (stderr, cut_err) = tail(&out.stderr);
        let code = match out.exit_code {
            Some(code) => format!("exit code: {code}"),
            None => "exit code: none (killed)".into(),
        };
        let mut text = code.clone();
        if !stdout.is_empty() {
            text.push_str(&format!("\n{stdout}"));
        }
        if !stderr.is_empty() {
            text.push_str(&format!("\nstderr:\n{stderr}"));
        }
        let mut notes = Vec::new();
        if out.timed_out {
            notes.push("the command timed out and was killed with its process group; try a longer timeout_ms, or a smaller command".to_string());
        }
        if cut_out + cut_err > 0 {
            let lines = amber_sdk::count(cut_out + cut_err, "earlier line");
            notes.push(format!("{lines} not shown"));
        }
        if out.truncated {
            notes.push("the host cut the middle of a very long output".into());
        }
        for note in &notes {
            text.push_str(&format!("\n[{note}]"));
        }
        let meta = json!({"exit_code": out.exit_code, "timed_out": out.timed_out, "truncated": out.truncated});
        if out.exit_code == Some(0) {
            Ok(ToolOutput::text(text).with_meta(meta))
        } else {
            Err(ToolError::Failed(text))
        }
    }
}

amber_sdk::export!(Shell: tool);
