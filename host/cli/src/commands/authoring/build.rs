//! `amber plugin build [DIR]`: the language's toolchain, then the checks
//! of check.rs on what it made. The component goes to `DIR/dist/ID.wasm`.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use amber_runtime::AmberDirs;
use anyhow::{bail, Context, Result};
use serde_json::{json, Value};

use super::toolchain::{self, run_quiet};
use super::{artifact, check, sdk, Descriptor, Lang};

/// The component of the plugin in `dir` (`amber plugin add .`). One
/// missing or older than a file of the plugin's is built first only with
/// `allow_build`: a build runs the plugin's toolchain on this machine,
/// outside the sandbox (build scripts, imports), and a cloned folder's
/// file dates say little, so it is never done unasked.
pub fn built(dirs: &AmberDirs, dir: &Path, allow_build: bool) -> Result<PathBuf> {
    let descriptor = Descriptor::load(dir)?;
    let out = artifact(dir, &descriptor);
    let built_at = std::fs::metadata(&out).and_then(|m| m.modified()).ok();
    let newest = newest_source(dir, &out);
    let why = match (built_at, newest) {
        (Some(at), Some((changed, path))) if changed > at => format!(
            "{} changed since {} was built",
            path.display(),
            out.display()
        ),
        (Some(_), _) => return Ok(out),
        (None, _) => format!("{} is not built yet", out.display()),
    };
    if !allow_build {
        bail!("{why}; add --build to build it first (it runs the plugin's toolchain on this machine), or build it with `amber plugin build`");
    }
    eprintln!("amber: {why}; building it");
    build(dirs, dir)
}

/// The newest file of the plugin in `dir` and when it changed: its
/// sources, descriptor and tests, not what builds write (`target/`,
/// `dist/`, `node_modules/`, caches, dot folders).
pub fn newest_source(dir: &Path, out: &Path) -> Option<(std::time::SystemTime, PathBuf)> {
    const SKIPPED: &[&str] = &["target", "dist", "node_modules", "__pycache__", "build"];
    let mut newest: Option<(std::time::SystemTime, PathBuf)> = None;
    let mut stack = vec![(dir.to_path_buf(), 0usize)];
    while let Some((folder, depth)) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&folder) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            let name = entry.file_name().to_string_lossy().into_owned();
            let Ok(meta) = entry.metadata() else {
                continue;
            };
            if meta.is_dir() {
                if depth < 8 && !name.starts_with('.') && !SKIPPED.contains(&name.as_str()) {
                    stack.push((path, depth + 1));
                }
                continue;
            }
            if path == out {
                continue;
            }
            if let Ok(changed) = meta.modified() {
                if newest.as_ref().is_none_or(|(at, _)| changed > *at) {
                    newest = Some((changed, path));
                }
            }
        }
    }
    newest
}

/// Builds the plugin in `dir`; returns the component's path.
pub fn build(dirs: &AmberDirs, dir: &Path) -> Result<PathBuf> {
    let descriptor = Descriptor::load(dir)?;
    let out = artifact(dir, &descriptor);
    if let Some(parent) = out.parent() {
        std::fs::create_dir_all(parent)
            .with_context(|| format!("cannot make {}", parent.display()))?;
    }
    let sdk = sdk::dir()?;
    match descriptor.plugin.lang {
        Lang::Python => python(&dirs.cache, dir, &descriptor, &sdk, &out)?,
        Lang::Rust => rust(dir, &out)?,
        Lang::Js => js(&dirs.cache, dir, &descriptor, &sdk, &out)?,
        Lang::C => bail!(
            "{}: amber has no C toolchain of its own; build {} with the plugin's script (see sdk/examples/c/README.md), then run `amber plugin test --no-build`",
            dir.join(super::DESCRIPTOR).display(),
            out.display()
        ),
    }
    Ok(out)
}

fn python(cache: &Path, dir: &Path, descriptor: &Descriptor, sdk: &Path, out: &Path) -> Result<()> {
    let entry = descriptor.plugin.entry.as_deref().unwrap_or("app");
    let module = dir.join(format!("{entry}.py"));
    if !module.is_file() {
        bail!(
            "{} is missing: {} names `{entry}` as the app module",
            module.display(),
            super::DESCRIPTOR
        );
    }
    let exe = toolchain::componentize_py(cache)?;
    eprintln!("amber: building {} with componentize-py", module.display());
    let mut command = Command::new(exe);
    // Kept until componentize-py has run: it holds the http world.
    let http_world = if descriptor.plugin.http {
        Some(python_http_args(&mut command, descriptor, sdk)?)
    } else {
        command
            .arg("-d")
            .arg(sdk::wit(sdk))
            .args(["-w", &descriptor.plugin.kind.world()]);
        None
    };
    run_quiet(
        command
            .args(["componentize", entry])
            .arg("-p")
            .arg(dir)
            .arg("-p")
            .arg(sdk.join("python"))
            .arg("-o")
            .arg(out)
            // The SDK may sit in a read-only share dir; leave no bytecode
            // beside it.
            .env("PYTHONDONTWRITEBYTECODE", "1")
            // A Python error is what a user needs; with the user's
            // RUST_BACKTRACE it would end in componentize-py's own frames,
            // past the lines of it that are shown.
            .env("RUST_BACKTRACE", "0")
            .current_dir(dir),
        &format!("componentize-py on {}", module.display()),
    )?;
    drop(http_world);
    Ok(())
}

/// The WASI packages `wasi:http` needs, `SDK/python/wasi/*.wit`, sorted
/// by name: each name starts with its place in the order componentize-py
/// must read them (a package before those that use it).
fn wasi_wit(sdk: &Path) -> Result<Vec<PathBuf>> {
    let folder = sdk.join("python/wasi");
    let incomplete = || {
        format!(
            "{} holds no WASI WIT: the SDK folder {} is incomplete (reinstall amber)",
            folder.display(),
            sdk.display()
        )
    };
    let mut files: Vec<PathBuf> = std::fs::read_dir(&folder)
        .with_context(incomplete)?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "wit"))
        .collect();
    if files.is_empty() {
        bail!(incomplete());
    }
    files.sort();
    Ok(files)
}

/// The WASI version of `SDK/python/wasi`: wasmtime's and componentize-py's.
const WASI_VERSION: &str = "0.2.12";

/// componentize-py's WIT arguments for a Python plugin with `http = true`:
/// the kind's world merged with `wasi:http/outgoing-handler`, so the
/// bindings `amber_sdk.http` uses are generated. The merged world is not
/// part of amber's contract (the host links wasi:http for every plugin,
/// whatever its version), so it is written for this build only, into a
/// folder the caller keeps until the build ends. Both `types` interfaces
/// are named, or componentize-py would rename amber's and break the SDK.
fn python_http_args(
    command: &mut Command,
    descriptor: &Descriptor,
    sdk: &Path,
) -> Result<tempfile::TempDir> {
    for file in wasi_wit(sdk)? {
        command.arg("-d").arg(file);
    }
    let api = amber_runtime::API_VERSION;
    let world = descriptor.plugin.kind.world();
    let folder = tempfile::tempdir().context("cannot make a temporary folder for the build")?;
    std::fs::write(
        folder.path().join("world.wit"),
        format!(
            "package amber:python-build;\n\n\
             /// The `{world}` world and an HTTP client, for this build only.\n\
             world {world}-http {{\n  include amber:plugin/{world}@{api};\n  \
             import wasi:http/outgoing-handler@{WASI_VERSION};\n}}\n"
        ),
    )
    .context("cannot write the build's WIT world")?;
    command
        .arg("-d")
        .arg(sdk::wit(sdk))
        .arg("-d")
        .arg(folder.path())
        .args(["-w", &format!("amber:python-build/{world}-http")])
        .arg("--import-interface-name")
        .arg(format!("amber:plugin/types@{api}=types"))
        .arg("--import-interface-name")
        .arg(format!("wasi:http/types@{WASI_VERSION}=http_types"));
    Ok(folder)
}

/// The SDK file a JavaScript plugin imports (`./amber-sdk.js`), and the
/// WIT's TypeScript declarations beside it, copied in by `plugin new` and
/// kept current here. Each starts with a line that marks it as amber's, so
/// a file of the user's by that name is never overwritten.
pub const JS_SDK: &str = "amber-sdk.js";
pub const JS_TYPES: &str = "amber-plugin.d.ts";
const JS_FILES: [(&str, &str); 2] = [
    (JS_SDK, "// amber-sdk.js: amber's JavaScript SDK"),
    (JS_TYPES, "// amber-plugin.d.ts: amber's WIT"),
];

/// Copies the installed SDK's JavaScript files into `dir` unless a file
/// of the user's is there.
pub fn refresh_js_sdk(dir: &Path, sdk: &Path) -> Result<()> {
    for (name, mark) in JS_FILES {
        let from = sdk.join("js").join(name);
        let text = std::fs::read_to_string(&from)
            .with_context(|| format!("cannot read the JavaScript SDK's {}", from.display()))?;
        let to = dir.join(name);
        match std::fs::read_to_string(&to) {
            Ok(current) if current == text => continue,
            Ok(current) if !current.starts_with(mark) => {
                eprintln!(
                    "amber: warning: {} is not amber's SDK file; it is left as it is",
                    to.display()
                );
                continue;
            }
            _ => {}
        }
        std::fs::write(&to, text).with_context(|| format!("cannot write {}", to.display()))?;
    }
    Ok(())
}

fn js(cache: &Path, dir: &Path, descriptor: &Descriptor, sdk: &Path, out: &Path) -> Result<()> {
    let entry = descriptor.plugin.entry.as_deref().unwrap_or("plugin.js");
    let source = dir.join(entry);
    if !source.is_file() {
        bail!(
            "{} is missing: {} names `{entry}` as the entry file",
            source.display(),
            super::DESCRIPTOR
        );
    }
    refresh_js_sdk(dir, sdk)?;
    let cli = toolchain::componentize_js(cache)?;
    eprintln!("amber: building {} with componentize-js", source.display());
    // fetch-event (serving HTTP) is never a plugin's; `fetch` is kept
    // only for a plugin that says `http = true`, so one without carries
    // no wasi:http. An export may then be async: componentize-js runs
    // the event loop until its promise settles (docs/sdk-js.md).
    let mut disabled = vec!["fetch-event"];
    if !descriptor.plugin.http {
        disabled.push("http");
    }
    run_quiet(
        Command::new("node")
            .arg(cli)
            .arg(&source)
            .arg("--wit")
            .arg(sdk::wit(sdk))
            .args(["-n", &descriptor.plugin.kind.world(), "-d"])
            .args(disabled)
            .arg("-o")
            .arg(out)
            .current_dir(dir),
        &format!("componentize-js on {}", source.display()),
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
        "api_version": status.api,
        "adapter": status.adapter,
        "exports": status.exports,
        "contributes": status.contributions.iter().map(|c| format!("{} {}", c.kind, c.name)).collect::<Vec<_>>(),
        "big": loaded.size > check::BIG_BYTES,
    })
}
