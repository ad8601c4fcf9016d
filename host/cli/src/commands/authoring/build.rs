//! `amber plugin build [DIR]`: the language's toolchain, then the checks
//! of check.rs on what it made. The component goes to `DIR/dist/ID.wasm`.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use amber_runtime::AmberDirs;
use anyhow::{bail, Context, Result};
use serde_json::{json, Value};

use super::toolchain::{self, run_quiet};
use super::{artifact, check, sdk, Descriptor, Lang};

/// Builds the plugin in `dir`; returns the component's path.
pub fn build(dir: &Path) -> Result<PathBuf> {
    let descriptor = Descriptor::load(dir)?;
    let out = artifact(dir, &descriptor);
    if let Some(parent) = out.parent() {
        std::fs::create_dir_all(parent)
            .with_context(|| format!("cannot make {}", parent.display()))?;
    }
    let sdk = sdk::dir()?;
    match descriptor.plugin.lang {
        Lang::Python => python(dir, &descriptor, &sdk, &out)?,
        Lang::Rust => rust(dir, &out)?,
        Lang::Js => bail!(
            "{}: JavaScript plugins cannot be built by this amber yet (docs/plugin-authoring.md)",
            dir.join(super::DESCRIPTOR).display()
        ),
    }
    Ok(out)
}

fn python(dir: &Path, descriptor: &Descriptor, sdk: &Path, out: &Path) -> Result<()> {
    let entry = descriptor.plugin.entry.as_deref().unwrap_or("app");
    let module = dir.join(format!("{entry}.py"));
    if !module.is_file() {
        bail!(
            "{} is missing: {} names `{entry}` as the app module",
            module.display(),
            super::DESCRIPTOR
        );
    }
    let exe = toolchain::componentize_py(&AmberDirs::from_env().cache)?;
    eprintln!("amber: building {} with componentize-py", module.display());
    run_quiet(
        Command::new(exe)
            .arg("-d")
            .arg(sdk::wit(sdk))
            .args(["-w", &descriptor.plugin.kind.world(), "componentize", entry])
            .arg("-p")
            .arg(dir)
            .arg("-p")
            .arg(sdk.join("python"))
            .arg("-o")
            .arg(out)
            .current_dir(dir),
        &format!("componentize-py on {}", module.display()),
    )
}

fn rust(dir: &Path, out: &Path) -> Result<()> {
    toolchain::ensure_wasip2(dir)?;
    eprintln!("amber: building {} with cargo", dir.display());
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let output = Command::new(cargo)
        .args([
            "build",
            "--release",
            "--target",
            "wasm32-wasip2",
            "--message-format=json-render-diagnostics",
        ])
        .current_dir(dir)
        .stdin(Stdio::null())
        .stderr(Stdio::inherit())
        .output()
        .context("cannot run cargo (https://rustup.rs)")?;
    if !output.status.success() {
        bail!(
            "cargo could not build {} (its errors are above)",
            dir.display()
        );
    }
    let built = String::from_utf8_lossy(&output.stdout)
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|m| m["reason"] == "compiler-artifact")
        .flat_map(|m| {
            m["filenames"]
                .as_array()
                .cloned()
                .unwrap_or_default()
                .into_iter()
                .filter_map(|f| f.as_str().map(PathBuf::from))
        })
        .rfind(|f| f.extension().is_some_and(|e| e == "wasm"))
        .with_context(|| {
            format!(
                "cargo built no .wasm: {}/Cargo.toml needs `[lib] crate-type = [\"cdylib\"]`",
                dir.display()
            )
        })?;
    std::fs::copy(&built, out)
        .with_context(|| format!("cannot copy {} to {}", built.display(), out.display()))?;
    Ok(())
}

/// What `plugin build` says of a component that passed its checks.
pub fn summary(wasm: &Path, loaded: &check::Loaded) -> Value {
    let status = &loaded.status;
    json!({
        "component": wasm,
        "bytes": loaded.size,
        "id": status.manifest.id,
        "version": status.manifest.version,
        "api_version": status.manifest.api_version,
        "exports": status.exports,
        "contributes": status.contributions.iter().map(|c| format!("{} {}", c.kind, c.name)).collect::<Vec<_>>(),
        "big": loaded.size > check::BIG_BYTES,
    })
}
