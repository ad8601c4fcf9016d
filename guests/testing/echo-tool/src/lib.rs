//! Echoes its arguments back: the benchmarks' warm-call guest, and a second
//! plugin for tests that need one. Test-only, never bundled.
use amber_sdk::prelude::*;

#[derive(Default)]
struct Echo {
    calls: u64,
}

impl Plugin for Echo {
    fn manifest() -> Manifest {
        Manifest::new("echo", "0.1.0", "Returns its arguments unchanged.")
    }
}

impl ToolPlugin for Echo {
    fn tools(&self) -> Vec<ToolSpec> {
        vec![
            ToolSpec::new("echo", "Return the arguments as JSON text.").read_only(),
            ToolSpec::new("count", "How many calls this instance has served.").read_only(),
        ]
    }

    fn call(&mut self, tool: &str, args: Value) -> Result<ToolOutput, ToolError> {
        self.calls += 1;
        match tool {
            "echo" => Ok(ToolOutput::text(args.to_string())),
            "count" => Ok(ToolOutput::text(self.calls.to_string())),
            other => Err(ToolError::Failed(format!("no tool `{other}`"))),
        }
    }
}

amber_sdk::export!(Echo: tool);
