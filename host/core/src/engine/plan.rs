//! Plan mode (docs/plan-mode.md): the model may only read, is asked for
//! a plan, and proposes it with `exit_plan`, which ends the run so the
//! person can accept it (and switch to write mode, with the plan as the
//! next prompt) or keep planning. The tool is declared only in plan mode.

use serde_json::{json, Value};

use crate::policy::Mode;
use crate::ports::{Tool, ToolError, ToolOutput, ToolSpec};

pub const PLAN_TOOL: &str = "exit_plan";

/// What the model is told while the session is in plan mode, after the
/// prompt blocks.
pub const PLAN_MODE_PROMPT: &str = "You are in plan mode: the person wants a plan before \
    anything changes. Read what you need with the read-only tools (nothing that writes will \
    run), then call `exit_plan` with the plan in markdown: the steps, the files each touches, \
    and how the result will be checked. The plan goes to the person, who accepts it or tells \
    you what to change.";

pub struct PlanTool {
    spec: ToolSpec,
}

impl Default for PlanTool {
    fn default() -> Self {
        PlanTool {
            spec: ToolSpec {
                name: PLAN_TOOL.into(),
                description: "Propose your plan to the person and end the turn (plan mode \
                    only). `plan` is markdown: the steps, the files each touches, and how the \
                    result will be checked."
                    .into(),
                input_schema: json!({
                    "type": "object",
                    "properties": {"plan": {"type": "string", "description": "The plan, in markdown."}},
                    "required": ["plan"],
                    "additionalProperties": false
                }),
                read_only: true,
                gated_by_exec: false,
                approval_group: None,
            },
        }
    }
}

impl Tool for PlanTool {
    fn spec(&self) -> &ToolSpec {
        &self.spec
    }

    fn call(&self, args: &Value) -> Result<ToolOutput, ToolError> {
        let in_plan_mode =
            crate::policy::scope::current().is_none_or(|scope| scope.policy.mode() == Mode::Plan);
        if !in_plan_mode {
            return Err(ToolError::Failed(
                "the session is not in plan mode; go on with the work".into(),
            ));
        }
        let plan = args["plan"]
            .as_str()
            .filter(|p| !p.trim().is_empty())
            .ok_or_else(|| ToolError::InvalidArgs("`plan` must be non-empty markdown".into()))?;
        Ok(ToolOutput {
            content: "The plan is with the person now. End your turn; their answer comes as \
                the next message."
                .into(),
            meta: Some(json!({"plan": plan.trim()})),
            images: Vec::new(),
        })
    }
}
