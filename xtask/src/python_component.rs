//! The benchmarks' big component: a Python program built by
//! componentize-py (pinned, from PyPI) into an ~18 MB component, the size
//! a Python plugin has. It measures how long a first compile of a big
//! plugin takes; it is built once into `<target>/bench/python-greeter.wasm`
//! and rebuilt only when its sources change.

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context, Result};

use crate::{root, run, setup, target_dir};

const PACKAGE: &str = "componentize-py==0.25.1";

/// A virtualenv under the target dir holding componentize-py, so nothing
/// is installed into the user's Python.
pub fn ensure_componentize_py() -> Result<PathBuf> {
    let venv = target_dir().join("tools/componentize-py");
    let exe = venv.join("bin/componentize-py");
    let stamp = venv.join("installed");
    if exe.is_file() && std::fs::read_to_string(&stamp).is_ok_and(|s| s == PACKAGE) {
        return Ok(exe);
    }
    eprintln!(
        "xtask: installing {PACKAGE} from PyPI into {}",
        venv.display()
    );
    setup::ensure_python_module("venv", "python3-venv")?;
    let _ = std::fs::remove_dir_all(&venv);
    run(Command::new("python3").args(["-m", "venv"]).arg(&venv))?;
    run(Command::new(venv.join("bin/pip")).args([
        "install",
        "--quiet",
        "--only-binary=:all:",
        PACKAGE,
    ]))?;
    std::fs::write(&stamp, PACKAGE)?;
    Ok(exe)
}

/// The newest modification time under `dir` (the fixture's sources).
fn newest(dir: &Path) -> Result<std::time::SystemTime> {
    let mut latest = std::time::SystemTime::UNIX_EPOCH;
    for entry in std::fs::read_dir(dir).with_context(|| format!("cannot read {}", dir.display()))? {
        let entry = entry?;
        let time = if entry.file_type()?.is_dir() {
            newest(&entry.path())?
        } else {
            entry.metadata()?.modified()?
        };
        latest = latest.max(time);
    }
    Ok(latest)
}

/// Builds `bench/fixtures/python-greeter` unless the component is newer
/// than its sources; returns the component's path.
pub fn ensure_big_component() -> Result<PathBuf> {
    let source = root().join("bench/fixtures/python-greeter");
    let out_dir = target_dir().join("bench");
    let out = out_dir.join("python-greeter.wasm");
    let fresh = std::fs::metadata(&out)
        .and_then(|m| m.modified())
        .is_ok_and(|built| newest(&source).is_ok_and(|src| built >= src));
    if fresh {
        return Ok(out);
    }
    let componentize = ensure_componentize_py()?;
    std::fs::create_dir_all(&out_dir)?;
    eprintln!("xtask: building the big Python component with componentize-py");
    // componentize-py writes its bindings beside the app; build in a
    // scratch copy so the repository stays clean.
    let scratch = out_dir.join("python-greeter.build");
    let _ = std::fs::remove_dir_all(&scratch);
    crate::copy_tree(&source, &scratch)?;
    run(Command::new(componentize)
        .current_dir(&scratch)
        .args(["-d", "wit", "-w", "greeter", "componentize", "app", "-o"])
        .arg(&out))?;
    let _ = std::fs::remove_dir_all(&scratch);
    Ok(out)
}
