//! amber's config file.
//!
//! One TOML file: `$AMBER_HOME/config.toml`, else
//! `$XDG_CONFIG_HOME/amber/config.toml`. Every key is documented in
//! `docs/config.md` with its default. An unknown key or a wrong type is an
//! error naming the file, the line and the key, and nothing starts with a
//! half-read config: [`Config::load`] returns a whole config or an error.

// A library reports what happened; its front end decides what to print.
#![deny(clippy::print_stdout, clippy::print_stderr)]

mod error;

use std::collections::BTreeMap;
use std::path::Path;

use serde::{Deserialize, Serialize};

pub use error::ConfigError;

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Config {
    /// The default provider preset and model.
    pub model: ModelConfig,
    /// User presets and overrides of shipped ones, by preset name.
    pub providers: BTreeMap<String, ProviderConfig>,
    pub policy: PolicyConfig,
    /// Per-plugin pre-grants, enablement and settings, by plugin id.
    pub plugins: BTreeMap<String, PluginConfig>,
    pub limits: LimitsConfig,
    pub exec: ExecConfig,
    pub agent: AgentConfig,
    pub memory: MemoryConfig,
    pub skills: SkillsConfig,
    pub coverage: CoverageConfig,
    pub wire: WireConfig,
    pub sandbox: SandboxConfig,
    pub hooks: HooksConfig,
    /// MCP servers, `[[mcp.servers]]` (docs/mcp.md).
    pub mcp: McpConfig,
    /// Prices per million tokens, by `"provider/model"` (docs/cost.md).
    pub prices: BTreeMap<String, PriceConfig>,
    /// What a turn's changes keep for rewind (docs/checkpoints.md).
    pub checkpoints: CheckpointsConfig,
    /// Named secrets, by name: what a plugin's `http` requests carry as a
    /// header the host adds (docs/permissions.md). The plugin never sees
    /// one.
    pub secrets: BTreeMap<String, SecretConfig>,
    /// The web tools (docs/web.md).
    pub web: WebConfig,
    /// Tool search, when many tools would fill the window (docs/mcp.md).
    pub tools: ToolsConfig,
}

/// `[tools]`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct ToolsConfig {
    /// Tools an MCP server or an added plugin offers wait behind
    /// `tool_search` when they would take more than this share of the
    /// model's window; 0 declares every tool always.
    pub defer_over: f64,
    /// How many of the most used of those tools stay declared in full.
    pub keep_most_used: usize,
}

impl Default for ToolsConfig {
    fn default() -> Self {
        ToolsConfig {
            defer_over: 0.10,
            keep_most_used: 8,
        }
    }
}

/// `[web]`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct WebConfig {
    /// Read and plan mode allow `web_fetch` (off: a fetched URL can carry
    /// what the model read out of the workspace, so reading the web is
    /// not reading).
    pub fetch_in_read_mode: bool,
}

/// `[checkpoints]`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct CheckpointsConfig {
    pub enabled: bool,
    /// A file larger than this many MiB is recorded "not restorable".
    pub max_file_mib: u64,
    /// New content kept per turn at most, in MiB.
    pub turn_budget_mib: u64,
}

impl Default for CheckpointsConfig {
    fn default() -> Self {
        CheckpointsConfig {
            enabled: true,
            max_file_mib: 8,
            turn_budget_mib: 64,
        }
    }
}

/// One model's prices, US dollars per million tokens. The cache prices
/// default to the input price: a provider without a prompt cache bills
/// every input token alike.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PriceConfig {
    pub input: f64,
    pub output: f64,
    #[serde(default)]
    pub cache_read: Option<f64>,
    #[serde(default)]
    pub cache_write: Option<f64>,
}

impl PriceConfig {
    pub fn price(&self) -> amber_core::engine::Price {
        amber_core::engine::Price {
            input: self.input,
            output: self.output,
            cache_read: self.cache_read.unwrap_or(self.input),
            cache_write: self.cache_write.unwrap_or(self.input),
        }
    }
}

impl Config {
    /// The price of `model` on `provider`, if config has one.
    pub fn price_of(&self, provider: &str, model: &str) -> Option<amber_core::engine::Price> {
        self.prices
            .get(&format!("{provider}/{model}"))
            .map(PriceConfig::price)
    }
}

pub use amber_mcp::config::{McpConfig, ServerConfig as McpServerConfig};

/// What a failing hook does: `allow` or `deny` (docs/hooks.md).
pub use amber_core::hooks::OnError;

/// Hooks besides the components' (docs/hooks.md). `[[hooks]]` cannot sit
/// beside `hooks.claude_settings` in TOML, so the command hooks are
/// `[[hooks.command]]`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct HooksConfig {
    /// Also read the `hooks` of Claude Code's settings: `~/.claude/
    /// settings.json` (trusted: the user's own) and the workspace's
    /// `.claude/settings.json` (run only once trusted).
    pub claude_settings: bool,
    /// Command hooks in Claude Code's format: the user's own, trusted.
    pub command: Vec<CommandHookConfig>,
}

/// One command hook: the command gets the event's JSON on stdin and
/// answers in Claude Code's output contract.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CommandHookConfig {
    /// amber's name (`pre-tool`) or Claude Code's (`PreToolUse`).
    pub event: String,
    /// A regular expression over the whole tool name; none or `*`: all.
    #[serde(default)]
    pub matcher: Option<String>,
    /// Run by `sh -c` in the workspace.
    pub command: String,
    /// Default 60000, as in Claude Code.
    #[serde(default)]
    pub timeout_ms: Option<u64>,
    #[serde(default)]
    pub on_error: Option<OnError>,
    #[serde(default)]
    pub priority: i32,
}

/// The OS sandbox of shell commands (docs/sandbox.md).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct SandboxConfig {
    /// `auto` (bubblewrap, else Landlock), `bubblewrap`, `landlock`, or
    /// `none` (no sandbox: every command asks in write mode).
    pub backend: String,
    /// Sandbox commands in yolo mode too.
    pub always: bool,
    /// Folders under the home folder that commands may read (the rest of
    /// it is hidden); unset keeps the toolchain defaults (.cargo, .rustup…).
    pub home_readable: Option<Vec<std::path::PathBuf>>,
    /// Processes and threads one command may have at once (its pids
    /// cgroup); 0: no limit.
    pub max_processes: u32,
    /// Memory one command may take, in MiB (its memory cgroup, else each
    /// process); unset: three quarters of the machine's; 0: no limit.
    pub max_memory_mib: Option<u64>,
    /// CPU time each process of a command may take, in seconds; 0: no
    /// limit.
    pub max_cpu_seconds: u64,
    /// Each command in a cgroup of its own, where the machine lets amber
    /// make one: what it starts is found and killed whatever it does, and
    /// its processes and memory are bounded together.
    pub cgroups: bool,
}

impl Default for SandboxConfig {
    fn default() -> Self {
        SandboxConfig {
            backend: "auto".into(),
            always: false,
            home_readable: None,
            max_processes: amber_sandbox::limits::DEFAULT_MAX_PROCESSES,
            max_memory_mib: None,
            max_cpu_seconds: amber_sandbox::limits::DEFAULT_MAX_CPU_SECONDS,
            cgroups: true,
        }
    }
}

impl SandboxConfig {
    /// The limits of every command, a 0 meaning none.
    pub fn limits(&self) -> amber_sandbox::Limits {
        amber_sandbox::Limits {
            processes: (self.max_processes > 0).then_some(self.max_processes),
            memory_bytes: match self.max_memory_mib {
                None => amber_sandbox::limits::default_memory_bytes(),
                Some(0) => None,
                Some(mib) => Some(mib.saturating_mul(1024 * 1024)),
            },
            cpu_seconds: (self.max_cpu_seconds > 0).then_some(self.max_cpu_seconds),
        }
    }
}

/// The model calls' HTTP: timeouts and retries (docs/dialects.md).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct WireConfig {
    /// Opening the connection.
    pub connect_timeout_ms: u64,
    /// From sending a request to its first event; a local model on a CPU
    /// may need more for a long prompt.
    pub first_byte_timeout_ms: u64,
    /// Silence allowed between two events.
    pub read_timeout_ms: u64,
    /// Attempts per model call, the first included (1: never retry).
    pub max_attempts: u32,
    /// The longest wait between attempts; a server asking for longer ends
    /// the call at once, saying how long it asked.
    pub max_retry_delay_ms: u64,
    /// The largest reply one model call may stream, text and tool
    /// arguments together; past it the call fails with `reply_too_large`.
    pub max_reply_mib: u32,
}

impl Default for WireConfig {
    fn default() -> Self {
        WireConfig {
            connect_timeout_ms: 10_000,
            first_byte_timeout_ms: 120_000,
            read_timeout_ms: 120_000,
            max_attempts: 4,
            max_retry_delay_ms: 30_000,
            max_reply_mib: 64,
        }
    }
}

/// Skills (docs/skills.md).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct SkillsConfig {
    /// Tokens the skills index (names and descriptions) may use in each
    /// request (64-16384); the skills that do not fit are named.
    pub index_tokens: u32,
    /// Skills by name that are neither listed nor loadable (`/skills
    /// disable NAME`).
    pub disabled: Vec<String>,
}

impl Default for SkillsConfig {
    fn default() -> Self {
        SkillsConfig {
            index_tokens: 1024,
            disabled: Vec::new(),
        }
    }
}

/// Governed memory in the agent's prompt (docs/memory.md).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct MemoryConfig {
    /// Put the memories relevant to each request in the prompt (the
    /// `memory-recall` head block), when the memory database exists.
    pub recall_block: bool,
    /// Tokens the recall block may use (64-8192).
    pub recall_budget: u32,
    /// A sentence-encoder directory (all-MiniLM-L6-v2's files) for
    /// semantic recall; none keeps recall lexical. `AMBER_EMBEDDING_MODEL`
    /// overrides it.
    pub embedding_model: Option<std::path::PathBuf>,
    /// The evidence count at which a candidate memory is offered to a
    /// person for promotion; what compression extracts starts at it
    /// (seed 000, "Memory extraction").
    pub promote_threshold: u32,
}

impl Default for MemoryConfig {
    fn default() -> Self {
        MemoryConfig {
            recall_block: true,
            recall_budget: 512,
            embedding_model: None,
            promote_threshold: 3,
        }
    }
}

/// Read coverage: what the agent has read, and the digest a compacted
/// session is given (docs/coverage.md).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct CoverageConfig {
    /// Track reads, journal them, annotate re-reads, give the digest.
    pub enabled: bool,
    /// Tokens the restore digest may use (100-20000).
    pub digest_tokens: u32,
    /// Tool mappings on top of the built-in ones, by tool name, with the
    /// fields of `tools.toml` (docs/coverage.md, "The mapper").
    pub tools: BTreeMap<String, toml::Value>,
}

impl Default for CoverageConfig {
    fn default() -> Self {
        CoverageConfig {
            enabled: true,
            digest_tokens: 1500,
            tools: BTreeMap::new(),
        }
    }
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct ModelConfig {
    pub provider: Option<String>,
    pub model: Option<String>,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct ProviderConfig {
    /// `openai-chat`, `openai-responses` or `anthropic-messages`.
    pub flavor: Option<String>,
    pub base_url: Option<String>,
    /// The environment variable holding the key.
    pub key_env: Option<String>,
    pub model: Option<String>,
    pub context_window: Option<u64>,
    /// Whether the model takes images; the shipped preset's answer when
    /// unset (docs/images.md).
    pub images: Option<bool>,
}

/// The sandbox backends `[sandbox] backend` names.
pub use amber_sandbox::BackendChoice as SandboxBackend;

/// The policy level, as the engine defines it: `read`, `write`, `yolo`.
pub use amber_core::engine::Mode;

/// A stored approval rule: a tool (or `exec`, `exec:<program>`,
/// `exec:<program>:<class>`, `*`) and optionally a folder.
pub use amber_core::policy::{Rule, RuleDecision};

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct PolicyConfig {
    pub mode: Mode,
    pub rules: Vec<Rule>,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct PluginConfig {
    /// `false` keeps the plugin installed but disabled.
    pub enabled: Option<bool>,
    /// Permissions granted ahead of time, for headless runs and CI.
    pub grants: Vec<String>,
    /// Plugin-scoped settings, read by the plugin through `host.setting`.
    pub settings: BTreeMap<String, String>,
    /// The order of its hooks among the others (ascending; default 0).
    pub hook_priority: i32,
    /// What its hooks' failures do; default: the event's.
    pub hook_on_error: Option<OnError>,
    /// Its `http` grant narrowed to these hosts, each inside one it asked
    /// for (docs/permissions.md); none: all it asked for.
    pub http_hosts: Option<Vec<String>>,
    /// Headers the host adds to its requests, by host pattern: header
    /// name → the name of a secret in `[secrets]`.
    pub http_headers: BTreeMap<String, BTreeMap<String, String>>,
}

/// `[secrets.NAME]`: where a secret's value is read from. It is read when
/// a plugin that uses it is enabled, never written anywhere.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct SecretConfig {
    /// The environment variable that holds it.
    pub env: Option<String>,
    /// A file whose content (trimmed) is it.
    pub file: Option<std::path::PathBuf>,
}

impl SecretConfig {
    /// The value, or why it cannot be read (naming where it looked).
    /// `env` looks a variable up: amber moves secret-looking variables out
    /// of its environment at start (amber_wire::secrets), so it is that
    /// store's lookup, not the process environment's.
    pub fn read(&self, name: &str, env: impl Fn(&str) -> Option<String>) -> Result<String, String> {
        if let Some(var) = &self.env {
            return env(var).ok_or_else(|| {
                format!("secret `{name}`: the environment variable {var} is not set")
            });
        }
        if let Some(file) = &self.file {
            return std::fs::read_to_string(file)
                .map(|v| v.trim().to_string())
                .map_err(|e| format!("secret `{name}`: cannot read {}: {e}", file.display()));
        }
        Err(format!("secret `{name}` names neither `env` nor `file`"))
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct LimitsConfig {
    /// Linear memory per plugin instance.
    pub memory_mib: u32,
    /// Guest time per call, excluding time inside host imports.
    pub deadline_ms: u64,
    /// Largest string or list a plugin may return from one call.
    pub output_kib: u32,
    /// Largest `.wasm` file `amber plugin add` reads.
    pub plugin_file_mib: u32,
    /// A plugin's `http` request, whole, at most (docs/permissions.md).
    pub http_timeout_ms: u64,
    /// A response body a plugin's `http` request reads, at most.
    pub http_response_mib: u32,
    /// A plugin's `http` requests in flight at once, at most.
    pub http_in_flight: u32,
}

impl Default for LimitsConfig {
    fn default() -> Self {
        LimitsConfig {
            memory_mib: 256,
            deadline_ms: 10_000,
            output_kib: 16 * 1024,
            plugin_file_mib: 256,
            http_timeout_ms: 30_000,
            http_response_mib: 10,
            http_in_flight: 4,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct ExecConfig {
    /// Variables passed to commands beyond PATH, HOME, LANG, TERM, USER.
    pub env: Vec<String>,
    pub timeout_ms: u64,
    /// Bytes kept of stdout and of stderr, each.
    pub output_kib: u32,
}

impl Default for ExecConfig {
    fn default() -> Self {
        ExecConfig {
            env: Vec::new(),
            timeout_ms: 120_000,
            output_kib: 256,
        }
    }
}

/// How the agent loop runs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct AgentConfig {
    /// Model calls per run before a hard stop.
    pub max_tool_iterations: u32,
    /// Ask "are you finished?" silently before ending a run (also spelt
    /// `confirm`; `--no-confirm` turns it off for one run).
    #[serde(alias = "confirm")]
    pub confirm_turn: bool,
    /// The confirm question; empty means the built-in one.
    pub confirm_prompt: String,
    /// Context utilisation (0-1] at which compression is wanted.
    pub compress_threshold: f64,
    /// The share of the window (0-1] a compressed context may use; a
    /// threshold below it lowers it to the threshold.
    pub compress_target: f64,
    /// Compress when the threshold is passed, and on `/compact`.
    pub compress_enabled: bool,
    /// Sampling temperature (0-2); unset lets the provider choose.
    pub temperature: Option<f32>,
    /// The reply budget per model call; unset lets the provider choose
    /// (Anthropic always gets one: its dialect sends a default).
    pub max_tokens: Option<u32>,
    /// How `task` sub-agents run: `serial` (one at a time, which keeps the
    /// provider's prompt cache warm) or `parallel`.
    pub subagents: SubagentMode,
    /// With `parallel`: at most this many at once (1-16).
    pub subagent_max: u32,
    /// Model calls per sub-agent before it stops.
    pub subagent_max_iterations: u32,
    /// A run stops before the model call that would spend more than this
    /// many US dollars (`--max-budget-usd`); needs the model's price.
    pub max_budget_usd: Option<f64>,
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SubagentMode {
    #[default]
    Serial,
    Parallel,
}

impl Default for AgentConfig {
    fn default() -> Self {
        AgentConfig {
            max_tool_iterations: 100,
            confirm_turn: true,
            confirm_prompt: String::new(),
            compress_threshold: 0.8,
            compress_target: 0.5,
            compress_enabled: true,
            temperature: None,
            max_tokens: None,
            subagents: SubagentMode::Serial,
            subagent_max: 4,
            subagent_max_iterations: 20,
            max_budget_usd: None,
        }
    }
}

impl Config {
    /// Parses `text`, read from `path` (named in errors).
    pub fn parse(text: &str, path: &Path) -> Result<Config, ConfigError> {
        let config: Config =
            toml::from_str(text).map_err(|e| ConfigError::from_toml(path, text, &e))?;
        config.validate(path, text)?;
        Ok(config)
    }

    /// Loads `path`; a missing file is the default config.
    pub fn load(path: &Path) -> Result<Config, ConfigError> {
        match std::fs::read_to_string(path) {
            Ok(text) => Config::parse(&text, path),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Config::default()),
            Err(e) => Err(ConfigError::Read {
                path: path.to_path_buf(),
                reason: e.to_string(),
            }),
        }
    }

    /// Checks what types alone cannot: known permission names, sane limits.
    fn validate(&self, path: &Path, text: &str) -> Result<(), ConfigError> {
        const PERMISSIONS: [&str; 4] = ["workspace-read", "workspace-write", "exec", "http"];
        for (id, plugin) in &self.plugins {
            for (host, headers) in &plugin.http_headers {
                for (header, secret) in headers {
                    if !self.secrets.contains_key(secret) {
                        let key = format!("plugins.{id}.http_headers.\"{host}\".{header}");
                        let reason = format!(
                            "no secret `{secret}` in [secrets] (add [secrets.{secret}] with env = \"VAR\" or file = \"PATH\")"
                        );
                        return Err(ConfigError::invalid(path, text, &key, secret, reason));
                    }
                }
            }
            for grant in &plugin.grants {
                if !PERMISSIONS.contains(&grant.as_str()) {
                    let key = format!("plugins.{id}.grants");
                    let reason = format!(
                        "unknown permission `{grant}` (known: {})",
                        PERMISSIONS.join(", ")
                    );
                    return Err(ConfigError::invalid(path, text, &key, grant, reason));
                }
            }
        }
        for (key, price) in &self.prices {
            let figures = [
                ("input", Some(price.input)),
                ("output", Some(price.output)),
                ("cache_read", price.cache_read),
                ("cache_write", price.cache_write),
            ];
            for (name, figure) in figures {
                if let Some(figure) = figure.filter(|f| !f.is_finite() || *f < 0.0) {
                    let reason = "a price is a number of US dollars per million tokens, 0 or more"
                        .to_string();
                    return Err(ConfigError::invalid(
                        path,
                        text,
                        &format!("prices.\"{key}\".{name}"),
                        &figure.to_string(),
                        reason,
                    ));
                }
            }
            if !key.contains('/') {
                let reason =
                    "a price's key is \"provider/model\", e.g. \"anthropic/claude-sonnet-4-5\""
                        .to_string();
                return Err(ConfigError::invalid(
                    path,
                    text,
                    &format!("prices.\"{key}\""),
                    key,
                    reason,
                ));
            }
        }
        if let Some(budget) = self
            .agent
            .max_budget_usd
            .filter(|b| !b.is_finite() || *b <= 0.0)
        {
            let reason = "a budget is a number of US dollars above 0".to_string();
            return Err(ConfigError::invalid(
                path,
                text,
                "agent.max_budget_usd",
                &budget.to_string(),
                reason,
            ));
        }
        for (i, hook) in self.hooks.command.iter().enumerate() {
            let key = format!("hooks.command[{i}]");
            if amber_core::hooks::HookEvent::parse(&hook.event).is_none() {
                let reason =
                    "unknown event (docs/hooks.md lists them, in amber's or Claude Code's names)"
                        .to_string();
                return Err(ConfigError::invalid(
                    path,
                    text,
                    &format!("{key}.event"),
                    &hook.event,
                    reason,
                ));
            }
            if let Err(reason) = amber_core::hooks::Matcher::parse(hook.matcher.as_deref()) {
                let matcher = hook.matcher.as_deref().unwrap_or_default();
                return Err(ConfigError::invalid(
                    path,
                    text,
                    &format!("{key}.matcher"),
                    matcher,
                    reason.to_string(),
                ));
            }
            if hook.command.trim().is_empty() {
                let reason = "the command is empty".to_string();
                return Err(ConfigError::invalid(
                    path,
                    text,
                    &format!("{key}.command"),
                    "",
                    reason,
                ));
            }
        }
        for (name, provider) in &self.providers {
            let key = |field: &str| format!("providers.{name}.{field}");
            let header = format!("[providers.{name}]");
            if provider
                .key_env
                .as_deref()
                .is_some_and(|k| k.trim().is_empty())
            {
                let reason = "empty: name the environment variable that holds the key (OPENAI_API_KEY), or leave the key out for a server that needs none".to_string();
                return Err(ConfigError::invalid(
                    path,
                    text,
                    &key("key_env"),
                    &header,
                    reason,
                ));
            }
            if provider
                .flavor
                .as_deref()
                .is_some_and(|f| f.trim().is_empty())
            {
                let reason = "empty: openai-chat, openai-responses, anthropic-messages, or one a provider plugin adds".to_string();
                return Err(ConfigError::invalid(
                    path,
                    text,
                    &key("flavor"),
                    &header,
                    reason,
                ));
            }
            if provider.context_window == Some(0) {
                let reason =
                    "0 tokens: the model's context window in tokens, such as 128000".to_string();
                return Err(ConfigError::invalid(
                    path,
                    text,
                    &key("context_window"),
                    &header,
                    reason,
                ));
            }
        }
        if let Err((i, key, value, reason)) = self.mcp.check() {
            let key = format!("mcp.servers[{i}].{key}");
            return Err(ConfigError::invalid(path, text, &key, &value, reason));
        }
        for name in &self.exec.env {
            if amber_sandbox::looks_secret(name) {
                let reason = format!(
                    "`{name}` looks like a secret; commands never get keys or tokens (docs/sandbox.md)"
                );
                return Err(ConfigError::invalid(path, text, "exec.env", name, reason));
            }
        }
        if let Err(reason) = self.sandbox.backend.parse::<SandboxBackend>() {
            let backend = self.sandbox.backend.as_str();
            return Err(ConfigError::invalid(
                path,
                text,
                "sandbox.backend",
                backend,
                reason,
            ));
        }
        let threshold = self.agent.compress_threshold;
        // (holds, key, reason), checked in order; the error points at the
        // key's last segment in the file.
        let ranges = [
            (
                (1..=4096).contains(&self.limits.memory_mib),
                "limits.memory_mib",
                "must be between 1 and 4096",
            ),
            (
                self.limits.deadline_ms >= 1,
                "limits.deadline_ms",
                "must be at least 1",
            ),
            (
                (1..=1 << 20).contains(&self.limits.output_kib),
                "limits.output_kib",
                "must be between 1 and 1048576",
            ),
            (
                (1..=4096).contains(&self.limits.plugin_file_mib),
                "limits.plugin_file_mib",
                "must be between 1 and 4096",
            ),
            (
                (1..=86_400_000).contains(&self.exec.timeout_ms),
                "exec.timeout_ms",
                "must be between 1 and 86400000 (a day)",
            ),
            (
                (1..=1 << 20).contains(&self.exec.output_kib),
                "exec.output_kib",
                "must be between 1 and 1048576",
            ),
            (
                self.agent.max_tokens.is_none_or(|t| t >= 1),
                "agent.max_tokens",
                "must be at least 1 (or unset, to let the provider choose)",
            ),
            (
                self.agent
                    .temperature
                    .is_none_or(|t| (0.0..=2.0).contains(&t)),
                "agent.temperature",
                "must be between 0 and 2 (or unset, to let the provider choose)",
            ),
            (
                self.agent.subagent_max_iterations >= 1,
                "agent.subagent_max_iterations",
                "must be at least 1",
            ),
            (
                (0.0..=1.0).contains(&self.tools.defer_over),
                "tools.defer_over",
                "must be between 0 (never defer) and 1",
            ),
            (
                self.tools.keep_most_used <= 100,
                "tools.keep_most_used",
                "must be at most 100",
            ),
            (
                (1..=4096).contains(&self.wire.max_reply_mib),
                "wire.max_reply_mib",
                "must be between 1 and 4096",
            ),
            (
                self.agent.max_tool_iterations >= 1,
                "agent.max_tool_iterations",
                "must be at least 1",
            ),
            (
                (1..=16).contains(&self.agent.subagent_max),
                "agent.subagent_max",
                "must be between 1 and 16",
            ),
            (
                threshold > 0.0 && threshold <= 1.0,
                "agent.compress_threshold",
                "must be above 0 and at most 1",
            ),
            (
                self.agent.compress_target > 0.0 && self.agent.compress_target <= 1.0,
                "agent.compress_target",
                "must be above 0 and at most 1",
            ),
            (
                (1..=1000).contains(&self.memory.promote_threshold),
                "memory.promote_threshold",
                "must be between 1 and 1000",
            ),
            (
                (64..=8192).contains(&self.memory.recall_budget),
                "memory.recall_budget",
                "must be between 64 and 8192",
            ),
            (
                (64..=16_384).contains(&self.skills.index_tokens),
                "skills.index_tokens",
                "must be between 64 and 16384",
            ),
            (
                (100..=20_000).contains(&self.coverage.digest_tokens),
                "coverage.digest_tokens",
                "must be between 100 and 20000",
            ),
            (
                self.wire.connect_timeout_ms >= 1,
                "wire.connect_timeout_ms",
                "must be at least 1",
            ),
            (
                self.wire.first_byte_timeout_ms >= 1,
                "wire.first_byte_timeout_ms",
                "must be at least 1",
            ),
            (
                self.wire.read_timeout_ms >= 1,
                "wire.read_timeout_ms",
                "must be at least 1",
            ),
            (
                self.wire.max_retry_delay_ms >= 1,
                "wire.max_retry_delay_ms",
                "must be at least 1",
            ),
            (
                (1..=10).contains(&self.wire.max_attempts),
                "wire.max_attempts",
                "must be between 1 and 10",
            ),
        ];
        for (holds, key, reason) in ranges {
            if !holds {
                let name = key.rsplit('.').next().unwrap_or(key);
                return Err(ConfigError::invalid(
                    path,
                    text,
                    key,
                    name,
                    reason.to_string(),
                ));
            }
        }
        Ok(())
    }

    /// The config as TOML, defaults filled in.
    pub fn to_toml(&self) -> String {
        toml::to_string_pretty(self).unwrap_or_default()
    }
}

#[cfg(test)]
mod tests;
