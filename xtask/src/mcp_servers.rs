//! The real MCP servers the tests and benchmarks talk to, from npm:
//! `@modelcontextprotocol/server-everything` (every protocol feature,
//! over stdio and streamable HTTP) and `@modelcontextprotocol/server-filesystem`.
//! Installed once, at pinned versions, into `<target>/npm`.

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::Result;

use crate::{run, setup, target_dir};

/// (package, version): pinned, so a new release cannot change what the
/// tests see.
const PACKAGES: &[(&str, &str)] = &[
    ("@modelcontextprotocol/server-everything", "2026.8.31"),
    ("@modelcontextprotocol/server-filesystem", "2026.8.31"),
];

fn installed(modules: &Path, package: &str, version: &str) -> bool {
    let manifest = modules.join(package).join("package.json");
    let Ok(text) = std::fs::read_to_string(manifest) else {
        return false;
    };
    serde_json::from_str::<serde_json::Value>(&text)
        .is_ok_and(|v| v["version"].as_str() == Some(version))
}

/// `<target>/npm/node_modules`, installing the servers first if missing.
pub fn ensure() -> Result<PathBuf> {
    let prefix = target_dir().join("npm");
    let modules = prefix.join("node_modules");
    if PACKAGES
        .iter()
        .all(|(package, version)| installed(&modules, package, version))
    {
        return Ok(modules);
    }
    setup::ensure_command("npm", "npm")?;
    std::fs::create_dir_all(&prefix)?;
    eprintln!(
        "xtask: installing the MCP test servers from npm into {}",
        prefix.display()
    );
    let specs: Vec<String> = PACKAGES
        .iter()
        .map(|(package, version)| format!("{package}@{version}"))
        .collect();
    run(Command::new("npm")
        .args([
            "install",
            "--no-audit",
            "--no-fund",
            "--no-save",
            "--silent",
            "--prefix",
        ])
        .arg(&prefix)
        .args(&specs))?;
    Ok(modules)
}
