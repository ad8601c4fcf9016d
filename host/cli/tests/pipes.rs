//! Every listing command piped into a reader that closes early exits with
//! status 0, no panic and no backtrace: `amber grep fn | head -1` behaves
//! as a Unix tool does. The reader here closes before amber writes a
//! byte, so every command meets the closed pipe whatever its output's size.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "a test fails by panicking, its helpers too"
)]

use std::io::Read;
use std::process::Stdio;

use amber_tests::cli::amber_command;

const AMBER: &str = env!("CARGO_BIN_EXE_amber");

#[test]
fn every_listing_command_into_a_closed_pipe_exits_cleanly() {
    let dir = tempfile::tempdir().unwrap();
    let (home, ws) = (dir.path().join("home"), dir.path().join("ws"));
    std::fs::create_dir_all(&home).unwrap();
    std::fs::create_dir_all(ws.join("src")).unwrap();
    // Enough output that no pipe buffer could hold it.
    for i in 0..40 {
        let body: String = (0..50)
            .map(|j| format!("fn f_{i}_{j}() {{ helper(); }}\n"))
            .collect();
        std::fs::write(ws.join(format!("src/m{i}.rs")), body + "fn helper() {}\n").unwrap();
    }
    let commands: &[&[&str]] = &[
        &["grep", "fn"],
        &["callers", "helper"],
        &["providers", "list"],
        &["index", "--json"],
        &["plugin", "info", "fs", "--json"],
        &["tool", "list", "--json"],
        &["plugin", "list"],
    ];
    for args in commands {
        let mut child = amber_command(AMBER, &home, &ws)
            .args(*args)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        // The reader goes away at once.
        drop(child.stdout.take());
        let mut stderr = String::new();
        child
            .stderr
            .take()
            .unwrap()
            .read_to_string(&mut stderr)
            .unwrap();
        let status = child.wait().unwrap();
        assert!(status.success(), "{args:?}: {status}: {stderr}");
        assert!(
            !stderr.contains("panicked") && !stderr.contains("Broken pipe"),
            "{args:?}: {stderr}"
        );
    }
}
