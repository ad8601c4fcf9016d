//! The SDKs' own unit tests, in their own languages: `sdk/python/tests`
//! under plain CPython against the bindings componentize-py generates
//! from wit/, and `sdk/js/tests` under node with its built-in runner.
//! They try the glue each SDK puts between a plugin and the WIT on cases
//! a scaffold's examples do not reach (spans in text that is not ASCII,
//! an exception in a decoder, a wrong return), in about a second, where a
//! component build takes twenty.

use std::path::PathBuf;
use std::process::Command;

use anyhow::{Context, Result};

use crate::{python_component, root, run, setup, target_dir};

pub fn run_all() -> Result<()> {
    python()?;
    javascript()
}

fn python() -> Result<()> {
    let componentize = python_component::ensure_componentize_py()?;
    let bindings = target_dir().join("sdk-tests/python-bindings");
    let _ = std::fs::remove_dir_all(&bindings);
    run(Command::new(componentize)
        .current_dir(root())
        .args(["-d", "wit", "-w", "full-plugin", "bindings"])
        .arg(&bindings))?;
    let sdk = root().join("sdk/python");
    let path = std::env::join_paths([bindings, sdk.clone()])?;
    eprintln!("xtask: the Python SDK's tests");
    run(Command::new("python3")
        .args(["-B", "-m", "unittest", "discover", "-s"])
        .arg(sdk.join("tests"))
        .env("PYTHONPATH", path))
}

fn javascript() -> Result<()> {
    setup::ensure_command("node", "nodejs")?;
    let dir = root().join("sdk/js/tests");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .with_context(|| format!("cannot read {}", dir.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.to_string_lossy().ends_with(".test.mjs"))
        .collect();
    files.sort();
    eprintln!("xtask: the JavaScript SDK's tests");
    // Files named one by one: node 18 searches a folder for tests, newer
    // nodes take globs.
    run(Command::new("node").arg("--test").args(files))
}
