//! Nothing lost (docs/config.md, docs/sessions.md): each way a crash and
//! bad-input probe found to lose a user's data or hang amber, through the
//! real binary. The file tools on a full disk; concurrent config edits;
//! MCP servers with `env`; a FIFO or a `/dev/zero` link where a workspace
//! file is read; text from outside that must not drive the terminal; help
//! that runs nothing; a failed run piped to a file; leftovers of a killed
//! write. (The kill -9 matrix is `tests/tests/crash.rs`.)

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "a test fails by panicking, its helpers too"
)]

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use amber_tests::exec_env::{fake, text, Env};
use amber_tests::guest;
use serde_json::{json, Value};

const AMBER: &str = env!("CARGO_BIN_EXE_amber");

/// `amber tool call --json TOOL ARGS` → (status, output).
fn tool(env: &Env, name: &str, args: &Value) -> (String, String) {
    let out = env.run(&["tool", "call", "--json", name, &args.to_string()]);
    let v: Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|_| panic!("no JSON from {name}: {}", text(&out.stderr)));
    (
        v["status"].as_str().unwrap_or_default().to_string(),
        v["output"].as_str().unwrap_or_default().to_string(),
    )
}

/// A tmpfs mounted for the test's life, unmounted when dropped.
struct Tmpfs(PathBuf);

impl Tmpfs {
    /// Mounts `size` of tmpfs at `at`, where this process may (as root).
    fn mount(at: &Path, size: &str) -> Option<Tmpfs> {
        let mounted = Command::new("mount")
            .args(["-t", "tmpfs", "-o", &format!("size={size}"), "amber-test"])
            .arg(at)
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success());
        mounted.then(|| Tmpfs(at.to_path_buf()))
    }
}

impl Drop for Tmpfs {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg("-l").arg(&self.0).status();
    }
}

/// Fills the file system holding `file` until it refuses another byte.
fn fill(file: &Path) {
    use std::io::Write;
    let mut out = std::fs::File::create(file).unwrap();
    let chunk = vec![b'f'; 16 << 10];
    while out.write_all(&chunk).is_ok() {}
    // Then byte by byte, to the very last one.
    while out.write_all(b"f").is_ok() {}
}

fn mode(path: &Path) -> u32 {
    std::fs::metadata(path).unwrap().permissions().mode() & 0o7777
}

#[test]
fn a_full_disk_leaves_the_file_whole_and_an_edit_keeps_its_mode() {
    let env = Env::new(AMBER);
    let Some(_tmpfs) = Tmpfs::mount(&env.ws, "2m") else {
        eprintln!("skipped: cannot mount a 2 MB tmpfs here (not root, or no mount)");
        return;
    };
    let script = env.ws.join("run.sh");
    std::fs::write(&script, "#!/bin/sh\necho one\n").unwrap();
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o751)).unwrap();
    fill(&env.ws.join("filler"));

    // Any write needs a page the full tmpfs does not have.
    let big = "echo many\n".repeat(1_000);
    let (status, output) = tool(
        &env,
        "write_file",
        &json!({"path": "run.sh", "content": big}),
    );
    assert_eq!(status, "error", "{output}");
    assert!(
        output.contains("no space left on device (writing run.sh)"),
        "{output}"
    );
    let (status, output) = tool(
        &env,
        "edit_file",
        &json!({"path": "run.sh", "old_string": "one", "new_string": &big}),
    );
    assert_eq!(status, "error", "{output}");
    assert!(output.contains("no space left on device"), "{output}");
    // The file is whole, and nothing half-written is left beside it.
    assert_eq!(
        std::fs::read_to_string(&script).unwrap(),
        "#!/bin/sh\necho one\n"
    );
    let mut names: Vec<String> = std::fs::read_dir(&env.ws)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(names, ["filler", "run.sh"]);

    // With room again, an edit keeps the executable's mode.
    std::fs::remove_file(env.ws.join("filler")).unwrap();
    let (status, output) = tool(
        &env,
        "edit_file",
        &json!({"path": "run.sh", "old_string": "one", "new_string": "two"}),
    );
    assert_eq!(status, "ok", "{output}");
    assert_eq!(
        std::fs::read_to_string(&script).unwrap(),
        "#!/bin/sh\necho two\n"
    );
    assert_eq!(mode(&script), 0o751);
}

/// `amber ARGS` spawned, to run beside others.
fn spawn(env: &Env, args: &[&str]) -> std::process::Child {
    env.command(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

fn config(env: &Env) -> toml::Table {
    let text = std::fs::read_to_string(env.home.join("config.toml")).unwrap();
    text.parse().unwrap_or_else(|e| panic!("{e}\n{text}"))
}

#[test]
fn concurrent_config_edits_all_land_and_keep_the_files_mode() {
    let env = Env::new(AMBER);
    let path = env.home.join("config.toml");
    std::fs::write(&path, "# mine\n[agent]\nconfirm_turn = false\n").unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600)).unwrap();

    // Ten `mcp add`, each with a secret in its `env`, at once.
    let adds: Vec<_> = (0..10)
        .map(|i| {
            let name = format!("s{i}");
            let token = format!("TOKEN=secret-{i}");
            spawn(
                &env,
                &[
                    "mcp", "add", &name, "--env", &token, "--", "npx", "-y", "srv",
                ],
            )
        })
        .collect();
    for child in adds {
        let out = child.wait_with_output().unwrap();
        assert!(out.status.success(), "{}", text(&out.stderr));
    }
    let table = config(&env);
    let servers = table["mcp"]["servers"].as_array().unwrap();
    let mut names: Vec<&str> = servers
        .iter()
        .map(|s| s["name"].as_str().unwrap())
        .collect();
    names.sort();
    assert_eq!(names, (0..10).map(|i| format!("s{i}")).collect::<Vec<_>>());
    for server in servers {
        let n = &server["name"].as_str().unwrap()[1..];
        assert_eq!(
            server["env"]["TOKEN"].as_str(),
            Some(format!("secret-{n}").as_str())
        );
    }
    assert!(std::fs::read_to_string(&path)
        .unwrap()
        .starts_with("# mine\n"));
    assert_eq!(mode(&path), 0o600);

    // Six `/set --save` of six keys at once.
    let sets = [
        ["temperature", "0.5"],
        ["max_iterations", "7"],
        ["compress_threshold", "0.7"],
        ["compress_target", "0.4"],
        ["policy", "read"],
        ["model", "fake-mini"],
    ];
    let children: Vec<_> = sets
        .iter()
        .map(|[key, value]| spawn(&env, &["/set", key, value, "--save"]))
        .collect();
    for child in children {
        let out = child.wait_with_output().unwrap();
        assert!(out.status.success(), "{}", text(&out.stderr));
    }
    let out = env.run(&["/get", "--json"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let got = text(&out.stdout);
    for [key, value] in sets {
        assert!(got.contains(key) && got.contains(value), "{key}: {got}");
    }
    assert_eq!(config(&env)["mcp"]["servers"].as_array().unwrap().len(), 10);
    assert_eq!(mode(&path), 0o600);
}

#[test]
fn a_new_config_with_a_secret_is_private_and_a_linked_config_stays_a_link() {
    let env = Env::new(AMBER);
    let path = env.home.join("config.toml");
    let _ = std::fs::remove_file(&path);
    let out = env.run(&["mcp", "add", "one", "--env", "TOKEN=a", "--", "npx", "srv"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(mode(&path), 0o600);

    // Kept in a dotfiles folder and linked: edited through the link.
    let dotfiles = env.home.join("dotfiles");
    std::fs::create_dir(&dotfiles).unwrap();
    std::fs::rename(&path, dotfiles.join("amber.toml")).unwrap();
    std::os::unix::fs::symlink("dotfiles/amber.toml", &path).unwrap();
    let out = env.run(&["mcp", "add", "two", "--env", "TOKEN=b", "--", "npx", "srv"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(std::fs::symlink_metadata(&path)
        .unwrap()
        .file_type()
        .is_symlink());
    let servers = config(&env)["mcp"]["servers"].as_array().unwrap().clone();
    assert_eq!(servers.len(), 2);
    assert_eq!(servers[1]["env"]["TOKEN"].as_str(), Some("b"));

    // And an import of two servers with `env` is valid TOML too.
    std::fs::write(
        env.ws.join(".mcp.json"),
        r#"{"mcpServers": {
            "three": {"command": "npx", "args": ["a"], "env": {"K3": "v3"}},
            "four": {"command": "npx", "args": ["b"], "env": {"K4": "v4"}}
        }}"#,
    )
    .unwrap();
    let out = env.run(&["mcp", "import", "--yes"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let servers = config(&env)["mcp"]["servers"].as_array().unwrap().clone();
    assert_eq!(servers.len(), 4, "{servers:?}");
    let out = env.run(&["mcp", "list"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
}

/// `amber ARGS`, killed if it has not ended in a minute: a read that
/// blocks (a FIFO) must fail the test, not hang it.
fn run_bounded(mut cmd: Command) -> Output {
    let mut child = cmd
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let started = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if started.elapsed() > Duration::from_secs(60) {
            let _ = child.kill();
            let out = child.wait_with_output().unwrap();
            panic!("hung: {}", text(&out.stderr));
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    child.wait_with_output().unwrap()
}

fn mkfifo(path: &Path) {
    let name = std::ffi::CString::new(path.to_string_lossy().as_bytes()).unwrap();
    // SAFETY: a valid, NUL-terminated path.
    assert_eq!(unsafe { libc::mkfifo(name.as_ptr(), 0o600) }, 0);
}

/// Puts a FIFO, or a symlink to `/dev/zero`, at `path`.
fn plant(path: &Path, fifo: bool) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    let _ = std::fs::remove_file(path);
    if fifo {
        mkfifo(path);
    } else {
        std::os::unix::fs::symlink("/dev/zero", path).unwrap();
    }
}

#[test]
fn a_fifo_or_dev_zero_where_a_workspace_file_is_read_is_refused_in_a_line() {
    for fifo in [true, false] {
        let env = Env::new(AMBER);
        std::fs::write(
            env.home.join("config.toml"),
            "[agent]\nconfirm_turn = false\n[hooks]\nclaude_settings = true\n",
        )
        .unwrap();
        plant(&env.ws.join(".claude/settings.json"), fifo);
        plant(&env.ws.join("AGENTS.md"), fifo);
        let server = fake("[[turns]]\nreply = { text = \"ok\" }\n");
        let mut cmd = env.command(&["exec", "--json", "--base-url", &server.openai_base(), "hi"]);
        cmd.stdin(Stdio::null());
        let out = run_bounded(cmd);
        assert!(out.status.success(), "{}", text(&out.stderr));
        let warnings = text(&out.stdout)
            .lines()
            .filter_map(|l| serde_json::from_str::<Value>(l).ok())
            .find(|e| e["type"] == "session.started")
            .map(|e| e["warnings"].to_string())
            .unwrap_or_default();
        assert!(
            warnings.contains("settings.json is not read: it is not a regular file"),
            "{warnings}"
        );
        assert!(
            warnings.contains("AGENTS.md")
                && warnings.contains("going on without project instructions"),
            "{warnings}"
        );

        plant(&env.ws.join(".mcp.json"), fifo);
        let codex = env.home.join("codex");
        plant(&codex.join("config.toml"), fifo);
        let mut cmd = env.command(&["mcp", "import", "--yes"]);
        cmd.env("CODEX_HOME", &codex);
        let out = run_bounded(cmd);
        assert_eq!(out.status.code(), Some(1));
        let err = text(&out.stderr);
        assert!(
            err.contains(".mcp.json is not read: it is not a regular file"),
            "{err}"
        );
        std::fs::remove_file(env.ws.join(".mcp.json")).unwrap();
        let mut cmd = env.command(&["mcp", "import", "--yes"]);
        cmd.env("CODEX_HOME", &codex);
        let err = text(&run_bounded(cmd).stderr);
        assert!(
            err.contains("config.toml is not read: it is not a regular file"),
            "{err}"
        );

        let scenario = env.ws.join("bench/s.toml");
        plant(&scenario, fifo);
        let out = run_bounded(env.command(&["bench", "run", scenario.to_str().unwrap()]));
        assert_eq!(out.status.code(), Some(1));
        assert!(
            text(&out.stdout).contains("s.toml is not read: it is not a regular file"),
            "{}",
            text(&out.stdout)
        );
    }
}

/// Whether `bytes` hold an escape or another control character that is
/// not a newline or a tab: what must never reach a terminal raw.
fn raw_controls(bytes: &[u8]) -> bool {
    bytes
        .iter()
        .any(|b| (*b < 0x20 && *b != b'\n' && *b != b'\t') || *b == 0x7f)
}

#[test]
fn text_from_outside_never_drives_the_terminal() {
    let env = Env::new(AMBER);
    // A repository's .mcp.json, shown by `mcp import` and `mcp list`.
    std::fs::write(
        env.ws.join(".mcp.json"),
        r#"{"mcpServers": {"evil": {"command": "npx\u001b]0;owned\u0007", "args": ["\u001b[2J"]}}}"#,
    )
    .unwrap();
    for args in [&["mcp", "import", "--yes"][..], &["mcp", "list"]] {
        let out = env.run(args);
        assert!(out.status.success(), "{args:?}: {}", text(&out.stderr));
        assert!(
            !raw_controls(&out.stdout) && !raw_controls(&out.stderr),
            "{args:?}"
        );
        assert!(
            text(&out.stdout).contains("npx\\u{1b}]0;owned\\u{7}"),
            "{}",
            text(&out.stdout)
        );
    }

    // A tool name from the model, shown by `exec` on stderr; a plugin's log
    // line with the prompt in it.
    let out = env.run(&[
        "plugin",
        "add",
        guest("hook-script").to_str().unwrap(),
        "--yes",
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let server = fake(
        r#"
[[turns]]
reply = { tool_calls = [{ id = "c1", name = "read_note\u001b[2K", arguments = {}, undeclared = true }] }
[[turns]]
check_tool_results = false
reply = { text = "done" }
"#,
    );
    let out = env.run(&[
        "exec",
        "--base-url",
        &server.openai_base(),
        "hi \u{1b}[2J there",
    ]);
    // It ended right after its call was refused: status 4.
    assert_eq!(out.status.code(), Some(4), "{}", text(&out.stderr));
    assert!(!raw_controls(&out.stderr), "{}", text(&out.stderr));
    assert!(
        text(&out.stderr).contains("→ read_note\\u{1b}[2K"),
        "{}",
        text(&out.stderr)
    );
    let out = env.run(&["plugin", "logs", "hook-script"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(!raw_controls(&out.stdout));
    assert!(
        text(&out.stdout).contains("hi \\u{1b}[2J there"),
        "{}",
        text(&out.stdout)
    );

    // `/set` refuses what it would echo raw, and values past a cap.
    let before = std::fs::read(env.home.join("config.toml")).unwrap_or_default();
    for value in ["gpt\u{1b}[2J", &"m".repeat(500)] {
        let out = env.run(&["/set", "model", value]);
        // A value `/set` does not take: a usage error.
        assert_eq!(out.status.code(), Some(2), "{}", text(&out.stdout));
        assert!(!raw_controls(&out.stderr));
    }
    assert_eq!(
        std::fs::read(env.home.join("config.toml")).unwrap_or_default(),
        before
    );
}

#[test]
fn help_runs_nothing_and_a_failed_run_leaves_no_partial_reply_in_a_pipe() {
    let env = Env::new(AMBER);
    std::fs::write(
        env.home.join("config.toml"),
        "[agent]\nconfirm_turn = false\n[wire]\nmax_attempts = 2\nmax_retry_delay_ms = 10\n",
    )
    .unwrap();
    // With no session at all, `/compact --help` is its page.
    let out = env.run(&["/compact", "--help"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(
        text(&out.stdout).contains("/compact"),
        "{}",
        text(&out.stdout)
    );
    let before = std::fs::read(env.home.join("config.toml")).unwrap();
    let out = env.run(&["/set", "model", "--help"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(std::fs::read(env.home.join("config.toml")).unwrap(), before);

    // Every attempt cut after the first words: into a pipe, nothing.
    let server = fake(
        r#"
[[turns]]
faults = [{ kind = "cut", after_events = 3 }, { kind = "cut", after_events = 3 }, { kind = "cut", after_events = 3 }]
reply = { text = "A reply long enough to arrive in several pieces of text." }
"#,
    );
    let out = env.run(&["exec", "--base-url", &server.openai_base(), "answer"]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    assert_eq!(text(&out.stdout), "");
    let err = text(&out.stderr);
    assert!(
        err.contains("is not written to stdout, since the run did not finish"),
        "{err}"
    );
}

#[test]
fn bad_provider_values_and_hooks_of_the_wrong_shape_name_their_key() {
    let env = Env::new(AMBER);
    let server = fake("[[turns]]\nreply = { text = \"ok\" }\n");
    let base = server.openai_base();
    for (provider, key) in [
        (
            "flavor = \"openai-chat\"\nkey_env = \"\"",
            "providers.mine.key_env",
        ),
        (
            "flavor = \"openai-chat\"\ncontext_window = 0",
            "providers.mine.context_window",
        ),
        ("flavor = \"bogus\"", "providers.mine.flavor"),
    ] {
        std::fs::write(
            env.home.join("config.toml"),
            format!("[providers.mine]\nbase_url = \"{base}\"\nmodel = \"m\"\n{provider}\n"),
        )
        .unwrap();
        let out = env.run(&["exec", "--provider", "mine", "hi"]);
        assert_eq!(out.status.code(), Some(1), "{provider}");
        assert!(
            text(&out.stderr).contains(key),
            "{provider}: {}",
            text(&out.stderr)
        );
    }

    std::fs::write(
        env.home.join("config.toml"),
        "[agent]\nconfirm_turn = false\n[hooks]\nclaude_settings = true\n",
    )
    .unwrap();
    std::fs::create_dir_all(env.ws.join(".claude")).unwrap();
    std::fs::write(
        env.ws.join(".claude/settings.json"),
        r#"{"hooks": ["not", "events"]}"#,
    )
    .unwrap();
    let run = env.exec(&server, &[], "hi");
    run.assert_done("ok");
    let warnings = run.one("session.started")["warnings"].to_string();
    assert!(
        warnings.contains("`hooks` is an array, not an object of events"),
        "{warnings}"
    );
}

#[test]
fn a_corrupt_kept_copy_is_replaced_and_a_killed_writes_leftovers_are_removed() {
    let env = Env::new(AMBER);
    let notes = guest("notes-tool");
    let kept_dir = env.home.join("data/plugins/notes");
    let kept: PathBuf = std::fs::read_dir(&kept_dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.extension().is_some_and(|e| e == "wasm"))
        .unwrap();
    let whole = std::fs::read(&kept).unwrap();
    std::fs::write(&kept, &whole[..100]).unwrap();
    let out = env.run(&["plugin", "add", notes.to_str().unwrap(), "--yes"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(std::fs::read(&kept).unwrap(), whole);

    // What an amber killed mid-write left (its pid is past the kernel's
    // limit, so it runs no more) is gone at the next start, and doctor
    // says so.
    let leftovers = [
        kept_dir.join(".tmp-4194305-0"),
        env.home
            .join("data/plugins/.installed.json.amber-tmp-4194305-1"),
        env.home.join(".config.toml.amber-tmp-4194305-2"),
    ];
    for path in &leftovers {
        std::fs::write(path, "half").unwrap();
    }
    let out = env.run(&["doctor", "--json"]);
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    let removed = report["stale_temp_files"].to_string();
    for path in &leftovers {
        assert!(!path.exists(), "{}", path.display());
        assert!(
            removed.contains(path.file_name().unwrap().to_str().unwrap()),
            "{removed}"
        );
    }
}

#[test]
fn a_tool_name_with_escapes_is_shown_escaped_in_the_tui() {
    let env = Env::new(AMBER);
    std::fs::write(
        env.home.join("config.toml"),
        "[agent]\nconfirm_turn = false\n",
    )
    .unwrap();
    let server = fake(
        r#"
[[turns]]
reply = { tool_calls = [{ id = "c1", name = "read_note\u001b[2J\u001b[31m", arguments = {}, undeclared = true }] }
[[turns]]
check_tool_results = false
reply = { text = "Done with it." }
"#,
    );
    let tui = amber_tests::tmux::Tmux::start(&env, &server, "amber-escapes", "");
    tui.wait_for("session");
    tui.type_line("go");
    let screen = tui.wait_for("Done with it.");
    // Shown, not obeyed: the screen was not cleared, and the name reads
    // with its escapes.
    assert!(
        screen.contains("read_note\\u{1b}[2J\\u{1b}[31m"),
        "{screen}"
    );
    assert!(screen.contains("› go"), "{screen}");
}
