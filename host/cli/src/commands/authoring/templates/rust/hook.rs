//! {{id}}: an amber hook in Rust: refuses `rm -rf` in shell calls.
use amber_sdk::prelude::*;

#[derive(Default)]
struct {{Camel}};

impl Plugin for {{Camel}} {
    fn manifest() -> Manifest {
        amber_sdk::manifest!(id: "{{id}}")
    }
}

impl HookPlugin for {{Camel}} {
    fn hooks(&self) -> Vec<HookSpec> {
        vec![HookSpec::on(HookEvent::PreTool).matching("shell")]
    }

    fn pre_tool(&mut self, _ctx: &HookContext, call: HookToolCall) -> Result<PreToolDecision, String> {
        let args: Value = amber_sdk::serde_json::from_str(&call.args_json).unwrap_or(Value::Null);
        let command = args["command"].as_str().unwrap_or_default();
        if command.contains("rm -rf") {
            return Ok(PreToolDecision::Deny("{{id}} refuses rm -rf".into()));
        }
        Ok(PreToolDecision::Allow)
    }
}

amber_sdk::export!({{Camel}}: hook);
