//! The four native tools over a session's [`Jobs`]: `process_start`,
//! `process_read`, `process_stop` and `process_list`.

use std::sync::Arc;

use amber_core::policy::Policy;
use amber_core::ports::{CommandGate, Tool, ToolError, ToolOutput, ToolSpec};
use serde_json::{json, Value};

use super::{JobInfo, Jobs};

/// The tools, over `jobs`, their commands checked by `policy` (or by the
/// calling sub-agent's view of it).
pub fn tools(jobs: &Arc<Jobs>, policy: &Arc<Policy>) -> Vec<Arc<dyn Tool>> {
    let made = |kind: Kind| -> Arc<dyn Tool> {
        Arc::new(ProcessTool {
            spec: kind.spec(),
            kind,
            jobs: jobs.clone(),
            policy: policy.clone(),
        })
    };
    vec![
        made(Kind::Start),
        made(Kind::Read),
        made(Kind::Stop),
        made(Kind::List),
    ]
}

#[derive(Clone, Copy)]
enum Kind {
    Start,
    Read,
    Stop,
    List,
}

fn id_schema() -> Value {
    json!({"type": "integer", "minimum": 1, "description": "The id process_start returned."})
}

impl Kind {
    fn spec(self) -> ToolSpec {
        let (name, description, schema, read_only) = match self {
            Kind::Start => (
                "process_start",
                "Start a long-running command in the background (a dev server, a test \
                 watcher) and go on working; returns its id. It runs like `shell`'s commands \
                 (the same policy and sandbox) until process_stop, the session's end or \
                 amber's exit. Read its output with process_read.",
                json!({
                    "type": "object",
                    "properties": {
                        "command": {"type": "string"},
                        "cwd": {"type": "string", "description": "A folder in the workspace; default its root."}
                    },
                    "required": ["command"],
                    "additionalProperties": false
                }),
                false,
            ),
            Kind::Read => (
                "process_read",
                "The output of a background process since `since` (the `next` of the last \
                 read; 0 or left out: all that is kept), and its exit status once it ended.",
                json!({
                    "type": "object",
                    "properties": {"id": id_schema(), "since": {"type": "integer", "minimum": 0}},
                    "required": ["id"],
                    "additionalProperties": false
                }),
                true,
            ),
            Kind::Stop => (
                "process_stop",
                "Stop a background process with everything it started.",
                json!({
                    "type": "object",
                    "properties": {"id": id_schema()},
                    "required": ["id"],
                    "additionalProperties": false
                }),
                // It changes nothing in the workspace, and ends only what
                // this session started: plan and read mode may stop one.
                true,
            ),
            Kind::List => (
                "process_list",
                "The background processes of this session: id, command, running or how it \
                 ended, and their last lines.",
                json!({"type": "object", "properties": {}, "additionalProperties": false}),
                true,
            ),
        };
        ToolSpec {
            name: name.into(),
            description: description.into(),
            input_schema: schema,
            read_only,
            // Start is asked about in the policy, on its exact command, as
            // `shell`'s are.
            gated_by_exec: !read_only,
            approval_group: None,
        }
    }
}

struct ProcessTool {
    spec: ToolSpec,
    kind: Kind,
    jobs: Arc<Jobs>,
    policy: Arc<Policy>,
}

fn id_of(args: &Value) -> Result<u32, ToolError> {
    args["id"]
        .as_u64()
        .and_then(|id| u32::try_from(id).ok())
        .ok_or_else(|| {
            ToolError::InvalidArgs("`id` must be a process id from process_start".into())
        })
}

fn described(info: &JobInfo) -> String {
    format!("[{}] {} (pid {}): {}", info.id, info.state(), info.pid, info.command)
}

impl Tool for ProcessTool {
    fn spec(&self) -> &ToolSpec {
        &self.spec
    }

    fn call(&self, args: &Value) -> Result<ToolOutput, ToolError> {
        match self.kind {
            Kind::Start => {
                let command = args["command"]
                    .as_str()
                    .map(str::trim)
                    .filter(|c| !c.is_empty())
                    .ok_or_else(|| {
                        ToolError::InvalidArgs("`command` must be a command line".into())
                    })?;
                let root = self.policy.root();
                let cwd = amber_core::confine(root, args["cwd"].as_str().unwrap_or("."))
                    .map_err(|e| ToolError::InvalidArgs(format!("cwd refused: {e}")))?;
                let permit =
                    CommandGate::check(self.policy.as_ref(), "process_start", command, &cwd)
                        .map_err(|e| ToolError::Failed(e.to_string()))?;
                let info = self
                    .jobs
                    .start(command, &cwd, &permit)
                    .map_err(ToolError::Failed)?;
                Ok(ToolOutput {
                    content: format!(
                        "started background process {} (pid {}); read its output with process_read {{\"id\": {}}}",
                        info.id, info.pid, info.id
                    ),
                    meta: Some(json!({ "job": info })),
                    images: Vec::new(),
                })
            }
            Kind::Read => {
                let id = id_of(args)?;
                let since = args["since"].as_u64().unwrap_or(0);
                let read = self.jobs.read(id, since).map_err(ToolError::Failed)?;
                let mut content = String::new();
                if read.chunk.dropped > 0 {
                    content.push_str(&format!(
                        "[{} earlier bytes were dropped: the output keeps its last {} KiB]\n",
                        read.chunk.dropped,
                        super::RING_BYTES / 1024
                    ));
                }
                content.push_str(&read.chunk.text);
                let state = match (read.running, read.exit_code) {
                    (true, _) => "still running".to_string(),
                    (false, Some(code)) => format!("ended with exit code {code}"),
                    (false, None) => "ended by a signal".to_string(),
                };
                content.push_str(&format!("\n[{state}; next read from {}]", read.chunk.next));
                Ok(ToolOutput {
                    content,
                    meta: Some(json!({
                        "next": read.chunk.next,
                        "running": read.running,
                        "exit_code": read.exit_code,
                    })),
                    images: Vec::new(),
                })
            }
            Kind::Stop => {
                let info = self.jobs.stop(id_of(args)?).map_err(ToolError::Failed)?;
                Ok(ToolOutput {
                    content: described(&info),
                    meta: Some(json!({ "job": info })),
                    images: Vec::new(),
                })
            }
            Kind::List => {
                let jobs = self.jobs.list(3);
                let content = if jobs.is_empty() {
                    "no background processes".to_string()
                } else {
                    jobs.iter()
                        .map(|j| {
                            let mut line = described(j);
                            for tail in &j.tail {
                                line.push_str(&format!("\n    {tail}"));
                            }
                            line
                        })
                        .collect::<Vec<_>>()
                        .join("\n")
                };
                Ok(ToolOutput {
                    content,
                    meta: Some(json!({ "jobs": jobs })),
                    images: Vec::new(),
                })
            }
        }
    }
}
