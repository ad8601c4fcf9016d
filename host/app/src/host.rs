//! Everything a command needs, built once from the environment and the
//! config file: dirs, workspace, runtime, plugin manager. Both front ends
//! (the `amber` commands and the TUI) build their host here.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use amber_config::Config;
use amber_core::engine::Mode;
use amber_core::policy::{Policy, SandboxStance};
use amber_core::ports::{Approver, CommandGate, HeadlessApprover};
use amber_core::{CapabilityKind, Ledger};
use amber_index::tools::CodeContext;
use amber_index::{LedgerParsers, Parsers};
use amber_runtime::manager::{find_bundle, precompiled, BundleSearch, PluginManager, PluginPrefs};
use amber_runtime::{
    AmberDirs, CompileProgress, Permission, PluginRuntime, RuntimeLimits, RuntimeOptions,
};
use amber_sandbox::Spawner;
use anyhow::{Context, Result};

/// What differs between front ends: how an approval is asked (a dialog on
/// the terminal, a TUI overlay, or headless) and how compiles are shown.
/// The front end builds it and hands it to the host it opens ([`Host`]),
/// so two Apps in one process can each have their own.
#[derive(Clone)]
pub struct FrontEnd {
    /// The approval handler of a run; `yes` approves everything (`--yes`).
    approver: Arc<dyn Fn(bool) -> Arc<dyn Approver> + Send + Sync>,
    /// What shows component compiles, if anything.
    compile_progress: Option<Arc<dyn CompileProgress>>,
}

impl FrontEnd {
    /// Headless: approvals answered by `--yes` alone, compiles silent.
    pub fn headless() -> FrontEnd {
        FrontEnd::new(|yes| Arc::new(HeadlessApprover { yes }))
    }

    /// Approvals from `approver(yes)`, compiles silent.
    pub fn new(approver: impl Fn(bool) -> Arc<dyn Approver> + Send + Sync + 'static) -> FrontEnd {
        FrontEnd {
            approver: Arc::new(approver),
            compile_progress: None,
        }
    }

    /// Compiles shown by `progress`.
    pub fn with_compile_progress(mut self, progress: Arc<dyn CompileProgress>) -> FrontEnd {
        self.compile_progress = Some(progress);
        self
    }

    /// The approval handler of a run with `--yes` or without.
    pub fn approver(&self, yes: bool) -> Arc<dyn Approver> {
        (self.approver)(yes)
    }
}

/// What one front end runs amber with: its dirs, read from the
/// environment once, as the process starts, and passed down from there
/// (nothing below reads them again), and the front end itself.
#[derive(Clone)]
pub struct Host {
    pub dirs: AmberDirs,
    pub front_end: FrontEnd,
}

impl Host {
    /// The host of `dirs` (read once, as the process starts) and
    /// `front_end`.
    pub fn new(dirs: AmberDirs, front_end: FrontEnd) -> Host {
        Host { dirs, front_end }
    }

    /// The dirs the environment names, with `front_end`.
    pub fn from_env(front_end: FrontEnd) -> Host {
        Host {
            dirs: AmberDirs::from_env(),
            front_end,
        }
    }

    /// The config file of these dirs, read.
    pub fn config(&self) -> Result<Config> {
        load_config(&self.dirs)
    }
}

pub fn config_path(dirs: &AmberDirs) -> PathBuf {
    dirs.config.join("config.toml")
}

/// Loads the config, or fails naming the file, line and key.
pub fn load_config(dirs: &AmberDirs) -> Result<Config> {
    Ok(Config::load(&config_path(dirs))?)
}

/// The model calls' timeouts and retries, from `[wire]`.
pub fn wire_options(config: &Config) -> amber_wire::WireOptions {
    let wire = &config.wire;
    let mut options = amber_wire::WireOptions {
        connect_timeout: Duration::from_millis(wire.connect_timeout_ms),
        first_byte_timeout: Duration::from_millis(wire.first_byte_timeout_ms),
        read_timeout: Duration::from_millis(wire.read_timeout_ms),
        max_reply_bytes: u64::from(wire.max_reply_mib) << 20,
        ..amber_wire::WireOptions::default()
    };
    options.retry.max_attempts = wire.max_attempts;
    options.retry.max_delay = Duration::from_millis(wire.max_retry_delay_ms);
    options.retry.base_delay = options.retry.base_delay.min(options.retry.max_delay);
    options
}

/// Where amber's bundled plugins are, looked up once per process.
pub fn bundle() -> &'static BundleSearch {
    static BUNDLE: std::sync::OnceLock<BundleSearch> = std::sync::OnceLock::new();
    BUNDLE.get_or_init(find_bundle)
}

/// `error`, with where amber looked for its bundle when it has none: the
/// likely reason a provider, tool or parser is missing.
pub fn with_bundle_hint(error: anyhow::Error) -> anyhow::Error {
    match bundle().found {
        Some(_) => error,
        None => error.context(bundle().not_found_message()),
    }
}

fn options(
    front_end: &FrontEnd,
    dirs: AmberDirs,
    workspace: &Path,
    config: &Config,
    policy: Option<Arc<Policy>>,
) -> RuntimeOptions {
    let mut options = RuntimeOptions::new(dirs, workspace.to_path_buf());
    options.gate = policy.map(|p| p as Arc<dyn CommandGate>);
    options.prebuilt_caches = bundle()
        .dir()
        .map(|d| precompiled(&d))
        .into_iter()
        .collect();
    options.compile_progress = front_end.compile_progress.clone();
    options.limits = RuntimeLimits {
        memory_bytes: (config.limits.memory_mib as usize) << 20,
        deadline: Duration::from_millis(config.limits.deadline_ms),
        output_bytes: (config.limits.output_kib as usize) << 10,
        plugin_file_bytes: u64::from(config.limits.plugin_file_mib) << 20,
    };
    let exec = &mut options.exec;
    exec.env_allowlist.extend(config.exec.env.iter().cloned());
    exec.default_timeout = Duration::from_millis(config.exec.timeout_ms);
    exec.output_cap = (config.exec.output_kib as usize) << 10;
    exec.spawner = spawner(config);
    exec.home_readable = config.sandbox.home_readable.clone();
    options.settings = config
        .plugins
        .iter()
        .map(|(id, p)| (id.clone(), p.settings.clone()))
        .collect();
    options.http_limits = amber_runtime::imports::http::HttpLimits {
        timeout: Duration::from_millis(config.limits.http_timeout_ms),
        max_response_bytes: u64::from(config.limits.http_response_mib) << 20,
        max_in_flight: config.limits.http_in_flight.max(1) as usize,
        ..Default::default()
    };
    options.http = config
        .plugins
        .iter()
        .map(|(id, p)| (id.clone(), http_grant(config, p)))
        .collect();
    options
}

/// What config says of a plugin's `http` grant: its narrowed hosts, and
/// its headers with their secrets read (or why they could not be).
fn http_grant(
    config: &Config,
    plugin: &amber_config::PluginConfig,
) -> amber_runtime::imports::http::HttpGrantConfig {
    use amber_runtime::imports::http::{HeaderSecret, HttpGrantConfig};
    let mut headers = Vec::new();
    for (host, named) in &plugin.http_headers {
        for (header, secret) in named {
            let value = match config.secrets.get(secret) {
                Some(found) => found.read(secret, amber_wire::secrets::get),
                None => Err(format!("no secret `{secret}` in [secrets]")),
            };
            headers.push(HeaderSecret {
                host: host.clone(),
                header: header.clone(),
                value,
            });
        }
    }
    HttpGrantConfig {
        hosts: plugin.http_hosts.clone(),
        headers,
    }
}

fn prefs(config: &Config) -> BTreeMap<String, PluginPrefs> {
    config
        .plugins
        .iter()
        .map(|(id, p)| {
            // Validated when the config was read.
            let grants = p
                .grants
                .iter()
                .filter_map(|g| g.parse::<Permission>().ok())
                .collect();
            (
                id.clone(),
                PluginPrefs {
                    enabled: p.enabled,
                    grants,
                },
            )
        })
        .collect()
}

/// The one spawner of commands, with the sandbox `[sandbox] backend`
/// chooses (validated when the config was read).
pub fn spawner(config: &Config) -> Spawner {
    Spawner::detect(config.sandbox.backend.parse().unwrap_or_default())
        .with_limits(config.sandbox.limits())
        .with_cgroups(config.sandbox.cgroups)
}

/// The spawner's workspace guard as the engine's port: what the commands
/// of a turn did to guarded paths (docs/sandbox.md), shown as the turn
/// ends.
struct GuardWatch(Spawner);

impl amber_core::ports::WorkspaceWatch for GuardWatch {
    fn take_changes(&self) -> Vec<amber_core::ports::ProtectedChange> {
        use amber_core::ports::ProtectedChangeKind as Kind;
        use amber_sandbox::ChangeKind;
        self.0
            .take_protected_changes()
            .into_iter()
            .map(|c| amber_core::ports::ProtectedChange {
                path: c.path,
                change: match c.kind {
                    ChangeKind::Created => Kind::Created,
                    ChangeKind::Changed => Kind::Changed,
                    ChangeKind::Removed => Kind::Removed,
                    ChangeKind::Reverted => Kind::Reverted,
                },
                detail: c.detail,
            })
            .collect()
    }
}

/// What the commands of `manager`'s plugins did to guarded paths.
pub fn workspace_watch(manager: &PluginManager) -> Arc<dyn amber_core::ports::WorkspaceWatch> {
    Arc::new(GuardWatch(manager.runtime().options().exec.spawner.clone()))
}

/// The policy of a run: the mode (`--mode`, else config), the stored
/// rules, the approval handler (`--yes`, a TTY dialog, or headless) and
/// whether commands have an OS sandbox. Where none exists it says so,
/// once, and every command in write mode is asked about.
#[allow(
    clippy::print_stderr,
    reason = "said once, when the first command is checked; the policy has no channel to a front end for it yet"
)]
pub fn policy(
    front_end: &FrontEnd,
    config: &Config,
    workspace: &Path,
    mode: Option<Mode>,
    yes: bool,
) -> Arc<Policy> {
    let mode = mode.unwrap_or(config.policy.mode);
    let spawner = spawner(config);
    let available = move || {
        let backend = spawner.backend();
        if !backend.is_available() && mode == Mode::Write {
            static SAID: std::sync::Once = std::sync::Once::new();
            SAID.call_once(|| {
                eprintln!(
                    "amber: warning: no OS sandbox for shell commands ({}); every command will ask for approval",
                    backend.describe()
                )
            });
        }
        backend.is_available()
    };
    Arc::new(
        Policy::new(
            mode,
            workspace.to_path_buf(),
            config.policy.rules.clone(),
            Some(front_end.approver(yes)),
        )
        .with_sandbox(SandboxStance::new(config.sandbox.always, available))
        .with_reads_too(if config.web.fetch_in_read_mode {
            vec![("web-fetch".to_string(), "web_fetch".to_string())]
        } else {
            Vec::new()
        }),
    )
}

/// The runtime and plugin manager, before anything is loaded, under the
/// config's policy without `--yes`.
pub fn manager(host: &Host, workspace: &Path) -> Result<PluginManager> {
    manager_with(host, workspace, &host.config()?, None)
}

/// The runtime and plugin manager under `config` (already read by the
/// caller) and `policy` (default: the config's, without `--yes`): every
/// command a plugin runs through `exec` is classified and approved by it.
pub fn manager_with(
    host: &Host,
    workspace: &Path,
    config: &Config,
    policy: Option<Arc<Policy>>,
) -> Result<PluginManager> {
    manager_in(host, host.dirs.clone(), workspace, config, policy, |o| o)
}

/// [`manager_with`] with state in `dirs`, and the runtime's options as
/// `adjust` leaves them (`plugin precompile` writes to a cache of its own).
pub fn manager_in(
    host: &Host,
    dirs: AmberDirs,
    workspace: &Path,
    config: &Config,
    policy: Option<Arc<Policy>>,
    adjust: impl FnOnce(RuntimeOptions) -> RuntimeOptions,
) -> Result<PluginManager> {
    let front_end = &host.front_end;
    let policy = policy.unwrap_or_else(|| self::policy(front_end, config, workspace, None, false));
    let options = adjust(options(
        front_end,
        dirs.clone(),
        workspace,
        config,
        Some(policy),
    ));
    let runtime = PluginRuntime::new(options, Arc::new(Ledger::new()))
        .context("cannot start the plugin runtime")?;
    Ok(PluginManager::new(
        runtime,
        &dirs,
        prefs(config),
        bundle().dir(),
    ))
}

/// The manager with every plugin loaded; problems are warned about.
pub fn loaded(host: &Host, workspace: &Path) -> Result<PluginManager> {
    loaded_with(host, workspace, &host.config()?, None)
}

/// [`loaded`] under `config` and `policy`.
#[allow(
    clippy::print_stderr,
    reason = "plugins load as amber starts, before any front end draws; every front end shows these the same"
)]
pub fn loaded_with(
    host: &Host,
    workspace: &Path,
    config: &Config,
    policy: Option<Arc<Policy>>,
) -> Result<PluginManager> {
    let mut manager = manager_with(host, workspace, config, policy)?;
    manager.load_all()?;
    if bundle().found.is_none() {
        eprintln!("amber: warning: {}", bundle().not_found_message());
    }
    for problem in manager.problems() {
        eprintln!("amber: warning: {problem}");
    }
    for problem in install_code_tools(&manager, workspace)? {
        eprintln!("amber: warning: {problem}");
    }
    Ok(manager)
}

/// The ledger's parsers, each language fingerprinted by its plugin's id
/// and content hash, so a changed parser never reuses another's cached
/// outlines and the other languages keep theirs.
pub fn parsers(manager: &PluginManager) -> Result<Arc<dyn Parsers>> {
    let fingerprints: std::collections::BTreeMap<String, String> = manager
        .list()?
        .into_iter()
        .flat_map(|p| {
            let owner = format!("{}@{}", p.id, p.status.hash);
            p.status
                .contributions
                .into_iter()
                .filter(|c| c.kind == CapabilityKind::Parser)
                .map(move |c| (c.name, owner.clone()))
        })
        .collect();
    Ok(Arc::new(LedgerParsers::new(
        manager.runtime().ledger().clone(),
        fingerprints,
    )))
}

/// The host's code tools (`outline`, `show`, `callers`), installed in the
/// ledger when any parser is, so the model can read by symbol. A plugin
/// tool of the same name keeps its name: that host tool is left out with a
/// warning, and every command still works (including removing the plugin).
fn install_code_tools(manager: &PluginManager, workspace: &Path) -> Result<Vec<String>> {
    let ledger = manager.runtime().ledger();
    if ledger.parsers().is_empty() {
        return Ok(Vec::new());
    }
    let context = CodeContext {
        root: workspace.to_path_buf(),
        parsers: parsers(manager)?,
        cache_dir: manager.runtime().options().dirs.cache.clone(),
    };
    Ok(amber_index::tools::install(ledger, context))
}
