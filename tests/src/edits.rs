//! Sessions that changed files, for the checkpoint, rewind and crash
//! tests: turn 1 says hello over a.txt = "A1" and b.txt = "B1"; turns 2
//! to 4 write a.txt and b.txt with `write_file`, run a sandboxed shell
//! command that makes c.txt, and end. And `git` in a test's folder, with
//! an identity of its own.

use std::path::Path;

use crate::exec_env::{fake, Env};

/// The script of turns 2 to 4.
pub const EDITS: &str = r#"
[[turns]]
reply = { tool_calls = [{ id = "w1", name = "write_file", arguments = { path = "a.txt", content = "A2\n" } }, { id = "w2", name = "write_file", arguments = { path = "b.txt", content = "B2\n" } }] }
[[turns]]
reply = { tool_calls = [{ id = "s1", name = "shell", arguments = { command = "printf 'C\n' > c.txt" } }] }
[[turns]]
reply = { text = "All three written." }
"#;

/// A session of one hello turn over a.txt = "A1" and b.txt = "B1"; its id.
pub fn hello(env: &Env) -> String {
    std::fs::write(env.ws.join("a.txt"), "A1\n").unwrap();
    std::fs::write(env.ws.join("b.txt"), "B1\n").unwrap();
    let server = fake("[[turns]]\nreply = { text = \"hi\" }\n");
    let run = env.exec(&server, &[], "hello");
    run.assert_done("hi");
    run.session_id()
}

/// [`hello`], then the edits: a.txt = "A2", b.txt = "B2", c.txt = "C".
pub fn edited(env: &Env) -> String {
    let id = hello(env);
    let server = fake(EDITS);
    env.exec(&server, &["--resume", &id, "--yes"], "write them")
        .assert_done("All three written.");
    id
}

/// `git ARGS` in `dir`, which must succeed.
pub fn git(dir: &Path, args: &[&str]) {
    let ok = std::process::Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(["-c", "user.name=t", "-c", "user.email=t@t"])
        .args(args)
        .status()
        .unwrap()
        .success();
    assert!(ok, "git {args:?} in {}", dir.display());
}
