//! `amber tool ...`: call a tool through the real runtime.

use std::path::{Path, PathBuf};

use amber_runtime::{Grants, Permission};
use anyhow::{bail, Context, Result};
use clap::Subcommand;
use serde_json::json;

#[derive(Subcommand)]
pub enum ToolCommand {
    /// Call one tool with JSON arguments and print its output.
    Call {
        /// Load this component for the call (repeatable).
        #[arg(long = "with", value_name = "FILE.wasm")]
        with: Vec<PathBuf>,
        /// Grant a permission to the components loaded with --with
        /// (workspace-read, workspace-write, exec; repeatable).
        #[arg(long = "grant", value_name = "PERM")]
        grants: Vec<Permission>,
        /// Print the result as JSON: {"status": "ok"|"error", "output", "meta"}.
        #[arg(long)]
        json: bool,
        /// The tool's name.
        tool: String,
        /// The arguments, a JSON object.
        #[arg(default_value = "{}")]
        args: String,
    },
}

pub fn run(cmd: ToolCommand, workspace: &Path) -> Result<()> {
    match cmd {
        ToolCommand::Call {
            with,
            grants,
            json,
            tool,
            args,
        } => call(&with, Grants::of(grants), json, &tool, &args, workspace),
    }
}

fn call(
    with: &[PathBuf],
    grants: Grants,
    as_json: bool,
    name: &str,
    args: &str,
    workspace: &Path,
) -> Result<()> {
    let args: serde_json::Value = serde_json::from_str(args)
        .with_context(|| format!("the arguments are not JSON: {args}"))?;
    let runtime = super::runtime(workspace)?;
    for file in with {
        let (id, _) = runtime.register_file(file)?;
        runtime.enable(&id, grants.clone())?;
    }
    let Some(tool) = runtime.ledger().tool(name) else {
        let known: Vec<String> = runtime
            .ledger()
            .tools()
            .iter()
            .map(|t| t.spec().name.clone())
            .collect();
        bail!(
            "no tool `{name}` is installed (known: {})",
            if known.is_empty() {
                "none".into()
            } else {
                known.join(", ")
            }
        );
    };
    let result = tool.call(&args);
    match (&result, as_json) {
        (Ok(out), true) => println!(
            "{}",
            json!({"status": "ok", "output": out.content, "meta": out.meta})
        ),
        (Ok(out), false) => println!("{}", out.content),
        (Err(e), true) => println!(
            "{}",
            json!({"status": "error", "output": e.to_string(), "meta": null})
        ),
        (Err(_), false) => {}
    }
    result
        .map(|_| ())
        .map_err(|e| anyhow::anyhow!("tool `{name}` failed: {e}"))
}
