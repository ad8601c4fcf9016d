//! `amber plugin ...`: add, list, info, inspect, enable, disable, remove,
//! grant, revoke, logs, precompile (its own module).

use std::io::{BufRead, IsTerminal, Write};
use std::path::{Path, PathBuf};

use amber_runtime::lifecycle::{PermissionRequest, PluginManifest};
use amber_runtime::manager::{AddReport, GrantAsker, GrantChoice, NoTty, PluginManager};
use amber_runtime::{Grants, Permission, PluginStatus};
use anyhow::{Context, Result};
use clap::Subcommand;
use serde_json::json;

use super::authoring;
use super::print_json;
use amber_app::host::{self, Host};
use amber_app::render::plugins as render;

#[derive(Subcommand)]
pub enum PluginCommand {
    /// Add a component: validate it, keep a copy, ask for each permission it
    /// requests (with its reason), and enable it. Adding the same file again
    /// changes nothing; a new build of a known plugin replaces it and asks
    /// only for what is new.
    Add {
        /// The component (.wasm), or a plugin's folder (with its
        /// amber-plugin.toml): its built component, built first when it
        /// is missing or older than the plugin's files.
        file: PathBuf,
        /// Grant this requested permission without asking (repeatable):
        /// workspace-read, workspace-write, exec, http.
        #[arg(long = "grant", value_name = "PERM")]
        grants: Vec<Permission>,
        /// Grant everything the plugin requests.
        #[arg(long)]
        yes: bool,
        /// With a plugin's folder: build it first when its component is
        /// missing or out of date (runs its toolchain on this machine).
        #[arg(long)]
        build: bool,
        /// Print JSON for scripts instead of text.
        #[arg(long)]
        json: bool,
    },
    /// List every plugin, bundled and added, with its state.
    List {
        /// Print JSON for scripts instead of text.
        #[arg(long)]
        json: bool,
    },
    /// Show one plugin: manifest, exports, grants, state, why it failed,
    /// what it contributes, its hash.
    Info {
        /// The plugin's id (see `amber plugin list`).
        #[arg(add = clap_complete::engine::ArgValueCandidates::new(super::completers::plugin_ids))]
        id: String,
        /// Print JSON for scripts instead of text.
        #[arg(long)]
        json: bool,
    },
    /// Look inside a .wasm without adding it: runs it sandboxed with
    /// nothing granted.
    Inspect {
        /// The component (.wasm) to look inside.
        file: PathBuf,
        /// Print JSON for scripts instead of text.
        #[arg(long)]
        json: bool,
    },
    /// Enable a plugin, now and in later runs.
    Enable {
        /// The plugin's id (see `amber plugin list`).
        #[arg(add = clap_complete::engine::ArgValueCandidates::new(super::completers::plugin_ids))]
        id: String,
    },
    /// Disable a plugin, now and in later runs; it stays installed.
    Disable {
        /// The plugin's id (see `amber plugin list`).
        #[arg(add = clap_complete::engine::ArgValueCandidates::new(super::completers::plugin_ids))]
        id: String,
    },
    /// Remove a plugin. A bundled one stays out until added again.
    Remove {
        /// The plugin's id (see `amber plugin list`).
        #[arg(add = clap_complete::engine::ArgValueCandidates::new(super::completers::plugin_ids))]
        id: String,
    },
    /// Grant a permission the plugin requests.
    Grant {
        /// The plugin's id (see `amber plugin list`).
        #[arg(add = clap_complete::engine::ArgValueCandidates::new(super::completers::plugin_ids))]
        id: String,
        /// workspace-read, workspace-write, exec or http; the plugin's
        /// manifest must request it (`amber plugin info ID` lists what it
        /// requests, `http` with its hosts).
        permission: Permission,
    },
    /// Revoke a permission.
    Revoke {
        /// The plugin's id (see `amber plugin list`).
        #[arg(add = clap_complete::engine::ArgValueCandidates::new(super::completers::plugin_ids))]
        id: String,
        /// workspace-read, workspace-write, exec or http.
        permission: Permission,
    },
    /// Compile every enabled plugin now, so no later command waits for it.
    ///
    /// Into amber's own cache by default. `--into DIR` writes a cache of
    /// its own there (compiled code and what each plugin declares): what
    /// `cargo xtask install` lays beside the bundled plugins, read-only, so
    /// a fresh home compiles nothing. Run it with a fresh AMBER_HOME for
    /// such a shared cache, so only the bundled plugins, with their default
    /// grants and settings, go in.
    Precompile {
        /// Write a cache of its own into DIR instead of amber's.
        #[arg(long, value_name = "DIR")]
        into: Option<PathBuf>,
        /// Print JSON for scripts instead of text.
        #[arg(long)]
        json: bool,
    },
    /// Start a plugin: a folder NAME that builds and passes `plugin test`
    /// as it is (its descriptor, one working example, a README and
    /// tests.toml), offline and anywhere.
    New {
        /// The plugin's id and folder name: 1-64 of a-z, 0-9, - and _.
        name: String,
        /// The language.
        #[arg(long, value_enum, default_value = "rust")]
        lang: authoring::Lang,
        /// What the plugin contributes.
        #[arg(long, value_enum, default_value = "tool")]
        kind: authoring::Kind,
        /// Where to make the folder (default: here).
        #[arg(long, value_name = "DIR", default_value = ".")]
        dir: PathBuf,
        /// A tool that calls a web API through the `http` permission, its
        /// tests answered from recorded `[[http]]` responses (Rust, Python
        /// or JavaScript; amber-plugin.toml says `http = true`).
        #[arg(long)]
        http: bool,
    },
    /// Build the plugin in DIR (default: here) with its language's
    /// toolchain into DIR/dist/ID.wasm, and check it: a valid component of
    /// amber's API version, its manifest, its capabilities against its
    /// exports, its size.
    ///
    /// Python needs python3: componentize-py is installed into amber's
    /// cache on first use. JavaScript needs npm: componentize-js is
    /// installed the same way. Rust needs cargo; the wasm32-wasip2 target
    /// is added through rustup when missing.
    Build {
        /// The plugin folder (holding amber-plugin.toml).
        #[arg(default_value = ".")]
        dir: PathBuf,
        /// Print JSON for scripts instead of text.
        #[arg(long)]
        json: bool,
    },
    /// Run the plugin of DIR (default: here) through amber's runtime in a
    /// scratch home: its checks, then each example call of its tests.toml,
    /// passed or failed with a diff. Exits 1 when one fails. Builds first
    /// unless --no-build.
    Test {
        /// The plugin folder (holding amber-plugin.toml).
        #[arg(default_value = ".")]
        dir: PathBuf,
        /// Test dist/ID.wasm as it is.
        #[arg(long)]
        no_build: bool,
        /// Print JSON for scripts instead of text.
        #[arg(long)]
        json: bool,
    },
    /// Print the plugin's log: its log() calls and its stderr.
    Logs {
        /// The plugin's id (see `amber plugin list`).
        #[arg(add = clap_complete::engine::ArgValueCandidates::new(super::completers::plugin_ids))]
        id: String,
        /// Only the last N lines.
        #[arg(long, value_name = "N")]
        tail: Option<usize>,
    },
}

pub fn run(host: &Host, cmd: PluginCommand, workspace: &Path) -> Result<()> {
    match cmd {
        PluginCommand::Add {
            file,
            grants,
            yes,
            build,
            json,
        } => add(
            host,
            &file,
            GrantChoice {
                explicit: grants,
                all: yes,
            },
            build,
            json,
            workspace,
        ),
        PluginCommand::List { json } => list(host, json, workspace),
        PluginCommand::Info { id, json } => info(host, &id, json, workspace),
        PluginCommand::Inspect { file, json } => inspect(host, &file, json, workspace),
        PluginCommand::New {
            name,
            lang,
            kind,
            dir,
            http,
        } => {
            let made = authoring::scaffold::create(&dir, &name, lang, kind, http)?;
            outln!(
                "made {} ({} {} plugin); next:\n  cd {}\n  amber plugin test",
                made.display(),
                lang.name(),
                kind.name(),
                made.display()
            );
            Ok(())
        }
        PluginCommand::Build { dir, json } => build(host, &dir, json),
        PluginCommand::Test {
            dir,
            no_build,
            json,
        } => test(host, &dir, no_build, json),
        PluginCommand::Enable { id } => {
            report(host::loaded(host, workspace)?.set_enabled(&id, true)?)
        }
        PluginCommand::Disable { id } => {
            report(host::loaded(host, workspace)?.set_enabled(&id, false)?)
        }
        PluginCommand::Remove { id } => {
            host::loaded(host, workspace)?.remove(&id)?;
            outln!("removed {id}");
            Ok(())
        }
        PluginCommand::Grant { id, permission } => {
            report(host::loaded(host, workspace)?.set_grant(&id, permission, true)?)
        }
        PluginCommand::Revoke { id, permission } => {
            report(host::loaded(host, workspace)?.set_grant(&id, permission, false)?)
        }
        PluginCommand::Logs { id, tail } => logs(host, &id, tail, workspace),
        PluginCommand::Precompile { into, json } => {
            super::precompile::run(host, into.as_deref(), json, workspace)
        }
    }
}

/// Asks on the terminal: the plugin, the permission, the reason.
struct TtyAsker;

impl GrantAsker for TtyAsker {
    fn ask(&mut self, plugin: &PluginManifest, request: &PermissionRequest) -> bool {
        let mut err = std::io::stderr();
        let hosts = if request.hosts.is_empty() {
            String::new()
        } else {
            format!("\n  hosts: {}", request.hosts.join(", "))
        };
        let _ = write!(
            err,
            "plugin `{}` requests {}: {}{hosts}\n  grant {}? [y/N] ",
            plugin.id, request.permission, request.reason, request.permission
        );
        let _ = err.flush();
        let mut line = String::new();
        if std::io::stdin().lock().read_line(&mut line).is_err() {
            return false;
        }
        matches!(line.trim(), "y" | "Y" | "yes")
    }
}

fn add(
    host: &Host,
    file: &Path,
    choice: GrantChoice,
    allow_build: bool,
    as_json: bool,
    workspace: &Path,
) -> Result<()> {
    // A plugin's folder (`amber plugin add .`): its built component,
    // built first when it is missing or out of date.
    let built;
    let file = if file.is_dir() {
        built = authoring::build::built(&host.dirs, file, allow_build)
            .with_context(|| format!("cannot add the plugin in {}", file.display()))?;
        built.as_path()
    } else {
        file
    };
    let mut manager = host::loaded(host, workspace)?;
    let interactive = std::io::stdin().is_terminal() && std::io::stderr().is_terminal();
    let report: AddReport = if interactive {
        manager.add(file, &choice, &mut TtyAsker)?
    } else {
        manager.add(file, &choice, &mut NoTty)?
    };
    if as_json {
        print_json(&report)?;
    } else {
        let verb = match report.registration {
            amber_runtime::Registration::New => "added",
            amber_runtime::Registration::Unchanged => "already added",
            amber_runtime::Registration::Replaced => "replaced",
        };
        let granted: Vec<&str> = report.granted.iter().map(|p| p.as_str()).collect();
        outln!("{verb} {} {}", report.id, report.version);
        if !granted.is_empty() {
            outln!("  granted: {}", granted.join(", "));
        }
        for p in &report.not_granted {
            outln!(
                "  not granted: {p} (grant it with `amber plugin grant {} {p}`)",
                report.id
            );
        }
        if let Some(status) = &report.status {
            out!("{}", render::contributions(status));
        }
    }
    match &report.enable_error {
        Some(e) => anyhow::bail!("{} was added but could not be enabled: {e}", report.id),
        None => Ok(()),
    }
}

fn list(host: &Host, as_json: bool, workspace: &Path) -> Result<()> {
    let manager = host::loaded(host, workspace)?;
    let plugins = manager.list()?;
    if as_json {
        return print_json(&json!({ "plugins": plugins }));
    }
    out!("{}", render::list(&plugins));
    Ok(())
}

fn find(manager: &PluginManager, id: &str) -> Result<PluginStatus> {
    manager
        .runtime()
        .status(id)
        .with_context(|| format!("no plugin `{id}` (see `amber plugin list`)"))
}

fn info(host: &Host, id: &str, as_json: bool, workspace: &Path) -> Result<()> {
    let manager = host::loaded(host, workspace)?;
    let status = find(&manager, id)?;
    if as_json {
        return print_json(&status);
    }
    out!("{}", render::status(&status));
    Ok(())
}

fn report(status: PluginStatus) -> Result<()> {
    out!("{}", render::state_change(&status));
    Ok(())
}

fn logs(host: &Host, id: &str, tail: Option<usize>, workspace: &Path) -> Result<()> {
    let manager = host::loaded(host, workspace)?;
    let path = manager.log_path(id)?;
    let text = match std::fs::read_to_string(&path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
        Err(e) => return Err(e).with_context(|| format!("cannot read {}", path.display())),
    };
    let lines: Vec<&str> = text.lines().collect();
    let skip = tail.map_or(0, |n| lines.len().saturating_sub(n));
    for line in &lines[skip..] {
        outln!("{line}");
    }
    Ok(())
}

fn inspect(host: &Host, file: &Path, as_json: bool, workspace: &Path) -> Result<()> {
    // A throwaway runtime: nothing is added or kept.
    let runtime = host::manager(host, workspace)?.runtime().clone();
    let (id, _) = runtime.register_file(file)?;
    let enabled = runtime.enable(&id, Grants::none());
    let tools: Vec<_> = runtime
        .ledger()
        .tools()
        .into_iter()
        .map(|t| t.spec().clone())
        .collect();
    let status = runtime
        .status(&id)
        .with_context(|| format!("plugin `{id}` vanished"))?;
    if as_json {
        print_json(&json!({ "plugin": status, "tools": tools }))?;
    } else {
        // The failure is said once, below, as the command's error.
        let mut shown = status.clone();
        if enabled.is_err() {
            shown.reason = None;
        }
        out!("{}", render::status(&shown));
        for tool in &tools {
            let mode = if tool.read_only {
                "read-only"
            } else {
                "writes"
            };
            outln!("  tool {:<20} {mode:<9}  {}", tool.name, tool.description);
        }
    }
    runtime.disable(&id)?;
    // A plugin that would fail when added fails its inspection too: what
    // a user tests with is what production does.
    enabled
        .map(|_| ())
        .map_err(|e| anyhow::anyhow!("plugin `{id}` would fail: {e}"))
}

/// `plugin build`: the toolchain, then the checks.
fn build(host: &Host, dir: &Path, as_json: bool) -> Result<()> {
    let descriptor = authoring::Descriptor::load(dir)?;
    let wasm = authoring::build::build(&host.dirs, dir)?;
    let loaded = authoring::check::load(host, &wasm, &descriptor, None)?;
    let summary = authoring::build::summary(&wasm, &loaded);
    if as_json {
        return print_json(&summary);
    }
    let status = &loaded.status;
    outln!(
        "built {} ({:.1} MB): plugin `{}` {}, API {}{}, exports {}",
        wasm.display(),
        loaded.size as f64 / 1e6,
        status.manifest.id,
        status.manifest.version,
        status.api,
        amber_app::render::plugins::api_note(status),
        status.exports.join(", ")
    );
    for c in &status.contributions {
        outln!("  {} {}", c.kind, c.name);
    }
    if loaded.size > authoring::check::BIG_BYTES {
        outln!(
            "  it is big: its first use compiles it for some seconds; later ones read the compiled code"
        );
    }
    Ok(())
}

/// `plugin test`: build unless told not to, load, run the examples.
fn test(host: &Host, dir: &Path, no_build: bool, as_json: bool) -> Result<()> {
    let descriptor = authoring::Descriptor::load(dir)?;
    let wasm = if no_build {
        authoring::artifact(dir, &descriptor)
    } else {
        authoring::build::build(&host.dirs, dir)?
    };
    let file = dir.join(authoring::EXAMPLES);
    let examples: authoring::examples::Examples = match std::fs::read_to_string(&file) {
        Ok(text) => toml::from_str(&text).with_context(|| format!("{}", file.display()))?,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Default::default(),
        Err(e) => return Err(e).with_context(|| format!("cannot read {}", file.display())),
    };
    let fixtures = Some(std::sync::Arc::new(
        amber_runtime::imports::http::fixtures::HttpFixtures(examples.http.clone()),
    ));
    let loaded = authoring::check::load(host, &wasm, &descriptor, fixtures)?;
    let outcomes = authoring::examples::run(&examples, &loaded);
    let failed = outcomes.iter().filter(|o| !o.passed).count();
    if as_json {
        print_json(&json!({
            "plugin": loaded.status.manifest.id,
            "checks": "passed",
            "examples": outcomes,
            "failed": failed,
        }))?;
    } else {
        outln!(
            "plugin `{}`: loads, initializes, and contributes what it declares",
            loaded.status.manifest.id
        );
        for outcome in &outcomes {
            let mark = if outcome.passed { "passed" } else { "FAILED" };
            outln!("  {mark}  {}", outcome.example);
            for line in outcome.diff.lines() {
                outln!("          {line}");
            }
        }
        if outcomes.is_empty() {
            outln!("  no examples: add [[tool]] calls to {}", file.display());
        }
    }
    if failed > 0 {
        anyhow::bail!("{failed} of {} examples failed", outcomes.len());
    }
    Ok(())
}
