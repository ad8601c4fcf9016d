//! `amber plugin ...`. For now: `inspect`, which loads a component in a
//! throwaway runtime with nothing granted and shows what it is.

use std::path::{Path, PathBuf};

use amber_core::CapabilityKind;
use amber_runtime::{Grants, PluginStatus};
use anyhow::Result;
use clap::Subcommand;
use serde_json::json;

#[derive(Subcommand)]
pub enum PluginCommand {
    /// Show a component's manifest, exports, requested permissions and
    /// declared capabilities, without installing it. Runs it sandboxed with
    /// nothing granted.
    Inspect {
        /// The component (.wasm) to inspect.
        file: PathBuf,
        /// Print JSON instead of text.
        #[arg(long)]
        json: bool,
    },
}

pub fn run(cmd: PluginCommand, workspace: &Path) -> Result<()> {
    match cmd {
        PluginCommand::Inspect { file, json } => inspect(&file, json, workspace),
    }
}

fn inspect(file: &Path, as_json: bool, workspace: &Path) -> Result<()> {
    let runtime = super::runtime(workspace)?;
    let (id, _) = runtime.register_file(file)?;
    // Enabling runs initialize and capabilities, which is how a plugin
    // declares what it offers; a failure is part of what we show.
    let enabled = runtime.enable(&id, Grants::none());
    let tools: Vec<_> = runtime
        .ledger()
        .tools()
        .into_iter()
        .map(|t| t.spec().clone())
        .collect();
    let status = runtime
        .status(&id)
        .ok_or_else(|| anyhow::anyhow!("plugin `{id}` vanished"))?;
    if as_json {
        let value = json!({ "plugin": status, "tools": tools });
        println!("{}", serde_json::to_string_pretty(&value)?);
    } else {
        print_status(&status);
        for tool in &tools {
            let mode = if tool.read_only {
                "read-only"
            } else {
                "writes"
            };
            println!("  tool {:<20} {mode:<9}  {}", tool.name, tool.description);
        }
    }
    runtime.disable(&id)?;
    if let Err(e) = enabled {
        if !as_json {
            println!("  failed: {e}");
        }
    }
    Ok(())
}

fn print_status(s: &PluginStatus) {
    let m = &s.manifest;
    println!(
        "{} {} ({}), amber:plugin@{}",
        m.name, m.version, m.id, m.api_version
    );
    println!("  {}", m.description);
    println!("  file     {}", s.source.display());
    println!("  blake3   {}", s.hash);
    println!("  exports  {}", s.exports.join(", "));
    for p in &m.permissions {
        println!("  requests {:<16} {}", p.permission.as_str(), p.reason);
    }
    let kinds = |k: CapabilityKind| s.contributions.iter().filter(|c| c.kind == k).count();
    let declared = [
        CapabilityKind::Tool,
        CapabilityKind::Provider,
        CapabilityKind::Command,
        CapabilityKind::Prompt,
        CapabilityKind::Parser,
    ]
    .into_iter()
    .filter(|k| kinds(*k) > 0)
    .map(|k| format!("{} {k}", kinds(k)))
    .collect::<Vec<_>>();
    if !declared.is_empty() {
        println!("  declares {}", declared.join(", "));
    }
}
