//! The C example (`sdk/examples/c`): a plugin in a language without an
//! SDK. C bindings are generated from amber's WIT by wit-bindgen-c, the
//! plugin is compiled by Debian's clang against wasi-libc and linked by
//! wasm-ld, and wit-component makes the core module a component with the
//! WASI preview-1 adapter. Built into `sdk/examples/c/dist/c-word-count.wasm`,
//! which `amber plugin test --no-build` then runs like any other.

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{bail, Context, Result};
use wasi_preview1_component_adapter_provider::{
    WASI_SNAPSHOT_PREVIEW1_ADAPTER_NAME, WASI_SNAPSHOT_PREVIEW1_REACTOR_ADAPTER,
};
use wit_bindgen_core::wit_parser::Resolve;

use crate::{root, run, setup, target_dir};

/// The example's world.
const WORLD: &str = "tool-plugin";

/// Builds the example; returns its component.
pub fn build() -> Result<PathBuf> {
    let example = root().join("sdk/examples/c");
    let out = example.join("dist/c-word-count.wasm");
    build_from(&example, &root().join("wit"), &out, &target_dir().join("c-example"))?;
    Ok(out)
}

/// Builds the example in `example` against the WIT in `wit` into `out`,
/// working in `work`: the compatibility fixtures build an older commit's
/// example against that commit's WIT.
pub fn build_from(example: &Path, wit: &Path, out: &Path, work: &Path) -> Result<()> {
    // clang and wasi-libc the parsers already use; wasm-ld and the wasm32
    // compiler builtins for linking.
    setup::ensure_debian_packages(&["clang", "wasi-libc", "lld", "libclang-rt-dev-wasm32"])?;
    std::fs::create_dir_all(work)?;
    let sources = [example.join("plugin.c")];
    if up_to_date(out, &sources, wit)? {
        return Ok(());
    }
    eprintln!("xtask: building the C example plugin");
    let bindings = generate_bindings(work, wit)?;
    let module = work.join("plugin.core.wasm");
    let mut clang = Command::new("clang");
    clang
        .args([
            "--target=wasm32-wasi",
            "--sysroot=/usr",
            "-mexec-model=reactor",
            "-O2",
            "-Wall",
            "-Werror",
            "-fuse-ld=lld",
        ])
        .arg("-I")
        .arg(work)
        .args(&sources)
        .args(&bindings)
        .arg("-o")
        .arg(&module);
    run(&mut clang)?;
    let core = std::fs::read(&module)?;
    let component = wit_component::ComponentEncoder::default()
        .module(&core)
        .context("the C plugin's core module")?
        .adapter(
            WASI_SNAPSHOT_PREVIEW1_ADAPTER_NAME,
            WASI_SNAPSHOT_PREVIEW1_REACTOR_ADAPTER,
        )
        .context("the WASI preview-1 adapter")?
        .validate(true)
        .encode()
        .context("making the C plugin a component")?;
    if let Some(dir) = out.parent() {
        std::fs::create_dir_all(dir)?;
    }
    std::fs::write(out, component)?;
    Ok(())
}

/// The bindings' C file and type object, written into `work`.
fn generate_bindings(work: &Path, wit: &Path) -> Result<Vec<PathBuf>> {
    let mut resolve = Resolve::default();
    let (package, _) = resolve
        .push_dir(wit)
        .context("reading amber's WIT")?;
    let world = resolve.select_world(&[package], Some(WORLD))?;
    let mut files = wit_bindgen_core::Files::default();
    wit_bindgen_c::Opts::default()
        .build()
        .generate(&mut resolve, world, &mut files)?;
    let mut compile = Vec::new();
    for (name, bytes) in files.iter() {
        let path = work.join(name);
        std::fs::write(&path, bytes).with_context(|| format!("cannot write {}", path.display()))?;
        if name.ends_with(".c") || name.ends_with(".o") {
            compile.push(path);
        }
    }
    if compile.is_empty() {
        bail!("wit-bindgen-c wrote no C file");
    }
    Ok(compile)
}

/// `out` is newer than every source and than the WIT.
fn up_to_date(out: &Path, sources: &[PathBuf], wit: &Path) -> Result<bool> {
    let Ok(built) = std::fs::metadata(out).and_then(|m| m.modified()) else {
        return Ok(false);
    };
    let mut inputs: Vec<PathBuf> = sources.to_vec();
    for entry in std::fs::read_dir(wit)? {
        inputs.push(entry?.path());
    }
    for input in inputs {
        if std::fs::metadata(&input)?.modified()? > built {
            return Ok(false);
        }
    }
    Ok(true)
}
