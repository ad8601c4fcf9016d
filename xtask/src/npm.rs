//! Packages from the npm registry that the tests and benchmarks run,
//! installed at pinned versions into a folder of the target dir, once:
//! the MCP test servers (`mcp_servers.rs`) and the peer agent the bench
//! compares amber with (`peers.rs`).

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::Result;

use crate::{run, setup, target_dir};

fn installed(modules: &Path, package: &str, version: &str) -> bool {
    let manifest = modules.join(package).join("package.json");
    let Ok(text) = std::fs::read_to_string(manifest) else {
        return false;
    };
    serde_json::from_str::<serde_json::Value>(&text)
        .is_ok_and(|v| v["version"].as_str() == Some(version))
}

/// `<target>/<folder>/node_modules`, installing `packages` (name,
/// version) first when any is missing or at another version. Each folder
/// is installed whole in one npm call: npm prunes what a later call into
/// the same folder does not name.
pub fn ensure(folder: &str, packages: &[(&str, &str)], what: &str) -> Result<PathBuf> {
    let prefix = target_dir().join(folder);
    let modules = prefix.join("node_modules");
    if packages
        .iter()
        .all(|(package, version)| installed(&modules, package, version))
    {
        return Ok(modules);
    }
    setup::ensure_command("npm", "npm")?;
    std::fs::create_dir_all(&prefix)?;
    eprintln!(
        "xtask: installing {what} from npm into {}",
        prefix.display()
    );
    let specs: Vec<String> = packages
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
