//! `amber doctor`: what amber found about its installation, with what to do
//! about each problem. It loads no plugin and never prints a key.

use std::net::{TcpStream, ToSocketAddrs};
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::mpsc;
use std::time::{Duration, Instant};

use amber_core::project::ProjectRoot;
use amber_runtime::manager::{self, precompiled};
use amber_runtime::AmberDirs;
use anyhow::Result;
use clap::Args;
use serde::Serialize;

use super::precompile::size_of_tree;
use super::print_json;
use amber_app::host;

#[derive(Args)]
pub struct DoctorArgs {
    /// Print JSON for scripts instead of text.
    #[arg(long)]
    json: bool,
    /// Do not try to reach the providers' servers.
    #[arg(long)]
    offline: bool,
    /// How long to wait for each provider's server, in milliseconds.
    #[arg(long, value_name = "MS", default_value_t = 1500)]
    timeout_ms: u64,
}

/// How bad a problem is: an error stops amber from working.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
enum Severity {
    Warning,
    Error,
}

#[derive(Serialize)]
struct Problem {
    severity: Severity,
    what: String,
    fix: String,
}

#[derive(Serialize)]
struct Bundle {
    dir: Option<PathBuf>,
    found_by: Option<String>,
    looked_in: Vec<String>,
    components: Vec<String>,
    missing: Vec<String>,
}

#[derive(Serialize)]
struct Cache {
    dir: PathBuf,
    exists: bool,
    compiled_components: usize,
    bytes: u64,
}

#[derive(Serialize)]
struct ConfigFile {
    path: PathBuf,
    exists: bool,
    error: Option<String>,
}

#[derive(Serialize)]
struct Key {
    env: String,
    set: bool,
    presets: Vec<String>,
}

#[derive(Serialize)]
struct Provider {
    preset: String,
    base_url: String,
    /// null with --offline.
    reachable: Option<bool>,
    detail: String,
}

#[derive(Serialize)]
struct Workspace {
    root: PathBuf,
    rule: String,
    found_by: String,
    started_in: PathBuf,
}

#[derive(Serialize)]
struct Report {
    amber_version: String,
    wit_version: String,
    /// The older API versions still loaded, each through its adapter.
    wit_adapters: Vec<String>,
    bundle: Bundle,
    precompiled_cache: Option<Cache>,
    user_cache: Cache,
    config: ConfigFile,
    keys: Vec<Key>,
    providers: Vec<Provider>,
    sandbox: String,
    sandbox_available: bool,
    processes: Processes,
    /// Temporary files an amber killed mid-write left, removed at this
    /// start or now.
    stale_temp_files: Vec<PathBuf>,
    workspace: Workspace,
    web: Web,
    problems: Vec<Problem>,
}

/// The web tools' setup (docs/web.md): what `web_search` asks, with how
/// to give it what is missing.
#[derive(Serialize)]
struct Web {
    /// `[plugins.web-search.settings] backend`, when set.
    search_backend: Option<String>,
    /// How to set one up, when none is (web_search is not offered).
    search_hint: Option<String>,
    fetch_in_read_mode: bool,
}

/// What the web tools need, by the config alone (no plugin is loaded).
fn web(config: Option<&amber_config::Config>) -> Web {
    let backend = config
        .and_then(|c| c.plugins.get("web-search"))
        .and_then(|p| p.settings.get("backend"))
        .filter(|b| !b.trim().is_empty())
        .cloned();
    let search_hint = backend.is_none().then(|| {
        "web_search is not offered until a search API is configured: \
         `[plugins.web-search.settings] backend = \"brave\"` (or tavily, searxng with `url`, json with `url`), \
         its key bound as a header (`[plugins.web-search.http_headers.\"api.search.brave.com\"] X-Subscription-Token = \"brave\"` \
         with `[secrets.brave] env = \"BRAVE_API_KEY\"`), and `amber plugin grant web-search http` (docs/web.md)"
            .to_string()
    });
    Web {
        search_backend: backend,
        search_hint,
        fetch_in_read_mode: config.is_some_and(|c| c.web.fetch_in_read_mode),
    }
}

/// What keeps commands from outliving amber or taking the machine, and
/// whether it is enforced here (docs/sandbox.md, "Processes and limits").
#[derive(Serialize)]
struct Processes {
    /// amber is a child subreaper: orphans of its commands come to it.
    subreaper: bool,
    /// The cgroups amber makes commands', or "off"/"none".
    cgroups: String,
    /// Why a cgroup hierarchy or controller is missing.
    cgroup_notes: Vec<String>,
    max_processes: Limit,
    max_memory: Limit,
    max_cpu: Limit,
}

#[derive(Serialize)]
struct Limit {
    enforced: bool,
    /// How, or why not.
    detail: String,
}

impl From<&amber_sandbox::Enforced> for Limit {
    fn from(e: &amber_sandbox::Enforced) -> Limit {
        Limit {
            enforced: e.is_enforced(),
            detail: e.describe(),
        }
    }
}

fn processes(spawner: &amber_sandbox::Spawner, problems: &mut Vec<Problem>) -> Processes {
    let enforcement = spawner.enforcement();
    let (cgroups, cgroup_notes) = match spawner.cgroups() {
        Some(found) => (found.describe(), found.notes.clone()),
        None => ("off (`[sandbox] cgroups = false`)".into(), Vec::new()),
    };
    // What the first command would do; doctor starts none.
    let subreaper = amber_sandbox::become_subreaper();
    if !subreaper {
        problems.push(Problem {
            severity: Severity::Warning,
            what: "amber is not a child subreaper here: a process a command left behind can outlive it".into(),
            fix: "a Linux kernel (3.4 or later) is needed".into(),
        });
    }
    if !enforcement.processes.is_enforced() && spawner.limits().processes.is_some() {
        problems.push(Problem {
            severity: Severity::Warning,
            what: format!("the process limit of commands is {}", enforcement.processes.describe()),
            fix: "run amber where it may make cgroups with the pids controller (cgroup v2 delegation, or a writable v1 pids hierarchy)".into(),
        });
    }
    Processes {
        subreaper,
        cgroups,
        cgroup_notes,
        max_processes: (&enforcement.processes).into(),
        max_memory: (&enforcement.memory).into(),
        max_cpu: (&enforcement.cpu).into(),
    }
}

fn cache(dir: PathBuf) -> Cache {
    // Whole entries only: a dotfile is a write under way (or a killed
    // one's), not a component.
    let compiled_components = amber_state::CacheDir::new(dir.join("compiled"))
        .list()
        .len();
    Cache {
        exists: dir.is_dir(),
        bytes: size_of_tree(&dir),
        compiled_components,
        dir,
    }
}

fn bundle(problems: &mut Vec<Problem>) -> Bundle {
    let search = host::bundle();
    let looked_in = search
        .looked
        .iter()
        .map(|p| format!("{} ({})", p.dir.display(), p.why))
        .collect();
    let Some(found) = &search.found else {
        problems.push(Problem {
            severity: Severity::Error,
            what: "the bundled plugins (providers, tools, parsers) were not found".into(),
            fix: "run `cargo xtask install` in amber's checkout, or set AMBER_BUNDLE_DIR to a folder holding them".into(),
        });
        return Bundle {
            dir: None,
            found_by: None,
            looked_in,
            components: Vec::new(),
            missing: manager::bundled_names().map(String::from).collect(),
        };
    };
    let missing: Vec<String> = manager::bundle::missing(&found.dir)
        .into_iter()
        .map(String::from)
        .collect();
    if !missing.is_empty() {
        problems.push(Problem {
            severity: Severity::Warning,
            what: format!(
                "the bundle in {} lacks {}",
                found.dir.display(),
                missing.join(", ")
            ),
            fix: "run `cargo xtask install` (or `cargo xtask guests` in a checkout) again".into(),
        });
    }
    Bundle {
        components: manager::bundle::files(&found.dir)
            .iter()
            .filter_map(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()))
            .collect(),
        dir: Some(found.dir.clone()),
        found_by: Some(found.why.to_string()),
        looked_in,
        missing,
    }
}

fn config(dirs: &AmberDirs, problems: &mut Vec<Problem>) -> ConfigFile {
    let path = host::config_path(dirs);
    let error = host::load_config(dirs).err().map(|e| format!("{e:#}"));
    if let Some(error) = &error {
        problems.push(Problem {
            severity: Severity::Error,
            what: format!("the config file does not parse: {error}"),
            fix: format!(
                "fix the line it names in {} (docs/config.md lists every key)",
                path.display()
            ),
        });
    }
    ConfigFile {
        exists: path.is_file(),
        path,
        error,
    }
}

/// `host:port` of a base URL, with the scheme's default port.
fn host_port(base_url: &str) -> Option<String> {
    let (scheme, rest) = base_url.split_once("://")?;
    let authority = rest.split(['/', '?', '#']).next()?;
    let authority = authority.rsplit('@').next()?;
    let has_port = match authority.rfind(']') {
        Some(end) => authority[end..].contains(':'),
        None => authority.contains(':'),
    };
    if authority.is_empty() {
        return None;
    }
    if has_port {
        return Some(authority.to_string());
    }
    let port = if scheme.eq_ignore_ascii_case("https") {
        443
    } else {
        80
    };
    Some(format!("{authority}:{port}"))
}

/// Whether a TCP connection to the base URL's server opens within
/// `timeout` (a name that does not resolve in time counts as not).
fn reach(base_url: &str, timeout: Duration) -> (bool, String) {
    let Some(address) = host_port(base_url) else {
        return (false, "not a URL".into());
    };
    let (tx, rx) = mpsc::channel();
    let target = address.clone();
    std::thread::spawn(move || {
        let started = Instant::now();
        let outcome = match target.to_socket_addrs() {
            Ok(mut addrs) => match addrs.next() {
                Some(addr) => {
                    let left = timeout.saturating_sub(started.elapsed());
                    TcpStream::connect_timeout(&addr, left.max(Duration::from_millis(1)))
                        .map(|_| format!("{target} answers"))
                        .map_err(|e| format!("{target}: {e}"))
                }
                None => Err(format!("{target} resolves to no address")),
            },
            Err(e) => Err(format!("{target}: {e}")),
        };
        let _ = tx.send(outcome);
    });
    match rx.recv_timeout(timeout + Duration::from_millis(100)) {
        Ok(Ok(detail)) => (true, detail),
        Ok(Err(detail)) => (false, detail),
        Err(_) => (
            false,
            format!("{address}: no answer in {} ms", timeout.as_millis()),
        ),
    }
}

fn keys_and_providers(
    config: Option<&amber_config::Config>,
    args: &DoctorArgs,
    problems: &mut Vec<Problem>,
) -> (Vec<Key>, Vec<Provider>) {
    let presets = match config.map(super::providers::presets_from) {
        Some(Ok(presets)) => presets,
        _ => amber_wire::Presets::shipped(),
    };
    let mut keys: Vec<Key> = Vec::new();
    for preset in presets.all() {
        let Some(env) = &preset.key_env else { continue };
        match keys.iter_mut().find(|k| &k.env == env) {
            Some(key) => key.presets.push(preset.name.clone()),
            None => keys.push(Key {
                env: env.clone(),
                set: amber_wire::secrets::is_set(env),
                presets: vec![preset.name.clone()],
            }),
        }
    }
    if !keys.iter().any(|k| k.set) {
        problems.push(Problem {
            severity: Severity::Warning,
            what: "no provider API key is set".into(),
            fix: "export OPENAI_API_KEY or ANTHROPIC_API_KEY (or another preset's key), \
                  or run a local model and use --provider ollama"
                .into(),
        });
    }
    let timeout = Duration::from_millis(args.timeout_ms);
    // Only the presets this user could be using are checked: one they
    // configured (or chose), or one whose key is set. A shipped preset
    // for a service they never set up is not "unreachable", just unused.
    let in_use = |p: &amber_wire::Preset| {
        let configured = config.is_some_and(|c| {
            c.providers.contains_key(&p.name) || c.model.provider.as_deref() == Some(p.name.as_str())
        });
        let keyed = p
            .key_env
            .as_deref()
            .is_some_and(amber_wire::secrets::is_set);
        configured || keyed
    };
    // All at once: the slowest server bounds the wait, not their sum.
    let checks: Vec<_> = presets
        .all()
        .map(|p| {
            let (name, url) = (p.name.clone(), p.base_url.clone());
            let offline = args.offline;
            let used = in_use(p);
            std::thread::spawn(move || {
                let (reachable, detail) = if offline {
                    (None, "not checked (--offline)".to_string())
                } else if !used {
                    (None, "not checked (no key set, not configured)".to_string())
                } else {
                    let (ok, detail) = reach(&url, timeout);
                    (Some(ok), detail)
                };
                Provider {
                    preset: name,
                    base_url: url,
                    reachable,
                    detail,
                }
            })
        })
        .collect();
    let providers = checks.into_iter().filter_map(|c| c.join().ok()).collect();
    (keys, providers)
}

fn workspace(project: &ProjectRoot) -> Workspace {
    Workspace {
        root: project.root.clone(),
        rule: project.rule.name().into(),
        found_by: project.rule.describe(),
        started_in: project.start_dir(),
    }
}

fn caches(dirs: &AmberDirs, problems: &mut Vec<Problem>) -> (Option<Cache>, Cache) {
    let prebuilt = host::bundle().dir().map(|d| cache(precompiled(&d)));
    if let Some(prebuilt) = &prebuilt {
        if prebuilt.compiled_components == 0 {
            problems.push(Problem {
                severity: Severity::Warning,
                what: format!(
                    "no precompiled cache beside the bundle ({}): the first run compiles every bundled plugin",
                    prebuilt.dir.display()
                ),
                fix: "install with `cargo xtask install`, or run `amber plugin precompile` once".into(),
            });
        }
    }
    (prebuilt, cache(dirs.cache.clone()))
}

pub fn run(
    host: &amber_app::host::Host,
    args: DoctorArgs,
    project: &ProjectRoot,
) -> Result<ExitCode> {
    let dirs = host.dirs.clone();
    let mut problems = Vec::new();
    let bundle = bundle(&mut problems);
    let (precompiled_cache, user_cache) = caches(&dirs, &mut problems);
    let config_file = config(&dirs, &mut problems);
    let config = host::load_config(&dirs).ok();
    let (keys, providers) = keys_and_providers(config.as_ref(), &args, &mut problems);
    let spawner = match &config {
        Some(config) => host::spawner(config),
        None => amber_sandbox::Spawner::detect(Default::default()),
    };
    let backend = spawner.backend();
    if !backend.is_available() {
        problems.push(Problem {
            severity: Severity::Warning,
            what: format!("no OS sandbox for shell commands ({})", backend.describe()),
            fix: "install bubblewrap (`apt-get install bubblewrap`); until then every command in write mode asks first".into(),
        });
    }
    let processes = processes(&spawner, &mut problems);
    let stale_temp_files = stale_temps(&dirs, &mut problems);
    let report = Report {
        amber_version: env!("CARGO_PKG_VERSION").into(),
        wit_version: format!("amber:plugin@{}", amber_runtime::API_VERSION),
        wit_adapters: amber_runtime::api::SUPPORTED[1..]
            .iter()
            .map(|v| format!("amber:plugin@{v}"))
            .collect(),
        bundle,
        precompiled_cache,
        user_cache,
        config: config_file,
        keys,
        providers,
        sandbox: backend.describe(),
        sandbox_available: backend.is_available(),
        processes,
        stale_temp_files,
        workspace: workspace(project),
        web: web(config.as_ref()),
        problems,
    };
    if args.json {
        print_json(&report)?;
    } else {
        print!("{}", render(&report));
    }
    let failing = report
        .problems
        .iter()
        .any(|p| p.severity == Severity::Error);
    Ok(if failing {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    })
}

fn mb(bytes: u64) -> String {
    format!("{:.1} MB", bytes as f64 / 1e6)
}

fn render_cache(label: &str, cache: &Cache) -> String {
    format!(
        "{label:<12}{} ({}, {})\n",
        cache.dir.display(),
        amber_core::text::count(cache.compiled_components, "compiled component"),
        mb(cache.bytes)
    )
}

/// The temporary files a killed amber left: this start removed them (see
/// `main`), and what is found now is removed too; one that cannot be
/// removed is a warning.
fn stale_temps(dirs: &AmberDirs, problems: &mut Vec<Problem>) -> Vec<PathBuf> {
    let mut found = crate::stale_temps_at_start();
    let now = dirs.remove_stale_temps();
    found.removed.extend(now.removed);
    found.kept.extend(now.kept);
    for (path, why) in found.kept {
        problems.push(Problem {
            severity: Severity::Warning,
            what: format!(
                "a temporary file a killed amber left cannot be removed: {} ({why})",
                path.display()
            ),
            fix: format!("remove it by hand: rm {}", path.display()),
        });
    }
    found.removed
}

fn render_stale_temps(removed: &[PathBuf]) -> String {
    if removed.is_empty() {
        return "temp files  none left behind\n".into();
    }
    let mut out = format!(
        "temp files  removed {} an amber killed mid-write left:\n",
        amber_core::text::count(removed.len(), "file")
    );
    for path in removed {
        out.push_str(&format!("            {}\n", path.display()));
    }
    out
}

fn render_processes(p: &Processes) -> String {
    let subreaper = if p.subreaper {
        "amber becomes their subreaper: what a command leaves behind is killed when it ends"
    } else {
        "amber cannot become their subreaper: what a command leaves behind may outlive it"
    };
    let mut out = format!("processes   {subreaper}\ncgroups     {}\n", p.cgroups);
    for note in &p.cgroup_notes {
        out.push_str(&format!("            ({note})\n"));
    }
    for (label, limit) in [
        ("processes", &p.max_processes),
        ("memory", &p.max_memory),
        ("cpu time", &p.max_cpu),
    ] {
        out.push_str(&format!("  {label:<10}{}\n", limit.detail));
    }
    out
}

fn render(report: &Report) -> String {
    let adapters = match report.wit_adapters.as_slice() {
        [] => String::new(),
        [one] => format!(" (and {one} through an adapter)"),
        older => format!(" (and {} through adapters)", older.join(", ")),
    };
    let mut out = format!(
        "amber {}, plugin API {}{adapters}\n\n",
        report.amber_version, report.wit_version
    );
    match (&report.bundle.dir, &report.bundle.found_by) {
        (Some(dir), Some(how)) => out.push_str(&format!(
            "bundle      {} ({how}): {}\n",
            dir.display(),
            amber_core::text::count(report.bundle.components.len(), "component")
        )),
        _ => out.push_str(&format!(
            "bundle      not found; looked in {}\n",
            report.bundle.looked_in.join(", ")
        )),
    }
    if let Some(cache) = &report.precompiled_cache {
        out.push_str(&render_cache("precompiled", cache));
    }
    out.push_str(&render_cache("cache", &report.user_cache));
    let config = &report.config;
    let state = match (&config.error, config.exists) {
        (Some(_), _) => "does not parse",
        (None, true) => "parses",
        (None, false) => "absent: the defaults apply",
    };
    out.push_str(&format!(
        "config      {} ({state})\n",
        config.path.display()
    ));
    out.push_str(&format!(
        "workspace   {} ({})\n",
        report.workspace.root.display(),
        report.workspace.found_by
    ));
    let sandbox = if report.sandbox_available {
        ""
    } else {
        " (unavailable)"
    };
    out.push_str(&format!("sandbox     {}{sandbox}\n", report.sandbox));
    out.push_str(&render_processes(&report.processes));
    out.push_str(&render_stale_temps(&report.stale_temp_files));
    out.push_str("\nkeys\n");
    for key in &report.keys {
        let set = if key.set { "set" } else { "not set" };
        out.push_str(&format!(
            "  {:<22}{set:<9}{}\n",
            key.env,
            key.presets.join(", ")
        ));
    }
    match (&report.web.search_backend, &report.web.search_hint) {
        (Some(backend), _) => out.push_str(&format!("\nweb         web_search through `{backend}`\n")),
        (None, Some(hint)) => out.push_str(&format!("\nweb         {hint}\n")),
        (None, None) => {}
    }
    out.push_str("\nproviders\n");
    for p in &report.providers {
        let state = match p.reachable {
            Some(true) => "reachable",
            Some(false) => "unreachable",
            None => "not checked",
        };
        let detail = match p.reachable {
            Some(_) => format!(" ({})", p.detail),
            None if p.detail.starts_with("not checked (no key") => " (no key set, not configured)".into(),
            None => String::new(),
        };
        out.push_str(&format!(
            "  {:<18}{state:<13}{}{detail}\n",
            p.preset, p.base_url
        ));
    }
    if report.problems.is_empty() {
        out.push_str("\nno problems found\n");
    } else {
        out.push_str("\nproblems\n");
        for p in &report.problems {
            let label = match p.severity {
                Severity::Error => "error",
                Severity::Warning => "warning",
            };
            out.push_str(&format!("  {label}: {}\n    fix: {}\n", p.what, p.fix));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::host_port;

    #[test]
    fn a_base_url_gives_its_server_with_the_default_port() {
        let hp = |u: &str| host_port(u);
        assert_eq!(
            hp("https://api.openai.com/v1").as_deref(),
            Some("api.openai.com:443")
        );
        assert_eq!(
            hp("http://localhost:11434/v1").as_deref(),
            Some("localhost:11434")
        );
        assert_eq!(hp("http://[::1]:8080").as_deref(), Some("[::1]:8080"));
        assert_eq!(hp("http://[::1]/v1").as_deref(), Some("[::1]:80"));
        assert_eq!(hp("http://u:p@host/x").as_deref(), Some("host:80"));
        assert_eq!(hp("not a url"), None);
        assert_eq!(hp("http:///v1"), None);
    }
}
