//! `amber mcp add|list|remove|enable|disable|tools|call|approve`: the MCP
//! servers of the config, and a server's tools tried from the shell
//! (docs/mcp.md).

use std::collections::BTreeMap;
use std::path::PathBuf;

use amber_app::host;
use amber_app::mcp::{self, config_edit};
use amber_config::McpServerConfig;
use amber_core::project::ProjectRoot;
use anyhow::{bail, Context, Result};
use clap::Subcommand;
use serde_json::{json, Value};

use super::print_json;

#[derive(Subcommand)]
pub enum McpCommand {
    /// Add a server: `amber mcp add NAME -- COMMAND ARGS…` (stdio) or
    /// `amber mcp add NAME --url URL` (streamable HTTP).
    Add {
        /// Its tools are NAME__TOOL: letters, digits, `_` and `-`.
        name: String,
        /// A streamable HTTP endpoint instead of a command.
        #[arg(long)]
        url: Option<String>,
        /// A variable for this server only, KEY=VALUE; the only way a key
        /// reaches a server (repeatable).
        #[arg(long = "env", value_name = "KEY=VALUE")]
        env: Vec<String>,
        /// Where it runs; default the workspace.
        #[arg(long)]
        cwd: Option<PathBuf>,
        /// Start it after the first model request instead of at start.
        #[arg(long)]
        lazy: bool,
        /// Believe its readOnlyHint annotations.
        #[arg(long)]
        trust_annotations: bool,
        /// How long the first request waits for its tools (default 5000).
        #[arg(long)]
        startup_timeout_ms: Option<u64>,
        /// A folder outside the workspace the server works in (repeatable):
        /// sent to it as an MCP root, and the only outside place its
        /// tools' paths may name.
        #[arg(long = "root", value_name = "DIR")]
        roots: Vec<PathBuf>,
        /// Run it outside the sandbox, as any program of yours, with your
        /// whole home in reach; asked first (or --yes).
        #[arg(long)]
        no_sandbox: bool,
        /// Cut its sandbox off the network (servers that call no API).
        #[arg(long)]
        no_network: bool,
        /// Say yes to --no-sandbox's question.
        #[arg(long)]
        yes: bool,
        /// JSON for scripts: the server as written.
        #[arg(long)]
        json: bool,
        /// The command and its arguments, after `--`.
        #[arg(last = true)]
        command: Vec<String>,
    },
    /// Serve this workspace's symbol index, read coverage and memory to
    /// another agent over MCP (stdio, or `--http ADDR`).
    ///
    /// Tools: outline, show, callers, grep, index_status, coverage_report,
    /// coverage_digest, recall, compile, and store in write mode. All are
    /// confined to the workspace (`-C DIR`, or the one found from here).
    /// Over stdio nothing but MCP reaches stdout; notes go to stderr.
    /// `--print-config claude|codex` prints what makes those agents
    /// start it (docs/mcp.md, "Serving").
    Serve(super::mcp_serve::ServeArgs),
    /// The configured servers (no server is started).
    List {
        /// JSON for scripts.
        #[arg(long)]
        json: bool,
    },
    /// Remove a server, and forget its tools' pins.
    Remove {
        /// The server's name, as `amber mcp list` shows it.
        #[arg(add = clap_complete::engine::ArgValueCandidates::new(super::completers::mcp_servers))]
        name: String,
    },
    /// Enable a disabled server.
    Enable {
        /// The server's name, as `amber mcp list` shows it.
        #[arg(add = clap_complete::engine::ArgValueCandidates::new(super::completers::mcp_servers))]
        name: String,
    },
    /// Disable a server: it is not started, and its tools are not offered.
    Disable {
        /// The server's name, as `amber mcp list` shows it.
        #[arg(add = clap_complete::engine::ArgValueCandidates::new(super::completers::mcp_servers))]
        name: String,
    },
    /// Connect to a server and list its tools, resources and prompts,
    /// with the names the model sees.
    Tools {
        /// The server's name, as `amber mcp list` shows it.
        #[arg(add = clap_complete::engine::ArgValueCandidates::new(super::completers::mcp_servers))]
        name: String,
        /// JSON for scripts.
        #[arg(long)]
        json: bool,
    },
    /// Call a server's tool: `amber mcp call NAME TOOL '{"a": 1}'`.
    Call {
        /// The server's name, as `amber mcp list` shows it.
        #[arg(add = clap_complete::engine::ArgValueCandidates::new(super::completers::mcp_servers))]
        name: String,
        /// The server's own name for the tool.
        tool: String,
        /// The arguments as a JSON object; default `{}`.
        args: Option<String>,
        /// JSON for scripts.
        #[arg(long)]
        json: bool,
    },
    /// Import servers from Claude Code's `.mcp.json` (the workspace's) and
    /// Codex's `[mcp_servers]` (`$CODEX_HOME/config.toml`, else
    /// `~/.codex/config.toml`): shows what it will add, then asks.
    Import {
        /// A `.mcp.json` file other than the workspace's.
        #[arg(long, value_name = "FILE")]
        mcp_json: Option<PathBuf>,
        /// A Codex `config.toml` other than the default.
        #[arg(long, value_name = "FILE")]
        codex_config: Option<PathBuf>,
        /// Add them without asking.
        #[arg(long)]
        yes: bool,
        /// JSON for scripts: what was added and what was skipped.
        #[arg(long)]
        json: bool,
    },
    /// Approve a changed tool: shows the old and new description as a
    /// diff, then offers the tool again with the new one pinned.
    Approve {
        /// The server's name, as `amber mcp list` shows it.
        #[arg(add = clap_complete::engine::ArgValueCandidates::new(super::completers::mcp_servers))]
        name: String,
        /// The server's own name for the tool.
        tool: String,
        /// JSON for scripts.
        #[arg(long)]
        json: bool,
    },
}

/// `--root` folders as config keeps them: absolute (a relative one is
/// the shell's current folder's, as a person typing it means), each an
/// existing folder that is not `/` or the whole home folder.
fn given_roots(roots: &[PathBuf], workspace: &std::path::Path) -> Result<Vec<String>> {
    let here = std::env::current_dir().unwrap_or_else(|_| workspace.to_path_buf());
    roots
        .iter()
        .map(|root| {
            let dir = if root.is_absolute() {
                root.clone()
            } else {
                here.join(root)
            };
            if !dir.is_dir() {
                bail!("--root {}: no such folder", dir.display());
            }
            if amber_mcp::config::too_wide(&dir) {
                bail!(
                    "--root {}: a root is a folder of its own, not `/`, the home folder or a folder that holds it",
                    dir.display()
                );
            }
            Ok(dir.display().to_string())
        })
        .collect()
}

pub fn run(host: &amber_app::host::Host, command: McpCommand, project: &ProjectRoot) -> Result<()> {
    let dirs = host.dirs.clone();
    let config = host::load_config(&dirs)?;
    let path = host::config_path(&dirs);
    let workspace = project.root.as_path();
    match command {
        McpCommand::Serve(args) => super::mcp_serve::run(host, args, project),
        McpCommand::Add {
            name,
            url,
            env,
            cwd,
            lazy,
            trust_annotations,
            startup_timeout_ms,
            roots,
            no_sandbox,
            no_network,
            yes,
            json,
            command,
        } => {
            let mut server = match (url, command.split_first()) {
                (Some(url), None) => McpServerConfig::http(&name, &url),
                (None, Some((program, args))) => {
                    let args: Vec<&str> = args.iter().map(String::as_str).collect();
                    McpServerConfig::stdio(&name, program, &args)
                }
                (Some(_), Some(_)) => bail!("give --url or a command after `--`, not both"),
                (None, None) => bail!(
                    "give the server's command after `--` (amber mcp add {name} -- npx -y PACKAGE) or --url URL"
                ),
            };
            server.env = parse_env(&env)?;
            server.cwd = cwd;
            server.lazy = lazy;
            server.trust_annotations = trust_annotations;
            server.startup_timeout_ms = startup_timeout_ms;
            server.roots = given_roots(&roots, workspace)?;
            let inferred = server.adopt_folder_args();
            server.network = !no_network;
            if no_sandbox {
                let question = format!(
                    "run MCP server `{name}` outside the sandbox, as any program of yours, with your whole home and every key in it in reach?"
                );
                if !yes && !confirm(&question)? {
                    bail!("not added: --no-sandbox was not confirmed (answer y, or add --yes)");
                }
                server.sandbox = false;
            }
            config_edit::add(&path, &server)?;
            if json {
                return print_json(&server);
            }
            outln!(
                "added MCP server `{name}`: {} (in {})",
                server.target(),
                path.display()
            );
            if !server.roots.is_empty() {
                outln!(
                    "  roots: {}{}",
                    server.roots.join(", "),
                    if inferred {
                        " (folders it is given are its roots: its tools may use paths there)"
                    } else {
                        ""
                    }
                );
            }
            Ok(())
        }
        McpCommand::List { json } => {
            if json {
                return print_json(&json!({ "servers": config.mcp.servers }));
            }
            if config.mcp.servers.is_empty() {
                outln!("no MCP servers configured (amber mcp add NAME -- COMMAND ARGS…)");
            }
            for server in &config.mcp.servers {
                let mut flags = Vec::new();
                if !server.enabled {
                    flags.push("disabled");
                }
                if server.lazy {
                    flags.push("lazy");
                }
                if server.trust_annotations {
                    flags.push("trusts annotations");
                }
                let roots = format!("roots {}", server.roots.join(", "));
                if !server.roots.is_empty() {
                    flags.push(&roots);
                }
                if server.url.is_none() && !server.sandbox {
                    flags.push("unsandboxed");
                } else if server.url.is_none() && !server.network {
                    flags.push("no network");
                }
                let flags = if flags.is_empty() {
                    String::new()
                } else {
                    format!("  ({})", flags.join(", "))
                };
                outln!("{}  {}{flags}", server.name, server.target());
            }
            Ok(())
        }
        McpCommand::Remove { name } => {
            config_edit::remove(&path, &name)?;
            let mut pins = amber_mcp::pins::PinStore::load(&dirs.data)?;
            pins.forget(&name);
            pins.save()?;
            outln!("removed MCP server `{name}`");
            Ok(())
        }
        McpCommand::Enable { name } => {
            config_edit::set_enabled(&path, &name, true)?;
            outln!("enabled MCP server `{name}`");
            Ok(())
        }
        McpCommand::Disable { name } => {
            config_edit::set_enabled(&path, &name, false)?;
            outln!("disabled MCP server `{name}`");
            Ok(())
        }
        McpCommand::Tools { name, json } => {
            let hub = mcp::standalone(&config, &dirs, workspace)?;
            let status = hub.connect(&name)?;
            let catalog = hub.catalog(&name)?;
            let notes = hub.take_notes();
            hub.shutdown();
            let tools: Vec<Value> = catalog
                .tools
                .iter()
                .map(|t| {
                    let held = status.held.contains(&t.name);
                    json!({
                        "name": t.name,
                        "amber_name": amber_mcp::names::tool_name(&name, &t.name),
                        "description": amber_mcp::sanitize::description(&t.description),
                        "schema": t.schema,
                        "read_only_hint": t.read_only_hint,
                        "held": held,
                    })
                })
                .collect();
            if json {
                return print_json(&json!({
                    "server": status,
                    "tools": tools,
                    "resources": catalog.resources.iter().map(|r| json!({"uri": r.key, "about": r.about})).collect::<Vec<_>>(),
                    "prompts": catalog.prompts.iter().map(|p| json!({"name": p.key, "about": p.about})).collect::<Vec<_>>(),
                    "warnings": notes,
                }));
            }
            for note in &notes {
                errln!("amber: warning: {note}");
            }
            out!("{}", mcp::render(std::slice::from_ref(&status)));
            for tool in &tools {
                let first_line = tool["description"]
                    .as_str()
                    .unwrap_or_default()
                    .lines()
                    .next()
                    .unwrap_or_default()
                    .to_string();
                let held = if tool["held"] == true {
                    "  [held back]"
                } else {
                    ""
                };
                outln!(
                    "tool {}{held}\n  {first_line}",
                    tool["amber_name"].as_str().unwrap_or_default()
                );
            }
            for resource in &catalog.resources {
                outln!("resource {}  {}", resource.key, resource.about);
            }
            for prompt in &catalog.prompts {
                outln!("prompt {}  {}", prompt.key, prompt.about);
            }
            Ok(())
        }
        McpCommand::Call {
            name,
            tool,
            args,
            json,
        } => {
            let args: Value = match args {
                Some(text) => serde_json::from_str(&text)
                    .with_context(|| format!("the arguments are not JSON: {text}"))?,
                None => json!({}),
            };
            if !args.is_object() {
                bail!("the arguments must be a JSON object, like '{{\"a\": 1}}'");
            }
            let hub = mcp::standalone(&config, &dirs, workspace)?;
            // The images are named in the text; a terminal shows no image.
            let result = hub.call_tool(&name, &tool, &args).map(|(text, _)| text);
            hub.shutdown();
            match result {
                Ok(text) if json => print_json(&json!({"ok": true, "content": text})),
                Ok(text) => {
                    outln!("{text}");
                    Ok(())
                }
                Err(e) if json => {
                    print_json(&json!({"ok": false, "error": e.to_string()}))?;
                    bail!("the call failed")
                }
                Err(e) => bail!("{e}"),
            }
        }
        McpCommand::Import {
            mcp_json,
            codex_config,
            yes,
            json,
        } => {
            let claude = mcp_json.unwrap_or_else(|| workspace.join(".mcp.json"));
            let codex = codex_config.unwrap_or_else(codex_config_path);
            let (found, mut skipped) = mcp::import::read(&claude, &codex)?;
            let mut adding = Vec::new();
            for f in found {
                let taken = config.mcp.server(&f.server.name).is_some()
                    || adding
                        .iter()
                        .any(|a: &mcp::import::Found| a.server.name == f.server.name);
                if taken {
                    skipped.push(mcp::import::Skipped {
                        name: f.server.name.clone(),
                        source: f.source.clone(),
                        reason: "a server of that name is configured already".into(),
                    });
                } else {
                    adding.push(f);
                }
            }
            if !json {
                if adding.is_empty() {
                    outln!(
                        "nothing to import from {} or {}",
                        claude.display(),
                        codex.display()
                    );
                }
                for f in &adding {
                    outln!(
                        "{}  {}  (from {})",
                        f.server.name,
                        f.server.target(),
                        f.source.display()
                    );
                    for key in f.server.env.keys() {
                        outln!("  env {key}");
                    }
                }
                for s in &skipped {
                    errln!(
                        "amber: skipped `{}` of {}: {}",
                        s.name,
                        s.source.display(),
                        s.reason
                    );
                }
            }
            if !adding.is_empty()
                && !yes
                && !confirm(&format!("add these {} MCP servers?", adding.len()))?
            {
                bail!("nothing added; rerun with --yes to add them without asking");
            }
            for f in &adding {
                config_edit::add(&path, &f.server)?;
            }
            if json {
                return print_json(&json!({"added": adding, "skipped": skipped}));
            }
            if !adding.is_empty() {
                outln!("added {} MCP servers to {}", adding.len(), path.display());
            }
            Ok(())
        }
        McpCommand::Approve { name, tool, json } => {
            let hub = mcp::standalone(&config, &dirs, workspace)?;
            let diff = hub.approve(&name, &tool)?;
            if json {
                return print_json(
                    &json!({"server": name, "tool": tool, "approved": true, "diff": diff}),
                );
            }
            out!("{diff}");
            outln!("approved the new `{tool}` of MCP server `{name}`; it is offered again");
            Ok(())
        }
    }
}

/// Codex's config: `$CODEX_HOME/config.toml`, else `~/.codex/config.toml`.
fn codex_config_path() -> PathBuf {
    match std::env::var_os("CODEX_HOME").filter(|v| !v.is_empty()) {
        Some(home) => PathBuf::from(home).join("config.toml"),
        None => std::env::var_os("HOME")
            .map(PathBuf::from)
            .unwrap_or_default()
            .join(".codex/config.toml"),
    }
}

/// Asks `question` on the terminal; without one, the answer is no.
fn confirm(question: &str) -> Result<bool> {
    use std::io::{BufRead, IsTerminal, Write};
    if !std::io::stdin().is_terminal() {
        return Ok(false);
    }
    eprint!("{question} [y/N] ");
    std::io::stderr().flush()?;
    let mut answer = String::new();
    std::io::stdin().lock().read_line(&mut answer)?;
    Ok(matches!(answer.trim(), "y" | "Y" | "yes"))
}

fn parse_env(pairs: &[String]) -> Result<BTreeMap<String, String>> {
    pairs
        .iter()
        .map(|pair| match pair.split_once('=') {
            Some((key, value)) if !key.is_empty() => Ok((key.to_string(), value.to_string())),
            _ => bail!("--env takes KEY=VALUE, not `{pair}`"),
        })
        .collect()
}
