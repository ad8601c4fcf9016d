//! `cargo xtask fuzz [TARGET] [--secs N]`: coverage-guided fuzzing of the
//! code that reads what a model, a server or a user hands amber (fuzz/).
//!
//! cargo-fuzz needs a nightly compiler (sanitizers, `-Z` flags), so this
//! is the one place the xtask leaves the pinned toolchain: it installs
//! nightly and cargo-fuzz when missing, and builds into `target/fuzz`, a
//! target dir of its own, so nothing the pinned builds made is rebuilt.
//! Each target runs for a bounded time (60 s by default); the corpus grows
//! in `fuzz/corpus/` (not committed) from seeds taken from the repository's
//! fixtures. Not part of `cargo xtask test`: a run is open-ended work, and a
//! crash it finds becomes a plain regression test in the normal suite.

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{bail, Context, Result};

use crate::{root, run, target_dir, toolchain};

/// The fuzz targets, each with what it checks (fuzz/fuzz_targets/).
pub const TARGETS: &[(&str, &str)] = &[
    (
        "sse_framing",
        "SSE framing: the events do not depend on where TCP cut the body",
    ),
    (
        "decode_openai_chat",
        "the OpenAI chat decoder: no panic, tool calls well formed",
    ),
    (
        "decode_openai_responses",
        "the OpenAI responses decoder: same",
    ),
    ("decode_anthropic", "the Anthropic messages decoder: same"),
    (
        "shell",
        "the shell lexer and classifier: a refused line never runs free",
    ),
    (
        "confine",
        "path confinement: what it accepts stays inside, normalised",
    ),
    (
        "config",
        "the config parser: no panic, errors name the file",
    ),
    ("fts_query", "memory's FTS query builder: always valid FTS5"),
    (
        "commands",
        "slash commands: no panic, a handler runs only at a real path of the tree",
    ),
];

const NIGHTLY: &str = "nightly";
const DEFAULT_SECS: u64 = 60;

struct Args {
    targets: Vec<&'static str>,
    secs: u64,
}

fn parse(args: &[String]) -> Result<Args> {
    let mut targets = Vec::new();
    let mut secs = DEFAULT_SECS;
    let mut it = args.iter();
    while let Some(arg) = it.next() {
        match arg.as_str() {
            "--secs" => {
                let value = it.next().context("--secs needs a number of seconds")?;
                secs = value
                    .parse()
                    .with_context(|| format!("--secs {value}: not a number of seconds"))?;
            }
            "-h" | "--help" => bail!("{}", usage()),
            name => match TARGETS.iter().find(|(t, _)| *t == name) {
                Some((t, _)) => targets.push(*t),
                None => bail!("no fuzz target `{name}`\n\n{}", usage()),
            },
        }
    }
    if targets.is_empty() {
        targets = TARGETS.iter().map(|(t, _)| *t).collect();
    }
    Ok(Args { targets, secs })
}

fn usage() -> String {
    let mut text = format!(
        "cargo xtask fuzz [TARGET]... [--secs N]   (default: every target, {DEFAULT_SECS} s each)\n\ntargets:\n"
    );
    for (name, what) in TARGETS {
        text.push_str(&format!("  {name:<24} {what}\n"));
    }
    text
}

pub fn run_all(args: &[String]) -> Result<()> {
    let args = parse(args)?;
    let cargo_fuzz = ensure_cargo_fuzz()?;
    let fuzz_dir = root().join("fuzz");
    eprintln!("xtask: building the fuzz targets (nightly, into target/fuzz)");
    let built = fuzz_command(&cargo_fuzz)
        .args(["build", "--fuzz-dir"])
        .arg(&fuzz_dir)
        .status()
        .with_context(|| format!("cannot run {}", cargo_fuzz.display()))?;
    if !built.success() {
        bail!("the fuzz targets do not build (above); nothing was fuzzed");
    }
    let mut crashed = Vec::new();
    for target in &args.targets {
        let corpus = fuzz_dir.join("corpus").join(target);
        seed(target, &corpus)?;
        eprintln!("xtask: fuzzing {target} for {} s", args.secs);
        let status = fuzz_command(&cargo_fuzz)
            .args(["run", target, "--fuzz-dir"])
            .arg(&fuzz_dir)
            .arg(&corpus)
            .args(["--", &format!("-max_total_time={}", args.secs)])
            .status()
            .with_context(|| format!("cannot run {}", cargo_fuzz.display()))?;
        if !status.success() {
            crashed.push(*target);
        }
    }
    if !crashed.is_empty() {
        bail!(
            "fuzzing found failures in {}: the inputs are in {}; \
             each becomes a regression test in the normal suite",
            crashed.join(", "),
            fuzz_dir.join("artifacts").display()
        );
    }
    eprintln!("xtask: no failures in {} targets", args.targets.len());
    Ok(())
}

/// cargo-fuzz under nightly, building into `target/fuzz`.
fn fuzz_command(cargo_fuzz: &Path) -> Command {
    let mut cmd = Command::new(cargo_fuzz);
    // Run as `cargo fuzz`, cargo-fuzz expects its own name first.
    cmd.arg("fuzz")
        .current_dir(root())
        .env("RUSTUP_TOOLCHAIN", NIGHTLY)
        .env("CARGO_TARGET_DIR", target_dir().join("fuzz"))
        .env_remove("CARGO")
        .env_remove("RUSTC")
        .env_remove("RUSTDOC");
    cmd
}

/// Installs nightly and cargo-fuzz (into target/tools) when missing. A
/// nightly older than the pin (an old install) is updated: amber's crates
/// need at least the pinned version.
fn ensure_cargo_fuzz() -> Result<PathBuf> {
    let pin = toolchain::pinned_version()?;
    let current = toolchain::toolchain_installed(NIGHTLY)?
        && nightly_version().is_some_and(|v| toolchain::at_least(&v, &pin));
    if !current {
        eprintln!("xtask: installing the newest nightly toolchain for cargo-fuzz (amber needs {pin} or newer)");
        run(Command::new("rustup")
            .args(["toolchain", "install", NIGHTLY, "--profile", "minimal"])
            .env_remove("RUSTUP_TOOLCHAIN"))
        .context("cannot install nightly Rust with rustup")?;
        let got = nightly_version().unwrap_or_default();
        if !toolchain::at_least(&got, &pin) {
            bail!("rustup's nightly is {got}, older than amber's pin {pin}");
        }
    }
    let tools = target_dir().join("tools/cargo-fuzz");
    let binary = tools.join("bin/cargo-fuzz");
    if !binary.exists() {
        eprintln!("xtask: installing cargo-fuzz into {}", tools.display());
        run(toolchain::pinned()?
            .cargo()
            .args(["install", "cargo-fuzz", "--locked", "--root"])
            .arg(&tools))
        .context("cannot install cargo-fuzz")?;
    }
    Ok(binary)
}

/// The version nightly's rustc reports, e.g. `1.101.0-nightly`.
fn nightly_version() -> Option<String> {
    let out = Command::new("rustc")
        .arg("--version")
        .env("RUSTUP_TOOLCHAIN", NIGHTLY)
        .output()
        .ok()?;
    String::from_utf8_lossy(&out.stdout)
        .split_whitespace()
        .nth(1)
        .map(String::from)
}

/// Puts seeds from the repository's fixtures into an empty corpus: a start
/// the fuzzer would take long to find by itself (real streams, real
/// config files).
fn seed(target: &str, corpus: &Path) -> Result<()> {
    std::fs::create_dir_all(corpus)
        .with_context(|| format!("cannot create {}", corpus.display()))?;
    if std::fs::read_dir(corpus)?.next().is_some() {
        return Ok(());
    }
    let repo = root();
    let seeds: Vec<(String, Vec<u8>)> = match target {
        "sse_framing" => files(&repo.join("fixtures/sse"), "sse")?,
        "decode_openai_chat" | "decode_openai_responses" | "decode_anthropic" => {
            files(&repo.join("fixtures/sse"), "sse")?
                .into_iter()
                .map(|(name, bytes)| (name, sse_as_lines(&bytes)))
                .collect()
        }
        "config" => files(&repo.join("fixtures"), "toml")?,
        "shell" => [
            "cargo test --workspace 2>&1 | tail -5",
            "cat ~/.amber/keys > /tmp/x",
            "find . -name '*.rs' -exec sed -i 's/a/b/' {} +",
            "echo $(curl -s http://example.com) && rm -rf ../x",
        ]
        .iter()
        .enumerate()
        .map(|(i, line)| (format!("line-{i}"), line.as_bytes().to_vec()))
        .collect(),
        "confine" => ["src/main.rs", "../etc/passwd", "/ws/a/../b", "a/./b//c/.."]
            .iter()
            .enumerate()
            .map(|(i, p)| (format!("path-{i}"), p.as_bytes().to_vec()))
            .collect(),
        "fts_query" => [
            "how do we fix the flaky build cache test?",
            "\"AND\" OR NEAR( foo*",
        ]
        .iter()
        .enumerate()
        .map(|(i, q)| (format!("question-{i}"), q.as_bytes().to_vec()))
        .collect(),
        "commands" => [
            "/set policy read",
            "/set model 'my \\'odd\\' model' --save",
            "/plugins enable \"tools fs\"",
            "/help set policy",
            "/plugns",
        ]
        .iter()
        .enumerate()
        .map(|(i, line)| (format!("line-{i}"), line.as_bytes().to_vec()))
        .collect(),
        _ => Vec::new(),
    };
    for (name, bytes) in seeds {
        std::fs::write(corpus.join(name), bytes)?;
    }
    Ok(())
}

/// The files under `dir` (recursively) ending in `.ext`, named by path.
fn files(dir: &Path, ext: &str) -> Result<Vec<(String, Vec<u8>)>> {
    let mut out = Vec::new();
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Ok(out);
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            out.extend(files(&path, ext)?);
        } else if path.extension().is_some_and(|e| e == ext) {
            let name = path
                .strip_prefix(root())
                .unwrap_or(&path)
                .to_string_lossy()
                .replace('/', "_");
            out.push((name, std::fs::read(&path)?));
        }
    }
    Ok(out)
}

/// A recorded SSE body in the decoder targets' format: one event a line,
/// `name<TAB>data`; an event's data lines are joined by a space (SSE joins
/// them by a newline, but a target reads one line as one event).
fn sse_as_lines(body: &[u8]) -> Vec<u8> {
    let text = String::from_utf8_lossy(body);
    let mut out = String::new();
    for block in text.split("\n\n") {
        let mut name = None;
        let mut data = Vec::new();
        for line in block.lines() {
            if let Some(v) = line.strip_prefix("event:") {
                name = Some(v.trim().to_string());
            } else if let Some(v) = line.strip_prefix("data:") {
                data.push(v.strip_prefix(' ').unwrap_or(v).to_string());
            }
        }
        if data.is_empty() {
            continue;
        }
        if let Some(name) = name {
            out.push_str(&name);
            out.push('\t');
        }
        out.push_str(&data.join(" "));
        out.push('\n');
    }
    out.into_bytes()
}
