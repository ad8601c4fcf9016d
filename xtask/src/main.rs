//! `cargo xtask demo|test|guests|bench`: the README's commands.
//!
//! Every install step lives here and runs only when the thing is missing,
//! so a fresh machine needs nothing but these commands.

mod bench;
mod guests;
mod setup;

use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};

use anyhow::{bail, Context, Result};

const USAGE: &str = "\
cargo xtask <command>

commands:
  demo     install what is missing, build host and guests, run the demo
  test     install what is missing, build the guests, run every test
  guests   build every guest in release into target/guests/<name>.wasm
  bench    build in release and run every benchmark; writes target/bench/summary.json
";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let result = match args.first().map(String::as_str) {
        Some("demo") => demo(),
        Some("test") => test(&args[1..]),
        Some("guests") => guests::build_all().map(|_| ()),
        Some("bench") => bench::run_all(&args[1..]),
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

pub fn cargo() -> Command {
    Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()))
}

fn test(extra: &[String]) -> Result<()> {
    let guests = guests::build_all()?;
    eprintln!("xtask: running every test");
    let mut cmd = cargo();
    cmd.current_dir(root())
        .args(["test", "--workspace", "--all-targets"])
        .args(extra)
        .env("AMBER_GUESTS_DIR", &guests);
    run(&mut cmd)
}

fn demo() -> Result<()> {
    let guests = guests::build_all()?;
    eprintln!("xtask: building amber");
    run(cargo()
        .current_dir(root())
        .args(["build", "--quiet", "-p", "amber-cli"]))?;
    let amber = root().join("target/debug/amber");
    let hello = guests.join("hello-tool.wasm");
    let home = tempdir_path("amber-demo")?;
    let show = |args: &[&str]| -> Result<()> {
        println!("\n$ amber {}", args.join(" "));
        run(Command::new(&amber).args(args).env("AMBER_HOME", &home))
    };
    let hello_arg = hello.to_string_lossy().into_owned();
    show(&["plugin", "list"])?;
    show(&["plugin", "inspect", &hello_arg])?;
    show(&["plugin", "add", &hello_arg])?;
    show(&["tool", "list"])?;
    show(&["tool", "call", "hello", r#"{"name":"amber"}"#])?;
    show(&["tool", "call", "--json", "hello", r#"{"name":"json"}"#])?;
    show(&["plugin", "info", "prompt-workspace"])?;
    let _ = std::fs::remove_dir_all(&home);
    Ok(())
}

/// A fresh directory under the system temp dir.
pub fn tempdir_path(prefix: &str) -> Result<PathBuf> {
    let path = std::env::temp_dir().join(format!("{prefix}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&path);
    std::fs::create_dir_all(&path).with_context(|| format!("cannot create {}", path.display()))?;
    Ok(path)
}
