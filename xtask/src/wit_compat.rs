//! `cargo xtask wit-compat VERSION [--commit REV]`: builds the plugin
//! contract's compatibility fixtures for one API version into
//! `fixtures/wit-compat/VERSION/`.
//!
//! The fixtures are frozen components that `cargo xtask test` loads on
//! every change (`host/cli/tests/wit_compat.rs`), so a WIT change that
//! breaks a plugin built for a supported version fails CI. They must be
//! built by the SDKs *of that version*, so the SDKs and the WIT come from
//! the commit `REV` (`git archive`), not from the work tree; the plugin
//! sources come from `fixtures/wit-compat/src/`. The commit, the tools and
//! each file's blake3 are written to `BUILT.md` beside them.

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{bail, Context, Result};

use crate::{c_plugin, cargo, copy_tree, root, run, target_dir};

/// The fixture plugins, each in `fixtures/wit-compat/src/<name>/`.
const SOURCES: [&str; 3] = ["compat-rust", "compat-python", "compat-js"];

pub fn build(args: &[String]) -> Result<()> {
    let (version, commit) = parse(args)?;
    let work = target_dir().join("wit-compat").join(&version);
    let _ = std::fs::remove_dir_all(&work);
    let checkout = work.join("checkout");
    std::fs::create_dir_all(&checkout)?;
    extract(&commit, &checkout)?;
    let worlds = std::fs::read_to_string(checkout.join("wit/worlds.wit"))
        .context("the commit has no wit/worlds.wit")?;
    if !worlds.contains(&format!("package amber:plugin@{version};")) {
        bail!("the WIT at {commit} is not amber:plugin@{version}; name the commit whose SDKs build {version}");
    }

    // The amber that runs each language's toolchain; the SDK it builds
    // against is the commit's, through AMBER_SDK_DIR.
    run(cargo()?
        .current_dir(root())
        .args(["build", "-p", "amber-cli"]))?;
    let amber = target_dir().join("debug/amber");
    let out = root().join("fixtures/wit-compat").join(&version);
    std::fs::create_dir_all(&out)?;
    let sdk = checkout.join("sdk");
    for name in SOURCES {
        let dir = work.join("plugins").join(name);
        copy_tree(&root().join("fixtures/wit-compat/src").join(name), &dir)?;
        let manifest = dir.join("Cargo.toml");
        if manifest.is_file() {
            let text = std::fs::read_to_string(&manifest)?;
            let rust_sdk = sdk.join("rust");
            std::fs::write(
                &manifest,
                text.replace("{{sdk}}", &rust_sdk.to_string_lossy()),
            )?;
        }
        eprintln!("xtask: building {name} against amber:plugin@{version}");
        run(Command::new(&amber)
            .args(["plugin", "build"])
            .arg(&dir)
            .env("AMBER_SDK_DIR", &sdk)
            .env("AMBER_HOME", work.join("home"))
            // The toolchains the tests installed, shared.
            .env("AMBER_CACHE_DIR", target_dir().join("test-cache"))
            .env("CARGO_TARGET_DIR", work.join("cargo-target")))?;
        std::fs::copy(
            dir.join("dist").join(format!("{name}.wasm")),
            out.join(format!("{name}.wasm")),
        )
        .with_context(|| format!("{name} built no dist/{name}.wasm"))?;
    }
    // Built afresh: the archive's files carry the commit's time, which
    // could make a fixture from another commit look up to date.
    let c_fixture = out.join("c-word-count.wasm");
    let _ = std::fs::remove_file(&c_fixture);
    c_plugin::build_from(
        &sdk.join("examples/c"),
        &checkout.join("wit"),
        &c_fixture,
        &work.join("c"),
    )?;
    write_record(&out, &version, &commit)?;
    eprintln!("xtask: the fixtures for {version} are in {}", out.display());
    Ok(())
}

fn parse(args: &[String]) -> Result<(String, String)> {
    let usage = "usage: cargo xtask wit-compat VERSION [--commit REV]";
    let mut version = None;
    let mut commit = "HEAD".to_string();
    let mut rest = args.iter();
    while let Some(arg) = rest.next() {
        match arg.as_str() {
            "--commit" => commit = rest.next().context(usage)?.clone(),
            v if version.is_none() && !v.starts_with('-') => version = Some(v.to_string()),
            other => bail!("unexpected `{other}`\n{usage}"),
        }
    }
    let version = version.context(usage)?;
    let sha = String::from_utf8(
        Command::new("git")
            .current_dir(root())
            .args(["rev-parse", "--verify"])
            .arg(format!("{commit}^{{commit}}"))
            .output()
            .context("cannot run git")?
            .stdout,
    )?;
    let sha = sha.trim();
    if sha.is_empty() {
        bail!("`{commit}` is not a commit of this repository");
    }
    Ok((version, sha.to_string()))
}

/// The commit's `wit/` and `sdk/`, as files.
fn extract(commit: &str, into: &Path) -> Result<()> {
    let archive = into.join("sdk.tar");
    run(Command::new("git")
        .current_dir(root())
        .args(["archive", "--format=tar", "-o"])
        .arg(&archive)
        .args([commit, "wit", "sdk"]))?;
    run(Command::new("tar")
        .arg("-xf")
        .arg(&archive)
        .arg("-C")
        .arg(into))?;
    std::fs::remove_file(&archive)?;
    Ok(())
}

/// `BUILT.md`: what built the fixtures, so they can be built again.
fn write_record(out: &Path, version: &str, commit: &str) -> Result<()> {
    let tool = |cmd: &str, args: &[&str]| -> String {
        Command::new(cmd)
            .args(args)
            .output()
            .ok()
            .map(|o| {
                String::from_utf8_lossy(&o.stdout)
                    .lines()
                    .next()
                    .unwrap_or("")
                    .trim()
                    .to_string()
            })
            .filter(|s| !s.is_empty())
            .unwrap_or_else(|| "(unknown)".into())
    };
    let rustc = crate::toolchain::pinned()?.name().to_string();
    let mut files: Vec<PathBuf> = std::fs::read_dir(out)?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "wasm"))
        .collect();
    files.sort();
    let mut text = format!(
        "# amber:plugin@{version} compatibility fixtures\n\n\
         Frozen components built by the SDKs of `amber:plugin@{version}`; `cargo xtask test` loads \
         and calls each (`host/cli/tests/wit_compat.rs`). Never rebuild them for a later version: \
         a later version gets a folder of its own.\n\n\
         Built with `cargo xtask wit-compat {version} --commit {commit}`:\n\n\
         - the SDKs and WIT of commit `{commit}`; the plugin sources in `fixtures/wit-compat/src/`;\n\
         - Rust `{rustc}` (wasm32-wasip2), componentize-py and componentize-js as that amber pins them, \
         clang `{}`.\n\n| file | bytes | blake3 |\n|---|---|---|\n",
        tool("clang", &["--version"]),
    );
    for file in files {
        let bytes = std::fs::read(&file)?;
        text.push_str(&format!(
            "| {} | {} | `{}` |\n",
            file.file_name().unwrap_or_default().to_string_lossy(),
            bytes.len(),
            blake3::hash(&bytes).to_hex()
        ));
    }
    std::fs::write(out.join("BUILT.md"), text)?;
    Ok(())
}
