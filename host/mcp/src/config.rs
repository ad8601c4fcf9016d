//! `[[mcp.servers]]` in amber's config: what a server is and how amber
//! reaches it. The types live here, beside the code that reads them, and
//! amber-config embeds them; every key is in docs/config.md.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

/// The `[mcp]` table.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct McpConfig {
    pub servers: Vec<ServerConfig>,
}

/// The first model request waits this long for a server's tools.
pub const DEFAULT_STARTUP_TIMEOUT_MS: u64 = 5_000;

/// A call waits this long for the server's answer, unless its config
/// says `call_timeout_ms`.
pub const DEFAULT_CALL_TIMEOUT_MS: u64 = 120_000;

/// One server: `command` (with `args`) for stdio, or `url` for streamable
/// HTTP, never both.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ServerConfig {
    /// Its tools are `<name>__<tool>`: 1–32 of `[A-Za-z0-9_-]`.
    pub name: String,
    /// The program: it and each of `args` are quoted into one `sh -c`
    /// line, so no word is split or expanded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub command: Option<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub args: Vec<String>,
    /// A streamable HTTP endpoint.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    /// Variables given to this server only, besides the allowlist every
    /// command gets; the only way a key reaches a server.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub env: BTreeMap<String, String>,
    /// Where it runs; default the workspace.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cwd: Option<PathBuf>,
    /// Start once the first model request has gone out (the startup wait
    /// is over) instead of at session start.
    #[serde(default, skip_serializing_if = "is_false")]
    pub lazy: bool,
    #[serde(default = "yes", skip_serializing_if = "is_true")]
    pub enabled: bool,
    /// Believe its `readOnlyHint`: such tools then run in read mode and
    /// unasked in write mode.
    #[serde(default, skip_serializing_if = "is_false")]
    pub trust_annotations: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub startup_timeout_ms: Option<u64>,
    /// How long a call may wait for the server's answer; default 120 s.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub call_timeout_ms: Option<u64>,
    /// Folders outside the workspace the server works in (`~/notes`): sent
    /// to it as its MCP roots, and the only outside paths its tools'
    /// arguments may name (inside the workspace stays allowed).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub roots: Vec<String>,
    /// A stdio server runs in the OS sandbox (docs/mcp.md); `false` runs
    /// it as any program of the user's, which `amber mcp add` asks about.
    #[serde(default = "yes", skip_serializing_if = "is_true")]
    pub sandbox: bool,
    /// Its sandbox lets it reach the network (servers call APIs); `false`
    /// cuts it off.
    #[serde(default = "yes", skip_serializing_if = "is_true")]
    pub network: bool,
}

fn yes() -> bool {
    true
}

fn is_true(b: &bool) -> bool {
    *b
}

fn is_false(b: &bool) -> bool {
    !*b
}

/// How amber reaches a server.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Endpoint<'a> {
    Stdio {
        command: &'a str,
        args: &'a [String],
    },
    Http {
        url: &'a str,
    },
}

impl ServerConfig {
    /// A stdio server with defaults, for `amber mcp add` and tests.
    pub fn stdio(name: &str, command: &str, args: &[&str]) -> ServerConfig {
        ServerConfig {
            name: name.into(),
            command: Some(command.into()),
            args: args.iter().map(|a| a.to_string()).collect(),
            url: None,
            env: BTreeMap::new(),
            cwd: None,
            lazy: false,
            enabled: true,
            trust_annotations: false,
            startup_timeout_ms: None,
            call_timeout_ms: None,
            roots: Vec::new(),
            sandbox: true,
            network: true,
        }
    }

    /// The folders the server's arguments name by an absolute or `~/`
    /// path, each an existing folder that is not `/` or the whole home:
    /// server-filesystem and its like are given the folders they serve
    /// so. `amber mcp add` and `amber mcp import` make them roots, since
    /// the server means to work there.
    pub fn folder_args(&self) -> Vec<String> {
        let home = std::env::var_os("HOME").map(PathBuf::from);
        let real = |p: &Path| p.canonicalize().ok();
        let real_home = home.as_deref().and_then(real);
        self.args
            .iter()
            .filter_map(|arg| {
                let path = match (arg.strip_prefix("~/"), &home) {
                    (Some(rest), Some(home)) => home.join(rest),
                    _ => PathBuf::from(arg),
                };
                let folder = real(&path).filter(|p| p.is_absolute() && p.is_dir())?;
                // A hidden folder of the home (`~/.ssh`, a tool's
                // `--config ~/.x`) is no folder a server serves.
                let hidden = real_home
                    .as_ref()
                    .and_then(|h| folder.strip_prefix(h).ok())
                    .is_some_and(|rest| {
                        rest.components()
                            .any(|c| c.as_os_str().to_string_lossy().starts_with('.'))
                    });
                (!too_wide(&folder) && !hidden && path.is_absolute())
                    .then(|| path.display().to_string())
            })
            .collect()
    }

    /// Makes each of [`Self::folder_args`] one of its roots too, after
    /// those it has; whether any was added. `amber mcp add` and `amber mcp
    /// import` both call it.
    pub fn adopt_folder_args(&mut self) -> bool {
        let mut added = false;
        for folder in self.folder_args() {
            if !self.roots.contains(&folder) {
                self.roots.push(folder);
                added = true;
            }
        }
        added
    }

    /// `roots` as absolute folders: `~` is the home folder, and a relative
    /// one is the workspace's (odd for a root, but not wrong). `..` is
    /// resolved lexically, so a root says what it names.
    pub fn root_dirs(&self, workspace: &Path) -> Vec<PathBuf> {
        self.roots
            .iter()
            .filter_map(|root| root_dir(root, workspace))
            .collect()
    }

    /// A streamable HTTP server with defaults.
    pub fn http(name: &str, url: &str) -> ServerConfig {
        ServerConfig {
            command: None,
            args: Vec::new(),
            url: Some(url.into()),
            ..ServerConfig::stdio(name, "", &[])
        }
    }

    pub fn endpoint(&self) -> Result<Endpoint<'_>, String> {
        match (&self.command, &self.url) {
            (Some(command), None) if !command.trim().is_empty() => Ok(Endpoint::Stdio {
                command,
                args: &self.args,
            }),
            (None, Some(url)) => {
                if url.starts_with("http://") || url.starts_with("https://") {
                    Ok(Endpoint::Http { url })
                } else {
                    Err(format!(
                        "MCP server `{}`: `{url}` is not an http(s) URL",
                        self.name
                    ))
                }
            }
            (Some(_), Some(_)) => Err(format!(
                "MCP server `{}` has both `command` and `url`; give one",
                self.name
            )),
            _ => Err(format!(
                "MCP server `{}` needs `command` (stdio) or `url` (streamable HTTP)",
                self.name
            )),
        }
    }

    pub fn startup_timeout(&self) -> std::time::Duration {
        std::time::Duration::from_millis(
            self.startup_timeout_ms
                .unwrap_or(DEFAULT_STARTUP_TIMEOUT_MS),
        )
    }

    pub fn call_timeout(&self) -> std::time::Duration {
        std::time::Duration::from_millis(self.call_timeout_ms.unwrap_or(DEFAULT_CALL_TIMEOUT_MS))
    }

    /// What `amber mcp list` shows of how it is reached.
    pub fn target(&self) -> String {
        match self.endpoint() {
            Ok(Endpoint::Stdio { command, args }) => std::iter::once(command.to_string())
                .chain(args.iter().cloned())
                .collect::<Vec<_>>()
                .join(" "),
            Ok(Endpoint::Http { url }) => url.to_string(),
            Err(e) => e,
        }
    }
}

/// One root as a folder (see [`ServerConfig::root_dirs`]); `None` for an
/// empty one or one whose `..` climbs above `/`.
fn root_dir(root: &str, workspace: &Path) -> Option<PathBuf> {
    if root.trim().is_empty() {
        return None;
    }
    let home = std::env::var_os("HOME").map(PathBuf::from);
    let path = match (root, root.strip_prefix("~/"), &home) {
        ("~", _, Some(home)) => home.clone(),
        (_, Some(rest), Some(home)) => home.join(rest),
        _ => PathBuf::from(root),
    };
    let path = if path.is_absolute() {
        path
    } else {
        workspace.join(path)
    };
    lexically_normal(&path)
}

/// Whether a root at `dir` would open too much: `/`, the home folder or a
/// folder holding it (resolved where it exists, so a link cannot hide it).
pub fn too_wide(dir: &Path) -> bool {
    let real = |p: &Path| p.canonicalize().unwrap_or_else(|_| p.to_path_buf());
    let dir = real(dir);
    let home = std::env::var_os("HOME").map(|h| real(Path::new(&h)));
    dir == Path::new("/") || home.is_some_and(|h| h.starts_with(&dir))
}

/// `path` with `.` and `..` taken out; `None` when `..` climbs above `/`.
fn lexically_normal(path: &Path) -> Option<PathBuf> {
    let mut out = PathBuf::new();
    for component in path.components() {
        match component {
            std::path::Component::ParentDir => {
                if !out.pop() || out.as_os_str().is_empty() {
                    return None;
                }
            }
            std::path::Component::CurDir => {}
            other => out.push(other.as_os_str()),
        }
    }
    Some(out)
}

impl McpConfig {
    /// Every check types cannot make: names, endpoints, no two servers of
    /// one name. `Err` is `(index, key, value, reason)` for the config's
    /// error, which names the line.
    pub fn check(&self) -> Result<(), (usize, &'static str, String, String)> {
        let mut seen = std::collections::BTreeSet::new();
        for (i, server) in self.servers.iter().enumerate() {
            crate::names::check_server_name(&server.name)
                .map_err(|reason| (i, "name", server.name.clone(), reason))?;
            if !seen.insert(server.name.as_str()) {
                let reason = format!("a second MCP server is named `{}`", server.name);
                return Err((i, "name", server.name.clone(), reason));
            }
            server
                .endpoint()
                .map_err(|reason| (i, "command", server.target(), reason))?;
            // Checked as amber will use them, expanded and resolved: `/tmp/..`
            // is `/`, and `~/.` the home.
            for root in &server.roots {
                if root_dir(root, Path::new("/")).is_none_or(|dir| too_wide(&dir)) {
                    let reason = "a root is a folder of its own, not `/`, the home folder or a folder that holds it".to_string();
                    return Err((i, "roots", root.clone(), reason));
                }
            }
            for key in server.env.keys() {
                if key.is_empty() || key.contains('=') {
                    let reason = "not a variable name".to_string();
                    return Err((i, "env", key.clone(), reason));
                }
            }
        }
        Ok(())
    }

    pub fn server(&self, name: &str) -> Option<&ServerConfig> {
        self.servers.iter().find(|s| s.name == name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_server_is_reached_by_command_or_url_and_never_both() {
        assert!(matches!(
            ServerConfig::stdio("a", "node", &["x.js"]).endpoint(),
            Ok(Endpoint::Stdio { .. })
        ));
        assert!(matches!(
            ServerConfig::http("a", "http://127.0.0.1:1/mcp").endpoint(),
            Ok(Endpoint::Http { .. })
        ));
        let mut both = ServerConfig::stdio("a", "node", &[]);
        both.url = Some("http://x".into());
        assert!(both.endpoint().unwrap_err().contains("both"));
        let ftp = ServerConfig::http("a", "ftp://x");
        assert!(ftp.endpoint().unwrap_err().contains("not an http(s) URL"));
    }

    #[test]
    fn roots_are_absolute_folders_with_the_home_expanded() {
        let home = std::env::var("HOME").unwrap_or_default();
        let mut server = ServerConfig::stdio("fs", "npx", &[]);
        server.roots = vec!["~/notes".into(), "/var/tmp/x/../y".into(), "docs".into()];
        let dirs = server.root_dirs(Path::new("/ws"));
        assert_eq!(
            dirs,
            [
                PathBuf::from(home).join("notes"),
                PathBuf::from("/var/tmp/y"),
                PathBuf::from("/ws/docs")
            ]
        );
        for whole in ["/", "~", "~/", "/tmp/..", "~/.", "//"] {
            let config = McpConfig {
                servers: vec![ServerConfig {
                    roots: vec![whole.into()],
                    ..server.clone()
                }],
            };
            assert_eq!(config.check().unwrap_err().1, "roots", "{whole}");
        }
    }

    #[test]
    fn folders_in_the_arguments_are_found_but_not_the_root_or_the_home() {
        let dir = tempfile::tempdir().unwrap();
        let notes = dir.path().join("notes");
        std::fs::create_dir(&notes).unwrap();
        let file = dir.path().join("a.txt");
        std::fs::write(&file, "").unwrap();
        let home = std::env::var("HOME").unwrap_or_else(|_| "/".into());
        let server = ServerConfig::stdio(
            "fs",
            "npx",
            &[
                "-y",
                "@modelcontextprotocol/server-filesystem",
                notes.to_str().unwrap(),
                file.to_str().unwrap(),
                "/",
                &home,
                "relative/dir",
            ],
        );
        assert_eq!(server.folder_args(), [notes.display().to_string()]);
    }

    #[test]
    fn the_check_names_the_bad_server() {
        let config = McpConfig {
            servers: vec![
                ServerConfig::stdio("fs", "node", &[]),
                ServerConfig::stdio("fs", "node", &[]),
            ],
        };
        let (i, key, _, reason) = config.check().unwrap_err();
        assert_eq!((i, key), (1, "name"));
        assert!(reason.contains("second"), "{reason}");
        let bad = McpConfig {
            servers: vec![ServerConfig::stdio("a__b", "node", &[])],
        };
        assert!(bad.check().unwrap_err().3.contains("separates"));
    }
}
