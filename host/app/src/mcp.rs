//! The App's MCP host: one hub per host, made from `[[mcp.servers]]`,
//! its servers' tools in the same ledger as the plugins' (docs/mcp.md).

use std::path::Path;
use std::sync::Arc;

use amber_config::Config;
use amber_core::Ledger;
use amber_mcp::{HubSetup, McpHub, ServerStatus, State};
use amber_runtime::AmberDirs;
use anyhow::Result;

/// A hub for `config`'s servers, none started; `None` when there are no
/// servers, so a run without MCP pays nothing.
pub fn hub(
    config: &Config,
    dirs: &AmberDirs,
    workspace: &Path,
    ledger: &Arc<Ledger>,
    base_env: Vec<(String, std::ffi::OsString)>,
) -> Result<Option<Arc<McpHub>>> {
    if config.mcp.servers.is_empty() {
        return Ok(None);
    }
    let setup = HubSetup {
        ledger: ledger.clone(),
        spawner: crate::host::spawner(config),
        workspace: workspace.to_path_buf(),
        data_dir: dirs.data.clone(),
        base_env,
        // A sandboxed server sees none of amber's own folders, and the
        // home as commands see it.
        walls: amber_mcp::ServerWalls {
            hidden: vec![dirs.config.clone(), dirs.data.clone(), dirs.cache.clone()],
            home_readable: config.sandbox.home_readable.clone(),
        },
    };
    Ok(Some(McpHub::new(&config.mcp, setup)?))
}

/// The environment every server gets: the allowlist of commands
/// (`[exec] env` added), never a secret.
pub fn command_env(config: &Config) -> Vec<(String, std::ffi::OsString)> {
    let mut exec = amber_runtime::imports::exec::ExecPolicy::default();
    exec.env_allowlist.extend(config.exec.env.iter().cloned());
    exec.environment()
}

/// A hub of its own, for `amber mcp tools|call` from the shell: the
/// servers' tools go to a ledger of their own, and no plugin is loaded.
pub fn standalone(config: &Config, dirs: &AmberDirs, workspace: &Path) -> Result<Arc<McpHub>> {
    let ledger = Arc::new(Ledger::new());
    match hub(config, dirs, workspace, &ledger, command_env(config))? {
        Some(hub) => Ok(hub),
        None => anyhow::bail!(
            "no MCP servers configured (amber mcp add NAME -- COMMAND ARGS…, or [[mcp.servers]] in config)"
        ),
    }
}

fn state_text(state: &State) -> String {
    match state {
        State::Disabled => "disabled".into(),
        State::Lazy => "lazy (starts after the first request)".into(),
        State::Stopped => "stopped".into(),
        State::Connecting => "connecting".into(),
        State::Ready => "ready".into(),
        State::Failed(why) => format!("failed: {why}"),
    }
}

/// The servers as `/mcp` and `amber mcp list` print them.
pub fn render(statuses: &[ServerStatus]) -> String {
    if statuses.is_empty() {
        return "no MCP servers configured (amber mcp add NAME -- COMMAND ARGS…, or [[mcp.servers]] in config)\n".into();
    }
    let mut out = String::new();
    for s in statuses {
        out.push_str(&format!(
            "{}  {}  {}\n",
            s.name,
            state_text(&s.state),
            s.target
        ));
        if let Some(info) = s.server_info.as_deref().filter(|i| !i.is_empty()) {
            let protocol = s.protocol.as_deref().unwrap_or("?");
            out.push_str(&format!("  server {info}, protocol {protocol}\n"));
        }
        if s.state == State::Ready {
            out.push_str(&format!(
                "  {} tools, {} resources, {} prompts\n",
                s.tools.len(),
                s.resources,
                s.prompts
            ));
        }
        if !s.held.is_empty() {
            out.push_str(&format!(
                "  held back: {} (amber mcp approve {} TOOL)\n",
                s.held.join(", "),
                s.name
            ));
        }
        if s.restarts > 0 {
            out.push_str(&format!("  restarted {} times\n", s.restarts));
        }
    }
    out
}

/// `[[mcp.servers]]` in the config file, edited in place: comments and
/// layout kept, the result validated before it is written.
pub mod config_edit {
    use std::path::Path;

    use amber_config::{Config, McpServerConfig};
    use anyhow::{bail, Context, Result};
    use toml_edit::{ArrayOfTables, DocumentMut, Item, Table, Value};

    fn servers(doc: &mut DocumentMut) -> Result<&mut ArrayOfTables> {
        let mcp = doc
            .as_table_mut()
            .entry("mcp")
            .or_insert_with(|| {
                let mut t = Table::new();
                t.set_implicit(true);
                Item::Table(t)
            })
            .as_table_mut()
            .context("`mcp` is not a table")?;
        mcp.entry("servers")
            .or_insert_with(|| Item::ArrayOfTables(ArrayOfTables::new()))
            .as_array_of_tables_mut()
            .context("`mcp.servers` is not an array of tables ([[mcp.servers]])")
    }

    fn index_of(list: &ArrayOfTables, name: &str) -> Option<usize> {
        list.iter()
            .position(|t| t.get("name").and_then(|v| v.as_str()) == Some(name))
    }

    /// `server` as one `[[mcp.servers]]` entry. Its tables (`env`) are
    /// inline (`env = { K = "v" }`): a `[env]` header would be rendered
    /// after the whole array and land under whichever entry came last, so
    /// a second server with `env` made a "duplicate key".
    fn server_table(server: &McpServerConfig) -> Result<Table> {
        let text = toml::to_string(server).context("cannot write the server as TOML")?;
        let doc = text
            .parse::<DocumentMut>()
            .context("cannot write the server as TOML")?;
        let mut table = Table::new();
        for (key, item) in doc.as_table().iter() {
            let item = match item {
                Item::Table(inner) => {
                    Item::Value(Value::InlineTable(inner.clone().into_inline_table()))
                }
                other => other.clone(),
            };
            table.insert(key, item);
        }
        Ok(table)
    }

    /// Adds `server`; a server of the same name is refused.
    pub fn add(path: &Path, server: &McpServerConfig) -> Result<Config> {
        let table = server_table(server)?;
        crate::config_file::edit(path, |doc| {
            let list = servers(doc)?;
            if index_of(list, &server.name).is_some() {
                bail!(
                    "an MCP server named `{}` is configured already (amber mcp remove {} first)",
                    server.name,
                    server.name
                );
            }
            list.push(table);
            Ok(())
        })
    }

    /// Removes the server `name`.
    pub fn remove(path: &Path, name: &str) -> Result<Config> {
        crate::config_file::edit(path, |doc| {
            let list = servers(doc)?;
            let Some(at) = index_of(list, name) else {
                bail!("no MCP server named `{name}` is configured");
            };
            list.remove(at);
            Ok(())
        })
    }

    /// Sets `enabled` of the server `name` (`true` is the default, so the
    /// key is dropped).
    pub fn set_enabled(path: &Path, name: &str, enabled: bool) -> Result<Config> {
        crate::config_file::edit(path, |doc| {
            let list = servers(doc)?;
            let Some(at) = index_of(list, name) else {
                bail!("no MCP server named `{name}` is configured");
            };
            let Some(table) = list.get_mut(at) else {
                bail!("no MCP server named `{name}` is configured");
            };
            if enabled {
                table.remove("enabled");
            } else {
                table.insert("enabled", toml_edit::value(false));
            }
            Ok(())
        })
    }

    #[cfg(test)]
    mod tests {
        #![allow(clippy::unwrap_used, reason = "a test fails by panicking")]

        use std::collections::BTreeMap;

        use proptest::prelude::*;

        use super::*;

        /// A server with any mix of the optional fields.
        fn server() -> impl Strategy<Value = McpServerConfig> {
            (
                0..6usize,
                any::<bool>(),
                proptest::collection::btree_map("[A-Z_]{1,6}", "[ -~]{0,8}", 0..3),
                proptest::collection::vec("[ -~]{0,6}", 0..3),
                any::<(bool, bool, bool, bool)>(),
                proptest::option::of(1u64..100_000),
            )
                .prop_map(
                    |(n, http, env, args, (cwd, lazy, enabled, trust), timeout)| {
                        let name = format!("s{n}");
                        let mut server = if http {
                            McpServerConfig::http(&name, "http://127.0.0.1:9/mcp")
                        } else {
                            let args: Vec<&str> = args.iter().map(String::as_str).collect();
                            McpServerConfig::stdio(&name, "npx", &args)
                        };
                        if !http {
                            server.env = env;
                            server.cwd = cwd.then(|| "sub dir".into());
                        }
                        server.lazy = lazy;
                        server.enabled = enabled;
                        server.trust_annotations = trust;
                        server.startup_timeout_ms = timeout;
                        server
                    },
                )
        }

        proptest! {
            #![proptest_config(ProptestConfig::with_cases(64))]
            #[test]
            fn adds_and_removes_in_any_order_leave_valid_toml(
                steps in proptest::collection::vec((server(), any::<bool>()), 1..12)
            ) {
                let dir = tempfile::tempdir().unwrap();
                let path = dir.path().join("config.toml");
                std::fs::write(&path, "# mine\n[agent]\nmax_tool_iterations = 9\n").unwrap();
                let mut expected: BTreeMap<String, McpServerConfig> = BTreeMap::new();
                for (server, take_out) in steps {
                    let name = server.name.clone();
                    let config = match expected.entry(name.clone()) {
                        std::collections::btree_map::Entry::Occupied(held) if take_out => {
                            held.remove();
                            remove(&path, &name).unwrap()
                        }
                        std::collections::btree_map::Entry::Occupied(_) => {
                            prop_assert!(add(&path, &server).is_err());
                            continue;
                        }
                        std::collections::btree_map::Entry::Vacant(slot) => {
                            slot.insert(server.clone());
                            add(&path, &server).unwrap()
                        }
                    };
                    // What was written is what amber reads back.
                    let text = std::fs::read_to_string(&path).unwrap();
                    let read = Config::parse(&text, &path).unwrap();
                    prop_assert_eq!(&read.mcp.servers, &config.mcp.servers);
                    let got: BTreeMap<_, _> = read.mcp.servers.iter().map(|s| (s.name.clone(), s.clone())).collect();
                    prop_assert_eq!(&got, &expected);
                    prop_assert_eq!(read.agent.max_tool_iterations, 9);
                    prop_assert!(text.starts_with("# mine"));
                }
            }
        }

        #[test]
        fn two_servers_with_env_are_valid_toml() {
            let dir = tempfile::tempdir().unwrap();
            let path = dir.path().join("config.toml");
            for name in ["one", "two"] {
                let mut server = McpServerConfig::stdio(name, "npx", &["-y", "pkg"]);
                server.env.insert("TOKEN".into(), format!("{name}-secret"));
                add(&path, &server).unwrap();
            }
            let text = std::fs::read_to_string(&path).unwrap();
            let config = Config::parse(&text, &path).unwrap();
            assert_eq!(config.mcp.servers.len(), 2, "{text}");
            assert_eq!(config.mcp.servers[1].env["TOKEN"], "two-secret");
        }
    }
}

/// `amber mcp import`: servers from other agents' configs. Claude Code's
/// project `.mcp.json` (`{"mcpServers": {NAME: {command, args, env} or
/// {type: "http", url}}}`) and Codex's `[mcp_servers.NAME]` table
/// (`command`, `args`, `env`, or `url`).
pub mod import {
    use std::collections::BTreeMap;
    use std::path::{Path, PathBuf};

    use amber_config::McpServerConfig;
    use anyhow::{Context, Result};
    use serde::Serialize;
    use serde_json::Value;

    /// One server found, and where.
    #[derive(Debug, Clone, Serialize)]
    pub struct Found {
        pub server: McpServerConfig,
        pub source: PathBuf,
    }

    /// A server that cannot be imported, and why.
    #[derive(Debug, Clone, Serialize)]
    pub struct Skipped {
        pub name: String,
        pub source: PathBuf,
        pub reason: String,
    }

    fn strings(v: Option<&Value>) -> Vec<String> {
        v.and_then(Value::as_array)
            .map(|a| {
                a.iter()
                    .filter_map(|s| s.as_str().map(str::to_string))
                    .collect()
            })
            .unwrap_or_default()
    }

    fn env(v: Option<&Value>) -> BTreeMap<String, String> {
        v.and_then(Value::as_object)
            .map(|m| {
                m.iter()
                    .filter_map(|(k, v)| v.as_str().map(|s| (k.clone(), s.to_string())))
                    .collect()
            })
            .unwrap_or_default()
    }

    /// One server's table, in either agent's shape.
    fn server(name: &str, v: &Value) -> Result<McpServerConfig, String> {
        amber_mcp::names::check_server_name(name)?;
        let mut server = match (
            v.get("command").and_then(Value::as_str),
            v.get("url").and_then(Value::as_str),
        ) {
            (Some(command), None) => {
                let args = strings(v.get("args"));
                let args: Vec<&str> = args.iter().map(String::as_str).collect();
                McpServerConfig::stdio(name, command, &args)
            }
            (None, Some(url)) => {
                if v.get("type").and_then(Value::as_str) == Some("sse") {
                    return Err(
                        "it speaks the legacy HTTP+SSE transport, which amber does not".into(),
                    );
                }
                McpServerConfig::http(name, url)
            }
            _ => return Err("it has neither `command` nor `url`".into()),
        };
        server.env = env(v.get("env"));
        if let Some(cwd) = v.get("cwd").and_then(Value::as_str) {
            server.cwd = Some(cwd.into());
        }
        if v.get("enabled").and_then(Value::as_bool) == Some(false) {
            server.enabled = false;
        }
        // Neither agent has roots: the folders a server is given in its
        // arguments (server-filesystem's) are where it means to work.
        server.adopt_folder_args();
        server.endpoint()?;
        Ok(server)
    }

    fn collect(
        source: &Path,
        table: Option<&serde_json::Map<String, Value>>,
        found: &mut Vec<Found>,
        skipped: &mut Vec<Skipped>,
    ) {
        for (name, v) in table.into_iter().flatten() {
            match server(name, v) {
                Ok(server) => found.push(Found {
                    server,
                    source: source.to_path_buf(),
                }),
                Err(reason) => skipped.push(Skipped {
                    name: name.clone(),
                    source: source.to_path_buf(),
                    reason,
                }),
            }
        }
    }

    /// The servers of a `.mcp.json` file, and of a Codex `config.toml`;
    /// a file that does not exist has none.
    pub fn read(claude: &Path, codex: &Path) -> Result<(Vec<Found>, Vec<Skipped>)> {
        let mut found = Vec::new();
        let mut skipped = Vec::new();
        if let Some(text) = read_if_there(claude)? {
            let doc: Value = serde_json::from_str(&text)
                .with_context(|| format!("{} is not JSON", claude.display()))?;
            collect(
                claude,
                doc.get("mcpServers").and_then(Value::as_object),
                &mut found,
                &mut skipped,
            );
        }
        if let Some(text) = read_if_there(codex)? {
            let doc: toml::Value = toml::from_str(&text)
                .with_context(|| format!("{} is not TOML", codex.display()))?;
            let doc = serde_json::to_value(doc)?;
            collect(
                codex,
                doc.get("mcp_servers").and_then(Value::as_object),
                &mut found,
                &mut skipped,
            );
        }
        Ok((found, skipped))
    }

    /// The file's text, if there is a file: a repository's `.mcp.json`
    /// may be a FIFO or a link to `/dev/zero`, and is refused in a line.
    fn read_if_there(path: &Path) -> Result<Option<String>> {
        Ok(amber_core::bounded::read_text(
            path,
            amber_core::bounded::SETTINGS_MAX,
        )?)
    }
}
