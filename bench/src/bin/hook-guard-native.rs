//! hook-guard's checks as a native command hook in Claude Code's format:
//! the baseline of the `hooks` benchmark. It reads the event's JSON on
//! stdin, runs the same `amber-hook-guard-rules` the component runs, and
//! answers by exit code: 0 to allow, 2 to deny with the reason on stderr.

use std::io::Read;
use std::process::ExitCode;

fn main() -> ExitCode {
    let mut input = String::new();
    if let Err(e) = std::io::stdin().read_to_string(&mut input) {
        eprintln!("cannot read the hook's input: {e}");
        return ExitCode::from(1);
    }
    let event: serde_json::Value = match serde_json::from_str(&input) {
        Ok(event) => event,
        Err(e) => {
            eprintln!("the hook's input is not JSON: {e}");
            return ExitCode::from(1);
        }
    };
    let tool = event["tool_name"].as_str().unwrap_or_default();
    let tool = amber_core::hooks::names::amber_tool(tool);
    let args = amber_core::hooks::names::amber_args(&tool, &event["tool_input"]);
    match amber_hook_guard_rules::check_call(
        &tool,
        &args,
        &amber_hook_guard_rules::Rules::default(),
    ) {
        None => ExitCode::SUCCESS,
        Some(reason) => {
            eprintln!("{reason}");
            ExitCode::from(2)
        }
    }
}
