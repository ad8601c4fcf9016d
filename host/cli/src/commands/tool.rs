//! `amber tool list|call`: tools through the real runtime.

use std::path::{Path, PathBuf};

use amber_runtime::{Grants, Permission};
use anyhow::{bail, Context, Result};
use clap::Subcommand;
use serde_json::json;

use super::print_json;
use amber_app::host::{self, Host};

#[derive(Subcommand)]
pub enum ToolCommand {
    /// List every installed tool and the plugin providing it.
    List {
        /// Print JSON for scripts instead of text.
        #[arg(long)]
        json: bool,
    },
    /// Call one tool with JSON arguments and print its output.
    Call(CallArgs),
}

#[derive(clap::Args)]
pub struct CallArgs {
    /// Also load this component, for this call only (repeatable).
    #[arg(long = "with", value_name = "FILE.wasm")]
    with: Vec<PathBuf>,
    /// Grant a permission to the components loaded with --with
    /// (workspace-read, workspace-write, exec; repeatable).
    #[arg(long = "grant", value_name = "PERM")]
    grants: Vec<Permission>,
    /// Print {"status": "ok"|"error", "output", "meta"}.
    #[arg(long)]
    json: bool,
    /// Approve every command the tool runs that needs approval (without
    /// a terminal, they are denied otherwise).
    #[arg(long)]
    yes: bool,
    /// Skip the schema check of the arguments (the agent's dispatch
    /// always makes it), to see what the tool itself says.
    #[arg(long)]
    raw: bool,
    /// The tool's name (see `amber tool list`).
    #[arg(add = clap_complete::engine::ArgValueCandidates::new(super::completers::tool_names))]
    tool: String,
    /// The arguments, a JSON object.
    #[arg(default_value = "{}")]
    args: String,
}

pub fn run(host: &Host, cmd: ToolCommand, workspace: &Path) -> Result<()> {
    match cmd {
        ToolCommand::List { json } => list(host, json, workspace),
        ToolCommand::Call(args) => call(host, args, workspace),
    }
}

fn list(host: &Host, as_json: bool, workspace: &Path) -> Result<()> {
    let manager = host::loaded(host, workspace)?;
    let ledger = manager.runtime().ledger();
    let owners: std::collections::BTreeMap<String, String> = ledger
        .records()
        .into_iter()
        .filter(|(_, c)| c.kind == amber_core::CapabilityKind::Tool)
        .map(|(owner, c)| (c.name, owner.to_string()))
        .collect();
    let tools: Vec<_> = ledger
        .tools()
        .iter()
        .map(|t| {
            let spec = t.spec();
            let owner = owners.get(&spec.name).cloned().unwrap_or_default();
            json!({"name": spec.name, "description": spec.description, "read_only": spec.read_only, "owner": owner, "input_schema": spec.input_schema})
        })
        .collect();
    if as_json {
        return print_json(&json!({ "tools": tools }));
    }
    if tools.is_empty() {
        outln!("no tools (add a plugin with `amber plugin add FILE.wasm`)");
    }
    for t in &tools {
        let mode = if t["read_only"] == true {
            "read-only"
        } else {
            "writes"
        };
        outln!(
            "{:<20} {mode:<9}  {:<22} {}",
            t["name"].as_str().unwrap_or(""),
            t["owner"].as_str().unwrap_or(""),
            t["description"].as_str().unwrap_or("")
        );
    }
    Ok(())
}

fn call(host: &Host, call: CallArgs, workspace: &Path) -> Result<()> {
    let CallArgs {
        with,
        grants,
        json: as_json,
        yes,
        raw,
        tool: name,
        args,
    } = call;
    let (name, grants) = (name.as_str(), Grants::of(grants));
    let mut args: serde_json::Value = serde_json::from_str(&args)
        .with_context(|| format!("the arguments are not JSON: {args}"))?;
    // Paths as dispatch sees them: confined, absolute ones made relative.
    amber_core::engine::dispatch::confine_arguments(&mut args, workspace)
        .map_err(anyhow::Error::msg)?;
    let config = host.config()?;
    let policy = host::policy(&host.front_end, &config, workspace, None, yes);
    let manager = host::loaded_with(host, workspace, &config, Some(policy))?;
    let runtime = manager.runtime();
    for file in &with {
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
        let known = if known.is_empty() {
            "none".into()
        } else {
            known.join(", ")
        };
        return Err(amber_app::host::with_bundle_hint(anyhow::anyhow!(
            "no tool `{name}` is installed (known: {known})"
        )));
    };
    if !raw {
        let spec = tool.spec();
        let checked =
            amber_core::engine::dispatch::check_arguments(name, &spec.input_schema, &args);
        if let Err(problem) = checked {
            if as_json {
                outln!(
                    "{}",
                    json!({"status": "error", "output": problem.to_string(), "meta": null})
                );
            }
            bail!("{problem} (--raw skips this check)");
        }
    }
    let result = tool.call(&args);
    match (&result, as_json) {
        (Ok(out), true) => outln!(
            "{}",
            json!({"status": "ok", "output": out.content, "meta": out.meta})
        ),
        (Ok(out), false) => outln!("{}", out.content),
        (Err(e), true) => outln!(
            "{}",
            json!({"status": "error", "output": e.to_string(), "meta": null})
        ),
        (Err(_), false) => {}
    }
    result
        .map(|_| ())
        .map_err(|e| anyhow::anyhow!("tool `{name}` failed: {e}"))
}
