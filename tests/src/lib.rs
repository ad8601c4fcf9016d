//! amber-tests: hermetic end-to-end tests through real components built
//! from `guests/`, and (later) the fake LLM server.
//!
//! Every test gets its own home and workspace in a temporary directory
//! (the seed's "Regression" layer: contributions never leak between
//! tests). Compiled components are shared through one cache dir under
//! `target/`, as `AMBER_CACHE_DIR` allows.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use amber_core::Ledger;
use amber_runtime::{AmberDirs, Grants, PluginRuntime, RuntimeOptions};

/// The repository root.
pub fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_default()
}

/// The built component `name` (e.g. `hello-tool`). Panics with what to run
/// when the guests were not built.
pub fn guest(name: &str) -> PathBuf {
    let dir = std::env::var_os("AMBER_GUESTS_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| repo_root().join("target/guests"));
    let path = dir.join(format!("{name}.wasm"));
    assert!(
        path.exists(),
        "{} is missing: run `cargo xtask guests` (or `cargo xtask test`)",
        path.display()
    );
    path
}

/// A scratch home and workspace, removed when dropped.
pub struct Scratch {
    pub dir: tempfile::TempDir,
    pub home: PathBuf,
    pub workspace: PathBuf,
}

impl Scratch {
    pub fn new() -> Self {
        let dir = tempfile::tempdir().expect("cannot create a temp dir");
        let home = dir.path().join("home");
        let workspace = dir.path().join("workspace");
        std::fs::create_dir_all(&home).expect("cannot create the home");
        std::fs::create_dir_all(&workspace).expect("cannot create the workspace");
        Scratch {
            dir,
            home,
            workspace,
        }
    }

    /// Dirs under the scratch home, sharing the compiled-code cache.
    pub fn dirs(&self) -> AmberDirs {
        let mut dirs = AmberDirs::under(&self.home);
        dirs.cache = repo_root().join("target/test-cache");
        dirs
    }

    pub fn options(&self) -> RuntimeOptions {
        RuntimeOptions::new(self.dirs(), self.workspace.clone())
    }

    /// A runtime with its own ledger.
    pub fn runtime(&self) -> PluginRuntime {
        self.runtime_with(self.options())
    }

    pub fn runtime_with(&self, options: RuntimeOptions) -> PluginRuntime {
        PluginRuntime::new(options, Arc::new(Ledger::new())).expect("the runtime starts")
    }
}

impl Default for Scratch {
    fn default() -> Self {
        Self::new()
    }
}

/// Registers and enables `guest` with `grants`; returns its id.
pub fn enable(runtime: &PluginRuntime, guest_name: &str, grants: Grants) -> String {
    let (id, _) = runtime
        .register_file(&guest(guest_name))
        .unwrap_or_else(|e| panic!("cannot register {guest_name}: {e}"));
    runtime
        .enable(&id, grants)
        .unwrap_or_else(|e| panic!("cannot enable {guest_name}: {e}"));
    id
}

/// Calls tool `name` through the runtime's ledger, as dispatch will.
pub fn call_tool(
    runtime: &PluginRuntime,
    name: &str,
    args: serde_json::Value,
) -> Result<String, String> {
    let tool = runtime
        .ledger()
        .tool(name)
        .ok_or_else(|| format!("no tool `{name}` is installed"))?;
    tool.call(&args)
        .map(|o| o.content)
        .map_err(|e| e.to_string())
}
