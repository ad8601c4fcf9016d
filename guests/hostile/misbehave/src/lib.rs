//! A plugin whose tools each misbehave in one way. The containment tests
//! call them and check the host survives, names the cause, and keeps
//! serving other plugins. Never bundled.
use amber_sdk::prelude::*;
use std::hint::black_box;

#[derive(Default)]
struct Misbehave;

impl Plugin for Misbehave {
    fn manifest() -> Manifest {
        Manifest::new(
            "misbehave",
            "0.1.0",
            "Tools that spin, trap, leak and snoop.",
        )
        .permission(Permission::WorkspaceRead, "to try to read outside it")
        .permission(Permission::Exec, "to run commands it was not granted")
    }

    fn initialize(&mut self, _ctx: &InitContext) -> Result<(), String> {
        match amber_sdk::setting("fail-initialize") {
            Some(reason) => Err(reason),
            None => Ok(()),
        }
    }
}

const TOOLS: &[&str] = &[
    "spin",
    "alloc",
    "recurse",
    "trap",
    "panic",
    "big-output",
    "read",
    "env",
    "exec",
    "read-many",
    "walk",
    "walk-leak",
    "tcp-connect",
    "udp-send",
    "dns-lookup",
    "ok",
];

/// What a network attempt came to: `denied: <kind>: <error>` when the
/// sandbox refused it, `reached: ...` when it went out (which must never
/// happen).
fn network(attempt: std::io::Result<String>) -> Result<ToolOutput, ToolError> {
    match attempt {
        Ok(what) => Ok(ToolOutput::text(format!("reached: {what}"))),
        Err(e) => Err(ToolError::Failed(format!("denied: {:?}: {e}", e.kind()))),
    }
}

fn recurse(depth: u64) -> u64 {
    if black_box(depth) == u64::MAX {
        return 0;
    }
    recurse(black_box(depth + 1)).wrapping_add(depth)
}

impl ToolPlugin for Misbehave {
    fn tools(&self) -> Vec<ToolSpec> {
        let describe = |name: &str| ToolSpec::new(name, "misbehaves").read_only();
        TOOLS.iter().map(|name| describe(name)).collect()
    }

    fn call(&mut self, tool: &str, args: Value) -> Result<ToolOutput, ToolError> {
        match tool {
            "spin" => loop {
                black_box(());
            },
            "alloc" => {
                let mut hoard: Vec<Vec<u8>> = Vec::new();
                loop {
                    hoard.push(vec![1u8; 1 << 20]);
                    black_box(&hoard);
                }
            }
            "recurse" => Ok(ToolOutput::text(recurse(0).to_string())),
            "trap" => std::process::abort(),
            "panic" => panic!("misbehave panicked on purpose"),
            "big-output" => Ok(ToolOutput::text("x".repeat(100 << 20))),
            "read" => {
                let path = args["path"].as_str().unwrap_or_default();
                std::fs::read_to_string(path)
                    .map(ToolOutput::text)
                    .map_err(|e| ToolError::Failed(format!("{path}: {e}")))
            }
            "env" => {
                let vars: Vec<String> = std::env::vars().map(|(k, v)| format!("{k}={v}")).collect();
                Ok(ToolOutput::text(vars.join("\n")))
            }
            "exec" => {
                let command = args["command"].as_str().unwrap_or("cat /etc/passwd");
                let cwd = args["cwd"].as_str().map(String::from);
                let out = amber_sdk::exec::run(command, cwd.as_deref(), None)
                    .map_err(ToolError::Failed)?;
                let code = out.exit_code.map_or("none".to_string(), |c| c.to_string());
                Ok(ToolOutput::text(out.stdout)
                    .with_meta(json!({"exit": code, "timed_out": out.timed_out})))
            }
            "read-many" => {
                let paths: Vec<String> = args["paths"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .filter_map(|p| p.as_str().map(String::from))
                    .collect();
                let max = args["max_bytes"].as_u64().unwrap_or(1 << 20);
                let read = amber_sdk::files::read_many(&paths, max).map_err(ToolError::Failed)?;
                let lines: Vec<String> = paths
                    .iter()
                    .zip(read)
                    .map(|(path, result)| match result {
                        Ok(bytes) => format!("{path}: ok {}", String::from_utf8_lossy(&bytes)),
                        Err(amber_sdk::files::ReadError::TooLarge(size)) => {
                            format!("{path}: too large {size}")
                        }
                        Err(amber_sdk::files::ReadError::Failed(why)) => {
                            format!("{path}: failed {why}")
                        }
                    })
                    .collect();
                Ok(ToolOutput::text(lines.join("\n")))
            }
            "walk" => {
                let root = args["root"].as_str().unwrap_or(".");
                let walk = amber_sdk::files::walk(root).map_err(ToolError::Failed)?;
                let lines: Vec<String> = walk
                    .map(|entry| {
                        use amber_sdk::files::EntryKind;
                        let kind = match entry.kind {
                            EntryKind::File => "file",
                            EntryKind::Folder => "folder",
                            EntryKind::Symlink => "symlink",
                            EntryKind::Other => "other",
                        };
                        format!("{kind} {}", entry.path)
                    })
                    .collect();
                Ok(ToolOutput::text(lines.join("\n")))
            }
            "walk-leak" => {
                for _ in 0..100 {
                    let walk = amber_sdk::files::walk(".").map_err(ToolError::Failed)?;
                    std::mem::forget(walk);
                }
                Ok(ToolOutput::text("opened 100 walks"))
            }
            // A public address, a loopback one and a name: none may work.
            "tcp-connect" => {
                let to = args["to"].as_str().unwrap_or("1.1.1.1:443");
                network(std::net::TcpStream::connect(to).map(|s| format!("{:?}", s.peer_addr())))
            }
            "udp-send" => {
                let to = args["to"].as_str().unwrap_or("1.1.1.1:53");
                network(
                    std::net::UdpSocket::bind("0.0.0.0:0")
                        .and_then(|socket| socket.send_to(b"amber", to))
                        .map(|sent| format!("sent {sent} bytes to {to}")),
                )
            }
            "dns-lookup" => {
                use std::net::ToSocketAddrs;
                let name = args["name"].as_str().unwrap_or("example.com:80");
                network(
                    name.to_socket_addrs()
                        .map(|addrs| format!("{:?}", addrs.collect::<Vec<_>>())),
                )
            }
            "ok" => Ok(ToolOutput::text("still here")),
            other => Err(ToolError::Failed(format!("no tool `{other}`"))),
        }
    }
}

amber_sdk::export!(Misbehave: tool);
