//! The toolchains a plugin build needs, installed on first use into
//! amber's cache dir at versions amber pins, and reused after:
//! componentize-py (pip, in a virtualenv of its own) for Python, and
//! componentize-js (npm, without its AOT option, which downloads a
//! binary) for JavaScript. Rust uses the user's cargo; its wasm32-wasip2
//! target is added when missing.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use anyhow::{bail, Context, Result};

/// componentize-py, pinned: the version the Python SDK is tested with.
pub const COMPONENTIZE_PY: &str = "componentize-py==0.25.1";

/// componentize-js, pinned: the version the JavaScript SDK is tested with.
pub const COMPONENTIZE_JS: &str = "@bytecodealliance/componentize-js@0.23.0";

/// A spinner on stderr with `message`, while `work` runs.
fn with_progress<T>(message: String, work: impl FnOnce() -> Result<T>) -> Result<T> {
    let bar = indicatif::ProgressBar::new_spinner();
    bar.set_message(message.clone());
    bar.enable_steady_tick(Duration::from_millis(120));
    if !std::io::IsTerminal::is_terminal(&std::io::stderr()) {
        bar.set_draw_target(indicatif::ProgressDrawTarget::hidden());
        eprintln!("amber: {message}");
    }
    let out = work();
    bar.finish_and_clear();
    out
}

/// Runs `cmd` to the end, failing with its stderr.
pub fn run_quiet(cmd: &mut Command, what: &str) -> Result<()> {
    let out = cmd
        .stdin(Stdio::null())
        .output()
        .with_context(|| format!("cannot run {what}"))?;
    if !out.status.success() {
        let said = String::from_utf8_lossy(&out.stderr);
        let said = said.trim();
        let tail: String = said
            .lines()
            .rev()
            .take(15)
            .collect::<Vec<_>>()
            .into_iter()
            .rev()
            .collect::<Vec<_>>()
            .join("\n");
        bail!("{what} failed ({}):\n{tail}", out.status);
    }
    Ok(())
}

/// `componentize-py`, installing it into `cache/toolchains` when missing.
pub fn componentize_py(cache: &Path) -> Result<PathBuf> {
    let venv = cache.join("toolchains/componentize-py");
    let exe = venv.join("bin/componentize-py");
    let stamp = venv.join("installed");
    if exe.is_file() && std::fs::read_to_string(&stamp).is_ok_and(|s| s == COMPONENTIZE_PY) {
        return Ok(exe);
    }
    let python = which("python3").context(
        "building a Python plugin needs python3 (with its venv module) to install componentize-py",
    )?;
    with_progress(
        format!(
            "installing {COMPONENTIZE_PY} from PyPI into {} (once)",
            venv.display()
        ),
        || {
            let _ = std::fs::remove_dir_all(&venv);
            run_quiet(
                Command::new(&python).arg("-m").arg("venv").arg(&venv),
                "python3 -m venv (on Debian: apt-get install python3-venv)",
            )?;
            run_quiet(
                Command::new(venv.join("bin/pip"))
                    .args(["install", "--quiet", "--disable-pip-version-check"])
                    .arg(COMPONENTIZE_PY),
                "pip install componentize-py",
            )?;
            std::fs::write(&stamp, COMPONENTIZE_PY)?;
            Ok(())
        },
    )?;
    Ok(exe)
}

/// componentize-js's command line, installing it into `cache/toolchains`
/// when missing.
pub fn componentize_js(cache: &Path) -> Result<PathBuf> {
    let prefix = cache.join("toolchains/componentize-js");
    let cli = prefix.join("node_modules/@bytecodealliance/componentize-js/src/cli.js");
    let stamp = prefix.join("installed");
    if cli.is_file() && std::fs::read_to_string(&stamp).is_ok_and(|s| s == COMPONENTIZE_JS) {
        return Ok(cli);
    }
    let npm = which("npm").context(
        "building a JavaScript plugin needs node and npm to install componentize-js (on Debian: apt-get install nodejs npm)",
    )?;
    with_progress(
        format!(
            "installing {COMPONENTIZE_JS} from npm into {} (once; about 400 MB)",
            prefix.display()
        ),
        || {
            let _ = std::fs::remove_dir_all(&prefix);
            std::fs::create_dir_all(&prefix)?;
            run_quiet(
                Command::new(npm)
                    .args([
                        "install",
                        "--no-audit",
                        "--no-fund",
                        "--loglevel=error",
                        "--prefix",
                    ])
                    .arg(&prefix)
                    .arg(COMPONENTIZE_JS),
                "npm install componentize-js",
            )?;
            std::fs::write(&stamp, COMPONENTIZE_JS)?;
            Ok(())
        },
    )?;
    Ok(cli)
}

/// Adds the wasm32-wasip2 target through rustup when the toolchain lacks
/// it; without rustup, says what to do.
pub fn ensure_wasip2(dir: &Path) -> Result<()> {
    let sysroot = Command::new("rustc")
        .args(["--print", "sysroot"])
        .current_dir(dir)
        .output()
        .context("building a Rust plugin needs rustc and cargo (https://rustup.rs)")?;
    let sysroot = String::from_utf8_lossy(&sysroot.stdout).trim().to_string();
    if Path::new(&sysroot)
        .join("lib/rustlib/wasm32-wasip2")
        .is_dir()
    {
        return Ok(());
    }
    if which("rustup").is_none() {
        bail!("this Rust toolchain has no wasm32-wasip2 target, and there is no rustup to add it");
    }
    with_progress("adding the wasm32-wasip2 target (once)".into(), || {
        run_quiet(
            Command::new("rustup")
                .args(["target", "add", "wasm32-wasip2"])
                .current_dir(dir),
            "rustup target add wasm32-wasip2",
        )
    })
}

/// `name` on PATH.
pub fn which(name: &str) -> Option<PathBuf> {
    std::env::var_os("PATH").and_then(|paths| {
        std::env::split_paths(&paths)
            .map(|p| p.join(name))
            .find(|p| p.is_file())
    })
}
